"""The counter-based generator ``tile.random``: element ``k`` (row-major) of the tile is a function of the counter
``seed * 2**32 + offset + k`` only.

Rule: a half must hold the numbers the unsplit tile holds at its positions, so its counter starts where the half
starts. The row half ``sb`` of an ``[R, C]`` tile starts at element ``sb * R/2 * C``: it is
``random(shape=[R/2, C], offset=offset + sb * R/2 * C)``. A column half is a run of consecutive counters only for
a single row (``offset + sb * C/2``); for several rows its elements are ``C`` apart in the counter, not ``C/2``, so
that axis is refused. No operand is demanded (a producer like ``tile.full``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, ConstInt, Expr, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import INDEX, Refusal, _offset_plus, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _shape(var: Var, call: Call) -> tuple[int, ...]:
    shape = var.type.static_shape if isinstance(var.type, TileType) else None
    if shape is None or len(shape) != 2:
        raise Refusal("supported_producer", f"{call.op_name} of a non-static or non-2-D tile", op=call.op_name)
    return tuple(shape)


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    rows, _ = _shape(var, call)
    if axis == 1 and rows != 1:
        raise Refusal("supported_producer", f"a column half of a {rows}-row tile.random is not a run of consecutive "
                      "counters: its numbers would differ from the unsplit tile's", operand=var.name,
                      op=call.op_name)
    return []


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    rows, cols = _shape(var, call)
    half = (rows if axis == 0 else cols) // 2
    attrs = dict(call.kwargs)
    shape = list(attrs["shape"])
    shape[axis] = half
    attrs["shape"] = tuple(shape)
    step = half * cols if axis == 0 else half
    offset = call.args[0] if call.args else ConstInt(0, INDEX)
    return _rebuild(call.op_name, [_offset_plus(offset, sp.sb, step)], attrs, call.span)
