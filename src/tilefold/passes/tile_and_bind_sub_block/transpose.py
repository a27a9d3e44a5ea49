"""Transposes (``tile.transpose(t, axis1, axis2)``, ``tile.transpose_view``).

Rule: the half of a transposed tile on axis ``a`` is the transpose of the source's half on the swapped axis
(``axis1 <-> axis2``; every other axis is itself). The source is demanded there and the transpose re-emitted on
it; the source half must satisfy the same checks as any halved tile (e.g. a column half row of 32 B).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ops.registry import OpKind, op_of

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def source_axis(call: Call, axis: int) -> int:
    """The source axis that becomes result ``axis``."""
    if op_of(call).kind is OpKind.TRANSPOSE:
        a1, a2 = call.kwarg("axis1", 0), call.kwarg("axis2", 1)
    else:
        a1, a2 = 0, 1
    return {a1: a2, a2: a1}.get(axis, axis)


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    return [(call.args[0], source_axis(call, axis))]
