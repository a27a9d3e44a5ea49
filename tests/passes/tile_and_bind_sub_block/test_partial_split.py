"""Issue 9 §3.5: partial split. When the vector work and all but some stores can be split, the split is kept
and only the unsplittable stores (here a 1x1 flag store) are guarded to sub-block 0."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED
from tilefold.testing.sub_block_evidence import sub_block_evidence


@pl.program
class FlagBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
               flag: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        one: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 1], dtype=pl.FP32, value=1.0,
                                                                 target_memory=pl.Mem.Vec)
        flag = pl.store(one, [0, 0], flag)
        return out


@pl.program
class FlagExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
               flag: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out_1 = pl.store(y, [sb * 32, 0], out, tiled_op=True)
        one: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 1], dtype=pl.FP32, value=1.0,
                                                                 target_memory=pl.Mem.Vec)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            flag_sb0 = pl.store(one, [0, 0], flag)
            flag_1 = pl.yield_(flag_sb0)
        else:
            flag_1 = pl.yield_(flag)  # noqa: F841 - a DSL program value
        return out_1


def test_unsplittable_flag_store_is_guarded_and_the_rest_split():
    after, remarks = run_pass(FlagBefore)
    ir.assert_structural_equal(after, FlagExpected)
    assert after.attr(REVERTED) is None
    assert sub_block_evidence(after).split
    assert any(r.kind == "axis" and "partial split" in r.message for r in remarks)


# two stores in different axis classes (a row-reduced [64, 1] and an unrelated [1, 64] column vector): the
# plan covering more stores wins; the other store is guarded


@pl.program
class TwoClassesBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[3, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
               bo: pl.Out[pl.Tensor[[3, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        out = pl.store(y, [0, 0], out)
        u: pl.Tile[[3, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [3, 64], target_memory=pl.Mem.Vec)
        w: pl.Tile[[3, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(u, 2.0)
        bo = pl.store(w, [0, 0], bo)
        return out


def test_store_outside_the_chosen_axis_class_is_guarded():
    after, _ = run_pass(TwoClassesBefore)
    fn = after.function("kernel")
    assert fn.attr(REVERTED) is None and fn.attr("sub_block_axis") == 0
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems


def test_e2e_partial_split_on_and_off():
    e2e_on_off(FlagBefore, split=True, name="partial_flag_store")
    e2e_on_off(TwoClassesBefore, split=True, name="partial_two_classes")
