"""``if`` statements.

Rule: each result of an if carries the half its consumers demand; both branches yield that half.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Var
from tilefold.ir.stmt import (
    IfStmt,
    SeqStmts,
    Stmt,
    final_yield,
)
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    _half_type,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def reverse(sp: Splitter, stmt: IfStmt) -> None:
    axes = []
    for rv in stmt.return_vars:
        axis = sp.decide(rv, f"if result {rv.name}")
        sp.mode[rv] = FULL if axis is None else axis
        axes.append(sp.mode[rv])
    for body in (stmt.then_body, stmt.else_body):
        y = final_yield(body)
        if y is not None:
            for k, v in enumerate(y.values):
                if k < len(axes) and isinstance(stmt.return_vars[k].type, TileType):
                    sp.want_expr(v, axes[k])
        sp.reverse_body(body)

def rewrite(sp: Splitter, stmt: IfStmt) -> list[Stmt]:
    axes = [sp.mode.get(rv, FULL) for rv in stmt.return_vars]
    then_b = sp.fix_yield(sp.rewrite_body(stmt.then_body), axes)
    else_b = (sp.fix_yield(sp.rewrite_body(stmt.else_body), axes)
              if stmt.else_body is not None else None)
    new_rvs = []
    for rv, axis in zip(stmt.return_vars, axes, strict=False):
        if axis == FULL or not isinstance(rv.type, TileType):
            new_rvs.append(rv)
        else:
            nrv = Var(rv.name, _half_type(rv.type, axis), rv.span)
            sp.half[rv] = nrv
            new_rvs.append(nrv)
    return [stmt.with_fields(then_body=SeqStmts(tuple(then_b)),
                             else_body=SeqStmts(tuple(else_b)) if else_b is not None else None,
                             return_vars=tuple(new_rvs))]
