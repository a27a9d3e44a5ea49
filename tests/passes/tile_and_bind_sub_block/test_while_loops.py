"""Issue 9 §3.1: while loops carrying tiles split like for loops (init, iter arg, yield, result; the scalar
condition is evaluated by both sub-blocks)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir


@pl.program
class WhileBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        for (i, acc) in pl.while_(init_values=(0, t)):
            pl.cond(i < n)
            acc2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
            i_out, acc_out = pl.yield_(i + 1, acc2)
        out = pl.store(acc_out, [0, 0], out)
        return out


@pl.program
class WhileExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        for (i, acc) in pl.while_(init_values=(0, t)):
            pl.cond(i < n)
            acc2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
            i_out, acc_out = pl.yield_(i + 1, acc2)
        out_1 = pl.store(acc_out, [sb * 16, 0], out, tiled_op=True)
        return out_1


def test_while_loop_carrying_a_tile_splits_like_a_for_loop():
    after, remarks = run_pass(WhileBefore)
    ir.assert_structural_equal(after, WhileExpected)
    assert not [r for r in remarks if r.kind in ("reverted", "window-left")]


# a while loop whose carried tile is stored inside the loop and also carried (store in the body)


@pl.program
class WhileStoreInBodyBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        for (i, acc, o) in pl.while_(init_values=(0, t, out)):
            pl.cond(i < n)
            acc2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
            o2 = pl.store(acc2, [0, 0], o)
            i_out, acc_out, o_out = pl.yield_(i + 1, acc2, o2)
        return o_out


def test_while_loop_with_a_store_in_the_body_splits():
    after, _ = run_pass(WhileStoreInBodyBefore)
    fn = after.function("kernel")
    assert fn.attr("sub_block_axis") == 0 and fn.attr("tile_and_bind_subblock_reverted") is None


def test_e2e_while_loops_on_and_off():
    e2e_on_off(WhileBefore, split=True, name="while_loop")
    e2e_on_off(WhileStoreInBodyBefore, split=True, name="while_store_in_body")
