"""Sub-block strategies of the index ops (``index_ops.py``): ``tile.ci`` halves start where their half starts,
``tile.gather`` halves on the axis it does not index and gathers a half of the indices from the whole source on
the one it does. Every case runs with the pass on and off and is compared with numpy element by element."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.testing import run_and_compare

ON_OFF = ({}, {"enable_auto_bind_sub_block": False})


def _program(body: str, params: str):
    text = f'''
import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, {params}):
{body}
        return out
'''
    return pl.parse(text, "index_ops.py")


def _check(program, inputs: dict, want: np.ndarray, axis: int | None) -> None:
    after, _ = run_pass(program)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) == axis, fn.attr(REVERTED)
    for options in ON_OFF:
        report = run_and_compare(program, {k: v.copy() for k, v in inputs.items()}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"], want)


RAMP = ("        x: pl.Tile[[{r}, {c}], pl.INT32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{r}, {c}], "
        "target_memory=pl.Mem.Vec)\n"
        "        i: pl.Tile[[{r}, {c}], pl.INT32, pl.Mem.Vec] = pl.tile.ci({start}, [{r}, {c}], dtype=pl.INT32"
        "{desc})\n"
        "        y: pl.Tile[[{r}, {c}], pl.INT32, pl.Mem.Vec] = pl.tile.add(x, i)\n"
        "        out = pl.store(y, [0, 0], out)")


@pytest.mark.parametrize("rows,cols,start,desc,axis", [
    (1, 64, 5, False, 1),     # a vector: column halves start at 5 + sb * 32
    (32, 64, 0, False, 0),    # row halves start at sb * 16 * 64
    (32, 64, 100, True, 0),   # descending: 100 - k, row halves at 100 - sb * 1024
    (3, 64, 7, False, None),  # 3 rows cannot halve and a column half of several rows is not consecutive
])
def test_ci_halves_match_numpy(rows, cols, start, desc, axis):
    params = (f"a: pl.Tensor[[{rows}, {cols}], pl.INT32], "
              f"out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.INT32]]")
    body = RAMP.format(r=rows, c=cols, start=start, desc=", descending=True" if desc else "")
    a = np.random.default_rng(rows).integers(-50, 50, (rows, cols)).astype(np.int32)
    k = np.arange(rows * cols).reshape(rows, cols)
    want = (a + (start - k if desc else start + k)).astype(np.int32)
    _check(_program(body, params), {"a": a, "out": np.zeros_like(a)}, want, axis)


GATHER = ("        x: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{r}, 64], "
          "target_memory=pl.Mem.Vec)\n"
          "        j: pl.Tile[[{r}, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [{r}, 16], "
          "target_memory=pl.Mem.Vec)\n"
          "        g: pl.Tile[[{r}, 16], pl.FP32, pl.Mem.Vec] = pl.tile.gather(x, 1, j)\n"
          "        out = pl.store(g, [0, 0], out)")


@pytest.mark.parametrize("rows,axis", [(16, 0), (3, 1)])
def test_gather_along_columns_matches_numpy(rows, axis):
    """16 rows: split on rows (each row gathers from its own row of the source). 3 rows (odd): split on the
    gathered columns: each sub-block loads the whole source and its half of the indices, and stores its half of
    the result."""
    params = (f"a: pl.Tensor[[{rows}, 64], pl.FP32], idx: pl.Tensor[[{rows}, 16], pl.INT32], "
              f"out: pl.Out[pl.Tensor[[{rows}, 16], pl.FP32]]")
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 64)).astype(np.float32)
    idx = rng.integers(0, 64, (rows, 16)).astype(np.int32)
    want = np.take_along_axis(a, idx, axis=1)
    program = _program(GATHER.format(r=rows), params)
    after, _ = run_pass(program)
    assert after.functions[0].attr(AXIS_ATTR) == axis, after.functions[0].attr(REVERTED)
    if axis == 1:
        assert "tile.load(%a, MakeTuple(elements=(0, 0)), MakeTuple(elements=(3, 64)))" in str(after)
    for options in ON_OFF:
        report = run_and_compare(program, {"a": a.copy(), "idx": idx.copy(), "out": np.zeros((rows, 16), np.float32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"], want)
