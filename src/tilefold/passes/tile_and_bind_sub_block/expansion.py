"""Expansions into a larger tile: ``tile.expand_clone`` (a broadcast copied into a fresh tile) and
``tile.fillpad_expand`` (the source's valid region at ``[0, 0]``, the pad value everywhere else).

Rule, per split axis of the ``[m, n]`` result with half extent ``H``:

* ``expand_clone``: a source extent equal to the result's is halved with it (half ``sb`` reads the same half of
  the source); a source extent of 1 is broadcast, so the whole source is read. Both axes qualify.
* ``fillpad_expand``: only a source extent equal to the result's: each element then sits at its own position
  and half ``sb`` is the expansion of the source's half (its valid region clipped to the half by the source's
  own strategy). A smaller source places rows / columns ``[a, m)`` of pad after the source's, which a half of
  the source does not express: refused.

The rewrite halves the ``shape`` attribute on the split axis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import FULL, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    src = call.args[0]
    src_shape = src.type.static_shape if isinstance(src.type, TileType) else None
    shape = var.type.static_shape if isinstance(var.type, TileType) else None
    if src_shape is None or shape is None or len(shape) != 2:
        raise Refusal("supported_producer", f"{call.op_name} of a non-static or non-2-D tile", op=call.op_name)
    if src_shape[axis] == shape[axis]:
        return [(src, axis)]
    if call.op_name == "tile.expand_clone" and src_shape[axis] == 1:
        return [(src, FULL)]
    raise Refusal("supported_producer", f"the {call.op_name} source's extent {src_shape[axis]} on axis {axis} is "
                  f"not the result's {shape[axis]}: a half of the result is no expansion of a half of the source",
                  operand=_name(src), op=call.op_name)


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    (src, src_axis), = demand(sp, var, call, axis)
    attrs = dict(call.kwargs)
    shape = list(attrs["shape"])
    shape[axis] = var.type.static_shape[axis] // 2
    attrs["shape"] = tuple(shape)
    args = [sp.operand(src, src_axis, out), *call.args[1:]]
    return _rebuild(call.op_name, args, attrs, call.span)
