"""``pl.func_attr({...})`` as the first statement of a ``@pl.function`` body (Functions page): the entries are the
function's attributes (a bare name records the parameter), the body runs as without them, and the misuses the
page lists are located errors."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import rand, run_case

import tilefold.language as pl
from tilefold.errors import ParseError

TEXT = """
import tilefold.language as pl

@pl.program
class Kernels:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
{body}
        tx = pl.load(x, [0, 0], [64, 64])
        tw = pl.load(w, [0, 0], [64, 64])
        out = pl.store(pl.mul(tx, tw), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.kernel(x, w, out)
        return out
"""


def _parse(body: str):
    return pl.parse(TEXT.format(body="\n".join("        " + ln for ln in body.strip().splitlines())))


def test_func_attr_prologue_sets_attributes_and_runs():
    program = _parse('pl.func_attr({"stationary": w, "split": pl.SplitMode.UP_DOWN})\npl.func_attr({"n": 4})')
    fn = program.function("kernel")
    assert fn.attr("stationary") == "w" and fn.attr("split").name == "UP_DOWN" and fn.attr("n") == 4
    x, w = rand((64, 64), "fp32", 1), rand((64, 64), "fp32", 2)
    run_case(program, {"x": x, "w": w}, {"out": np.zeros((64, 64), np.float32)}, lambda v: {"out": v["x"] * v["w"]})


@pytest.mark.parametrize("body,message", [
    ('t = pl.load(x, [0, 0], [8, 8])\npl.func_attr({"n": 4})', "must precede every other statement"),
    ('pl.func_attr({"n": 4})\npl.func_attr({"n": 5})', "declared twice"),
    ('pl.func_attr({"k": nothere})', "is not a parameter"),
    ('pl.func_attr([1, 2])', "one dict literal"),
])
def test_func_attr_misuse_is_located(body, message):
    with pytest.raises(ParseError, match=message) as info:
        _parse(body)
    assert info.value.hint
