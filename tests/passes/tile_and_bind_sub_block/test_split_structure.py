"""Before / Expected: programs TileAndBindSubBlock splits 1:2 across the two vector sub-blocks."""

from __future__ import annotations

from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.ir import Call, TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, TILED_OP
from tilefold.testing.sub_block_evidence import sub_block_evidence


def _calls(program, name):
    found = []

    class _V(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if expr.op_name == name:
                found.append(expr)
            super().visit_Call(expr)

    _V().visit_program(program)
    return found


def _check(before, expected, axis):
    after, remarks = run_pass(before)
    ir.assert_structural_equal(after, expected)
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems
    assert set(ev.axis.values()) == {axis}
    assert any(r.kind == "axis" and r.details.get("axis") == axis for r in remarks)
    return after, remarks


# ---------------------------------------------------------------------------------------------------------------
# identity: the seed's example, a 16x16 FP16 custom op split on dim 0 into [8, 16] tiles at [0, 0] / [8, 0]
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class IdentityBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class IdentityExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([8, 16], dtype=pl.FP16,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_identity_16x16_fp16_split_into_two_8x16_tiles():
    after, remarks = _check(IdentityBefore, IdentityExpected, 0)
    (custom,) = _calls(after, "tile.custom")
    assert custom.kwarg("symbol") == "sb.scale2"  # the user symbol survives
    for arg in custom.args:
        assert isinstance(arg.type, TileType) and arg.type.static_shape == (8, 16)
    # sub-block sb reads and writes rows [8 * sb, 8 * sb + 8): offsets [0, 0] and [8, 0]
    (load,) = _calls(after, "tile.load")
    (store,) = _calls(after, "tile.store")
    assert store.kwarg(TILED_OP) is True and custom.kwarg(TILED_OP) is True
    for sb, row in ((0, 0), (1, 8)):
        for call in (load, store):
            off = call.args[1].elements[0]
            assert off.rhs.value * sb == row
    assert after.function("kernel").attr(AXIS_ATTR) == 0
    assert any(r.kind == "split" and "sb.scale2" in r.message for r in remarks)


# ---------------------------------------------------------------------------------------------------------------
# broadcast input: (d0, d1) -> (d0, 0) slices the [16, 1] input along d0 only
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class BroadcastBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.add_row", ins=[t, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, 0)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class BroadcastExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 32], target_memory=pl.Mem.Vec)
        v: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [sb * 8, 0], [8, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.add_row", ins=[t, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, 0)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_broadcast_input_constant_zero_map():
    _check(BroadcastBefore, BroadcastExpected, 0)


# a row vector [1, N] broadcast along d0 keeps its whole range when d0 is split


@pl.program
class ColBroadcastBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        v: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.add_col", ins=[t, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ColBroadcastExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 32], target_memory=pl.Mem.Vec)
        v: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.add_col", ins=[t, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_broadcast_axis_keeps_full_range():
    _check(ColBroadcastBefore, ColBroadcastExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# reduction input: iterators [parallel, reduction], result map (d0, d1) -> (d0), input [16, 32]:
# the result window offset [8] size [8] gives input offsets [8, 0] sizes [8, 32]
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ReductionBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.row_sum", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out = pl.store(y, [0], out)
        return out


@pl.program
class ReductionExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8], pl.FP32, pl.Mem.Vec] = pl.tile.create([8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.row_sum", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8], out, tiled_op=True)
        return out


def test_reduction_input_projects_full_reduction_range():
    after, _ = _check(ReductionBefore, ReductionExpected, 0)
    (custom,) = _calls(after, "tile.custom")
    assert custom.args[0].type.static_shape == (8, 32)


# ---------------------------------------------------------------------------------------------------------------
# scalar input: passed through unchanged
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ScalarBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale_by", ins=[t, s], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> ()"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ScalarExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 64], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale_by", ins=[t, s], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> ()"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_scalar_input_passes_through():
    _check(ScalarBefore, ScalarExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# multi-result: ONE tiled custom op keeps both results (the kernel must not run twice)
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class MultiBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               o2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a, b = pl.tile.custom("sb.two", ins=[t], outs=[i1, i2],
                              indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)")],
                              iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        o1 = pl.store(a, [0, 0], o1)
        o2 = pl.store(b, [0, 0], o2)
        return o1


@pl.program
class MultiExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               o2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 32], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a, b = pl.tile.custom("sb.two", ins=[t], outs=[i1, i2],
                              indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)")],
                              iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        o1 = pl.store(a, [sb * 8, 0], o1, tiled_op=True)
        o2 = pl.store(b, [sb * 8, 0], o2, tiled_op=True)
        return o1


def test_multi_result_builds_one_tiled_op():
    after, _ = _check(MultiBefore, MultiExpected, 0)
    assert len(_calls(after, "tile.custom")) == 1


# ---------------------------------------------------------------------------------------------------------------
# custom_macro without sync slots splits like a custom op
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class MacroBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        t: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom_macro("sb.scale2", ins=[t], outs=[init],
                                 indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                                pl.affine_map("(d0, d1) -> (d0, d1)")],
                                 iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V")
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class MacroExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 16, 0], [16, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom_macro("sb.scale2", ins=[t], outs=[init],
                                 indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                                pl.affine_map("(d0, d1) -> (d0, d1)")],
                                 iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V",
                                 tiled_op=True)
        out = pl.store(y, [sb * 16, 0], out, tiled_op=True)
        return out


def test_custom_macro_split():
    _check(MacroBefore, MacroExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# elementwise chain, row broadcast and row reduction around a custom op
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ChainBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        m: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(t, m)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(c, 1.0)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[u], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(y)
        out = pl.store(z, [0, 0], out)
        return out


@pl.program
class ChainExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        m: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        c: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(t, m)
        u: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(c, 1.0)
        init: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 64], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[u], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        z: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(y)
        out = pl.store(z, [sb * 8, 0], out, tiled_op=True)
        return out


def test_elementwise_broadcast_and_row_reduction_around_custom_op():
    _check(ChainBefore, ChainExpected, 0)


# column reduction + column broadcast force the split onto dim 1


@pl.program
class ColReduceBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_div(t, s)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[c], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ColReduceExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 32], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_sum(t)
        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_div(t, s)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[c], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [0, sb * 32], out, tiled_op=True)
        return out


def test_column_reduction_forces_split_on_dim1():
    _, remarks = _check(ColReduceBefore, ColReduceExpected, 1)
    axis_remark = next(r for r in remarks if r.kind == "axis")
    assert "reduction" in axis_remark.message  # why dim 0 was not taken


# ---------------------------------------------------------------------------------------------------------------
# softmax custom ops: reduce-last splits dim 0 only, reduce-first splits dim 1 only
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class SoftmaxLastBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([128, 64], dtype=pl.FP32,
                                                                       target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.softmax_last", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class SoftmaxLastExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[128, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 64, 0], [64, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.softmax_last", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 64, 0], out, tiled_op=True)
        return out


def test_softmax_reduce_last_splits_dim0_only():
    _check(SoftmaxLastBefore, SoftmaxLastExpected, 0)


@pl.program
class SoftmaxFirstBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        init: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 128], dtype=pl.FP32,
                                                                       target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.softmax_first", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class SoftmaxFirstExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[64, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 64], [64, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.softmax_first", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [0, sb * 64], out, tiled_op=True)
        return out


def test_softmax_reduce_first_splits_dim1_only():
    _check(SoftmaxFirstBefore, SoftmaxFirstExpected, 1)


# ---------------------------------------------------------------------------------------------------------------
# loops carry halves: a pipelined accumulation over column blocks
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class LoopBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        acc0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0,
                                                                    target_memory=pl.Mem.Vec)
        for k, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, k * 32], [16, 32],
                                                                     target_memory=pl.Mem.Vec)
            nxt: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            acc_out = pl.yield_(nxt)
        out = pl.store(acc_out, [0, 0], out)
        return out


@pl.program
class LoopExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        acc0: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 32], dtype=pl.FP32, value=0.0,
                                                                   target_memory=pl.Mem.Vec)
        for k, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, k * 32], [8, 32],
                                                                    target_memory=pl.Mem.Vec)
            nxt: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            acc_out = pl.yield_(nxt)
        out = pl.store(acc_out, [sb * 8, 0], out, tiled_op=True)
        return out


def test_loop_carries_halves():
    _check(LoopBefore, LoopExpected, 0)


@pl.program
class IdentityDisabledExpected:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16,
                                                                      target_memory=pl.Mem.Vec)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            y_sb0 = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                                   indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                                  pl.affine_map("(d0, d1) -> (d0, d1)")],
                                   iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
            y = pl.yield_(y_sb0)
        else:
            y = pl.yield_(init)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            out_sb0 = pl.store(y, [0, 0], out)
            out_1 = pl.yield_(out_sb0)
        else:
            out_1 = pl.yield_(out)
        return out_1


def test_disabled_pass_still_limits_stores_and_custom_ops_to_sub_block0():
    """Off = upstream's enable-tile=false: nothing is split, but both sub-blocks run the function, so every
    store and custom op is guarded to sub-block 0 (no revert marker: nothing was refused)."""
    after, remarks = run_pass(IdentityBefore, enable_auto_bind_sub_block=False)
    ir.assert_structural_equal(after, IdentityDisabledExpected)
    assert [r.kind for r in remarks if r.pass_name == "TileAndBindSubBlock"] == ["disabled"]
    ev = sub_block_evidence(after)
    assert not ev.split
    # already bound: a second run changes nothing
    again, _ = run_pass(after, enable_auto_bind_sub_block=False)
    assert again is after
