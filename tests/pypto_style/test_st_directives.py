"""Parse-time constructs of PyPTO's language pages in the program form: ``pl.static_print`` /
``pl.static_assert`` (Directives), ``x.shape[i]`` and ``pl.dim`` / ``pl.tensor.dim``, Python operators on tiles
(Syntax), and the located errors for their misuse."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import rand, run_case

import tilefold.language as pl
from tilefold.errors import ParseError

TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
{body}
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, x: pl.Tensor[[32, 128], pl.FP32],
                     out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        out = self.kernel(x, out)
        return out
"""


def _parse(body: str):
    return pl.parse(TEXT.format(body="\n".join("        " + ln for ln in body.strip().splitlines())))


def test_static_print_and_assert_leave_nothing_in_the_ir(capsys):
    program = _parse("""
pl.static_print("x =", x, x.shape[1])
pl.static_assert(x.shape[1] == 128, "expected 128 columns")
pl.static_assert(pl.tensor.dim(x, 0) * 4 == 128, "expected 32 rows")
t = pl.load(x, [0, 0], [x.shape[0], pl.dim(x, 1)])
out = pl.store(t * 2.0 + t, [0, 0], out)
""")
    printed = capsys.readouterr().out
    assert "x =" in printed and "128" in printed and "FP32" in printed
    assert "static" not in program.as_python()
    x = rand((32, 128), "fp32", 1)
    run_case(program, {"x": x}, {"out": np.zeros((32, 128), np.float32)}, lambda v: {"out": 3.0 * v["x"]})


@pytest.mark.parametrize("body,message", [
    ('pl.static_assert(x.shape[1] == 64, "expected 64 columns")', "static assertion failed: expected 64 columns"),
    ('msg = 3\npl.static_assert(x.shape[1] == 128, msg)', "string literal message"),
    ('i = pl.tensor.read(x, [0, 0])\npl.static_assert(i > 0.0, "positive")', "not a compile-time constant"),
    ("pl.static_print(x, sep=',')", "takes no keyword arguments"),
    ("t = pl.load(x, [0, 0], [x.shape[2], 128])", "shape index must be a constant in [-2, 2)"),
    ("t = pl.load(x, [0, 0], [32, 128])\nout = pl.store(2.0 - t, [0, 0], out)", "a number on the left of sub"),
])
def test_misuse_is_a_located_error(body, message):
    import re

    with pytest.raises(ParseError, match=re.escape(message)) as info:
        _parse(body)
    assert info.value.span is not None and info.value.span.line > 0 and info.value.hint
