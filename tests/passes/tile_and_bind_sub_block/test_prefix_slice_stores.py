"""Issue 20 §4: a stored prefix slice of a split vector (one element [0, 1) of a 64-element vector) is a clipped
store: the vector work splits 32 + 32 and each half stores the part of the prefix inside it; sub-block 1's part is
empty, written at an offset kept inside the tensor. Windows at a non-zero offset: ``test_window_stores.py``."""

from __future__ import annotations

import numpy as np
from sb_util import e2e_on_off, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.testing import run_and_compare


@pl.program
class FirstElementBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
               first: pl.Out[pl.Tensor[[1, 1], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        out = pl.store(y, [0, 0], out)
        s: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 1], [0, 0])
        first = pl.store(s, [0, 0], first)
        return out, first


@pl.program
class FirstElementExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
               first: pl.Out[pl.Tensor[[1, 1], pl.FP32]]):
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        x: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, sb * 32], [1, 32], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        out_1 = pl.store(y, [0, sb * 32], out, tiled_op=True)
        s: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, pl.min(pl.max(1 - sb * 32, 0), 32)])] = \
            pl.tile.slice(y, [1, 32], [0, 0], [1, pl.min(pl.max(1 - sb * 32, 0), 32)])
        first_1 = pl.store(s, [0, pl.min(sb * 32, 1)], first, tiled_op=True)
        return out_1, first_1


def test_one_element_of_sixty_four_splits_with_an_empty_half():
    after, _ = run_pass(FirstElementBefore)
    ir.assert_structural_equal(after, FirstElementExpected)


def test_prefix_store_simulates_like_numpy_on_and_off():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((1, 64)).astype(np.float32)
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(FirstElementBefore, {"a": a.copy(), "out": np.zeros((1, 64), np.float32),
                                                      "first": np.zeros((1, 1), np.float32)}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["first"], np.exp(a[:, :1]), rtol=1e-5)
        np.testing.assert_allclose(report.outputs["out"], np.exp(a), rtol=1e-5)
    e2e_on_off(FirstElementBefore, split=True, name="first_element")
