"""Issue 9 §3.7: the middle axis of a 3-D tile splits when each half window's contiguous run is a multiple of
32 B, and is refused with the reason otherwise (§3.8: odd / unaligned sizes keep falling back to sub-block 0)."""

from __future__ import annotations

from sb_util import assert_rollback, e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED


@pl.program
class MiddleBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        t: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 64],
                                                                    target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out)
        return out


@pl.program
class MiddleExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[3, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 8, 0], [3, 8, 64],
                                                                   target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out_1 = pl.store(y, [0, sb * 8, 0], out, tiled_op=True)
        return out_1


def test_middle_axis_of_a_3d_tile_splits_when_the_half_runs_are_aligned():
    after, remarks = run_pass(MiddleBefore)
    ir.assert_structural_equal(after, MiddleExpected)
    assert any(r.kind == "axis" and "extent 3 on axis 0 is odd" in r.message for r in remarks)


@pl.program
class MiddleUnalignedBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[3, 2, 20], pl.FP16],
               out: pl.Out[pl.Tensor[[3, 2, 20], pl.FP16]]) -> pl.Tensor[[3, 2, 20], pl.FP16]:
        t: pl.Tile[[3, 2, 20], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 2, 20],
                                                                   target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 2, 20], pl.FP16, pl.Mem.Vec] = pl.tile.abs(t)
        out = pl.store(y, [0, 0, 0], out)
        return out


def test_unaligned_middle_axis_is_refused_with_the_reason():
    after, _ = run_pass(MiddleUnalignedBefore)
    reason = after.function("kernel").attr(REVERTED)
    assert reason is not None
    assert "middle axis 1: the half window's contiguous run of 40 B (1 x 20 x 2 B) is not a multiple of 32 B" in reason
    assert "extent 3 on axis 0 is odd" in reason and "half row of 20 B" in reason


def test_e2e_3d_tiles_on_and_off():
    # through the default pipeline the 3-D tile is flattened first (FlattenTileNdTo2D): [48, 64] rows map to the
    # odd outermost window axis, so the column axis is split; the unaligned one rolls back
    e2e_on_off(MiddleBefore, split=True, name="nd_tile_3x16x64")
    e2e_on_off(MiddleUnalignedBefore, split=False, name="nd_tile_unaligned")


# Through the default pipeline FlattenTileNdTo2D runs first: a [3, 16, W] window is the 2-D tile [48, W]. The
# middle axis's halves are then 3 interleaved groups of 8 rows of that tile, not one row half. Halving the
# tile that way is right only if every row-halved tile of the function uses the same row grouping (a 2-D
# load, a slice, a custom-op map or a half sliced from a whole tile would take rows [24 sb, 24 sb + 24)
# instead), which the pass does not prove: the middle axis is refused and the reason says so.


@pl.program
class FlatMiddleBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[3, 16, 20], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 20], pl.FP32]]) -> pl.Tensor[[3, 16, 20], pl.FP32]:
        t: pl.Tile[[48, 20], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 20],
                                                                 target_memory=pl.Mem.Vec, flatten=True)
        y: pl.Tile[[48, 20], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out, shapes=[3, 16, 20])
        return out


@pl.program(attrs={REVERTED: True})
class FlatMiddleExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={REVERTED: "*"})
    def kernel(self, x: pl.Tensor[[3, 16, 20], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 20], pl.FP32]]) -> pl.Tensor[[3, 16, 20], pl.FP32]:
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[48, 20], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 20],
                                                                 target_memory=pl.Mem.Vec, flatten=True)
        y: pl.Tile[[48, 20], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        if pl.cond(subblock_idx == 0):
            out_sb0 = pl.store(y, [0, 0, 0], out, shapes=[3, 16, 20])
            out_1 = pl.yield_(out_sb0)
        else:
            out_1 = pl.yield_(out)
        return out_1


MIDDLE_AFTER_FLATTEN = ("middle axis 1 of the window not split after FlattenTileNdTo2D: its halves are 3 "
                        "interleaved groups of 8 row(s) of the 2-D tile, not one row half, and the pass does not "
                        "prove that every row-halved tile of the function uses that row grouping")


def test_flattened_middle_axis_is_refused_with_the_row_grouping_reason():
    # the middle axis is aligned (8 x 20 x 4 B = 640 B runs) but refused after flattening; the columns (a
    # 40 B half row) are refused too: the function rolls back to sub-block 0
    after, _ = run_pass(FlatMiddleBefore)
    assert_rollback(after, FlatMiddleExpected, "kernel", MIDDLE_AFTER_FLATTEN)
    reason = after.function("kernel").attr(REVERTED)
    assert MIDDLE_AFTER_FLATTEN in reason
    assert "half row of 40 B" in reason
    assert "is not a multiple of 32 B either" not in reason  # the middle axis itself is aligned


@pl.program
class FlatMiddleColumnsBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        t: pl.Tile[[48, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 64],
                                                                 target_memory=pl.Mem.Vec, flatten=True)
        y: pl.Tile[[48, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out, shapes=[3, 16, 64])
        return out


@pl.program
class FlatMiddleColumnsExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[48, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, subblock_idx * 32], [3, 16, 32],
                                                                 target_memory=pl.Mem.Vec, flatten=True)
        y: pl.Tile[[48, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out_1 = pl.store(y, [0, 0, subblock_idx * 32], out, tiled_op=True, shapes=[3, 16, 32])
        return out_1


def test_flattened_3x16x64_splits_columns_and_says_why_not_the_middle_axis():
    after, remarks = run_pass(FlatMiddleColumnsBefore)
    ir.assert_structural_equal(after, FlatMiddleColumnsExpected)
    axis = [r for r in remarks if r.kind == "axis"]
    assert len(axis) == 1 and axis[0].details["axis"] == 1
    assert MIDDLE_AFTER_FLATTEN in axis[0].message


def test_default_pipeline_refuses_the_middle_axis_of_a_3d_tile():
    # the 3-D program of the issue through the whole pipeline: flattened first, then the same decision
    from tilefold.compiler import run_pipeline

    three_d = pl.parse(pl.python_print(MiddleBefore).replace("64", "20"))
    after, _ = run_pipeline(three_d)
    reason = after.function("kernel").attr(REVERTED)
    assert reason is not None and MIDDLE_AFTER_FLATTEN in reason
    after, _ = run_pipeline(MiddleBefore)
    assert after.function("kernel").attr("sub_block_axis") == 1


def test_unaligned_flattened_middle_axis_names_both_reasons():
    from tilefold.compiler import run_pipeline

    after, _ = run_pipeline(MiddleUnalignedBefore)
    reason = after.function("kernel").attr(REVERTED)
    assert "middle axis 1 of the window not split after FlattenTileNdTo2D" in reason
    assert "its half window's contiguous run of 40 B (1 x 20 x 2 B) is not a multiple of 32 B either" in reason


def test_e2e_flattened_middle_axis_on_and_off():
    e2e_on_off(FlatMiddleBefore, split=False, name="nd_tile_flat_middle_refused")
