"""Every example in examples/jit runs to the end under `python FILE.py` and passes its own checks."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "jit").glob("*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_checks_itself(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "match" in capsys.readouterr().out
