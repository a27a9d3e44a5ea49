"""Row / column broadcasts (``row_expand_*``, ``col_expand_*``).

Rule: the target is demanded on the split axis; the broadcast vector too, unless the split axis is the broadcast
axis (the vector has extent 1 there and is needed whole).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    op = op_of(call)
    bcast = op.extra.get("axis", 1 if op.kind is OpKind.ROW_BROADCAST else 0)
    target, vec = call.args[0], call.args[1]
    return [(target, axis), (vec, FULL if axis == bcast else axis)]
