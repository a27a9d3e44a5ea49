"""Row / column reductions.

Rule: only the kept (parallel) axis may be halved; the input is demanded on that axis and keeps the reduced axis
whole. A demand on the reduced axis is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block.common import (
    Refusal,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    op = op_of(call)
    name = call.op_name
    red = op.extra.get("axis", 1 if op.kind is OpKind.ROW_REDUCTION else 0)
    if axis == red:
        raise Refusal("reduction_axis", f"axis {axis} is the reduced axis of {name}", operand=var.name, op=name)
    return [(call.args[0], axis)]
