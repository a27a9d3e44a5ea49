"""Each IR property verifier catches its violation (bad IR built programmatically) and accepts good IR."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ir"))

from irbuild import FP32, Body, Mat, Vec, c, kernel_fn, loop_fn, program, tup  # noqa: E402

from tilefold import ir  # noqa: E402
from tilefold.errors import Span, VerificationError  # noqa: E402
from tilefold.ir import (  # noqa: E402
    AssignStmt,
    Call,
    ConstBool,
    DataType,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    GlobalVar,
    IfStmt,
    IterArg,
    ParamDirection,
    ReturnStmt,
    SeqStmts,
    TileType,
    Var,
    YieldStmt,
)
from tilefold.ops import make_call  # noqa: E402
from tilefold.passes.base import IRProperty as P  # noqa: E402
from tilefold.passes.verifier import (  # noqa: E402
    ALL_VERIFIABLE,
    check_properties,
    register_verifier,
    verify_properties,
)

INDEX = ir.ScalarType(DataType.INDEX)


def fn_of(body: Body, params=(), func_type=FunctionType.InCore, name="kernel") -> Function:
    return Function(name, tuple(params), tuple(ParamDirection.In for _ in params), (), body.seq(), func_type)


def only(props, prog):
    return check_properties(prog, props)


def test_good_programs_satisfy_every_structural_property():
    prog = program(kernel_fn(), loop_fn())
    assert check_properties(prog, ALL_VERIFIABLE) == []
    verify_properties(prog, ALL_VERIFIABLE)


# ------------------------------------------------------------------------------------------------
# SSAForm
# ------------------------------------------------------------------------------------------------


def test_ssa_double_assignment():
    fn = kernel_fn()
    stmts = list(fn.body.stmts)
    again = AssignStmt(stmts[2].var, stmts[2].value)  # %y assigned twice
    bad = fn.with_fields(body=SeqStmts(tuple(stmts[:3] + [again] + stmts[3:])))
    vs = only([P.SSAForm], program(bad))
    assert len(vs) == 1
    assert vs[0].property is P.SSAForm and vs[0].function == "kernel"
    assert "%y is defined again" in vs[0].message
    assert vs[0].stmt is again
    with pytest.raises(VerificationError) as info:
        verify_properties(program(bad), [P.SSAForm])
    text = str(info.value)
    assert "SSAForm violated in function 'kernel'" in text
    assert re.search(r"at: %?y: .*tile\.muls\(%?hi, 0\.5\)", text)
    assert "hint:" in text


def test_ssa_loop_return_var_reuses_a_parameter():
    fn = loop_fn()
    loop = fn.body.stmts[1]
    x = fn.params[0]
    bad_loop = loop.with_fields(return_vars=(x,))
    # (types differ too, but SSA only looks at definitions)
    bad = fn.with_fields(body=SeqStmts((fn.body.stmts[0], bad_loop) + fn.body.stmts[2:]))
    vs = only([P.SSAForm], program(bad))
    assert any("already defined as a parameter" in v.message for v in vs)


# ------------------------------------------------------------------------------------------------
# TypeChecked
# ------------------------------------------------------------------------------------------------


def _replace(fn: Function, index: int, stmt) -> Function:
    stmts = list(fn.body.stmts)
    stmts[index] = stmt
    return fn.with_fields(body=SeqStmts(tuple(stmts)))


def test_type_bound_var_shape_disagrees_with_call():
    fn = kernel_fn()
    s = fn.body.stmts[1]
    wrong = Var("hi", ir.tile_type([16, 32], FP32, Vec))
    vs = only([P.TypeChecked], program(_replace(fn, 1, AssignStmt(wrong, s.value))))
    assert len(vs) >= 1
    assert "%hi's type" in vs[0].message and "inference gives" in vs[0].message


def test_type_call_type_disagrees_with_inference():
    fn = kernel_fn()
    s = fn.body.stmts[2]
    forged = s.value.with_fields(type=ir.tile_type([16, 64], DataType.FP16, Vec))
    vs = only([P.TypeChecked], program(_replace(fn, 2, AssignStmt(s.var, forged))))
    assert any("tile.muls call's type has dtype FP16 but inference gives FP32" in v.message for v in vs)


def test_type_operands_no_longer_type_check():
    x = Var("x", ir.tensor_type([16, 64], FP32))
    b = Body()
    t = b.call("t", "tile.load", [x, tup(0, 0), tup(16, 64)])
    u = b.call("u", "tile.load", [x, tup(0, 0), tup(16, 32)])
    bad_call = Call("tile.add", (t, u), (), t.type)  # built without make_call: shapes differ
    b.add(AssignStmt(Var("s", t.type), bad_call))
    vs = only([P.TypeChecked], program(fn_of(b, [x])))
    assert len(vs) == 1
    assert "tile.add no longer type-checks" in vs[0].message
    assert vs[0].hint  # the inference error's hint is kept


def test_type_memory_space_contradiction_and_allowed_fill_in():
    fn = kernel_fn()
    s = fn.body.stmts[0]
    in_mat = Var("t", ir.tile_type([16, 128], FP32, Mat))
    vs = only([P.TypeChecked], program(_replace(fn, 0, AssignStmt(in_mat, s.value))))
    assert any("in memory Mat but inference gives Vec" in v.message for v in vs)

    # a memory space filled in where inference gives none is fine
    src = Var("src", TileType(ir.make_shape([16, 64]), FP32, None))
    b = Body()
    b.let("w", make_call("tile.slice", [src, tup(16, 32), tup(0, 0)]), ir.tile_type([16, 32], FP32, Vec))
    assert only([P.TypeChecked], program(fn_of(b, [src]))) == []


def test_type_untyped_and_unregistered_calls():
    x = Var("x", ir.tensor_type([16, 64], FP32))
    b = Body()
    t = b.call("t", "tile.load", [x, tup(0, 0), tup(16, 64)])
    b.add(EvalStmt(Call("tile.exp", (t,))))  # no type
    b.add(EvalStmt(Call("tile.not_an_op", (t,))))
    msgs = [v.message for v in only([P.TypeChecked], program(fn_of(b, [x])))]
    assert any("has no type" in m for m in msgs)
    assert any("unregistered op 'tile.not_an_op'" in m for m in msgs)


def test_type_loop_yield_count_and_type():
    fn = loop_fn()
    loop = fn.body.stmts[1]
    body = loop.body.stmts
    no_yield = loop.with_fields(body=SeqStmts(body[:-1]))
    vs = only([P.TypeChecked], program(_replace(fn, 1, no_yield)))
    assert any("must end with a yield of 1 value" in v.message for v in vs)
    two = loop.with_fields(body=SeqStmts(body[:-1] + (YieldStmt((body[1].var, body[1].var)),)))
    vs = only([P.TypeChecked], program(_replace(fn, 1, two)))
    assert any("yields 2 value(s) but 1 are expected" in v.message for v in vs)


def test_type_if_without_else_binding_values():
    cond = Var("cond", ir.ScalarType(DataType.BOOL))
    x = Var("x", ir.tensor_type([16, 64], FP32))
    b = Body()
    then = Body()
    t = then.call("t", "tile.load", [x, tup(0, 0), tup(16, 64)])
    then.add(YieldStmt((t,)))
    r = Var("r", t.type)
    b.add(IfStmt(cond, then.seq(), None, (r,)))
    vs = only([P.TypeChecked], program(fn_of(b, [cond, x])))
    assert any("has no else branch" in v.message for v in vs)


def test_type_function_calls():
    kern = kernel_fn()
    x = Var("a", ir.tensor_type([16, 128], FP32))
    out = Var("o", ir.tensor_type([16, 64], FP32))
    good = Call(GlobalVar("kernel"), (x, out), (), out.type)
    missing = Call(GlobalVar("nope"), (x, out), (), out.type)
    arity = Call(GlobalVar("kernel"), (x,), (), out.type)
    wrong_shape = Call(GlobalVar("kernel"), (out, out), (), out.type)
    b = Body()
    for call in (good, missing, arity, wrong_shape):
        b.add(EvalStmt(call))
    orch = fn_of(b, [x, out], FunctionType.Orchestration, name="main")
    msgs = [v.message for v in only([P.TypeChecked], program(kern, orch))]
    assert len(msgs) == 3
    assert any("unknown function @nope" in m for m in msgs)
    assert any("with 1 operands; it takes 2" in m for m in msgs)
    assert any("operand 0 of @kernel" in m for m in msgs)


# ------------------------------------------------------------------------------------------------
# UseAfterDef
# ------------------------------------------------------------------------------------------------


def test_use_before_definition():
    fn = kernel_fn(swap=True)  # slice(t) before t = load(...)
    vs = only([P.UseAfterDef], program(fn))
    assert len(vs) == 1
    assert "%t is used before its definition" in vs[0].message
    assert vs[0].stmt is fn.body.stmts[0]


def test_loop_scoped_values_used_after_the_loop():
    fn = loop_fn()
    loop = fn.body.stmts[1]
    inner_t = loop.body.stmts[0].var
    store = fn.body.stmts[2]
    # use the loop var, the iter arg and a body value after the loop
    uses = [
        AssignStmt(Var("k", INDEX), ir.Add(loop.loop_var, c(1))),
        AssignStmt(Var("z", inner_t.type), make_call("tile.exp", [inner_t])),
        AssignStmt(Var("w", inner_t.type), make_call("tile.exp", [loop.iter_args[0]])),
    ]
    bad = fn.with_fields(body=SeqStmts((fn.body.stmts[0], loop, *uses, store, fn.body.stmts[3])))
    vs = only([P.UseAfterDef], program(bad))
    names = sorted(v.message.split()[0] for v in vs)
    assert names == ["%acc_it", "%i", "%t"]
    # the loop's return var is fine after the loop
    assert all("%res" not in v.message for v in vs)


def test_if_branch_value_used_after_if_and_undefined_var():
    cond = Var("cond", ir.ScalarType(DataType.BOOL))
    x = Var("x", ir.tensor_type([16, 64], FP32))
    b = Body()
    then, other = Body(), Body()
    t = then.call("t", "tile.load", [x, tup(0, 0), tup(16, 64)])
    then.add(YieldStmt((t,)))
    e = other.call("e", "tile.load", [x, tup(0, 0), tup(16, 64)])
    other.add(YieldStmt((e,)))
    r = Var("r", t.type)
    b.add(IfStmt(cond, then.seq(), other.seq(), (r,)))
    b.call("ok", "tile.exp", [r])
    b.call("bad", "tile.exp", [t])
    ghost = Var("ghost", t.type)
    b.call("worse", "tile.exp", [ghost])
    vs = only([P.UseAfterDef], program(fn_of(b, [cond, x])))
    msgs = [v.message for v in vs]
    assert len(msgs) == 2
    assert "%t is used before its definition or outside the scope" in msgs[0]
    assert "%ghost is used but never defined" in msgs[1]
    # the else branch may not see the then branch's values
    other2 = Body()
    other2.add(YieldStmt((t,)))
    b2 = Body()
    b2.add(IfStmt(cond, then.seq(), other2.seq(), (r,)))
    assert len(only([P.UseAfterDef], program(fn_of(b2, [cond, x])))) == 1


def test_while_condition_sees_iter_args():
    n = Var("n", INDEX)
    it = IterArg("k", INDEX, init=c(0))
    body = Body()
    nxt = body.let("k2", ir.Add(it, c(1)))
    body.add(YieldStmt((nxt,)))
    rv = Var("kf", INDEX)
    b = Body()
    b.add(ir.WhileStmt((it,), ir.Lt(it, n), body.seq(), (rv,)))
    b.add(ReturnStmt((rv,)))
    prog = program(fn_of(b, [n], FunctionType.Opaque))
    assert check_properties(prog, ALL_VERIFIABLE) == []


# ------------------------------------------------------------------------------------------------
# NormalizedStmtStructure
# ------------------------------------------------------------------------------------------------


def test_normalized_structure_violations():
    fn = kernel_fn()
    stmts = fn.body.stmts
    nested = fn.with_fields(body=SeqStmts((SeqStmts(stmts[:2]),) + stmts[2:]))
    vs = only([P.NormalizedStmtStructure], program(nested))
    assert len(vs) == 1 and "nested directly inside the function body" in vs[0].message

    bare = fn.with_fields(body=stmts[0])
    vs = only([P.NormalizedStmtStructure], program(bare))
    assert any("function body is a AssignStmt, not a SeqStmts" in v.message for v in vs)

    top_yield = fn.with_fields(body=SeqStmts(stmts[:-1] + (YieldStmt(()),) + stmts[-1:]))
    vs = only([P.NormalizedStmtStructure], program(top_yield))
    assert any("yield appears in the function body" in v.message for v in vs)


def test_normalized_loop_bodies():
    fn = loop_fn()
    loop = fn.body.stmts[1]
    body = loop.body.stmts
    early = loop.with_fields(body=SeqStmts((body[0], body[2], body[1])))
    vs = only([P.NormalizedStmtStructure], program(_replace(fn, 1, early)))
    assert len(vs) == 1 and "must be the last statement" in vs[0].message
    bare = ForStmt(Var("j", INDEX), c(0), c(2), c(1), (), EvalStmt(ir.Add(c(1), c(2))), ())
    b = Body()
    b.add(bare)
    vs = only([P.NormalizedStmtStructure], program(fn_of(b)))
    assert any("loop body is a EvalStmt" in v.message for v in vs)
    if_bare = IfStmt(ConstBool(True), SeqStmts(()), EvalStmt(c(0)))
    b = Body()
    b.add(if_bare)
    vs = only([P.NormalizedStmtStructure], program(fn_of(b)))
    assert any("else body is a EvalStmt" in v.message for v in vs)


# ------------------------------------------------------------------------------------------------
# TileOps2D / IncoreTileOps / SplitIncoreOrch
# ------------------------------------------------------------------------------------------------


def _load3d(func_type=FunctionType.InCore) -> Function:
    x = Var("x", ir.tensor_type([2, 16, 64], FP32))
    b = Body()
    b.call("t3", "tile.load", [x, tup(0, 0, 0), tup(2, 16, 64)])
    return fn_of(b, [x], func_type)


def test_tile_ops_2d():
    vs = only([P.TileOps2D], program(_load3d()))
    assert len(vs) == 1
    assert "%t3 is a rank-3 tile" in vs[0].message and "InCore" in vs[0].message
    # only kernels are checked
    assert only([P.TileOps2D], program(_load3d(FunctionType.Opaque))) == []


def test_incore_tile_ops():
    vs = only([P.IncoreTileOps], program(kernel_fn(func_type=FunctionType.Opaque)))
    assert len(vs) == 4  # load, slice, muls, store
    assert "tile op tile.load is used in the Opaque function" in vs[0].message
    assert only([P.IncoreTileOps], program(kernel_fn(func_type=FunctionType.AIV))) == []


def test_split_incore_orch():
    orch_with_tiles = kernel_fn(func_type=FunctionType.Orchestration, name="main")
    vs = only([P.SplitIncoreOrch], program(orch_with_tiles))
    assert len(vs) == 4 and "orchestration function uses tile op" in vs[0].message

    callee = kernel_fn(name="helper")
    x = Var("x", ir.tensor_type([16, 128], FP32))
    out = Var("out", ir.tensor_type([16, 64], FP32))
    b = Body()
    b.add(EvalStmt(Call(GlobalVar("helper"), (x, out), (), out.type)))
    caller = fn_of(b, [x, out], FunctionType.InCore, name="caller")
    vs = only([P.SplitIncoreOrch], program(callee, caller))
    assert len(vs) == 1 and "kernel calls function @helper" in vs[0].message

    # orchestration calling kernels is the intended split
    orch = fn_of(b, [x, out], FunctionType.Orchestration, name="main")
    assert only([P.SplitIncoreOrch, P.IncoreTileOps], program(callee, orch)) == []


def test_memory_inferred_and_memref_allocated():
    src = Var("src", TileType(ir.make_shape([16, 64]), FP32, None))
    b = Body()
    b.call("w", "tile.exp", [src])
    vs = only([P.TileMemoryInferred], program(fn_of(b, [src])))
    assert len(vs) == 1 and "%src has no memory space" in vs[0].message
    vs = only([P.MemRefAllocated], program(fn_of(b, [src])))
    assert len(vs) == 2


# ------------------------------------------------------------------------------------------------
# reporting
# ------------------------------------------------------------------------------------------------


def test_error_carries_span_hint_and_all_violations():
    fn = kernel_fn(swap=True)
    span = Span("k.py", 7, 9, "        hi = pl.tile.slice(t, [16, 64], [0, 64])")
    stmts = list(fn.body.stmts)
    stmts[0] = stmts[0].with_fields(span=span)
    bad = fn.with_fields(body=SeqStmts(tuple(stmts)))
    with pytest.raises(VerificationError) as info:
        verify_properties(program(bad), ALL_VERIFIABLE, context="after pass Foo")
    err = info.value
    assert err.span == span
    assert "k.py:7:9" in err.render()
    assert err.render().startswith("k.py:7:9")
    assert "after pass Foo: UseAfterDef violated in function 'kernel'" in err.message
    assert err.hint and "define a value before using it" in err.hint
    assert len(err.violations) >= 1


def test_register_custom_verifier():
    def no_muls(fn, prog):
        for s in fn.body.stmts:
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.muls":
                yield s, "muls is banned here"

    from tilefold.passes import verifier

    saved = dict(verifier._CHECKERS)
    try:
        register_verifier(P.TileMemoryInferred, no_muls, hint="use adds")
        vs = only([P.TileMemoryInferred], program(kernel_fn()))
        assert [v.message for v in vs] == ["muls is banned here"] and vs[0].hint == "use adds"
    finally:
        verifier._CHECKERS.clear()
        verifier._CHECKERS.update(saved)


def test_verifier_is_linear_enough_for_ten_thousand_statements():
    x = Var("x", ir.tensor_type([16, 64], FP32))
    b = Body()
    t = b.call("t", "tile.load", [x, tup(0, 0), tup(16, 64)])
    for i in range(10_000):
        t = b.call(f"t{i}", "tile.adds", [t, ir.ConstFloat(1.0, FP32)])
    assert check_properties(program(fn_of(b, [x])), ALL_VERIFIABLE) == []


# ------------------------------------------------------------------------------------------------
# DSL programs verify clean (when the parser is available)
# ------------------------------------------------------------------------------------------------

LOOP_SRC = '''
import tilefold.language as pl

@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0 = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            t = pl.tile.load(x, [0, 0], [16, 64])
            nxt = pl.tile.add(acc, t)
            acc_out = pl.yield_(nxt)
        b = pl.tile.get_block_idx()
        if b == 0:
            r = pl.tile.muls(acc_out, 2.0)
            res = pl.yield_(r)
        else:
            res = pl.yield_(acc_out)
        out = pl.store(res, [0, 0], out)
        return out
'''


def test_dsl_program_with_loops_and_ifs_verifies():
    import tilefold.language as pl

    prog = pl.parse(LOOP_SRC)
    assert check_properties(prog, ALL_VERIFIABLE) == []
