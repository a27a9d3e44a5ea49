"""Bind the result of every call that a statement consumes only as a value to a variable of its own.

``return pl.store(tile, offsets, out)``, ``pl.yield_(pl.store(...))``, ``pl.store(b, [0, 64], pl.store(a, ...))``
and ``pl.store(pl.tile.matmul(a, b), ...)`` use a call's result as a return / yield value or as an operand. The
passes and codegen lower calls where they are statements (``x = call`` or ``call``); a call standing in a return
or yield would never be emitted and its effect (a store to GM, a kernel launch) would be lost. Both front ends
therefore hand out functions in which every such call is bound first: ``ret = pl.store(...)`` then ``return ret``,
innermost calls first, in Python's evaluation order. Golden evaluates both spellings alike, so the rewrite does
not change what a program means.
"""

from __future__ import annotations

from tilefold.ir.expr import BinaryExpr, Call, Expr, MakeTuple, UnaryExpr, Var
from tilefold.ir.names import name_supply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import TensorType, TileType, TupleType
from tilefold.ops.registry import OpKind, op_of


def _bound_operand(e: Expr) -> bool:
    """A nested call producing a tensor (a store, an assemble, a kernel launch: it writes memory) or a tile (the
    passes that rewrite an op, e.g. AutoTileMatmulL0's matmul, find it only as a statement), or an element read
    (``pl.read(t, [pl.read(idx, [i]), 0])``: a scalar register is loaded by a statement of its own; a scalar
    expression has no form for a memory access)."""
    if not isinstance(e, Call):
        return False
    if isinstance(e.type, (TensorType, TileType, TupleType)):
        return True
    op = op_of(e)
    return op is not None and op.kind is OpKind.ELEMENT_READ


class _Binder:
    def __init__(self, fn: Function) -> None:
        self.names = name_supply(fn)
        self.changed = False

    def fresh(self, base: str) -> str:
        return self.names.fresh(base)

    def bind(self, e: Call, base: str, pre: list[Stmt]) -> Var:
        call = self.call(e, pre)
        v = Var(self.fresh(base), call.type, call.span)
        pre.append(AssignStmt(v, call, span=call.span))
        self.changed = True
        return v

    def operand(self, e: Expr, pre: list[Stmt]) -> Expr:
        if _bound_operand(e):
            return self.bind(e, e.op_name.split(".")[-1], pre)  # type: ignore[union-attr]
        if isinstance(e, MakeTuple):
            elems = tuple(self.operand(x, pre) for x in e.elements)
            if any(a is not b for a, b in zip(elems, e.elements, strict=True)):
                return e.with_fields(elements=elems)
        elif isinstance(e, BinaryExpr):  # an index computed from an element read: pl.read(idx, [i]) + 1
            lhs, rhs = self.operand(e.lhs, pre), self.operand(e.rhs, pre)
            if lhs is not e.lhs or rhs is not e.rhs:
                return e.with_fields(lhs=lhs, rhs=rhs)
        elif isinstance(e, UnaryExpr):
            operand = self.operand(e.operand, pre)
            if operand is not e.operand:
                return e.with_fields(operand=operand)
        return e

    def call(self, c: Call, pre: list[Stmt]) -> Call:
        args = tuple(self.operand(a, pre) for a in c.args)
        if all(a is b for a, b in zip(args, c.args, strict=True)):
            return c
        return c.with_fields(args=args)

    def value(self, e: Expr, base: str, pre: list[Stmt]) -> Expr:
        """A return / yield value: any call is bound (its result is the statement's only consumer)."""
        if isinstance(e, Call):
            return self.bind(e, base, pre)
        return self.operand(e, pre)

    def body(self, body: Stmt | None) -> Stmt | None:
        if body is None:
            return None
        out: list[Stmt] = []
        for s in flatten_stmts(body):
            out.extend(self.stmt(s))
        return SeqStmts(tuple(out), span=body.span) if isinstance(body, SeqStmts) else SeqStmts(tuple(out))

    def stmt(self, s: Stmt) -> list[Stmt]:
        pre: list[Stmt] = []
        new: Stmt = s
        if isinstance(s, AssignStmt):
            value = self.call(s.value, pre) if isinstance(s.value, Call) else self.operand(s.value, pre)
            new = s if value is s.value else s.with_fields(value=value)
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            expr = self.call(s.expr, pre)
            new = s if expr is s.expr else s.with_fields(expr=expr)
        elif isinstance(s, (YieldStmt, ReturnStmt)):
            base = "ret" if isinstance(s, ReturnStmt) else "yielded"
            n = len(s.values)
            values = tuple(self.value(v, base if n == 1 else f"{base}{i}", pre) for i, v in enumerate(s.values))
            if any(a is not b for a, b in zip(values, s.values, strict=True)):
                new = s.with_fields(values=values)
        elif isinstance(s, ForStmt):  # bounds are read once, before the loop
            bounds = {f: self.operand(getattr(s, f), pre) for f in ("start", "stop", "step")}
            new = s.with_fields(body=self.body(s.body), **bounds)
        elif isinstance(s, (WhileStmt, ScopeStmt)):
            new = s.with_fields(body=self.body(s.body))
        elif isinstance(s, IfStmt):
            new = s.with_fields(condition=self.operand(s.condition, pre), then_body=self.body(s.then_body),
                                else_body=self.body(s.else_body))
        return pre + [new]


def bind_call_results(fn: Function) -> Function:
    """``fn`` with every call used as a return / yield value, and every tensor- or tile-valued call nested as an
    operand, bound to a fresh variable just before its consumer (``fn`` itself when there is none)."""
    b = _Binder(fn)
    body = b.body(fn.body)
    return fn.with_fields(body=body) if b.changed else fn


__all__ = ["bind_call_results"]
