"""``tile.assemble`` under TileAndBindSubBlock: a value covering its target on the split axis is assembled half into
half at the same offsets; one covering only part of the axis is refused (``assemble_window``)."""

from __future__ import annotations

import numpy as np
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED
from tilefold.testing import run_and_compare


@pl.program
class RightHalfBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 128], dtype=pl.FP32, value=1.0,
                                                                  target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        a: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, y, [0, 64])
        out = pl.store(a, [0, 0], out)
        return out


@pl.program
class RightHalfExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 128], dtype=pl.FP32, value=1.0,
                                                                 target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        a: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, y, [0, 64])
        out = pl.store(a, [sb * 8, 0], out, tiled_op=True)
        return out


def test_covering_value_is_assembled_half_into_half():
    after, _ = run_pass(RightHalfBefore)
    ir.assert_structural_equal(after, RightHalfExpected)


def test_split_and_whole_simulate_to_numpy():
    x = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    want = np.ones((16, 128), np.float32)
    want[:, 64:] = np.exp(x)
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(RightHalfBefore, {"x": x.copy()}, options=options)
        assert report.matches, report.details
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6)


@pl.program
class RowPatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 32], target_memory=pl.Mem.Vec)
        z: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 64], dtype=pl.FP32, value=0.0,
                                                                target_memory=pl.Mem.Vec)
        a: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, t, [2, 32])
        out = pl.store(a, [0, 0], out)
        return out


def test_partial_value_is_refused_on_both_axes():
    after, _ = run_pass(RowPatch)
    reason = str(after.functions[0].attr(REVERTED))
    assert "does not cover its target on axis 0" in reason and "on axis 1" in reason
