# The two entry points of a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-dev lint pytest lit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install -q -e .

install-dev: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'

demo: install
	$(BIN)/tilefold demo

lint: install-dev
	$(BIN)/ruff check src tests benchmarks examples tools
	$(BIN)/python tools/layers.py
	$(BIN)/python tools/function_length.py

pytest: install-dev
	$(BIN)/python -m pytest

lit: install-dev
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -q tests/lit

test: lint pytest lit

bench: install
	$(BIN)/tilefold bench

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
