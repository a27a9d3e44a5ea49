"""A ``with pl.at(...)`` scope inside a loop of a ``@pl.program`` orchestration (or Opaque) function: the loop is
unrolled at parse time, as the ``@pl.jit`` entry's loops are (one mechanism,
``StatementsMixin._unroll_orchestration_loop``), so each iteration's scope is outlined with the loop variable a
constant. References are numpy, written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TilefoldError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(5)
HEAD = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, a: pl.Tensor[[64, 32], pl.FP32], i: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        t = pl.load(a, [i * 16, 0], [16, 32])
        out = pl.store(pl.muls(t, 2.0), [i * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.{kind})
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
{body}
        return out
"""


def _program(body: str, kind: str = "Orchestration"):
    return pl.parse(HEAD.format(kind=kind, body="\n".join("        " + ln for ln in body.splitlines())))


def _run(program, a):
    report = run_and_compare(program, {"a": a, "n": 0, "out": np.zeros_like(a)})
    assert report.fault is None and report.matches, report.summary()
    return report.outputs["out"]


SCALED = ("for i in pl.range(4):\n"
          "    with pl.at(level=pl.Level.CORE_GROUP):\n"
          "        t = pl.load(a, [i * 16, 0], [16, 32])\n"
          "        out = pl.store(pl.muls(t, i + 1.0), [i * 16, 0], out)")


@pytest.mark.parametrize("kind", ["Orchestration", "Opaque"])
def test_each_iteration_runs_its_scope(kind):
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    program = _program(SCALED, kind)
    text = pl.python_print(program)
    assert text.count("with pl.at(") == 4 and "pl.range" not in text.split("def main")[1]
    expected = a * np.repeat(np.arange(1, 5, dtype=np.float32), 16)[:, None]
    np.testing.assert_array_equal(_run(program, a), expected)


def test_scopes_and_launches_interleave_with_a_value_staged_between_scopes():
    body = ("for i in pl.range(0, 4, 2):\n"
            "    out = self.twice(a, i, out)\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        y = pl.exp(a)\n"
            "    with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
            "        out = pl.store(pl.adds(pl.load(y, [i * 16 + 16, 0], [16, 32]), 1.0), [i * 16 + 16, 0], out)")
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    expected = np.empty_like(a)
    for blk in range(4):
        rows = slice(blk * 16, blk * 16 + 16)
        expected[rows] = 2.0 * a[rows] if blk % 2 == 0 else np.exp(a[rows]) + 1.0
    np.testing.assert_allclose(_run(_program(body), a), expected, rtol=1e-5)


def test_a_loop_without_a_scope_stays_a_loop():
    body = "for i in pl.range(4):\n    out = self.twice(a, i, out)"
    text = pl.python_print(_program(body))
    assert "for i, (out_1,) in pl.range(4, init_values=(out,)):" in text
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    np.testing.assert_array_equal(_run(_program(body), a), 2.0 * a)


@pytest.mark.parametrize("body,error,message", [
    (SCALED.replace("pl.range(4)", "pl.range(n)"), NotSupportedError, "needs constant bounds"),
    (SCALED.replace("pl.range(4)", "pl.range(2000)"), NotSupportedError, "2000 iterations is too long"),
    (SCALED.replace("for i in pl.range(4):", "for i, (o,) in pl.range(4, init_values=(out,)):"), ParseError,
     "unrolled at parse time"),
    ("for i in pl.range(4):\n    if i > 1:\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
     "            out = pl.store(pl.load(a, [0, 0], [16, 32]), [0, 0], out)", NotSupportedError,
     "inside a loop, an if or another scope"),
    ("for i in pl.range(4):\n    with pl.at(level=pl.Level.CORE_GROUP):\n"
     "        out = pl.store(pl.load(a, [i * 16, 0], [16, 32]), [i * 16 + 64, 0], out)", TilefoldError,
     r"store window \[64:80\) on axis 0 is outside the tensor extent 64"),  # the first iteration's scope, checked
])
def test_bad_loops_around_scopes_are_located(body, error, message):
    with pytest.raises(error, match=message) as info:
        from tilefold.compiler import compile as compile_program

        compile_program(_program(body), "Ascend910B")
    assert info.value.span is not None and info.value.hint
