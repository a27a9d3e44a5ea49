"""Clipped stores (``tile.set_validshape`` feeding a store).

Rule: a store writes only the valid region of its tile. When the tile is split, each half keeps the valid region
of the stored range that falls in it: on the split axis the half at ``sb * half`` gets the valid extent
``min(max(valid - sb * half, 0), half)`` (an empty intersection stores nothing), every other axis keeps its valid
extent. The store's GM offset moves by ``sb * half`` as for any split store, so a dynamic offset is carried
along unchanged. The source of the ``set_validshape`` is demanded on the same axis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, Max, Min, Mul, Sub, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import INDEX, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def clipped_extent(valid: Expr, sb: Expr, half: int) -> Expr:
    """The valid extent of half ``sb`` of an axis whose valid extent is ``valid``."""
    if isinstance(valid, ConstInt) and valid.value >= 2 * half:
        return ConstInt(half, INDEX)
    start = Sub(valid, Mul(sb, ConstInt(half, INDEX), INDEX), INDEX)
    return Min(Max(start, ConstInt(0, INDEX), INDEX), ConstInt(half, INDEX), INDEX)


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    src = call.args[0]
    st = src.type
    if not isinstance(st, TileType) or not isinstance(call.args[1], MakeTuple):
        raise Refusal("clipped_store", "set_validshape of a non-tile", operand=_name(src), op=call.op_name)
    if st.tile_view is not None and st.tile_view.valid_shape is not None:
        raise Refusal("clipped_store", "the source already has a valid shape", operand=_name(src),
                      op=call.op_name)
    sp.clipped.add(var)
    return [(src, axis)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    src = sp.get_half(call.args[0], axis, out)
    valid = list(call.args[1].elements)
    half = var.type.shape[axis].value // 2
    valid[axis] = clipped_extent(valid[axis], sp.sb, half)
    sp.note("clipped", f"store window of {var.name} clipped on axis {axis}: valid extent "
            f"min(max({valid[axis]!r}, 0), {half}) per half", {"axis": axis})
    return _rebuild(call.op_name, [src, MakeTuple(tuple(valid))], dict(call.kwargs), call.span)
