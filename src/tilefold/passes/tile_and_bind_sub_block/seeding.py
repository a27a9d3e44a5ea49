"""Seeding at the stores.

Rule: each store named by the axis plan (``axis.axis_plans``) demands the ``sb * half`` window of its tile on
the axis chosen for it, and is re-emitted writing that half at ``offset + sb * half`` (on the N-D window axis
the halving maps to for a flattened tile), marked ``tiled_op``. A store the plan does not name (partial split)
needs its tile whole — a weak demand, it runs on sub-block 0 only — and is left for the final
LimitUniqueSubBlockIdToStoreCopy step to guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Add, Call, ConstInt, MakeTuple, Min, Mul, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    Stmt,
)
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    INDEX,
    TILED_OP,
    _name,
    _offset_plus,
    _rebuild,
    _window_axis,
    store_window,
)
from tilefold.passes.tile_and_bind_sub_block.window_stores import clip_exprs, is_window_axis

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _static_valid(t, axis: int) -> int | None:
    """The static valid extent of a stored tile on ``axis`` (a clipped store), else None."""
    view = getattr(t, "tile_view", None)
    if view is None or view.valid_shape is None:
        return None
    v = view.valid_shape[axis]
    v = v.value if isinstance(v, ConstInt) else v
    return v if isinstance(v, int) else None


def seed(sp: Splitter, call: Call) -> None:
    axis = sp.store_plan.get(id(call))
    if axis is None:  # partial split: the store stays whole and is guarded to sub-block 0 (a weak demand)
        sp.want_expr(call.args[0], FULL, weak=True)
        return
    sp.want_expr(call.args[0], axis)


def rewrite(sp: Splitter, var: Var | None, call: Call, out: list[Stmt]) -> Stmt | None:
    axis = sp.store_plan.get(id(call))
    if axis is None:
        return None  # kept whole; LimitUniqueSubBlockIdToStoreCopy guards it

    tile = call.args[0]
    t = tile.type
    half = t.shape[axis].value // 2
    window = store_window(call)
    gm_axis, gm_half = (axis, 0) if is_window_axis(sp, tile, axis) else \
        _window_axis(window, axis, half, _name(tile), call.op_name)
    tile_h = sp.get_half(tile, axis, out)
    offs = list(call.args[1].elements)
    valid = _static_valid(t, axis)
    if is_window_axis(sp, tile, axis):  # a stored window: each half writes its part of it (window_stores)
        *_, shift = clip_exprs(sp.windows[tile], sp.sb)
        base = offs[gm_axis]
        offs[gm_axis] = shift if isinstance(base, ConstInt) and base.value == 0 else Add(base, shift, INDEX)
    elif window is None and valid is not None and valid < half:
        # a clipped store of a static prefix shorter than a half: the half past it stores nothing, at an offset
        # kept inside the tensor (``off + min(sb * half, valid)``), as upstream clips it
        shift = Min(Mul(sp.sb, ConstInt(half, INDEX), INDEX), ConstInt(valid, INDEX), INDEX)
        base = offs[gm_axis]
        offs[gm_axis] = shift if isinstance(base, ConstInt) and base.value == 0 else Add(base, shift, INDEX)
    else:
        offs[gm_axis] = _offset_plus(offs[gm_axis], sp.sb, gm_half)
    kwargs = {**dict(call.kwargs), TILED_OP: True}
    if window is not None:  # the flattened tile fills the halved N-D window
        shapes = list(call.kwarg("shapes"))
        shapes[gm_axis] = gm_half
        kwargs["shapes"] = tuple(shapes)
    new = _rebuild("tile.store", [tile_h, MakeTuple(tuple(offs)), call.args[2]], kwargs, call.span)
    where = f"half {half}" + (f"; N-D window axis {gm_axis}, half {gm_half}" if window is not None else "")
    sp.note("split", f"split store of {_name(tile)} on axis {axis} ({where})",
            {"axis": axis, "half": half})
    return AssignStmt(var, new) if var is not None else EvalStmt(new)
