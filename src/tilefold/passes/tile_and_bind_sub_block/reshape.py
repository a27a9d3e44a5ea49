"""Reshapes (``tile.reshape``: shape-changing views, size-1 axis insertion and removal, expand, collapse).

Rule: result axis ``a`` is split only when it survives the reshape as one contiguous block of a source axis
``b`` (``analysis.dimensions.reshape_split_axis``: ``prod(res[a:]) == prod(src[b:])``, both extents even); then
the half of the result is the reshape of the source's half on ``b`` to the result shape with ``a`` halved.
Otherwise the demand is refused (``reshape_window``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.dimensions import reshape_split_axis
from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import INDEX, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _source_axis(var: Var, call: Call, axis: int) -> int:
    src = call.args[0]
    st, rt = src.type, var.type
    if not (isinstance(st, TileType) and isinstance(rt, TileType)) or st.static_shape is None \
            or rt.static_shape is None:
        raise Refusal("reshape_window", "the reshape has a dynamic extent", operand=_name(src), op=call.op_name)
    b = reshape_split_axis(st.static_shape, rt.static_shape, axis)
    if isinstance(b, str):
        raise Refusal("reshape_window", b, operand=_name(src), op=call.op_name)
    return b


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    return [(call.args[0], _source_axis(var, call, axis))]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    b = _source_axis(var, call, axis)
    src = sp.get_half(call.args[0], b, out)
    shape = list(var.type.shape)
    shape[axis] = ConstInt(shape[axis].value // 2, INDEX)
    return _rebuild(call.op_name, [src, MakeTuple(tuple(shape))], dict(call.kwargs), call.span)
