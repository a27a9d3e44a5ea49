"""Elementwise, scalar-operand, unary and cast ops.

Rule: the half of the result is computed from the same half (same axis) of every tile operand; scalars pass through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.types import TileType

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    return [(a, axis) for a in call.args if isinstance(a.type, TileType)]
