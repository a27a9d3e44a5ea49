"""Values only sub-block 0 ever consumes.

Rule: a value whose every use is a store left whole (guarded to sub-block 0), a custom op fenced to sub-block 0,
or the computation of another such value, is dead on sub-block 1: sub-block 1 may compute it (both sub-blocks run
the unguarded code), but nothing it does depends on it. So a whole load of such a value is not a read *by
sub-block 1* for the GM data-flow check: the bytes it reads may race with sub-block 0's writes without changing
any result. This is what lets a kernel split its big block while a 1x1 read-modify-write of a flag stays on
sub-block 0 (upstream splits it so too). Any other use (a loop / if operand, a yield, a return, a split store, an
unguarded custom op) keeps the value live on sub-block 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import AssignStmt, ForStmt, IfStmt, Stmt, WhileStmt, flatten_stmts
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.registry import OpKind, op_of

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter

_OTHER = ("other", None, None)


def _vars_in(e) -> list[Var]:
    found: list[Var] = []

    class _V(IRVisitor):
        def visit_Var(self, expr: Var) -> None:
            found.append(expr)

    _V().visit_expr(e)
    return found


class SubBlock0Only:
    def __init__(self, sp: Splitter) -> None:
        self.sp = sp
        self.uses: dict[Var, list[tuple[str, Var | None, Call | None]]] = {}
        self.memo: dict[Var, bool] = {}
        self._walk(sp.fn.body)

    def _use(self, v: Var, use) -> None:
        self.uses.setdefault(v, []).append(use)

    def _walk(self, body: Stmt | None) -> None:
        for s in flatten_stmts(body):
            if isinstance(s, AssignStmt) and isinstance(s.value, Call):
                for v in _vars_in(s.value):
                    self._use(v, ("call", s.var, s.value))
            elif isinstance(s, AssignStmt) and isinstance(s.value, Var):
                self._use(s.value, ("alias", s.var, None))
            elif isinstance(s, ForStmt | WhileStmt | IfStmt):
                heads = []
                if isinstance(s, ForStmt):
                    heads = [s.start, s.stop, s.step]
                elif isinstance(s, IfStmt):
                    heads = [s.condition]
                else:
                    heads = [s.condition]
                for ia in getattr(s, "iter_args", ()):
                    heads.append(ia.init)
                for h in heads:
                    for v in _vars_in(h):
                        self._use(v, _OTHER)
                for b in (getattr(s, "body", None), getattr(s, "then_body", None), getattr(s, "else_body", None)):
                    self._walk(b)
            else:  # yields, returns, evaluated calls: live everywhere
                for v in _stmt_vars(s):
                    self._use(v, _OTHER)

    def __call__(self, v: Var) -> bool:
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = False  # a cycle (through a loop) counts as live
        ok = True
        for kind, target, call in self.uses.get(v, ()):
            if kind == "alias":
                ok = self(target)
            elif kind == "call":
                op = op_of(call)
                if op is not None and op.kind is OpKind.STORE:
                    ok = call.args[0] is v and self.sp.store_plan.get(id(call)) is None
                elif op is not None and op.kind is OpKind.CUSTOM:
                    ok = id(call) in self.sp.fenced
                else:
                    ok = target is not None and self(target)
            else:
                ok = False
            if not ok:
                break
        self.memo[v] = ok
        return ok


def _stmt_vars(s: Stmt) -> list[Var]:
    found: list[Var] = []

    class _V(IRVisitor):
        def visit_Var(self, expr: Var) -> None:
            found.append(expr)

    _V().visit_stmt(s)
    return found
