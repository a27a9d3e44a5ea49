"""Axis choice: the candidate split axes of every store, one axis class covering all stores, outer axis first."""

from __future__ import annotations

from typing import Any

from tilefold.analysis.dimensions import DimensionAnalyzer, flattened_split_axis
from tilefold.ir.expr import Call, Var
from tilefold.ir.types import TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block import scatters
from tilefold.passes.tile_and_bind_sub_block.common import (
    VECTOR_ALIGN,
    _Abort,
    _halvable,
    _name,
    _split_reason,
    store_window,
)


class _Stores(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[Call] = []  # stores and tile.mscatter (split on its rows when ``scatters`` proves it safe)

    def visit_Call(self, expr: Call) -> None:
        op = op_of(expr)
        if op is not None and op.kind in (OpKind.STORE, OpKind.INDIRECT_STORE):
            self.calls.append(expr)
        super().visit_Call(expr)


def _middle_axis_note(window: list[int | None], itemsize: int) -> str:
    """Why an inner leading axis of a flattened N-D window (the middle axis of ``[3, 16, 64]``) is not split
    either, or "" when there is none. Its halves are not one row half of the 2-D tile but ``groups``
    interleaved runs of ``block`` rows; halving the tile that way is only right if every row-halved tile of
    the function (loads from 2-D tensors, slices, broadcasts, custom-op maps, ...) uses the same row
    grouping, which the pass does not prove: it refuses the axis (issue 9 §3.7, see the docs' limits)."""
    lead = window[:-1]
    if any(e is None for e in window):
        return ""
    for k in range(len(lead)):
        if lead[k] != 1:
            break
    else:
        return ""
    groups = 1
    for j in range(k, len(lead)):
        groups *= lead[j]
        if j > k and lead[j] % 2 == 0 and lead[j] != 1:
            inner = 1
            for e in window[j + 1:]:
                inner *= e
            groups //= lead[j]
            block = lead[j] // 2
            for e in lead[j + 1:]:
                block *= e
            run = lead[j] // 2 * inner * itemsize
            align = "" if run % VECTOR_ALIGN == 0 else (
                f"; its half window's contiguous run of {run} B ({lead[j] // 2} x {inner} x {itemsize} B) is not "
                f"a multiple of {VECTOR_ALIGN} B either")
            return (f"; middle axis {j} of the window not split after FlattenTileNdTo2D: its halves are {groups} "
                    f"interleaved groups of {block} row(s) of the 2-D tile, not one row half, and the pass does not "
                    f"prove that every row-halved tile of the function uses that row grouping{align}")
    return ""


def _axis_candidates(an: DimensionAnalyzer, store: Call, windows: dict | None = None) -> tuple[list[int], list[str]]:
    """Splittable axes of a stored tile (outer first) and the reasons the others were rejected. A flattened
    2-D tile stored into an N-D tensor (``shapes=``) only offers axes that halve one axis of its window."""
    if store.op_name == "tile.mscatter":
        return scatters.mscatter_axes(an, store)
    tile = store.args[0]
    window = store_window(store)
    t = tile.type
    ok: list[int] = []
    why: list[str] = []
    if not isinstance(t, TileType) or not isinstance(tile, Var):
        return ok, [f"stored value {_name(tile)} is not a tile variable"]
    win = (windows or {}).get(tile)
    for axis in range(t.rank):
        if win is not None and win.axis == axis:  # a stored window: halved with its source (window_stores)
            reason = _split_reason(win.source_type, axis)
            if reason is None and not an.is_parallel((tile, axis)):
                reason = f"axis {axis} is a reduction axis"
            (ok if reason is None else why).append(axis if reason is None else reason)
            continue
        reason = _halvable(t, axis, allow_valid=True)  # a clipped store (see ``clipping``)
        if reason is None and not an.is_parallel((tile, axis)):
            info = an.info((tile, axis))
            reason = f"axis {axis} is a reduction axis" + (f" ({info.reasons[0]})" if info.reasons else "")
        if reason is None:
            reason = _split_reason(t, axis, allow_valid=True)  # column / middle-axis alignment
        if reason is None and window is not None:
            mapped = flattened_split_axis(window, axis)
            if isinstance(mapped, str):
                reason = f"axis {axis} of the flattened tile {_name(tile)}: {mapped}"
                if axis == 0:
                    reason += _middle_axis_note(window, t.dtype.itemsize)
        if reason is None:
            ok.append(axis)
        else:
            why.append(reason)
    return ok, why


def axis_plans(an: DimensionAnalyzer, stores: list[Call],
               windows: dict | None = None) -> list[tuple[dict[int, int], str]]:
    """Every candidate split: per-store axes (all in one axis class) with a justification. Plans whose class
    covers every store come first (outer axis first); then *partial* plans (issue 9 §3.5), most stores first:
    the stores a plan does not name (e.g. a 1x1 counter store, or a store in another axis class) are kept whole
    and guarded to sub-block 0 while the rest is split. The pass tries them in order: a producer may still
    refuse an axis (e.g. a loaded tile whose half row is under 32 B, a custom op whose map sends the axis to a
    reduction iterator, a value a whole store and a split store both need), then the next one is tried. Raises
    ``_Abort`` when no store can be split."""
    if not stores:
        raise _Abort("no store could be split: the function has no store")
    cands = []
    for s in stores:
        ok, why = _axis_candidates(an, s, windows)
        cands.append((s, ok, why))
    # axis class -> {store id: its first axis in the class}, classes in order of first appearance
    classes: dict[Any, dict[int, int]] = {}
    first_axis: dict[Any, tuple[Call, int]] = {}
    for s, ok, _ in cands:
        for axis in ok:
            cls = an.find((s.args[0], axis))
            members = classes.setdefault(cls, {})
            first_axis.setdefault(cls, (s, axis))
            members.setdefault(id(s), axis)
    if not classes:
        why = "; ".join(f"{'tile.mscatter' if s.op_name == 'tile.mscatter' else 'store'} of {_name(s.args[0])}: "
                        f"{'; '.join(w)}" for s, _, w in cands)
        raise _Abort(f"no store could be split: {why}")
    full: list[tuple[dict[int, int], str]] = []
    first, first_ok, first_why = cands[0]
    for axis in first_ok:  # plans covering every store, in the first store's axis order
        members = classes[an.find((first.args[0], axis))]
        if len(members) == len(stores) and all(members.get(id(s)) is not None for s in stores):
            t = first.args[0].type
            reason = (f"axis {axis} of {_name(first.args[0])} (extent {t.shape[axis].value}, half "
                      f"{t.shape[axis].value // 2}) is parallel, static and even and its class covers all "
                      f"{len(stores)} store(s)")
            if first_why:
                reason += "; rejected: " + "; ".join(first_why)
            full.append((dict(members), reason))
    partial: list[tuple[int, int, dict[int, int], str]] = []
    for cls, members in classes.items():
        if len(members) == len(stores):
            continue
        s0, axis = first_axis[cls]
        left = [_name(s.args[0]) for s, _, _ in cands if id(s) not in members]
        reason = (f"partial split: axis {axis} of {_name(s0.args[0])} covers {len(members)} of {len(stores)} "
                  f"store(s); the store(s) of {', '.join(left)} stay whole on sub-block 0")
        partial.append((-len(members), axis, dict(members), reason))
    partial.sort(key=lambda p: (p[0], p[1]))
    return full + [(plan, reason) for _, _, plan, reason in partial]


def choose_axis(an: DimensionAnalyzer, stores: list[Call], windows: dict | None = None) -> tuple[dict[int, int], str]:
    """The preferred candidate of ``axis_plans``."""
    return axis_plans(an, stores, windows)[0]
