"""``@pl.inline`` / ``@pl.jit.inline`` / ``@pl.jit.opaque`` helpers in jit *source text* (``pl.parse``,
``parse_jit_text``, ``tilefold run FILE``): resolved from the same text by the one splice mechanism
(frontend/inline.py), without running any of the text."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import ParseError
from tilefold.runtime.jit import parse_jit_text
from tilefold.testing import run_and_compare

TEXT = '''
import tilefold.language as tl

BIAS = 2.0

@tl.inline
def softplus_like(x, bias):
    e = tl.exp(x)
    return tl.add(e, bias)

@tl.jit.inline
def twice(x):
    y = softplus_like(x, BIAS)
    return tl.add(y, y)

@tl.jit.opaque
def halve(x):
    return tl.mul(x, 0.5)

@tl.jit
def entry(a: tl.Tensor[[16, 64], tl.FP32], out: tl.Out[tl.Tensor[[16, 64], tl.FP32]]):
    with tl.at(level=tl.Level.CORE_GROUP):
        out[:] = halve(twice(a))
    return out
'''


def _run(program: ir.Program, a: np.ndarray) -> np.ndarray:
    report = run_and_compare(program, {"a": a, "out": np.zeros_like(a)})
    assert report.fault is None and report.matches, report.summary()
    return report.outputs["out"]


def test_text_helpers_are_spliced_and_compute_the_reference():
    a = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    want = ((np.exp(a) + 2.0) * 2.0) * 0.5  # numpy reference of halve(twice(a))
    for program in (pl.parse(TEXT, "helpers.py"), parse_jit_text(TEXT, "helpers.py")):
        assert [f.name for f in program.functions] == ["entry"]  # helpers leave no function behind
        np.testing.assert_allclose(_run(program, a), want, rtol=1e-5, atol=1e-6)


def test_text_helpers_are_never_executed():
    # module code that would end the process if Python ran it: parsing reads the text only
    text = TEXT.replace("BIAS = 2.0", "BIAS = 2.0\nraise SystemExit('executed')")
    program = pl.parse(text, "helpers.py")
    assert [f.name for f in program.functions] == ["entry"]


def test_an_undecorated_helper_in_text_is_a_located_error():
    text = TEXT.replace("@tl.inline\n", "")
    with pytest.raises(ParseError) as e:
        pl.parse(text, "helpers.py")
    assert "softplus_like" in str(e.value) and e.value.span is not None and e.value.span.line > 0


def test_a_recursive_text_helper_is_refused_located():
    text = TEXT.replace("    return tl.mul(x, 0.5)", "    return halve(x)")
    with pytest.raises(ParseError, match="calls itself"):
        pl.parse(text, "helpers.py")


def test_tilefold_run_on_a_text_with_pl_inline(tmp_path, capsys):
    from tilefold.cli import main

    path = tmp_path / "helpers.py"
    path.write_text(TEXT)
    assert main(["run", str(path)]) == 0
    assert "MATCH" in capsys.readouterr().out
