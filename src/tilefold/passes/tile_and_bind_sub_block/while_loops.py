"""``while`` loops.

Rule: a while loop carries tiles exactly like a ``for`` loop (``loops``): the init, the iter arg, the yielded
value and the result of a loop-carried tile carry the same half, with the demand on each iter arg iterated to a
fixpoint. The condition is evaluated by both sub-blocks; it reads scalars, and a tile it reads is needed whole
(a demand that conflicts with a half, which refuses the split in strict mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Var
from tilefold.ir.stmt import Stmt, WhileStmt
from tilefold.ir.types import TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block import loops
from tilefold.passes.tile_and_bind_sub_block.common import FULL

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _condition_tiles(stmt: WhileStmt) -> list[Var]:
    found: list[Var] = []

    class _V(IRVisitor):
        def visit_Var(self, expr: Var) -> None:
            if isinstance(expr.type, TileType):
                found.append(expr)

    _V().visit_expr(stmt.condition)
    return found


def reverse(sp: Splitter, stmt: WhileStmt) -> None:
    for v in _condition_tiles(stmt):
        sp.want_expr(v, FULL)
    loops.reverse(sp, stmt)


def rewrite(sp: Splitter, stmt: WhileStmt) -> list[Stmt]:
    return loops.rewrite(sp, stmt)
