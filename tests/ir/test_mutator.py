"""IRMutator rebuilds only what changed (and splices statement lists); IRVisitor visits every node in
program order."""

from __future__ import annotations

import dataclasses

import tilefold.language as pl
from tilefold import ir
from tilefold.ir import (
    AssignStmt,
    Call,
    ConstFloat,
    DataType,
    Expr,
    ForStmt,
    IfStmt,
    IRMutator,
    IRVisitor,
    IterArg,
    SeqStmts,
    Stmt,
    Var,
    YieldStmt,
)
from tilefold.ir.types import Type
from tilefold.ops import make_call

SRC = '''
import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(0, 4, init_values=(t,)):
            u = pl.tile.adds(acc, 1.0)
            nxt = pl.yield_(u)
        b = pl.tile.get_block_idx()
        if b < 1:
            v = pl.tile.exp(nxt)
            r = pl.yield_(v)
        else:
            r = pl.yield_(nxt)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def other(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        w = pl.tile.muls(t, 3.0)
        out = pl.store(w, [0, 0], out)
        return out
'''


def parse() -> ir.Program:
    return pl.parse(SRC)


def parts(program: ir.Program):
    """(load, for, block_idx, if, store, return) of function k."""
    return program.function("k").body.stmts


# ---- identity when nothing changes -------------------------------------------------------------


def test_unchanged_program_and_functions_are_the_same_objects() -> None:
    p = parse()
    m = IRMutator()
    assert m.mutate_program(p) is p
    for fn in p.functions:
        assert m.mutate_function(fn) is fn
        for s in fn.body.stmts:
            assert m.mutate_stmt(s) is s


# ---- a change rebuilds exactly the path to it -----------------------------------------------------


class _Bump(IRMutator):
    """1.0 -> 2.0 in ``adds``: one constant deep inside the loop body of k."""

    def mutate_ConstFloat(self, expr: ConstFloat) -> Expr:
        return ConstFloat(2.0, expr.dtype) if expr.value == 1.0 else expr


def test_change_rebuilds_only_the_path_to_it() -> None:
    p = parse()
    q = _Bump().mutate_program(p)
    assert q is not p
    k0, k1 = p.function("k"), q.function("k")
    assert k1 is not k0 and k1.body is not k0.body
    assert q.function("other") is p.function("other")  # sibling function untouched
    load0, for0, bidx0, if0, store0, ret0 = parts(p)
    load1, for1, bidx1, if1, store1, ret1 = parts(q)
    # siblings of the loop are the very same objects
    assert (load1, bidx1, if1, store1, ret1) == (load0, bidx0, if0, store0, ret0)
    assert all(a is b for a, b in zip((load1, bidx1, if1, store1, ret1), (load0, bidx0, if0, store0, ret0),
                                      strict=True))
    # the path: loop -> body -> assignment -> call -> constant
    assert isinstance(for1, ForStmt) and for1 is not for0 and for1.body is not for0.body
    assert for1.loop_var is for0.loop_var and for1.iter_args == for0.iter_args
    assert for1.return_vars == for0.return_vars and for1.start is for0.start
    u0, y0 = for0.body.stmts
    u1, y1 = for1.body.stmts
    assert y1 is y0  # the yield beside the changed assignment
    assert u1 is not u0 and u1.var is u0.var
    assert u1.value.args[0] is u0.value.args[0]
    assert u1.value.args[1].value == 2.0 and u0.value.args[1].value == 1.0


# ---- splicing ---------------------------------------------------------------------------------------


class _SplitExp(IRMutator):
    """v = exp(a)  ->  s = muls(a, 0.5); v = exp(s); and drops nothing else."""

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        if isinstance(stmt.value, Call) and stmt.value.op_name == "tile.exp":
            src = stmt.value.args[0]
            half = make_call("tile.muls", [src, ConstFloat(0.5, DataType.FP32)])
            s = Var("s", half.type)
            return [AssignStmt(s, half), AssignStmt(stmt.var, make_call("tile.exp", [s]))]
        return super().mutate_AssignStmt(stmt)


class _DropBlockIdx(IRMutator):
    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        if isinstance(stmt.value, Call) and stmt.value.op_name == "tile.get_block_idx":
            return [stmt, AssignStmt(Var("b2", stmt.var.type), stmt.var)]
        return super().mutate_AssignStmt(stmt)


def test_list_returned_from_a_statement_handler_is_spliced() -> None:
    p = parse()
    q = _SplitExp().mutate_program(p)
    if0, if1 = parts(p)[3], parts(q)[3]
    assert isinstance(if1, IfStmt) and if1 is not if0
    then = if1.then_body
    assert isinstance(then, SeqStmts) and len(then.stmts) == 3
    assert not any(isinstance(s, SeqStmts) for s in then.stmts)  # spliced flat, not nested
    muls, exp, yld = then.stmts
    assert muls.value.op_name == "tile.muls" and exp.value.args[0] is muls.var
    assert exp.var is if0.then_body.stmts[0].var and isinstance(yld, YieldStmt)
    assert if1.else_body is if0.else_body
    assert q.function("other") is p.function("other")


def test_list_at_function_top_level_is_spliced() -> None:
    p = parse()
    q = _DropBlockIdx().mutate_program(p)
    old, new = parts(p), parts(q)
    assert len(new) == len(old) + 1
    assert not any(isinstance(s, SeqStmts) for s in new)
    assert new[2] is old[2] and new[3].value is old[2].var
    assert all(a is b for a, b in zip(new[4:], old[3:], strict=True))


# ---- var_map substitution ---------------------------------------------------------------------------


def test_var_map_substitutes_uses_including_iter_arg_init() -> None:
    p = parse()
    k = p.function("k")
    load, loop = k.body.stmts[0], k.body.stmts[1]
    t = load.var
    t2 = Var("t2", t.type)
    m = IRMutator()
    m.var_map = {t: t2}
    new_loop = m.mutate_stmt(loop)
    assert isinstance(new_loop, ForStmt) and new_loop is not loop
    (ia0,), (ia1,) = loop.iter_args, new_loop.iter_args
    assert isinstance(ia1, IterArg) and ia1 is not ia0 and ia1.init is t2 and ia0.init is t
    assert ia1.name == ia0.name and ia1.type is ia0.type
    # uses of the rebuilt iter arg inside the body follow it
    adds = new_loop.body.stmts[0].value
    assert adds.args[0] is ia1
    # the definition itself is not substituted, and an unrelated statement is untouched
    assert m.mutate_stmt(load) is load
    assert ir.substitute(parts(p)[4], {t: t2}) is parts(p)[4]


def test_substitute_replaces_every_use() -> None:
    p = parse()
    store = parts(p)[4]
    r = store.value.args[0]
    r2 = Var("r2", r.type)
    new = ir.substitute(store, {r: r2})
    assert new is not store and new.value.args[0] is r2 and new.var is store.var
    assert new.value.args[1] is store.value.args[1]  # the offsets tuple is shared


# ---- IRVisitor ------------------------------------------------------------------------------------


class _Recorder(IRVisitor):
    def __init__(self) -> None:
        self.log: list[str] = []
        self.seen: set[int] = set()

    def visit_function(self, fn: ir.Function) -> None:
        self.log.append(f"fn {fn.name}")
        super().visit_function(fn)

    def visit_stmt(self, stmt: Stmt) -> None:
        self.seen.add(id(stmt))
        if not isinstance(stmt, SeqStmts):
            self.log.append(type(stmt).__name__)
        super().visit_stmt(stmt)

    def visit_expr(self, expr: Expr) -> None:
        self.seen.add(id(expr))
        super().visit_expr(expr)

    def visit_Var(self, expr: Var) -> None:
        self.log.append(expr.name)

    def visit_Call(self, expr: Call) -> None:
        self.log.append(expr.op_name)
        super().visit_Call(expr)

    def visit_ConstFloat(self, expr: ConstFloat) -> None:
        self.log.append(repr(expr.value))


def test_visitor_visits_in_program_order() -> None:
    rec = _Recorder()
    rec.visit_program(parse())
    assert rec.log == [
        "fn k", "x", "out",
        "AssignStmt", "tile.load", "x", "t",
        "ForStmt", "t", "i", "acc",  # bounds (constants), init, loop var, iter arg
        "AssignStmt", "tile.adds", "acc", "1.0", "u",
        "YieldStmt", "u",
        "nxt",  # the loop's return var
        "AssignStmt", "tile.get_block_idx", "b",
        "IfStmt", "b",
        "AssignStmt", "tile.exp", "nxt", "v", "YieldStmt", "v",
        "YieldStmt", "nxt",
        "r",
        "AssignStmt", "tile.store", "r", "out", "out",
        "ReturnStmt", "out",
        "fn other", "x", "out",
        "AssignStmt", "tile.load", "x", "t",
        "AssignStmt", "tile.muls", "t", "3.0", "w",
        "AssignStmt", "tile.store", "w", "out", "out",
        "ReturnStmt", "out",
    ]


def _all_nodes(node, out: set[int]) -> None:
    """Every Expr / Stmt reachable through dataclass fields (types are not nodes)."""
    if isinstance(node, (tuple, list)):
        for x in node:
            _all_nodes(x, out)
        return
    if isinstance(node, (Expr, Stmt)):
        if id(node) in out:
            return
        out.add(id(node))
    elif not isinstance(node, ir.Function):
        return
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Type) or f.name in ("span", "attrs"):
            continue
        if f.name == "kwargs":
            value = [v for _, v in value]
        _all_nodes(value, out)


def test_visitor_reaches_every_node() -> None:
    p = parse()
    rec = _Recorder()
    rec.visit_program(p)
    expected: set[int] = set()
    for fn in p.functions:
        _all_nodes(fn, expected)
    assert expected and expected <= rec.seen
