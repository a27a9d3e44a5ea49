"""Loads and tile creation (terminal producers).

Rule: a Vec load of a half is the load of the half GM window (``offset += sb * half``, extent halved; a flattened
N-D window is halved on the window axis the tile axis maps to, or refused). ``tile.create`` / ``tile.full`` create
the half tile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, Var
from tilefold.ir.stmt import (
    Stmt,
)
from tilefold.ir.types import MemorySpace
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block.common import (
    INDEX,
    Refusal,
    _offset_plus,
    _rebuild,
    _window_axis,
    load_window,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    if op_of(call).kind is OpKind.CREATE:
        return []
    name = call.op_name
    if var.type.memory_space not in (None, MemorySpace.Vec):
        raise Refusal("supported_producer", "load into a non-Vec memory", op=name)
    # a flattened N-D window must halve as one box of the tensor
    _window_axis(load_window(call), axis, var.type.shape[axis].value // 2, var.name, name)
    return []


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    if op_of(call).kind is OpKind.CREATE:
        attrs = dict(call.kwargs)
        shape = list(attrs["shape"])
        shape[axis] //= 2
        attrs["shape"] = tuple(shape)
        return _rebuild(call.op_name, list(call.args), attrs, call.span)
    t = var.type
    half = t.shape[axis].value // 2
    gm_axis, gm_half = _window_axis(load_window(call), axis, half, var.name, call.op_name)
    offs = list(call.args[1].elements)
    shapes = list(call.args[2].elements)
    offs[gm_axis] = _offset_plus(offs[gm_axis], sp.sb, gm_half)
    shapes[gm_axis] = ConstInt(gm_half, INDEX)
    return _rebuild("tile.load", [call.args[0], MakeTuple(tuple(offs)), MakeTuple(tuple(shapes))],
                    dict(call.kwargs), call.span)
