"""Rollback and LimitUniqueSubBlockIdToStoreCopy.

Rule: a function that cannot be split provably safely keeps its original work, and every store and custom op not
marked ``tiled_op`` / ``sub_block_replicated`` runs under ``if get_subblock_idx() == 0`` (an ``IfStmt`` tagged
``limit_sub_block_id0``): both sub-blocks run the function, only sub-block 0 writes.
"""

from __future__ import annotations

from tilefold.ir.expr import Call, ConstInt, Eq, Expr, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    Function,
    IfStmt,
    SeqStmts,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import ScalarType, TupleType
from tilefold.ir.visitor import IRMutator
from tilefold.ops.custom.structured import custom_segments
from tilefold.ops.registry import OpKind, make_call, op_of
from tilefold.passes.tile_and_bind_sub_block.common import (
    INDEX,
    LIMIT_PASS_NAME,
    LIMIT_TAG,
    PASS_NAME,
    REPLICATED,
    REVERTED,
    TILED_OP,
    _remark,
)


def _is_guard(stmt: IfStmt) -> bool:
    return bool(stmt.attr(LIMIT_TAG, False))


class _Limiter(IRMutator):
    """Put each untiled store and custom op under ``if get_subblock_idx() == 0``."""

    def __init__(self, sb: Var) -> None:
        super().__init__()
        self.sb = sb
        self.count = 0
        self.tuple_map: dict[Var, tuple[Var, ...]] = {}
        self._hints: list[dict[Var, dict[int, AssignStmt]]] = []
        self._drop: set[int] = set()

    def mutate_SeqStmts(self, stmt: SeqStmts):
        # ``x = res[i]`` bindings of a tuple result in this block: a guarded multi-result op binds them
        # directly as the if's results
        hint: dict[Var, dict[int, AssignStmt]] = {}
        for s in stmt.stmts:
            if (isinstance(s, AssignStmt) and isinstance(s.value, TupleGetItem)
                    and isinstance(s.value.tuple_value, Var)):
                hint.setdefault(s.value.tuple_value, {}).setdefault(s.value.index, s)
        self._hints.append(hint)
        try:
            return super().mutate_SeqStmts(stmt)
        finally:
            self._hints.pop()

    def _needs_guard(self, call: Expr) -> bool:
        op = op_of(call)
        return (op is not None and op.kind in (OpKind.STORE, OpKind.INDIRECT_STORE, OpKind.CUSTOM, OpKind.ELEMENT_WRITE)
                and not call.kwarg(TILED_OP, False) and not call.kwarg(REPLICATED, False))

    def _cond(self) -> Expr:
        return Eq(self.sb, ConstInt(0, INDEX), INDEX)

    def mutate_IfStmt(self, stmt: IfStmt):
        if _is_guard(stmt):
            return stmt
        return super().mutate_IfStmt(stmt)

    def mutate_TupleGetItem(self, expr: TupleGetItem) -> Expr:
        tv = expr.tuple_value
        if isinstance(tv, Var) and tv in self.tuple_map:
            return self.tuple_map[tv][expr.index]
        return super().mutate_TupleGetItem(expr)

    def mutate_AssignStmt(self, stmt: AssignStmt):
        if id(stmt) in self._drop:
            return []
        value = self.mutate_expr(stmt.value)
        if not self._needs_guard(value):
            return stmt if value is stmt.value else stmt.with_fields(value=value)
        self.count += 1
        op = op_of(value)
        tag = ((LIMIT_TAG, True),)
        var = stmt.var
        if op.kind in (OpKind.STORE, OpKind.INDIRECT_STORE, OpKind.ELEMENT_WRITE):  # sub-block 1 keeps the tensor
            inner = Var(f"{var.name}_sb0", var.type, var.span)
            then_b = SeqStmts((AssignStmt(inner, value), YieldStmt((inner,))))
            else_b = SeqStmts((YieldStmt((value.args[0 if op.kind is OpKind.ELEMENT_WRITE else 2],)),))
            return IfStmt(self._cond(), then_b, else_b, (var,), attrs=tag)
        outs = custom_segments(value)["outs"]
        inner = Var(f"{var.name}_sb0", var.type, var.span)
        if isinstance(var.type, TupleType):
            n = len(var.type.types)
            bound = self._hints[-1].get(var, {}) if self._hints else {}
            if len(bound) == n:
                rvs = tuple(bound[j].var for j in range(n))
                self._drop.update(id(bound[j]) for j in range(n))
            else:
                rvs = tuple(Var(f"{var.name}_{j}", t, var.span) for j, t in enumerate(var.type.types))
            self.tuple_map[var] = rvs
            then_b = SeqStmts((AssignStmt(inner, value),
                               YieldStmt(tuple(TupleGetItem(inner, j) for j in range(len(rvs))))))
            else_b = SeqStmts((YieldStmt(tuple(outs)),))
            return IfStmt(self._cond(), then_b, else_b, rvs, attrs=tag)
        then_b = SeqStmts((AssignStmt(inner, value), YieldStmt((inner,))))
        else_b = SeqStmts((YieldStmt((outs[0],)),))
        return IfStmt(self._cond(), then_b, else_b, (var,), attrs=tag)

    def mutate_EvalStmt(self, stmt: EvalStmt):
        expr = self.mutate_expr(stmt.expr)
        if not self._needs_guard(expr):
            return stmt if expr is stmt.expr else stmt.with_fields(expr=expr)
        self.count += 1
        return IfStmt(self._cond(), SeqStmts((EvalStmt(expr),)), None, (), attrs=((LIMIT_TAG, True),))


def limit_function_to_sub_block0(fn: Function) -> Function:
    """LimitUniqueSubBlockIdToStoreCopy on one function (returns ``fn`` itself if nothing to guard)."""
    top = flatten_stmts(fn.body)
    sb = None
    for s in top:  # reuse a top-level get_subblock_idx binding if there is one
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.get_subblock_idx":
            sb = s.var
            break
    fresh = sb is None
    if fresh:
        sb = Var("subblock_idx", ScalarType(INDEX))
    lim = _Limiter(sb)
    body = lim.mutate_stmt(fn.body)
    if lim.count == 0:
        return fn
    stmts = flatten_stmts(body if not isinstance(body, list) else SeqStmts(tuple(body)))
    if fresh:
        stmts = [AssignStmt(sb, make_call("tile.get_subblock_idx", []))] + stmts
    _remark(LIMIT_PASS_NAME, fn.name, "limited",
            f"{lim.count} store / custom op(s) limited to sub-block 0", count=lim.count)
    return fn.with_fields(body=SeqStmts(tuple(stmts)))


def _revert(fn: Function, reason: str) -> Function:
    _remark(PASS_NAME, fn.name, "reverted", f"sub-block split rolled back: {reason}", reason=reason)
    out = limit_function_to_sub_block0(fn)
    return out.with_attr(REVERTED, reason)
