"""Issue 20 §4: a whole load whose value feeds only work guarded to sub-block 0 is dead on sub-block 1, so it is
no read across the halves. A 134x8 add splits 67 + 67 rows while a 1x1 read-modify-write of a GM flag (load,
+1, store back) stays whole and guarded; a load that unguarded work also reads still blocks the split."""

from __future__ import annotations

import numpy as np
from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED
from tilefold.testing import run_and_compare


@pl.program
class FlagRmwBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[134, 8], pl.FP32], b: pl.Tensor[[134, 8], pl.FP32],
               out: pl.Out[pl.Tensor[[134, 8], pl.FP32]], flag: pl.InOut[pl.Tensor[[1, 1], pl.FP32]]):
        x: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [134, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [134, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, y)
        out = pl.store(s, [0, 0], out)
        f: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(flag, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.adds(f, 1.0)
        flag = pl.store(g, [0, 0], flag)
        return out, flag


@pl.program
class FlagRmwExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, a: pl.Tensor[[134, 8], pl.FP32], b: pl.Tensor[[134, 8], pl.FP32],
               out: pl.Out[pl.Tensor[[134, 8], pl.FP32]], flag: pl.InOut[pl.Tensor[[1, 1], pl.FP32]]):
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        x: pl.Tile[[67, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [sb * 67, 0], [67, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[67, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [sb * 67, 0], [67, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[67, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, y)
        out_1 = pl.store(s, [sb * 67, 0], out, tiled_op=True)
        f: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(flag, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.adds(f, 1.0)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            flag_sb0 = pl.store(g, [0, 0], flag)
            flag_1 = pl.yield_(flag_sb0)
        else:
            flag_1 = pl.yield_(flag)
        return out_1, flag_1


def test_dead_load_on_sub_block_1_does_not_block_the_split():
    after, _ = run_pass(FlagRmwBefore)
    ir.assert_structural_equal(after, FlagRmwExpected)


def test_split_and_guarded_flag_simulate_like_numpy():
    rng = np.random.default_rng(3)
    inputs = {"a": rng.standard_normal((134, 8)).astype(np.float32),
              "b": rng.standard_normal((134, 8)).astype(np.float32),
              "out": np.zeros((134, 8), np.float32), "flag": np.full((1, 1), 5.0, np.float32)}
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(FlagRmwBefore, {k: v.copy() for k, v in inputs.items()}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], inputs["a"] + inputs["b"], rtol=1e-6)
        np.testing.assert_array_equal(report.outputs["flag"], [[6.0]])  # incremented once, not twice
    e2e_on_off(FlagRmwBefore, split=True, name="flag_rmw")


# a [1, 8] flag row whose new value also feeds the split block (s + f, broadcast by a column expand): sub-block 1 needs it, and it
# races with sub-block 0's store of the flag -> rows refused, no other axis (8 FP32 columns) -> rolled back


@pl.program
class FlagLiveBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[134, 8], pl.FP32], out: pl.Out[pl.Tensor[[134, 8], pl.FP32]],
               flag: pl.InOut[pl.Tensor[[1, 8], pl.FP32]]):
        x: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [134, 8], target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(flag, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        h: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(g, 1.0)
        flag = pl.store(h, [0, 0], flag)
        f: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(flag, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(x, 2.0)
        t: pl.Tile[[134, 8], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(s, f)
        out = pl.store(t, [0, 0], out)
        return out, flag


def test_a_load_unguarded_work_reads_still_blocks_the_split():
    after, _ = run_pass(FlagLiveBefore)
    reason = after.functions[0].attr(REVERTED)
    assert reason is not None and "gm_read_after_write" in reason
