"""DimensionAnalyzer rules and the custom-op strategy checks, one at a time."""

from __future__ import annotations

import pytest
import test_rollback as rb
import test_split_structure as ss

import tilefold.language as pl
from tilefold.analysis.dimensions import DimensionAnalyzer
from tilefold.ir import AffineMap, AssignStmt, Call, TupleType
from tilefold.passes.tile_and_bind_sub_block import (
    Refusal,
    check_custom_op,
    check_slices_only_parallel_dimensions,
    project_to_inputs,
    recover_iteration_window,
)


def _vars(program, fname="kernel"):
    fn = program.function(fname)
    out = {p.name: p for p in fn.params}
    for s in fn.body.stmts:
        if isinstance(s, AssignStmt):
            out[s.var.name] = s.var
    return fn, out


def _custom(fn) -> tuple[Call, object]:
    for s in fn.body.stmts:
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name.startswith("tile.custom"):
            return s.value, s.var
    raise AssertionError("no custom op")


def test_elementwise_broadcast_and_reduction_rules():
    fn, v = _vars(ss.ChainBefore)
    an = DimensionAnalyzer(fn).run()
    # elementwise and broadcast target join every axis; the load joins the GM tensor
    assert an.same_class((v["t"], 0), (v["z"], 0)) and an.same_class((v["t"], 1), (v["z"], 1))
    assert an.same_class((v["x"], 0), (v["t"], 0))
    # the row vector joins the kept axis only; row_max marks the reduced axis
    assert an.same_class((v["m"], 0), (v["t"], 0))
    assert not an.same_class((v["m"], 1), (v["t"], 1))
    assert not an.is_parallel((v["t"], 1)) and an.is_parallel((v["t"], 0))
    assert not an.conflicts


def test_custom_reduction_iterator_marks_axis():
    fn, v = _vars(ss.SoftmaxFirstBefore)
    an = DimensionAnalyzer(fn).run()
    assert not an.is_parallel((v["y"], 0)) and an.is_parallel((v["y"], 1))
    assert an.same_class((v["t"], 1), (v["y"], 1))


def test_custom_without_maps_is_opaque():
    src = rb._before('pl.tile.custom("sb.scale2", ins=[t], outs=[init], no_side_effect=True)')
    fn, v = _vars(pl.parse(src))
    an = DimensionAnalyzer(fn).run()
    call, _ = _custom(fn)
    assert call in an.opaque_ops
    assert not an.same_class((v["t"], 0), (v["y"], 0))
    # opaque means no join at all: without maps nothing says how result and output init relate
    assert not an.same_class((v["init"], 0), (v["y"], 0))
    assert not an.same_class((v["init"], 1), (v["y"], 1))


def test_loop_joins_init_iter_arg_yield_and_result():
    fn = ss.LoopBefore.function("kernel")
    an = DimensionAnalyzer(fn).run()
    loop = fn.body.stmts[1]
    acc0 = fn.body.stmts[0].var
    ia, rv = loop.iter_args[0], loop.return_vars[0]
    nxt = loop.body.stmts[1].var
    for a, b in ((acc0, ia), (ia, rv), (ia, nxt)):
        assert an.same_class((a, 0), (b, 0)) and an.same_class((a, 1), (b, 1))


def test_conflicting_join_is_rolled_back_and_recorded():
    fn, v = _vars(rb.TwoFunctions, "f1")
    an = DimensionAnalyzer(fn).run()
    assert len(an.conflicts) == 1
    c = an.conflicts[0]
    assert c.op == "tile.custom" and c.axes == (0, 1)
    # transactional: none of the custom op's joins survived
    assert not an.same_class((v["t"], 0), (v["y"], 0))
    assert not an.same_class((v["y"], 0), (v["y"], 1))


def test_transaction_is_all_or_nothing():
    fn, v = _vars(ss.IdentityBefore)
    an = DimensionAnalyzer(fn).run()
    t, y = v["t"], v["y"]
    before = an.same_class((t, 0), (y, 0))
    conflict = an.transaction("test", [((t, 0), (y, 0), "ok"), ((y, 0), (y, 1), "bad")])
    assert conflict is not None
    assert an.same_class((t, 0), (y, 0)) == before
    assert not an.same_class((y, 0), (y, 1))


# ------------------------------------------------------------------------------------------------------------
# custom-op checks
# ------------------------------------------------------------------------------------------------------------


def test_projection_of_the_seed_example():
    fn, _ = _vars(ss.ReductionBefore)
    call, y = _custom(fn)
    plan = check_custom_op(call, [y.type], {0: 0})
    assert (plan.iter_dim, plan.half) == (0, 8)
    assert plan.input_axes == [0]  # input [16, 32] -> offsets [8 * sb, 0], sizes [8, 32]
    assert project_to_inputs(call, 0, 16) == [0]


def test_slices_only_parallel_dimensions_refuses_reduction_dim():
    fn, _ = _vars(ss.SoftmaxLastBefore)
    call, _ = _custom(fn)
    with pytest.raises(Refusal) as e:
        check_slices_only_parallel_dimensions(call, {0: 1})
    assert e.value.check == "slices_only_parallel_dimensions" and "reduction" in e.value.message
    check_slices_only_parallel_dimensions(call, {0: 0})


def test_slices_only_parallel_dimensions_refuses_constant():
    fn, _ = _vars(ss.ReductionBefore)
    call, _ = _custom(fn)
    bcast = call.with_fields(kwargs=tuple(
        (k, (val[0], AffineMap.parse("(d0, d1) -> (0)")) if k == "indexing_maps" else val)
        for k, val in call.kwargs))
    with pytest.raises(Refusal, match="not to an iterator"):
        check_slices_only_parallel_dimensions(bcast, {0: 0})


def test_every_result_window_is_recovered_and_compared():
    fn, _ = _vars(ss.MultiBefore)
    call, res = _custom(fn)
    assert isinstance(res.type, TupleType)
    types = list(res.type.types)
    assert recover_iteration_window(call, types, {0: 0, 1: 0}) == (0, 16)
    with pytest.raises(Refusal) as e:
        recover_iteration_window(call, types, {0: 0, 1: 1})  # results disagree on the iteration window
    assert e.value.check == "recover_iteration_window"


@pytest.mark.parametrize("name,check", [
    ("side_effects", "safe_to_duplicate"), ("builtin", "safe_to_duplicate"), ("temp_buffers", "safe_to_duplicate"),
    ("extra_buffers", "safe_to_duplicate"), ("macro_sync", "safe_to_duplicate"),
    ("gm_tensor_input", "sliceable_inputs"), ("transposed_map", "supported_explicit_maps"),
    ("repeated_dim", "supported_explicit_maps"), ("nonzero_constant", "supported_explicit_maps"),
    ("compound_expression", "supported_explicit_maps"), ("dynamic_full_range", "project_to_inputs"),
])
def test_check_order_names_the_first_failure(name, check):
    op, kw, _ = rb.CASES[name]
    fn, _ = _vars(pl.parse(rb._before(op, **kw)))
    call, y = _custom(fn)
    with pytest.raises(Refusal) as e:
        check_custom_op(call, [y.type], {0: 0})
    assert e.value.check == check


def test_all_checks_precede_ir_creation():
    """A side-effecting op with a transposed map fails on the FIRST check (duplication safety)."""
    op = rb._custom(maps=('pl.affine_map("(d0, d1) -> (d1, d0)")', rb.ID), extra="")
    fn, _ = _vars(pl.parse(rb._before(op)))
    call, y = _custom(fn)
    with pytest.raises(Refusal) as e:
        check_custom_op(call, [y.type], {0: 0})
    assert e.value.check == "safe_to_duplicate"
