"""Regressions from the review of TileAndBindSubBlock (each test failed before its fix):

1. an un-split custom op whose result split work needs WHOLE was fenced to sub-block 0 by the final limit
   step, so sub-block 1 read its uninitialised output init (MISMATCH); now it runs on both sub-blocks
   (``sub_block_replicated``) when safe to duplicate, and the function rolls back otherwise;
2. a loop-carried tile whose loop result is unused rolled back: undemanded iter args were seeded whole;
3. the 32-byte half-row rule held only for stored tiles, not for loads / intermediates;
4. a nested call operand (``row_expand_sub(r, row_max(r))``) rolled back;
5. an AIV function without stores was skipped silently (its GM-writing custom op ran on both sub-blocks);
6. strategy-level refusal (a map sending the halved axis to a reduction iterator) through the pass, and the
   unranked-input rollback, compared as full IR;
7. DimensionAnalyzer: opaque custom ops, conflict kinds, and the evidence on rollback.
"""

from __future__ import annotations

import pytest
from sb_util import assert_rollback, guards, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.analysis.dimensions import DimensionAnalyzer
from tilefold.errors import NotSupportedError
from tilefold.ir import AssignStmt, Call, Program, SeqStmts, UnknownType, Var
from tilefold.ir.visitor import IRMutator
from tilefold.passes.tile_and_bind_sub_block import REPLICATED, REVERTED, Refusal, check_replicable
from tilefold.testing import run_and_compare
from tilefold.testing.sub_block_evidence import sub_block_evidence

ID = 'pl.affine_map("(d0, d1) -> (d0, d1)")'
RED_PAR = "[pl.reduction, pl.parallel]"
MAP3 = 'pl.affine_map("(d0, d1, d2) -> (d0, d1)")'


def _both_correct(program, entry=None):
    for enabled in (False, True):
        report = run_and_compare(program, "random", entry=entry, options={"enable_auto_bind_sub_block": enabled})
        assert report.fault is None and report.matches, (enabled, report.summary())


# =============================================================================================================
# 1. an un-split custom op needed whole by split work
# =============================================================================================================


def _colmax_src(extra: str = ", no_side_effect=True") -> str:
    return f'''
import tilefold.language as pl

@pl.program
class Colmax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        v = pl.tile.custom("sb.colmax", ins=[t], outs=[init],
                           indexing_maps=[{ID}, pl.affine_map("(d0, d1) -> (0, d1)")],
                           iterator_types={RED_PAR}{extra})
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(u, v)
        out = pl.store(w, [0, 0], out)
        return out
'''


@pl.program
class ColmaxExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        # the whole column max, computed by BOTH sub-blocks (no guard): each needs all of it
        v = pl.tile.custom("sb.colmax", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True,
                           ir_attrs={"sub_block_replicated": True})
        w: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(u, v)
        out = pl.store(w, [sb * 8, 0], out, tiled_op=True)
        return out


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class ColmaxRollbackExpected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        if sb == 0:
            v0 = pl.tile.custom("sb.colmax", ins=[t], outs=[init],
                                indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                               pl.affine_map("(d0, d1) -> (0, d1)")],
                                iterator_types=[pl.reduction, pl.parallel])
            v = pl.yield_(v0)
        else:
            v = pl.yield_(init)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(u, v)
        if sb == 0:
            o1 = pl.store(w, [0, 0], out)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(out)
        return o2


def test_custom_op_needed_whole_runs_on_both_sub_blocks():
    before = pl.parse(_colmax_src())
    after, remarks = run_pass(before)
    ir.assert_structural_equal(after, ColmaxExpected)
    assert not guards(after)  # nothing fenced: guarded work would feed the split col_expand_mul
    rep = [r for r in remarks if r.kind == "replicated"]
    assert len(rep) == 1 and "sb.colmax" in rep[0].message and "needs its result v whole" in rep[0].message
    assert "uninitialised output init" in rep[0].message
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems  # the replicated op computes consistent (whole) ranges on both sub-blocks
    _both_correct(before)  # was a MISMATCH at row 8 (sub-block 1 multiplied by the uninitialised init)


def test_custom_op_needed_whole_but_not_duplicable_rolls_back():
    before = pl.parse(_colmax_src(extra=""))  # no no_side_effect: must not run twice
    after, remarks = run_pass(before)
    assert_rollback(after, ColmaxRollbackExpected, "kernel", "cannot run on both sub-blocks")
    reason = after.function("kernel").attr(REVERTED)
    assert "safe_to_duplicate" in reason and "needs its result v whole" in reason
    assert any(r.kind == "refused" and r.details["check"] == "safe_to_duplicate" for r in remarks)
    _both_correct(before)


def test_check_replicable_refuses_gm_outputs():
    src = '''
import tilefold.language as pl

@pl.program
class G:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[t], outs=[out], indexing_maps=[ID, ID],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        return y
'''.replace("ID", ID)
    fn = pl.parse(src).function("kernel")
    assign = fn.body.stmts[1]
    with pytest.raises(Refusal) as e:
        check_replicable(assign.value, [assign.var.type])
    assert e.value.check == "replicable" and "global memory" in e.value.message


DEAD_SRC = f'''
import tilefold.language as pl

@pl.program
class Dead:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a = pl.tile.custom("sb.scale2", ins=[s], outs=[i1], indexing_maps=[{ID}, {ID}],
                           iterator_types=[pl.parallel, pl.parallel]SE)
        b = pl.tile.custom("sb.scale2", ins=[a], outs=[i2], indexing_maps=[{ID}, {ID}],
                           iterator_types=[pl.parallel, pl.parallel]SE)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("side_effects", [False, True])
def test_custom_ops_nobody_reads_are_fenced_to_sub_block0(side_effects):
    """b is dead and a is read only by b: both run once on sub-block 0 (guarded work feeds only guarded
    work), with or without side effects; the rest of the function is split."""
    before = pl.parse(DEAD_SRC.replace("SE", "" if side_effects else ", no_side_effect=True"))
    after, remarks = run_pass(before)
    assert after.function("kernel").attr(REVERTED) is None
    gs = guards(after)
    assert len(gs) == 2
    fenced = [s.value.kwarg("symbol") for g in gs for s in g.then_body.stmts
              if isinstance(s, AssignStmt) and isinstance(s.value, Call)]
    assert fenced == ["sb.scale2", "sb.scale2"]
    assert sum(r.kind == "fenced" for r in remarks) == 2
    ev = sub_block_evidence(after)
    assert ev.halved_windows and ev.no_guarded_tiled_work and not ev.consistent_custom_ranges
    _both_correct(before)


CHAIN_SRC = f'''
import tilefold.language as pl

@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        i1: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        v = pl.tile.custom("sb.colmax", ins=[t], outs=[i1],
                           indexing_maps=[{ID}, pl.affine_map("(d0, d1) -> (0, d1)")],
                           iterator_types={RED_PAR}, no_side_effect=True)
        v2 = pl.tile.custom("sb.scale2", ins=[v], outs=[i2], indexing_maps=[{ID}, {ID}],
                            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(u, v2)
        out = pl.store(w, [0, 0], out)
        return out
'''


def test_chain_of_whole_custom_ops_is_replicated():
    before = pl.parse(CHAIN_SRC)
    after, remarks = run_pass(before)
    assert not guards(after)
    customs = [s.value for s in after.function("kernel").body.stmts
               if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.custom"]
    assert [c.kwarg(REPLICATED) for c in customs] == [True, True]
    assert sub_block_evidence(after).split
    _both_correct(before)


# =============================================================================================================
# 2. loop-carried tile also stored inside the loop, loop result unused
# =============================================================================================================


LOOP_SRC = f'''
import tilefold.language as pl

@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        acc0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0, target_memory=pl.Mem.Vec)
        for k, (acc, o) in pl.range(0, 4, init_values=(acc0, out)):
            t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, k * 32], [16, 32], target_memory=pl.Mem.Vec)
            i1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            a = pl.tile.custom("sb.scale2", ins=[t], outs=[i1], indexing_maps=[{ID}, {ID}],
                               iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
            nxt: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
            o2 = pl.store(nxt, [0, k * 32], o)
            acc_out, o_out = pl.yield_(nxt, o2)
        return o_out
'''


@pl.program
class LoopExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        acc0: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 32], dtype=pl.FP32, value=0.0,
                                                                   target_memory=pl.Mem.Vec)
        for k, (acc, o) in pl.range(0, 4, init_values=(acc0, out)):
            t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, k * 32], [8, 32],
                                                                    target_memory=pl.Mem.Vec)
            i1: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            a = pl.tile.custom("sb.scale2", ins=[t], outs=[i1],
                               indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                              pl.affine_map("(d0, d1) -> (d0, d1)")],
                               iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, tiled_op=True)
            nxt: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
            o2 = pl.store(nxt, [sb * 8, k * 32], o, tiled_op=True)
            acc_out, o_out = pl.yield_(nxt, o2)
        return o_out


def test_loop_carried_tile_stored_in_the_loop_splits():
    before = pl.parse(LOOP_SRC)
    after, remarks = run_pass(before)
    ir.assert_structural_equal(after, LoopExpected)
    # the loop is walked several times until its demand is stable; each note is reported once
    keys = [(r.pass_name, r.kind, r.message) for r in remarks]
    assert len(keys) == len(set(keys)), keys
    assert sum(r.kind == "split" and "custom op sb.scale2" in r.message for r in remarks) == 1
    _both_correct(before)


def test_iter_arg_never_read_follows_its_yielded_half():
    src = LOOP_SRC.replace("pl.tile.add(acc, a)", "pl.tile.exp(a)")  # acc is carried but never read
    before = pl.parse(src)
    after, _ = run_pass(before)
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems
    acc0 = after.function("kernel").body.stmts[1]
    assert acc0.var.type.static_shape == (8, 32)
    _both_correct(before)


# =============================================================================================================
# 3. the 32-byte half-row rule for every tile halved on the column axis
# =============================================================================================================


def _cast_src(chain: str) -> str:
    return f'''
import tilefold.language as pl

@pl.program
class Cast:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[15, 16], pl.{chain[0]}],
               out: pl.Out[pl.Tensor[[15, 16], pl.FP32]]) -> pl.Tensor[[15, 16], pl.FP32]:
        a: pl.Tile[[15, 16], pl.{chain[0]}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [15, 16], target_memory=pl.Mem.Vec)
''' + "".join(
        f"        {chr(98 + i)}: pl.Tile[[15, 16], pl.{dt}, pl.Mem.Vec] = pl.tile.cast({chr(97 + i)}, target_type=pl.{dt})\n"
        for i, dt in enumerate(chain[1:])) + f'''        out = pl.store({chr(97 + len(chain) - 1)}, [0, 0], out)
        return out
'''


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class CastExpected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[15, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[15, 16], pl.FP32]]) -> pl.Tensor[[15, 16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        a: pl.Tile[[15, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [15, 16], target_memory=pl.Mem.Vec)
        b: pl.Tile[[15, 16], pl.FP32, pl.Mem.Vec] = pl.tile.cast(a, target_type=pl.FP32)
        if sb == 0:
            o1 = pl.store(b, [0, 0], out)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(out)
        return o2


def test_fp16_load_with_a_16_byte_half_row_rolls_back():
    before = pl.parse(_cast_src(["FP16", "FP32"]))
    after, remarks = run_pass(before)
    assert_rollback(after, CastExpected, "kernel", "half row of 16 B")
    assert "cannot halve a on axis 1" in after.function("kernel").attr(REVERTED)
    _both_correct(before)


def test_fp16_intermediate_with_a_16_byte_half_row_rolls_back():
    before = pl.parse(_cast_src(["FP32", "FP16", "FP32"]))  # FP32 load, FP16 intermediate, FP32 store
    after, _ = run_pass(before)
    reason = after.function("kernel").attr(REVERTED)
    assert reason is not None and "cannot halve b on axis 1" in reason and "16 B" in reason
    _both_correct(before)


def test_fp32_chain_with_a_32_byte_half_row_splits():
    before = pl.parse(_cast_src(["FP32", "FP32"]))
    after, _ = run_pass(before)
    assert sub_block_evidence(after).axis == {"kernel": 1}


# =============================================================================================================
# 4. nested call operands are hoisted
# =============================================================================================================


NESTED_SRC = f'''
import tilefold.language as pl

@pl.program
class Nested:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        if flag == 1:
            a = pl.tile.custom("sb.softmax_last", ins=[t], outs=[init], indexing_maps=[{ID}, {ID}],
                               iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
            r = pl.yield_(a)
        else:
            b: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            r = pl.yield_(b)
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(r, pl.tile.row_max(r))
        out = pl.store(c, [0, 0], out)
        return out
'''


@pl.program
class NestedExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        if flag == 1:
            a = pl.tile.custom("sb.softmax_last", ins=[t], outs=[init],
                               indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                              pl.affine_map("(d0, d1) -> (d0, d1)")],
                               iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, tiled_op=True)
            r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(a)
        else:
            b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
        row_max_0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(r)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(r, row_max_0)
        out = pl.store(c, [sb * 16, 0], out, tiled_op=True)
        return out


def test_nested_call_operand_is_hoisted_and_split():
    before = pl.parse(NESTED_SRC)
    after, _ = run_pass(before)
    ir.assert_structural_equal(after, NestedExpected)
    _both_correct(before)


def test_nested_call_in_a_store_is_hoisted():
    src = '''
import tilefold.language as pl

@pl.program
class N:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.exp(pl.tile.muls(t, 2.0)), [0, 0], out)
        return out
'''
    before = pl.parse(src)
    after, _ = run_pass(before)
    assert sub_block_evidence(after).split
    _both_correct(before)


# =============================================================================================================
# 5. a function without stores: roll back, fence the custom ops; codegen error with a location
# =============================================================================================================


NO_STORE_SRC = f'''
import tilefold.language as pl

@pl.program
class NoStore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[t], outs=[out], indexing_maps=[{ID}, {ID}],
                           iterator_types=[pl.parallel, pl.parallel])
        return y
'''


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class NoStoreExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        if sb == 0:
            y0 = pl.tile.custom("sb.scale2", ins=[t], outs=[out],
                                indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                               pl.affine_map("(d0, d1) -> (d0, d1)")],
                                iterator_types=[pl.parallel, pl.parallel])
            y = pl.yield_(y0)
        else:
            y = pl.yield_(out)
        return y


def test_function_without_store_rolls_back_and_fences_custom_ops():
    before = pl.parse(NO_STORE_SRC)
    after, remarks = run_pass(before)
    assert_rollback(after, NoStoreExpected, "kernel", "no store could be split")
    assert any(r.kind == "reverted" and "no store" in r.message for r in remarks)


def test_custom_op_writing_a_gm_tensor_is_a_located_codegen_error():
    before = pl.parse(NO_STORE_SRC, filename="no_store.py")
    with pytest.raises(NotSupportedError) as e:
        run_and_compare(before, "random")
    assert e.value.span is not None and e.value.span.line == 10
    assert "output init #0 out" in e.value.message and "pl.tile.create" in e.value.hint


# =============================================================================================================
# 6. strategy-level refusal through the pass; unranked input as full IR
# =============================================================================================================


# Iterators [d0 reduction, d1 parallel, d2 parallel]. v [16, 1] is broadcast through (d1, 0) AND (d2, 0),
# which joins d1 with d2, while s binds d1 and d2 to its two different axes: a broadcast on two different
# axes. The analysis undoes all of the op's joins and marks (strict mode off), so it does NOT know that d0 is
# a reduction iterator, and axis 0 of y is a fine axis choice (axis 1 is refused: FP16 half row 16 B). The
# custom-op strategy then refuses: result axis 0 maps to the reduction iterator d0.
RED_SRC = f'''
import tilefold.language as pl

@pl.program
class Red:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 1], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.mix4", ins=[t, v, v, s], outs=[init],
                           indexing_maps=[{MAP3}, pl.affine_map("(d0, d1, d2) -> (d1, 0)"),
                                          pl.affine_map("(d0, d1, d2) -> (d2, 0)"),
                                          pl.affine_map("(d0, d1, d2) -> (d1, d2)"), {MAP3}],
                           iterator_types=[pl.reduction, pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out
'''


@pl.program(attrs={"tile_and_bind_subblock_reverted": True})
class RedExpected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 1], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        if sb == 0:
            y0 = pl.tile.custom("sb.mix4", ins=[t, v, v, s], outs=[init],
                                indexing_maps=[pl.affine_map("(d0, d1, d2) -> (d0, d1)"),
                                               pl.affine_map("(d0, d1, d2) -> (d1, 0)"),
                                               pl.affine_map("(d0, d1, d2) -> (d2, 0)"),
                                               pl.affine_map("(d0, d1, d2) -> (d1, d2)"),
                                               pl.affine_map("(d0, d1, d2) -> (d0, d1)")],
                                iterator_types=[pl.reduction, pl.parallel, pl.parallel], no_side_effect=True)
            y = pl.yield_(y0)
        else:
            y = pl.yield_(init)
        if sb == 0:
            o1 = pl.store(y, [0, 0], out)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(out)
        return o2


def test_custom_map_sending_the_split_axis_to_a_reduction_rolls_back():
    before = pl.parse(RED_SRC)
    an = DimensionAnalyzer(before.function("kernel")).run()
    y = before.function("kernel").body.stmts[4].var
    assert an.conflicts and an.conflicts[0].broadcast and an.is_parallel((y, 0))  # axis choice is fine
    after, remarks = run_pass(before)
    assert_rollback(after, RedExpected, "kernel", "slices_only_parallel_dimensions")
    assert "reduction iterator" in after.function("kernel").attr(REVERTED)
    assert any(r.kind == "axis" and "split axis 0" in r.message for r in remarks)
    assert any(r.kind == "strict-off" for r in remarks)
    _both_correct(before)


class _ReplaceCustomInput(IRMutator):
    def __init__(self, blob: Var) -> None:
        super().__init__()
        self.blob = blob

    def mutate_Call(self, expr: Call):
        expr = super().mutate_Call(expr)
        if isinstance(expr, Call) and expr.op_name == "tile.custom":
            return expr.with_fields(args=(self.blob,) + expr.args[1:])
        return expr


def test_unranked_custom_input_rollback_is_the_full_expected_ir():
    import test_rollback as rb

    blob = Var("blob", UnknownType())
    before = _ReplaceCustomInput(blob).mutate_program(pl.parse(rb._before(rb._custom())))
    expected = _ReplaceCustomInput(blob).mutate_program(pl.parse(rb._expected(rb._custom())))
    after, remarks = run_pass(before)
    assert_rollback(after, expected, "kernel", "unranked")
    assert any(r.kind == "reverted" and "unranked" in r.message for r in remarks)


# =============================================================================================================
# 7. DimensionAnalyzer conflicts and the evidence on rollback
# =============================================================================================================


# u = custom(t) with a transposing map crosses t's axes with u's; z = t + u then asks to join t's axis 0 with
# u's axis 0, i.e. with t's axis 1: a conflict, but no broadcast is involved
CROSS_SRC = '''
import tilefold.language as pl

@pl.program
class Cross:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        u = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d1, d0)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, u)
        out = pl.store(z, [0, 0], out)
        return out
'''


def test_non_broadcast_conflict_keeps_strict_mode():
    before = pl.parse(CROSS_SRC)
    an = DimensionAnalyzer(before.function("kernel")).run()
    assert an.conflicts and not any(c.broadcast for c in an.conflicts)
    after, remarks = run_pass(before)
    assert not any(r.kind == "strict-off" for r in remarks)
    assert any(r.kind == "dimension-conflict" and "strict mode kept" in r.message for r in remarks)
    assert after.function("kernel").attr(REVERTED) is not None


def test_broadcast_conflict_turns_strict_mode_off():
    import test_rollback as rb

    an = DimensionAnalyzer(rb.TwoFunctions.function("f1")).run()
    assert an.conflicts and all(c.broadcast for c in an.conflicts)
    assert "broadcast on two different axes" in str(an.conflicts[0])


def test_evidence_on_rollback_does_not_claim_consistent_custom_ranges():
    import test_rollback as rb

    op, kw, _ = rb.CASES["side_effects"]
    after, _ = run_pass(pl.parse(rb._before(op, **kw)))
    ev = sub_block_evidence(after)
    assert not ev.consistent_custom_ranges
    assert any("un-split" in p for p in ev.problems)
    # a rolled-back function without custom ops claims nothing about custom ranges either way (vacuous)
    f2 = run_pass(Program("P", (rb.TwoFunctions.function("f2"),)))[0]
    ev2 = sub_block_evidence(f2)
    assert ev2.consistent_custom_ranges and not ev2.not_reverted and not ev2.split


def test_hoisting_keeps_the_rollback_untouched():
    """A rolled-back function is the ORIGINAL (un-hoisted) one plus guards."""
    src = NESTED_SRC.replace("no_side_effect=True", "no_side_effect=False")
    parsed = pl.parse(src)
    # the front end binds nested tile calls itself (language/call_results.py): put row_max back inside the
    # row_expand_sub, as hand-built IR may have it, to see that the pass's own hoisting is not kept on rollback
    fn0 = parsed.function("kernel")
    stmts = list(fn0.body.stmts)
    k = next(i for i, s in enumerate(stmts) if isinstance(s, AssignStmt) and s.var.name == "c")
    bound = stmts[k - 1]
    assert isinstance(bound, AssignStmt) and bound.value.op_name == "tile.row_max"
    c0 = stmts[k]
    stmts[k - 1:k + 1] = [c0.with_fields(value=c0.value.with_fields(args=(c0.value.args[0], bound.value)))]
    before = parsed.with_fields(functions=(fn0.with_fields(body=SeqStmts(tuple(stmts))),))
    after, _ = run_pass(before)
    fn = after.function("kernel")
    assert fn.attr(REVERTED) is not None
    c = [s for s in fn.body.stmts if isinstance(s, AssignStmt) and s.var.name == "c"][0]
    assert isinstance(c.value.args[1], Call)  # still the nested call
    assert isinstance(fn.body, SeqStmts)
