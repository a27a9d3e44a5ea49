"""Issue 9 §3.6: when the selected split axis may have been broadcast along two different axes (a vector
broadcast into rows in one place and, reshaped, into columns in another), strict mode is disabled for that
function only, with the upstream remark, and the function splits (the doubly-broadcast value is computed whole
by both sub-blocks and a half window is taken where a half is needed)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir

REMARK = "selected split axis may be broadcast along two different axes; strict mode disabled for this function"


@pl.program
class DiamondBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, r)
        c: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r, [1, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(a, c)
        out = pl.store(b, [0, 0], out)
        return out


@pl.program
class DiamondExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        r_sb: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(r, [8, 1], [sb * 8, 0])
        a: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, r_sb)
        c: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r, [1, 16])
        b: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(a, c)
        out_1 = pl.store(b, [sb * 8, 0], out, tiled_op=True)
        return out_1


def test_broadcast_into_rows_and_columns_turns_strict_mode_off_and_splits():
    after, remarks = run_pass(DiamondBefore)
    ir.assert_structural_equal(after, DiamondExpected)
    off = [r for r in remarks if r.kind == "strict-off"]
    assert off and off[0].message.startswith(REMARK)
    assert any(r.kind == "window-left" for r in remarks)


# the same function without the column broadcast keeps strict mode (no remark)


@pl.program
class RowOnlyBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, r)
        out = pl.store(a, [0, 0], out)
        return out


def test_single_axis_broadcast_keeps_strict_mode():
    _, remarks = run_pass(RowOnlyBefore)
    assert not [r for r in remarks if r.kind == "strict-off"]


def test_e2e_two_axis_broadcast_on_and_off():
    e2e_on_off(DiamondBefore, split=True, name="two_axis_broadcast")
