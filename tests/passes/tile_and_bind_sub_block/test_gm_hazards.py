"""Issue 9 §2: GM read-after-write across the halves. A function that loads from a GM tensor it also stores to
splits only on an axis where each sub-block provably reads only bytes it alone writes (or nobody writes);
otherwise that axis is refused and, without another, the function rolls back (stores guarded to sub-block 0)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass, without_reason

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED

# stores rows [0, 64) of o, then loads rows [16, 80) of o: a row split makes sub-block 0 read rows [16, 48)
# while sub-block 1 writes rows [32, 64). A column split is safe: each sub-block reads only its own columns
# (rows [64, 80) nobody writes).


@pl.program
class RawBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[80, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        o1 = pl.store(y, [0, 0], o)
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(o1, [16, 0], [64, 64], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(u, 2.0)
        out = pl.store(v, [0, 0], out)
        return out


@pl.program
class RawExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[80, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 32], [64, 32], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        o1 = pl.store(y, [0, sb * 32], o, tiled_op=True)
        u: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(o1, [16, sb * 32], [64, 32], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(u, 2.0)
        out_1 = pl.store(v, [0, sb * 32], out, tiled_op=True)
        return out_1


def test_read_after_write_across_row_halves_refuses_rows_and_splits_columns():
    after, remarks = run_pass(RawBefore)
    ir.assert_structural_equal(after, RawExpected)
    refused = [r for r in remarks if r.kind == "axis-refused"]
    assert refused and refused[0].details["axis"] == 0 and "gm_read_after_write" in refused[0].details["reason"]


# the same with 8 FP32 columns: a column half row is 16 B (not a candidate), so only rows are offered -> rollback


@pl.program
class RawNarrowBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 8], pl.FP32], o: pl.InOut[pl.Tensor[[80, 8], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 8], pl.FP32]]) -> pl.Tensor[[64, 8], pl.FP32]:
        t: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        o1 = pl.store(y, [0, 0], o)
        u: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(o1, [16, 0], [64, 8], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(u, 2.0)
        out = pl.store(v, [0, 0], out)
        return out


@pl.program
class RawNarrowExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[64, 8], pl.FP32], o: pl.InOut[pl.Tensor[[80, 8], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 8], pl.FP32]]) -> pl.Tensor[[64, 8], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            o1_sb0 = pl.store(y, [0, 0], o)
            o1 = pl.yield_(o1_sb0)
        else:
            o1 = pl.yield_(o)
        u: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(o1, [16, 0], [64, 8], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(u, 2.0)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            out_sb0 = pl.store(v, [0, 0], out)
            out_1 = pl.yield_(out_sb0)
        else:
            out_1 = pl.yield_(out)
        return out_1


def test_read_after_write_across_halves_without_a_safe_axis_rolls_back():
    after, _ = run_pass(RawNarrowBefore)
    assert "gm_read_after_write" in after.function("kernel").attr(REVERTED)
    ir.assert_structural_equal(without_reason(after), RawNarrowExpected.with_attr(REVERTED, True))


# in place on the same rows: each sub-block reads exactly the rows it alone writes -> the row split is kept


@pl.program
class InPlaceBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, o: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.abs(t)
        o1 = pl.store(y, [0, 0], o)
        return o1


@pl.program
class InPlaceExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, o: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [sb * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.abs(t)
        o1 = pl.store(y, [sb * 16, 0], o, tiled_op=True)
        return o1


def test_in_place_update_of_the_same_rows_splits():
    after, _ = run_pass(InPlaceBefore)
    ir.assert_structural_equal(after, InPlaceExpected)


# two stores into one tensor whose windows overlap: the later one must win; split halves are not ordered


@pl.program
class OverlappingStoresBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 8], pl.FP32],
               out: pl.Out[pl.Tensor[[80, 8], pl.FP32]]) -> pl.Tensor[[80, 8], pl.FP32]:
        t: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        o1 = pl.store(t, [0, 0], out)
        o2 = pl.store(y, [16, 0], o1)
        return o2


def test_overlapping_stores_across_halves_roll_back():
    after, _ = run_pass(OverlappingStoresBefore)
    assert "gm_read_after_write" in after.function("kernel").attr(REVERTED)


def test_e2e_read_after_write_kernels_on_and_off():
    e2e_on_off(RawBefore, split=True, name="gm_raw_column_split")
    e2e_on_off(RawNarrowBefore, split=False, name="gm_raw_rollback")
    e2e_on_off(OverlappingStoresBefore, split=False, name="gm_overlapping_stores")
    e2e_on_off(InPlaceBefore, split=True, name="gm_in_place")


# loops over row blocks: offsets ``k * 16`` on the split axis. Iterations are 16 rows apart, so a sub-block's
# half of iteration k never meets the other sub-block's half of another iteration


LOOP = '''
import tilefold.language as pl

@pl.program
class L:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for k, (acc,) in pl.range(0, 4, init_values=(o,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(acc, [k * 16 + {shift}, 0], [16, 64],
                                                                     target_memory=pl.Mem.Vec)
            y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.abs(t)
            acc2 = pl.store(y, [k * 16, 0], acc)
            acc_out = pl.yield_(acc2)
        return acc_out
'''


def test_row_block_loop_updating_its_own_rows_splits_on_rows():
    after, _ = run_pass(pl.parse(LOOP.replace("{shift}", "0")))
    assert after.function("kernel").attr("sub_block_axis") == 0


def test_row_block_loop_reading_the_next_half_block_refuses_rows():
    # sub-block 0 reads rows [16k + 8, 16k + 16) of o, which sub-block 1 writes
    after, remarks = run_pass(pl.parse(LOOP.replace("{shift}", "8").replace("[64, 64]", "[72, 64]")))
    fn = after.function("kernel")
    assert fn.attr("sub_block_axis") != 0
    assert any(r.kind == "axis-refused" and "gm_read_after_write" in r.details["reason"] for r in remarks)


def test_e2e_row_block_loops_on_and_off():
    e2e_on_off(pl.parse(LOOP.replace("{shift}", "0")), split=True, name="gm_loop_in_place")
