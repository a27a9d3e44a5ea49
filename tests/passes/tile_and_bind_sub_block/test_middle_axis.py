"""Issue 9 §3.7: the middle axis of a 3-D tile splits when each half window's contiguous run is a multiple of
32 B, and is refused with the reason otherwise (§3.8: odd / unaligned sizes keep falling back to sub-block 0)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

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
