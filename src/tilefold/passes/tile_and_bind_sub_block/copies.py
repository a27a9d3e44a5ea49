"""Windows and copies: ``tile.slice`` views and ``OpKind.COPY`` ops (``tile.extract``, ``tile.move``).

Rule: a slice covering its source on the split axis is re-emitted on the source half. A whole copy within Vec copies
the half of its source. A window copy's half is the source window ``[index + sb * half, +half)``: when the window
covers the source on the axis, a *soft* demand lets the source's other consumers choose between its half (index
unchanged) and the whole source (index moved); otherwise the source is needed whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.dimensions import ValueKey
from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, TupleGetItem, Var
from tilefold.ir.stmt import (
    Stmt,
)
from tilefold.ir.types import MemorySpace, TileType
from tilefold.ops.registry import OpDef, OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block.clipping import clipped_extent
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    INDEX,
    SOFT,
    Refusal,
    _name,
    _offset_plus,
    _rebuild,
    _split_reason,
    _static,
    copy_window,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    op = op_of(call)
    if op.kind is OpKind.COPY:
        return _copy_demand(sp, op, var, call, axis)
    name = call.op_name
    if len(call.args) not in (3, 4) or (len(call.args) == 4 and not isinstance(call.args[3], MakeTuple)):
        raise Refusal("supported_producer", f"no sub-block strategy for {name} with drop_dims", op=name)
    src = call.args[0]
    st = src.type
    shape, offs = call.args[1].elements, call.args[2].elements
    if not (isinstance(st, TileType) and isinstance(offs[axis], ConstInt) and offs[axis].value == 0
            and isinstance(shape[axis], ConstInt) and isinstance(st.shape[axis], ConstInt)
            and shape[axis].value == st.shape[axis].value):
        raise Refusal("slice_window", f"the slice does not cover its source on axis {axis}",
                      operand=_name(src), op=name)
    if len(call.args) == 4:  # a covering slice with a valid shape: a clipped window, see ``clipping``
        if st.tile_view is not None and st.tile_view.valid_shape is not None:
            raise Refusal("clipped_store", "the source already has a valid shape", operand=_name(src), op=name)
        sp.clipped.add(var)
    return [(src, axis)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    op = op_of(call)
    if op.kind is OpKind.COPY:
        if copy_window(op, call) is not None:
            return _rewrite_copy_window(sp, op, var, call, axis)
        return sp.reemit(var, call, axis, out)
    shape = list(call.args[1].elements)
    half = shape[axis].value // 2
    shape[axis] = ConstInt(half, INDEX)
    src = sp.get_half(call.args[0], axis, out)
    args = [src, MakeTuple(tuple(shape)), call.args[2]]
    if len(call.args) == 4:  # each half keeps the part of the valid region inside it
        valid = list(call.args[3].elements)
        valid[axis] = clipped_extent(valid[axis], sp.sb, half)
        args.append(MakeTuple(tuple(valid)))
    return _rebuild("tile.slice", args, dict(call.kwargs), call.span)


def _copy_demand(sp: Splitter, op: OpDef, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    """COPY ops. A whole-tile copy within Vec (``tile.move``) copies the half of its source. A window copy
    (``tile.extract(src, index_row, index_col, shape=)``): the ``axis``-half of the result is the window
    ``[index + sb * half, +half)`` of the source. When the window covers the source on ``axis`` (index 0,
    full extent) that is exactly the source's own half: a *soft* demand lets the source's other consumers
    decide between its half (index unchanged) and the whole source (index offset by ``sb * half``).
    Otherwise the source is needed whole and only the index moves."""
    name = call.op_name
    src = call.args[0]
    st = src.type
    if not isinstance(st, TileType) or var.type.memory_space not in (None, MemorySpace.Vec) \
            or st.memory_space not in (None, MemorySpace.Vec):
        raise Refusal("supported_producer", f"{name} outside Vec", operand=_name(src), op=name)
    win = copy_window(op, call)
    if win is None:
        if _static(st) != _static(var.type):
            raise Refusal("copy_window", f"{name} changes the shape", operand=_name(src), op=name)
        return [(src, axis)]
    idx, shape = win
    if len(idx) != var.type.rank or axis >= len(idx) or len(shape) != var.type.rank:
        raise Refusal("copy_window", f"{name} has no index operand for axis {axis}", operand=_name(src), op=name)
    index = call.args[idx[axis]]
    covers = (isinstance(index, ConstInt) and index.value == 0 and _static(st) is not None
              and _static(st)[axis] == shape[axis] and _split_reason(st, axis) is None)
    return [(src, SOFT - axis if covers else FULL)]

def _rewrite_copy_window(sp: Splitter, op: OpDef, var: Var, call: Call, axis: int) -> Call:
    """``extract(src, r, c, shape=[R, C])`` halved on ``axis``: on the source's half (computed on the same
    axis) with the index unchanged, else on the whole source with the index moved by ``sb * half``."""
    idx, shape = copy_window(op, call)
    half = shape[axis] // 2
    src = call.args[0]
    key: ValueKey | None = src if isinstance(src, Var) else (
        (src.tuple_value, src.index) if isinstance(src, TupleGetItem) and isinstance(src.tuple_value, Var)
        else None)
    args = list(call.args)
    if key is not None and key in sp.half and sp.mode.get(key) == axis:
        args[0] = sp.half[key]
    else:
        args[idx[axis]] = _offset_plus(args[idx[axis]], sp.sb, half)
    attrs = dict(call.kwargs)
    new_shape = list(shape)
    new_shape[axis] = half
    attrs["shape"] = tuple(new_shape)
    return _rebuild(call.op_name, args, attrs, call.span)
