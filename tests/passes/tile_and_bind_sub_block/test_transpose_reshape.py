"""Issue 9 §3.2 / §3.3: the window bubbles through ``tile.transpose`` with the axes swapped, and through a
``tile.reshape`` when the split axis survives it as one contiguous block (otherwise the axis is refused)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.analysis.dimensions import reshape_split_axis
from tilefold.passes.tile_and_bind_sub_block import REVERTED


@pl.program
class TransposeBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 32], target_memory=pl.Mem.Vec)
        u: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        tt: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(u, 0, 1)
        out = pl.store(tt, [0, 0], out)
        return out


@pl.program
class TransposeExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 16], [64, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        tt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(u, 0, 1)
        out_1 = pl.store(tt, [sb * 16, 0], out, tiled_op=True)
        return out_1


def test_transpose_feeding_a_store_splits_the_swapped_source_axis():
    after, _ = run_pass(TransposeBefore)
    ir.assert_structural_equal(after, TransposeExpected)


# FP32 [64, 8] -> transpose [8, 64]: rows of the result are source columns; a source column half of 4 FP32 (16 B)
# is not a vector base, so the row split is refused; the column split (source rows) is kept


@pl.program
class TransposeNarrowBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 8], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 8], target_memory=pl.Mem.Vec)
        tt: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1)
        out = pl.store(tt, [0, 0], out)
        return out


def test_transpose_refuses_an_unaligned_source_half_and_takes_the_other_axis():
    after, remarks = run_pass(TransposeNarrowBefore)
    fn = after.function("kernel")
    assert fn.attr("sub_block_axis") == 1, fn.attr(REVERTED)
    assert any(r.kind == "axis-refused" and r.details["axis"] == 0 for r in remarks)


@pl.program
class ReshapeBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        r: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [64, 32])
        y: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(r, 2.0)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ReshapeExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [32, 32])
        y: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(r, 2.0)
        out_1 = pl.store(y, [sb * 32, 0], out, tiled_op=True)
        return out_1


def test_reshape_maps_the_row_half_to_the_source_row_half():
    after, _ = run_pass(ReshapeBefore)
    ir.assert_structural_equal(after, ReshapeExpected)


# [4, 96] -> [3, 128]: result rows are odd (no candidate); result columns (128) are not a block of a source axis
# (a source row has 96 elements): refused, the function rolls back


@pl.program
class ReshapeColumnBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[4, 96], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 128], pl.FP32]]) -> pl.Tensor[[3, 128], pl.FP32]:
        t: pl.Tile[[4, 96], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 96], target_memory=pl.Mem.Vec)
        r: pl.Tile[[3, 128], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [3, 128])
        out = pl.store(r, [0, 0], out)
        return out


def test_reshape_whose_split_axis_is_not_a_block_of_the_source_is_refused():
    after, remarks = run_pass(ReshapeColumnBefore)
    reason = after.function("kernel").attr(REVERTED)
    assert reason is not None and "reshape_window" in reason
    assert "not one contiguous block" in reason


def test_reshape_split_axis_rule():
    assert reshape_split_axis([2, 16, 64], [32, 64], 0) == 0  # collapse
    assert reshape_split_axis([32, 64], [2, 16, 64], 0) == 0  # expand, outer factor
    assert isinstance(reshape_split_axis([32, 64], [2, 16, 64], 1), str)  # inner factor: not a box
    assert reshape_split_axis([32, 64], [32, 1, 64], 0) == 0  # size-1 insertion
    assert reshape_split_axis([32, 1, 64], [32, 64], 1) == 2  # size-1 removal
    assert isinstance(reshape_split_axis([3, 16, 64], [48, 64], 0), str)  # odd outer factor


def test_e2e_transpose_and_reshape_on_and_off():
    e2e_on_off(TransposeBefore, split=True, name="transpose_store")
    e2e_on_off(TransposeNarrowBefore, split=True, name="transpose_narrow")
    e2e_on_off(ReshapeBefore, split=True, name="reshape_rows")
    e2e_on_off(ReshapeColumnBefore, split=False, name="reshape_refused")
