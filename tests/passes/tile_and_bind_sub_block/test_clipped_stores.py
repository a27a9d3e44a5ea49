"""Issue 9 §3.4: clipped stores. A store of a tile with a (static or dynamic) valid-shape mask, at a static or
dynamic GM offset, splits: each half's valid extent on the split axis is the intersection of the half with the
stored range, ``min(max(valid - sb * half, 0), half)`` (empty: the half stores nothing)."""

from __future__ import annotations

from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir


@pl.program
class DynamicClipBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], r: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        yv = pl.tile.set_validshape(y, [v, 64])
        out = pl.store(yv, [r, 0], out)
        return out


@pl.program
class DynamicClipExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], r: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        yv = pl.tile.set_validshape(y, [pl.min(pl.max(v - sb * 32, 0), 32), 64])
        out_1 = pl.store(yv, [r + sb * 32, 0], out, tiled_op=True)
        return out_1


def test_dynamic_valid_shape_and_dynamic_offset_store_is_clipped_per_half():
    after, remarks = run_pass(DynamicClipBefore)
    ir.assert_structural_equal(after, DynamicClipExpected)
    assert any(r.kind == "clipped" for r in remarks)


@pl.program
class StaticClipBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        yv = pl.tile.set_validshape(y, [40, 48])
        out = pl.store(yv, [0, 0], out)
        return out


@pl.program
class StaticClipExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        yv = pl.tile.set_validshape(y, [pl.min(pl.max(40 - sb * 32, 0), 32), 48])
        out_1 = pl.store(yv, [sb * 32, 0], out, tiled_op=True)
        return out_1


def test_static_valid_shape_mask_is_clipped_per_half():
    after, _ = run_pass(StaticClipBefore)
    ir.assert_structural_equal(after, StaticClipExpected)


def test_e2e_clipped_stores_on_and_off():
    e2e_on_off(StaticClipBefore, split=True, name="clipped_static")
    e2e_on_off(DynamicClipBefore, split=True, name="clipped_dynamic")


# the same mask written as a 4-operand (valid-shape) slice covering its source


@pl.program
class SliceClipBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        yv = pl.tile.slice(y, [64, 64], [0, 0], [v, 64])
        out = pl.store(yv, [0, 0], out)
        return out


@pl.program
class SliceClipExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        yv = pl.tile.slice(y, [32, 64], [0, 0], [pl.min(pl.max(v - sb * 32, 0), 32), 64])
        out_1 = pl.store(yv, [sb * 32, 0], out, tiled_op=True)
        return out_1


def test_valid_shape_slice_store_is_clipped_per_half():
    after, _ = run_pass(SliceClipBefore)
    ir.assert_structural_equal(after, SliceClipExpected)


def test_e2e_valid_shape_slice_store_on_and_off():
    e2e_on_off(SliceClipBefore, split=True, name="clipped_slice")
