"""Rejections: every refused split rolls back to the untouched function with its stores and custom ops
limited to sub-block 0 (LimitUniqueSubBlockIdToStoreCopy), and says which check failed."""

from __future__ import annotations

import pytest
from sb_util import assert_rollback, guards, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.ir import (
    AssignStmt,
    Call,
    FunctionType,
    IfStmt,
    Program,
    ReturnStmt,
    SeqStmts,
    UnknownType,
    Var,
)
from tilefold.passes.tile_and_bind_sub_block import LIMIT_TAG, REVERTED, TILED_OP
from tilefold.testing.sub_block_evidence import sub_block_evidence

ID = 'pl.affine_map("(d0, d1) -> (d0, d1)")'


def _before(op: str, *, shape="[16, 16]", out_shape=None, dtype="FP32", params="", pre="", xshape=None) -> str:
    out_shape = out_shape or shape
    xshape = xshape or shape
    zeros = "[" + ", ".join("0" for _ in out_shape.strip("[]").split(",")) + "]"
    return f'''
import tilefold.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[{xshape}, pl.{dtype}],{params} out: pl.Out[pl.Tensor[{out_shape}, pl.{dtype}]]) -> pl.Tensor[{out_shape}, pl.{dtype}]:
        t: pl.Tile[{shape}, pl.{dtype}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], {shape}, target_memory=pl.Mem.Vec)
{pre}
        init: pl.Tile[{out_shape}, pl.{dtype}, pl.Mem.Vec] = pl.tile.create({out_shape}, dtype=pl.{dtype}, target_memory=pl.Mem.Vec)
        y = {op}
        out = pl.store(y, {zeros}, out)
        return out
'''


def _expected(op: str, *, shape="[16, 16]", out_shape=None, dtype="FP32", params="", pre="", xshape=None) -> str:
    out_shape = out_shape or shape
    xshape = xshape or shape
    zeros = "[" + ", ".join("0" for _ in out_shape.strip("[]").split(",")) + "]"
    return f'''
import tilefold.language as pl

@pl.program(attrs={{"tile_and_bind_subblock_reverted": True}})
class Expected:
    @pl.function(type=pl.FunctionType.InCore, attrs={{"tile_and_bind_subblock_reverted": "*"}})
    def kernel(self, x: pl.Tensor[{xshape}, pl.{dtype}],{params} out: pl.Out[pl.Tensor[{out_shape}, pl.{dtype}]]) -> pl.Tensor[{out_shape}, pl.{dtype}]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[{shape}, pl.{dtype}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], {shape}, target_memory=pl.Mem.Vec)
{pre}
        init: pl.Tile[{out_shape}, pl.{dtype}, pl.Mem.Vec] = pl.tile.create({out_shape}, dtype=pl.{dtype}, target_memory=pl.Mem.Vec)
        if sb == 0:
            y0 = {op}
            y = pl.yield_(y0)
        else:
            y = pl.yield_(init)
        if sb == 0:
            o1 = pl.store(y, {zeros}, out)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(out)
        return o2
'''


def _custom(symbol="sb.scale2", *, ins="[t]", maps=(ID, ID), iters="[pl.parallel, pl.parallel]",
            extra=", no_side_effect=True", op="custom") -> str:
    return (f'pl.tile.{op}("{symbol}", ins={ins}, outs=[init], indexing_maps=[{", ".join(maps)}], '
            f"iterator_types={iters}{extra})")


CASES = {
    # name: (custom op text, template kwargs, check named in the reason)
    "side_effects": (_custom(extra=""), {}, "safe_to_duplicate"),
    "builtin": (_custom(extra=", no_side_effect=True, builtin=True"), {}, "safe_to_duplicate"),
    "temp_buffers": (_custom(extra=", tmps=[tmp], no_side_effect=True"),
                     {"pre": "        tmp: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], "
                             "dtype=pl.FP32, target_memory=pl.Mem.Vec)"}, "safe_to_duplicate"),
    "extra_buffers": (_custom(extra=", no_side_effect=True, extra_buffers_info=[1024]"), {}, "safe_to_duplicate"),
    "macro_sync": (_custom(op="custom_macro",
                           extra=", no_side_effect=True, sync_event_slots=[0], sync_related_args=[flag]"),
                   {"params": " flag: pl.Scalar[pl.INDEX],"}, "safe_to_duplicate"),
    "gm_tensor_input": (_custom(ins="[x]"), {}, "sliceable_inputs"),
    "transposed_map": (_custom(maps=('pl.affine_map("(d0, d1) -> (d1, d0)")', ID)), {}, "supported_explicit_maps"),
    "repeated_dim": (_custom(maps=('pl.affine_map("(d0, d1) -> (d0, d0)")', ID)), {}, "supported_explicit_maps"),
    "nonzero_constant": (_custom("sb.add_row", maps=('pl.affine_map("(d0, d1) -> (d0, 1)")', ID)),
                         {"shape": "[16, 2]", "out_shape": "[16, 16]"}, "supported_explicit_maps"),
    "compound_expression": (_custom(maps=('pl.affine_map("(d0, d1) -> (d0, d1 floordiv 2)")', ID)),
                            {"shape": "[16, 8]", "out_shape": "[16, 16]"}, "supported_explicit_maps"),
    "reduction_axis_only_splittable": (_custom("sb.softmax_first", iters="[pl.reduction, pl.parallel]"),
                                       {"shape": "[16, 15]"}, "no store could be split"),
    "dynamic_full_range": (_custom("sb.row_sum2d", maps=(ID, 'pl.affine_map("(d0, d1) -> (d0, 0)")'),
                                   iters="[pl.parallel, pl.reduction]"),
                           {"shape": "[16, n]", "xshape": "[16, 64]", "out_shape": "[16, 1]",
                            "params": " n: pl.Scalar[pl.INDEX],"},
                           "project_to_inputs"),
    "odd_size": (_custom(), {"shape": "[15, 16]", "dtype": "FP16"}, "no store could be split"),
    "column_half_row_under_32B": (_custom("sb.softmax_first", iters="[pl.reduction, pl.parallel]"),
                                  {"shape": "[16, 16]", "dtype": "FP16"}, "no store could be split"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rejection_rolls_back(name):
    op, kw, check = CASES[name]
    before = pl.parse(_before(op, **kw))
    expected = pl.parse(_expected(op, **kw))
    after, remarks = run_pass(before)
    assert_rollback(after, expected, "kernel", check)
    assert any(r.kind == "reverted" and check in r.message for r in remarks)
    ev = sub_block_evidence(after)
    assert not ev.split and not ev.not_reverted
    # the guarded custom op keeps its symbol and is not marked tiled
    for g in guards(after):
        for s in g.then_body.stmts:
            if isinstance(s, AssignStmt) and isinstance(s.value, Call):
                assert s.value.kwarg(TILED_OP) is None


def test_refusal_remark_names_check_and_operand():
    op, kw, _ = CASES["transposed_map"]
    _, remarks = run_pass(pl.parse(_before(op, **kw)))
    refused = [r for r in remarks if r.kind == "refused"]
    assert refused and refused[0].details["check"] == "supported_explicit_maps"
    assert refused[0].details["operand"] == "t"


def test_column_half_row_reason_mentions_alignment():
    op, kw, _ = CASES["column_half_row_under_32B"]
    after, _ = run_pass(pl.parse(_before(op, **kw)))
    reason = after.function("kernel").attr(REVERTED)
    assert "32 B" in reason and "reduction" in reason


# -------------------------------------------------------------------------------------------------------------
# unranked input: built programmatically (the DSL cannot spell an unranked tile)
# -------------------------------------------------------------------------------------------------------------


def test_unranked_custom_operand_gives_up_on_function():
    before = pl.parse(_before(_custom()))
    fn = before.function("kernel")
    stmts = list(fn.body.stmts)
    blob = Var("blob", UnknownType())
    custom = stmts[2].value
    args = (blob,) + custom.args[1:]
    stmts[2] = AssignStmt(stmts[2].var, custom.with_fields(args=args))
    before = Program(before.name, (fn.with_fields(body=SeqStmts(tuple(stmts))),))
    after, remarks = run_pass(before)
    out_fn = after.function("kernel")
    assert "unranked" in out_fn.attr(REVERTED)
    gs = guards(after)
    assert len(gs) == 2 and all(g.attr(LIMIT_TAG) for g in gs)
    assert any(r.kind == "reverted" for r in remarks)


# -------------------------------------------------------------------------------------------------------------
# misaligned output init: output init #1 is a GM tensor, not a tile that can be sliced like its result.
# (Two tile results of different shapes, e.g. [16, 32] via (d0, d1) and [16, 1] via (d0, 0), are NOT
# misaligned: each output init is compared with its own result — see test_regressions.py.)
# -------------------------------------------------------------------------------------------------------------


@pl.program
class MisalignedBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               o2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a, b = pl.tile.custom("sb.copy_and_sum", ins=[t], outs=[i1, o2],
                              indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, 0)")],
                              iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        o1 = pl.store(a, [0, 0], o1)
        return o1


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class MisalignedExpected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               o2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        if sb == 0:
            r = pl.tile.custom("sb.copy_and_sum", ins=[t], outs=[i1, o2],
                               indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                              pl.affine_map("(d0, d1) -> (d0, d1)"),
                                              pl.affine_map("(d0, d1) -> (d0, 0)")],
                               iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
            a, b = pl.yield_(r[0], r[1])
        else:
            a, b = pl.yield_(i1, o2)
        if sb == 0:
            p1 = pl.store(a, [0, 0], o1)
            q1 = pl.yield_(p1)
        else:
            q1 = pl.yield_(o1)
        return q1


def test_misaligned_output_init_rolls_back():
    after, remarks = run_pass(MisalignedBefore)
    assert_rollback(after, MisalignedExpected, "kernel", "aligned_output_inits")
    assert "output init #1" in after.function("kernel").attr(REVERTED)


# -------------------------------------------------------------------------------------------------------------
# strict mode is per function: a conflict in f1 does not relax f2
# -------------------------------------------------------------------------------------------------------------


@pl.program
class TwoFunctions:
    @pl.function(type=pl.FunctionType.InCore)
    def f1(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        # v is broadcast along d1 (as a column) and along d0 (as a row): two different axes of one value
        y = pl.tile.custom("sb.two_vec", ins=[t, v, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, 0)"),
                                          pl.affine_map("(d0, d1) -> (d1, 0)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def f2(self, x: pl.Tensor[[16, 16], pl.FP32],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t)
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, u)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class F1Expected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def f1(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 16], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 16], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Vec)
        # non-strict: v is needed whole (d1) and halved (d0); the half is a window left on the full load
        vh: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [8, 1], [sb * 8, 0])
        y = pl.tile.custom("sb.two_vec", ins=[t, vh, v], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, 0)"),
                                          pl.affine_map("(d0, d1) -> (d1, 0)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class F2Expected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def f2(self, x: pl.Tensor[[16, 16], pl.FP32],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t)
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, u)
        if sb == 0:
            o1 = pl.store(y, [0, 0], out)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(out)
        return o2


def test_strict_mode_is_restored_for_the_next_function():
    after, remarks = run_pass(TwoFunctions)
    # f1: the conflicting join turned strict mode off, so the window left on v is accepted
    assert any(r.kind == "strict-off" and r.function == "f1" for r in remarks)
    assert not any(r.kind == "strict-off" and r.function == "f2" for r in remarks)
    ir.assert_structural_equal(Program(after.name, (after.function("f1"),)),
                               Program(F1Expected.name, (F1Expected.function("f1"),)))
    # f2: strict again; t + transpose(t) needs t halved on both axes at once, which rolls the function back
    f2 = Program(after.name, (after.function("f2"),), after.attrs)
    assert_rollback(f2, F2Expected, "f2", "window stuck")
    assert "halved on two axes" in after.function("f2").attr(REVERTED)


def test_rolled_back_function_keeps_user_symbol():
    op, kw, _ = CASES["side_effects"]
    after, _ = run_pass(pl.parse(_before(op, **kw)))
    g = guards(after)[0]
    call = g.then_body.stmts[0].value
    assert call.kwarg("symbol") == "sb.scale2"
    assert after.function("kernel").func_type is FunctionType.InCore


def test_limit_pass_guards_each_store_once():
    """The stand-alone LimitUniqueSubBlockIdToStoreCopy is idempotent."""
    from tilefold.passes.tile_and_bind_sub_block import limit_unique_sub_block_id_to_store_copy

    before = pl.parse(_before(_custom()))
    once = limit_unique_sub_block_id_to_store_copy().run(before)
    twice = limit_unique_sub_block_id_to_store_copy().run(once)
    assert twice is once
    assert len(guards(once)) == 2
    top = once.function("kernel").body.stmts
    assert isinstance(top[-1], ReturnStmt) and isinstance(top[-2], IfStmt)
