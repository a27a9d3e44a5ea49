"""Assembles (``tile.assemble(target, value, offsets)``: ``value`` written into a window of ``target``).

Rule: the ``axis``-half of the result is the assemble of the target's ``axis``-half with the value's ``axis``-half at
the same offsets, when the value covers the target on ``axis`` (static offset 0, the target's extent). A value that
covers only part of the split axis would have to be clipped per half (each sub-block writing the part of the value
inside its half): refused (``assemble_window``), so the function stays whole or splits on another axis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, Var
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import Refusal, _name, _static

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    target, value, offsets = call.args[0], call.args[1], call.args[2]
    ts = _static(target.type) if isinstance(target.type, TileType) else None
    vs = _static(value.type) if isinstance(value.type, TileType) else None
    off = offsets.elements[axis] if isinstance(offsets, MakeTuple) and axis < len(offsets.elements) else None
    if ts is None or vs is None or not (isinstance(off, ConstInt) and off.value == 0 and vs[axis] == ts[axis]):
        raise Refusal("assemble_window", f"the assembled value does not cover its target on axis {axis}",
                      operand=_name(value), op=call.op_name)
    return [(target, axis), (value, axis)]
