"""Every ```python block of README.md and docs/dsl.md that starts with ``import tilefold.language as pl``
must work as written: a block with a ``@pl.program`` class parses with ``pl.parse``; any other such block
(plain Python using tilefold) must at least be valid Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tilefold.language as pl

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/dsl.md")
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for i, match in enumerate(FENCE.finditer(text)):
            code = match.group(1)
            if code.startswith("import tilefold.language as pl"):
                found.append((f"{doc}#{i}", code))
    return found


def test_there_are_snippets_to_check():
    docs = {name.split("#")[0] for name, _ in _blocks()}
    assert docs == set(DOCS)


@pytest.mark.parametrize("name, code", _blocks(), ids=[n for n, _ in _blocks()])
def test_doc_snippet_parses(name, code):
    ast.parse(code, filename=name)
    if "@pl.program" in code:
        program = pl.parse(code, filename=name)
        assert program.functions
