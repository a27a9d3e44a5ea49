"""``while`` loops.

Rule: a while loop carrying tiles is not split (strict: rollback; non-strict: computed whole).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.stmt import (
    SeqStmts,
    Stmt,
    WhileStmt,
    final_yield,
)
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def reverse(sp: Splitter, stmt: WhileStmt) -> None:
    for ia in stmt.iter_args:
        if isinstance(ia.type, TileType) and (sp.demand.get(ia) or any(
                sp.demand.get(rv) for rv in stmt.return_vars)):
            sp.leave("while loops carrying tiles are not split", f"while loop ({ia.name})", custom=False)
    for ia in stmt.iter_args:
        sp.mode[ia] = FULL
    for rv in stmt.return_vars:
        sp.mode[rv] = FULL
    y = final_yield(stmt.body)
    if y is not None:
        for v in y.values:
            if isinstance(v.type, TileType):
                sp.want_expr(v, FULL)
    sp.reverse_body(stmt.body)
    for ia in stmt.iter_args:
        if ia.init is not None and isinstance(ia.type, TileType):
            sp.want_expr(ia.init, FULL)


def rewrite(sp: Splitter, stmt: WhileStmt) -> list[Stmt]:
    body = sp.rewrite_body(stmt.body)
    return [stmt.with_fields(body=SeqStmts(tuple(body)))]
