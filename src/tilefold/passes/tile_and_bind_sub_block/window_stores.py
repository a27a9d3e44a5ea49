"""Stored windows: a slice ``[off, off + n)`` of a split tile, stored (issue 20 §4: u17, u27).

Rule: ``s = tile.slice(src, shape, offs)`` whose only use is a plain store, and which differs from its source on
exactly one axis ``a`` (extent ``n`` at offset ``off``, static or run-time; every other axis covered from 0), can
be split with ``src`` on ``a``. Half ``sb`` of ``src`` holds ``[sb*H, sb*H + H)`` (``H`` = half extent); the part
of the window inside it is, in the half's own coordinates,

    lo = min(max(off - sb*H, 0), H)        hi = min(max(off + n - sb*H, 0), H)        count = hi - lo

(``count`` = 0: the half stores nothing). Each half stores ``count`` elements from ``lo`` of its half, at GM offset
``g + min(max(sb*H - off, 0), n)`` on that axis (``g`` the store's offset): exactly the bytes of the window that lie
in the half, so the two halves write disjoint parts whose union is the window, as upstream clips them.

A tile window has a static extent and must lie inside the tile it views. When that is proved for every
non-empty half (a static ``off``), the half is sliced with the extent ``S`` = the largest ``count`` at
``min(lo, H - S)`` (``= lo`` whenever ``count`` > 0). Otherwise (a run-time ``off``, or a static window whose second
part is longer than its first) the half is first copied into a tile of the source's extent ``2H`` (``tile.full`` +
``tile.assemble``: one Vec copy of the half per sub-block) and viewed with the window's own extent ``n`` at
``max(off - sb*H, (sb - 1) * 2H)``: ``lo`` on sub-block 1, and ``off`` itself on sub-block 0, so that a run-time
offset outside ``[0, 2H - n]`` (an out-of-range window of the original program) leaves that tile and faults as
the original slice does, instead of being clipped into a silently short store. A run-time offset needs no copy
when it is proved (``analysis.affine``, over the ranges of the enclosing loops) to keep the window inside the
source and inside one half: its values lie in ``[0, 2H - n]`` and are ``C + g*t`` with ``g`` dividing ``H`` and
``C mod g + n <= g``; then each non-empty half holds the whole window at ``lo <= H - n`` and is viewed with
extent ``n`` at ``min(lo, H - n)``. The slice carries
``valid_shape`` ``count`` on ``a``: a store writes only its tile's valid region.

GM bytes of the halves (``store_parts``, read by the GM data-flow check). Element ``e`` of the source lands at GM
``d + e`` on the axis, ``d = g - off``, so sub-block ``sb`` writes only inside ``[d + sb*H, d + sb*H + H)``. When
``d`` is loop-invariant (its affine form, ``analysis.affine``, has no atom that changes between the store's
executions) those are two fixed disjoint intervals, however often the store runs and however its windows overlap.
Otherwise, inside loops, the store is still safe when the windows ``[g, g + n)`` of distinct iterations are
disjoint (the halves of one iteration are disjoint by construction): ``g`` is affine in the enclosing loop
variables (constant ranges, each loop of several trips with a non-zero coefficient) and, ordered by the distance
``|c * step|`` one step of each variable moves the window, each distance is at least ``n`` plus the spans of the
smaller ones (a mixed-radix numbering: two distinct iterations differ by at least ``n``). Anything else is refused
with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from math import gcd
from typing import TYPE_CHECKING

from tilefold.analysis.affine import Affine, affine_form, interval, loop_value_range
from tilefold.ir.expr import Add, Call, ConstInt, Expr, MakeTuple, Max, Min, Mul, Sub, Var
from tilefold.ir.stmt import AssignStmt, ForStmt, Function, Stmt
from tilefold.ir.types import ScalarType, TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.registry import OpKind, make_call, op_of
from tilefold.passes.tile_and_bind_sub_block.common import INDEX, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


@dataclass(frozen=True)
class Window:
    axis: int  # the one axis on which the slice is a window of its source
    offset: Expr  # off (static or run-time)
    extent: int  # n
    source_extent: int  # 2H
    source_type: TileType
    in_one_half: bool = False  # a run-time offset proved to keep the window inside the source and one half


def _c(v: int) -> ConstInt:
    return ConstInt(v, INDEX)


def _const(e: Expr) -> int | None:
    return e.value if isinstance(e, ConstInt) else None


def _window_of(call: Call) -> Window | None:
    if call.op_name != "tile.slice" or len(call.args) != 3:
        return None
    src, shape_t, offs_t = call.args
    st = src.type
    if not (isinstance(st, TileType) and isinstance(shape_t, MakeTuple) and isinstance(offs_t, MakeTuple)):
        return None
    if st.tile_view is not None and st.tile_view.valid_shape is not None or st.static_shape is None:
        return None
    full = st.static_shape
    axes = [a for a, (e, o) in enumerate(zip(shape_t.elements, offs_t.elements, strict=True))
            if _const(o) != 0 or _const(e) != full[a]]
    if len(axes) != 1:
        return None
    a = axes[0]
    n = _const(shape_t.elements[a])
    if n is None or not 0 < n < full[a]:
        return None
    return Window(a, offs_t.elements[a], n, full[a], st)


def _in_one_half(w: Window, scalars: Mapping[Var, Expr], ranges: Mapping[Var, tuple[int, int]],
                 firsts: Mapping[Var, tuple[int, int]]) -> bool:
    """A run-time offset whose every value keeps ``[off, off + n)`` inside ``[0, 2H)`` and inside one half (see
    the module rule); ``firsts``: loop variable -> (start, step)."""
    form = affine_form(w.offset, scalars)
    if form is None or not form[0]:
        return False
    span = interval(form, ranges)
    half = w.source_extent // 2
    if span is None or span[0] < 0 or span[1] > w.source_extent - w.extent:
        return False
    coeffs, const = form
    period = 0
    for v, c in coeffs.items():
        start, step = firsts[v]  # every atom has a range, so it is a loop variable
        const += c * start
        period = gcd(period, abs(c * step))
    return period > 0 and half % period == 0 and const % period + w.extent <= period


def stored_windows(fn: Function) -> dict[Var, Window]:
    """The slices of ``fn`` this rule applies to: each used once, as the tile of a plain (2-D window) store."""
    uses: dict[Var, int] = {}
    stored: set[Var] = set()
    defs: dict[Var, Window] = {}
    scalars: dict[Var, Expr] = {}
    ranges: dict[Var, tuple[int, int]] = {}  # loop variables of constant ranges, while inside their loop
    firsts: dict[Var, tuple[int, int]] = {}

    class _Scan(IRVisitor):
        def visit_AssignStmt(self, stmt: AssignStmt) -> None:
            if isinstance(stmt.var.type, ScalarType) and not isinstance(stmt.value, Call):
                scalars[stmt.var] = stmt.value
            if isinstance(stmt.value, Call):
                w = _window_of(stmt.value)
                if w is not None:
                    if _const(w.offset) is None and _in_one_half(w, scalars, ranges, firsts):
                        w = Window(w.axis, w.offset, w.extent, w.source_extent, w.source_type, True)
                    defs[stmt.var] = w
            self.visit_expr(stmt.value)

        def visit_ForStmt(self, stmt: ForStmt) -> None:
            bounds = [_const(b) for b in (stmt.start, stmt.stop, stmt.step)]
            values = loop_value_range(*bounds) if None not in bounds and bounds[2] != 0 else None
            if values is not None:
                ranges[stmt.loop_var], firsts[stmt.loop_var] = values, (bounds[0], bounds[2])
            super().visit_ForStmt(stmt)
            ranges.pop(stmt.loop_var, None)

        def visit_Var(self, expr: Var) -> None:
            uses[expr] = uses.get(expr, 0) + 1

        def visit_Call(self, expr: Call) -> None:
            op = op_of(expr)
            if op is not None and op.kind is OpKind.STORE and isinstance(expr.args[0], Var) \
                    and expr.kwarg("shapes") is None and not expr.kwarg("atomic", None):
                stored.add(expr.args[0])
            super().visit_Call(expr)

    _Scan().visit_function(fn)
    return {v: w for v, w in defs.items() if v in stored and uses.get(v) == 1}


def is_window_axis(sp: Splitter, key, axis: int) -> bool:
    w = sp.windows.get(key) if isinstance(key, Var) else None
    return w is not None and w.axis == axis


def _half_parts(w: Window, sb: int) -> tuple[int, int]:
    """(lo, count) of half ``sb`` for a static offset."""
    half, off = w.source_extent // 2, w.offset.value
    lo = min(max(off - sb * half, 0), half)
    hi = min(max(off + w.extent - sb * half, 0), half)
    return lo, hi - lo


def layout(w: Window) -> tuple[int, bool]:
    """(S, padded): the static extent of each half's window and whether the half is copied into a tile of the
    source's extent ``2H`` (then ``S = n``)."""
    half = w.source_extent // 2
    if _const(w.offset) is None:
        return w.extent, not w.in_one_half
    parts = [_half_parts(w, sb) for sb in (0, 1)]
    extent = max(c for _, c in parts)
    if any(c > 0 and lo + extent > half for lo, c in parts):
        return w.extent, True
    return extent, False


def clip_exprs(w: Window, sb: Var) -> tuple[Expr, Expr, Expr]:
    """(lo, count, GM shift) of half ``sb`` as index expressions."""
    half = w.source_extent // 2
    base = Mul(sb, _c(half), INDEX)
    off = w.offset

    def clamp(e: Expr) -> Expr:
        return Min(Max(e, _c(0), INDEX), _c(half), INDEX)

    lo = clamp(Sub(off, base, INDEX))
    end = _c(off.value + w.extent) if isinstance(off, ConstInt) else Add(off, _c(w.extent), INDEX)
    hi = clamp(Sub(end, base, INDEX))
    shift = Min(Max(Sub(base, off, INDEX), _c(0), INDEX), _c(w.extent), INDEX)
    return lo, Sub(hi, lo, INDEX), shift


def rewrite(sp: Splitter, var: Var, call: Call, w: Window, out: list[Stmt]) -> Call:
    """The clipped window of half ``sb`` (see the module rule)."""
    a = w.axis
    src = sp.get_half(call.args[0], a, out)
    st = src.type
    extent, padded = layout(w)
    lo, count, _ = clip_exprs(w, sp.sb)
    half = w.source_extent // 2
    if padded:
        shape = list(st.static_shape)
        shape[a] = w.source_extent
        blank = make_call("tile.full", [], {"shape": tuple(shape), "dtype": st.dtype, "value": 0.0,
                                            "target_memory": st.memory_space})
        bv = Var(f"{var.name}_pad0", blank.type)
        out.append(AssignStmt(bv, blank))
        filled = make_call("tile.assemble", [bv, src, MakeTuple(tuple(_c(0) for _ in shape))])
        src = Var(f"{var.name}_pad", filled.type)
        out.append(AssignStmt(src, filled))
        # sub-block 1 views from its part's start; sub-block 0 from ``off`` itself, unclamped: a window that leaves
        # the source (a run-time offset out of range) leaves this 2H tile too and faults as the original slice does
        origin = Max(Sub(w.offset, Mul(sp.sb, _c(half), INDEX), INDEX),
                     Mul(Sub(sp.sb, _c(1), INDEX), _c(w.source_extent), INDEX), INDEX)
    else:
        origin = Min(lo, _c(half - extent), INDEX)
    shape_e = list(call.args[1].elements)
    shape_e[a] = _c(extent)
    offs = list(call.args[2].elements)
    offs[a] = origin
    valid = list(shape_e)
    valid[a] = count
    sp.note("clipped", f"stored window of {var.name} clipped per half on axis {a}: [{w.offset!r}, +{w.extent}) "
            f"against [sb * {half}, +{half})" + (f"; the half is copied into a {w.source_extent}-wide tile"
                                                  if padded else ""), {"axis": a})
    return _rebuild("tile.slice", [src, MakeTuple(tuple(shape_e)), MakeTuple(tuple(offs)),
                                   MakeTuple(tuple(valid))], dict(call.kwargs), call.span)


@dataclass(frozen=True)
class StoreParts:
    """The GM bytes the two halves of a stored window's store write, on the window's GM axis (see the module)."""
    displacement: Affine | None  # d = g - off when loop-invariant: sub-block sb writes in [d + sb*H, +H)
    disjoint_iterations: bool  # the windows [g, g + n) of distinct executions are disjoint
    reason: str  # why neither holds ("" when one does)


def _sub(a: Affine, b: Affine) -> Affine:
    coeffs = dict(a[0])
    for v, c in b[0].items():
        coeffs[v] = coeffs.get(v, 0) - c
        if coeffs[v] == 0:
            del coeffs[v]
    return coeffs, a[1] - b[1]


def _iterations_disjoint(form: Affine, n: int, loops: list[tuple[Var, range | None]],
                         invariant: Callable[[Var], bool]) -> str:
    """"" when ``[g, g + n)`` (``g`` = ``form``) is disjoint between distinct iterations of ``loops``, else why
    not."""
    coeffs, _ = form
    enclosing = {v for v, _ in loops}
    for atom in coeffs:
        if atom not in enclosing and not invariant(atom):
            return f"its GM offset depends on {atom.name}, which changes inside the loop"
    moves = []
    for v, iters in loops:
        if iters is None:
            return f"the range of loop {v.name} is not constant"
        c = coeffs.get(v, 0)
        if len(iters) > 1 and c == 0:
            return f"every iteration of loop {v.name} stores the same GM window"
        if len(iters) > 1:
            moves.append((abs(c * iters.step), abs(c) * abs(iters[-1] - iters[0]), v))
    reach = n  # a window plus the spans of the variables that move it less
    for step, span, v in sorted(moves, key=lambda m: m[0]):
        if step < reach:
            return (f"one step of loop {v.name} moves the {n}-element window by {step}, less than the {reach} "
                    "elements it must clear: windows of different iterations overlap")
        reach += span
    return ""


def store_parts(w: Window, g: Expr, defs: Mapping[Var, Expr], loops: list[tuple[Var, range | None]],
                invariant: Callable[[Var], bool]) -> StoreParts:
    """How the halves of the store of window ``w`` at GM offset ``g`` (on the window's axis) divide its bytes;
    ``loops`` are the enclosing loops, outermost first (a ``while`` has range None); ``invariant(v)``: ``v`` has
    one value for every execution of the store."""
    fg, foff = affine_form(g, defs), affine_form(w.offset, defs)
    if fg is None or foff is None:
        if not loops:
            return StoreParts(None, True, "")  # one execution: the halves are disjoint by construction
        return StoreParts(None, False, f"a stored window in a loop: its offsets {g!r} / {w.offset!r} are not affine")
    d = _sub(fg, foff)
    if all(invariant(v) for v in d[0]) and not any(v in d[0] for v, _ in loops):
        return StoreParts(d, False, "")
    if not loops:
        return StoreParts(None, True, "")  # one execution: the halves are disjoint by construction
    why = _iterations_disjoint(fg, w.extent, loops, invariant)
    if not why:
        return StoreParts(None, True, "")
    return StoreParts(None, False, f"a stored window in a loop: the GM displacement {g!r} - ({w.offset!r}) changes "
                                   f"between iterations, and {why}")
