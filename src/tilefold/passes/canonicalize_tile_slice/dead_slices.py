"""Rule 7: slices (and plain aliases of slices) left without users are removed from the function.

Contract: ``DropDeadSlices(dead).mutate_function(fn)`` removes every assignment whose variable is in ``dead``
(the set ``context.RewriteContext.release`` built: use counts reached zero, chains and alias chains die from the
outside in) and leaves every other statement exactly as it was. It walks only blocks; it never looks into
expressions.
"""

from __future__ import annotations

from tilefold.ir.expr import Var
from tilefold.ir.stmt import AssignStmt, EvalStmt, ForStmt, Stmt, WhileStmt, YieldStmt
from tilefold.ir.visitor import IRMutator


class DropDeadSlices(IRMutator):
    """Removes the assignments of the dead slices and aliases (see the module docstring)."""

    def __init__(self, dead: set[Var]) -> None:
        super().__init__()
        self.dead = dead

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        if stmt.var in self.dead:
            return []
        return stmt

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_YieldStmt(self, stmt: YieldStmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_ReturnStmt(self, stmt: Stmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        body = self._body(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        body = self._body(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)
