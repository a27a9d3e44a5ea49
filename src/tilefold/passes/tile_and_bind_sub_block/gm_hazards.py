"""GM data flow across the two halves.

Rule: after the demand pass has decided which loads and stores are halved, every global-memory tensor the function
both reads and writes (or writes twice) is checked: the bytes sub-block ``sb`` reads or writes must not be written
by sub-block ``1 - sb`` (the two sub-blocks are not ordered). Each access is a box per sub-block — a split load or
store covers ``[offset + sb * half, +half)`` on its split axis, a whole load is read by both sub-blocks (unless only
work guarded to sub-block 0 uses it: ``sub_block0_only``), a guarded store / fenced custom op writes on sub-block 0
only; ``tile.mgather`` / ``tile.mscatter`` read / write every row of their tensor (the rows come from index values;
an mscatter left whole writes on sub-block 0 only), except a split mscatter, whose distinct index values give each
sub-block its own rows (``scatters.half_rows``), compared with its other half too. A box that cannot be computed (a
dynamic offset or extent, a GM tensor handed to a custom op) overlaps everything. Any overlap refuses the axis
(``gm_read_after_write``), so a kernel that stores rows ``[0, 64)`` of ``o`` and then loads rows ``[16, 80)`` of
``o`` is not split, while an in-place update (``o[r] = f(o[r])`` on the same rows) is. Upstream refuses any function
that loads and stores the same GM argument; this is at least as safe and accepts the provably disjoint cases.

Cost: one walk over the function plus, per tensor, a check of its accesses pairwise (tensors are accessed by a
handful of loads / stores, so this stays small next to the demand pass).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefold.ir.expr import Add, Call, ConstInt, Expr, MakeTuple, Mul, Var
from tilefold.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, Stmt, WhileStmt, final_yield, flatten_stmts
from tilefold.ir.types import ScalarType, TensorType, TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.custom.structured import custom_segments
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block import scatters
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    INDEX,
    _Abort,
    _name,
    _window_axis,
    load_window,
    store_window,
)
from tilefold.passes.tile_and_bind_sub_block.sub_block0_only import SubBlock0Only
from tilefold.passes.tile_and_bind_sub_block.window_stores import is_window_axis, store_parts

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter

UNKNOWN = "unknown"  # an access whose box cannot be computed at all: overlaps every access
# per tensor axis (base, lo, hi, stride): see ``_interval``; None on an axis whose offset or extent is not known
# (overlaps on that axis).
# UNKNOWN; None = no access by that sub-block
Box = list[tuple[str, int, int, int] | None] | str | None


@dataclass
class Access:
    root: Var  # the GM tensor (function parameter, or the first SSA name of a tensor)
    write: bool
    boxes: tuple[Box, Box]  # sub-block 0, sub-block 1
    what: str
    partition: bool = False  # a stored window: its two halves write disjoint parts of it (window_stores)
    self_reason: str = ""  # a stored window whose halves may meet across iterations: why (window_stores)


class _Roots:
    """Union-find over tensor SSA names: a store's result is its destination, a loop iter arg / result is its
    init and yielded value, an if result its yielded values."""

    def __init__(self) -> None:
        self.parent: dict[Var, Var] = {}

    def find(self, v: Var) -> Var:
        p = self.parent.get(v, v)
        if p is v:
            return v
        r = self.find(p)
        self.parent[v] = r
        return r

    def join(self, a, b) -> None:
        if isinstance(a, Var) and isinstance(b, Var) and isinstance(a.type, TensorType):
            ra, rb = self.find(a), self.find(b)
            if ra is not rb:
                self.parent[ra] = rb


def _interval(offset, extent, params: set, loop_vars: set) -> tuple[str, int, int, int] | None:
    """``(base, lo, hi, stride)``: the interval ``[base + lo, base + hi)``; ``base`` is "" (constant), the text
    of a loop-invariant expression of scalar parameters (stride 0), or a loop variable ``k`` with the offset
    ``stride * k + lo`` (every iteration's interval, ``stride`` apart). None: unknown."""
    ext = extent.value if isinstance(extent, ConstInt) else extent
    if not isinstance(ext, int):
        return None
    const = 0
    if isinstance(offset, Add) and isinstance(offset.rhs, ConstInt):
        offset, const = offset.lhs, offset.rhs.value
    if isinstance(offset, ConstInt):
        return ("", offset.value + const, offset.value + const + ext, 0)
    stride, var = 1, offset
    if isinstance(offset, Mul) and isinstance(offset.rhs, ConstInt):
        stride, var = offset.rhs.value, offset.lhs
    elif isinstance(offset, Mul) and isinstance(offset.lhs, ConstInt):
        stride, var = offset.lhs.value, offset.rhs
    if isinstance(var, Var) and var in loop_vars and stride != 0:
        return (f"@{var.name}", const, const + ext, stride)
    if _vars(offset) <= params:
        return (repr(offset), const, const + ext, 0)
    return None


def _vars(e) -> set:
    found: set = set()

    class _V(IRVisitor):
        def visit_Var(self, expr: Var) -> None:
            found.add(expr)

    _V().visit_expr(e)
    return found


def _static_box(offs, extents, params: set, loop_vars: set) -> Box:
    return [_interval(o, e, params, loop_vars) for o, e in zip(offs, extents, strict=False)]


def _halved(box: Box, axis: int, half: int, sb: int) -> Box:
    if not isinstance(box, list):
        return box
    out = list(box)
    if box[axis] is not None:
        base, lo, _, stride = box[axis]
        out[axis] = (base, lo + sb * half, lo + sb * half + half, stride)
    return out


def _box_key(box: Box) -> tuple | str | None:
    return tuple(box) if isinstance(box, list) else box


def _overlap(a: Box, b: Box, ranges: dict[str, range | None] | None = None) -> bool:
    """Boxes overlap unless some axis where both are static separates them."""
    if a is None or b is None:
        return False
    if a == UNKNOWN or b == UNKNOWN or len(a) != len(b):
        return True
    return all(_axis_overlap(x, y, ranges) for x, y in zip(a, b, strict=True))


def _hull(x, ranges: dict[str, range | None]):
    """A loop-variable interval as the constant interval all its iterations cover (None: the loop's range is not
    a known constant one)."""
    if x is None or x[0] == "":
        return x
    iters = ranges.get(x[0])
    if not iters:
        return None
    ends = (x[3] * iters[0], x[3] * iters[-1])
    return ("", min(ends) + x[1], max(ends) + x[2], 0)


def _axis_overlap(x, y, ranges: dict[str, range | None] | None = None) -> bool:
    if x is not None and y is not None and x[0] != y[0] and ranges:
        # e.g. a row-block loop's stores against the remainder block after it: disjoint when their hulls are
        hx, hy = _hull(x, ranges), _hull(y, ranges)
        if hx is not None and hy is not None:
            return hx[1] < hy[2] and hy[1] < hx[2]
    if x is None or y is None or x[0] != y[0] or x[3] != y[3]:
        return True
    if x[3] != 0 and abs(x[3]) < max(x[2], y[2]) - min(x[1], y[1]):
        return True  # iterations ``stride`` apart may overlap each other (the sub-blocks are not in step)
    return x[1] < y[2] and y[1] < x[2]


class _Collector:
    def __init__(self, sp: Splitter) -> None:
        self.sp = sp
        self.roots = _Roots()
        self.accesses: list[Access] = []
        self.params = {p for p in sp.fn.params if not isinstance(p.type, (TensorType, TileType))}
        self.loop_vars: set = set()
        # "@name" of a loop variable -> its constant iteration range (None: not constant, or the name is reused)
        self.loop_ranges: dict[str, range | None] = {}
        self.sb0_only = SubBlock0Only(sp)
        self.loop_depth = 0  # inside a loop, one store writes again at each iteration
        self.loops: list[tuple[Var, range | None]] = []  # the enclosing loops (a while: its first iter arg, None)
        self.scalar_defs: dict[Var, Expr] = {}  # scalar variables defined by an expression (affine proofs)
        self.outer: set[Var] = set()  # variables defined outside every loop: one value per run of the function

    def body(self, body: Stmt | None) -> None:
        for s in flatten_stmts(body):
            self.stmt(s)

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, AssignStmt) and not self.loop_depth:
            self.outer.add(s.var)
        if isinstance(s, AssignStmt) and isinstance(s.var.type, ScalarType) and not isinstance(s.value, Call):
            self.scalar_defs[s.var] = s.value
        if isinstance(s, AssignStmt) and isinstance(s.value, Call):
            self.call(s.var, s.value)
        elif isinstance(s, AssignStmt) and isinstance(s.value, Var):
            self.roots.join(s.var, s.value)
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            self.call(None, s.expr)
        elif isinstance(s, (ForStmt, WhileStmt)):
            iters = None
            if isinstance(s, ForStmt):
                self.loop_vars.add(s.loop_var)
                key = f"@{s.loop_var.name}"
                bounds = (s.start, s.stop, s.step)
                iters = range(*(b.value for b in bounds)) if all(isinstance(b, ConstInt) for b in bounds) \
                    and s.step.value != 0 else None
                self.loop_ranges[key] = None if key in self.loop_ranges else iters
            if not self.loop_depth:
                self.outer.update(s.return_vars)
            y = final_yield(s.body)
            for k, ia in enumerate(s.iter_args):
                self.roots.join(ia, ia.init)
                if y is not None and k < len(y.values):
                    self.roots.join(ia, y.values[k])
                if k < len(s.return_vars):
                    self.roots.join(s.return_vars[k], ia)
            self.loop_depth += 1
            self.loops.append((s.loop_var if isinstance(s, ForStmt) else Var("while", ScalarType(INDEX)), iters))
            self.body(s.body)
            self.loops.pop()
            self.loop_depth -= 1
        elif isinstance(s, IfStmt):
            if not self.loop_depth:
                self.outer.update(s.return_vars)
            for b in (s.then_body, s.else_body):
                y = final_yield(b)
                if y is not None:
                    for k, v in enumerate(y.values):
                        if k < len(s.return_vars):
                            self.roots.join(s.return_vars[k], v)
                self.body(b)

    def _store_box(self, call: Call, sb: int) -> Box:
        tile, offs_t = call.args[0], call.args[1]
        offs = offs_t.elements if isinstance(offs_t, MakeTuple) else ()
        window = store_window(call)
        t = tile.type
        if not isinstance(t, TileType):
            return UNKNOWN
        extents = list(window) if window is not None else list(t.shape)
        if len(extents) < len(offs):  # a lower-rank tile stored into a higher-rank tensor: leading unit axes
            extents = [1] * (len(offs) - len(extents)) + extents
        box = _static_box(offs, extents, self.params, self.loop_vars)
        axis = self.sp.store_plan.get(id(call))
        if axis is None:  # a store left whole runs on sub-block 0 only (guarded)
            return box if sb == 0 else None
        if is_window_axis(self.sp, tile, axis):
            return box  # each half writes a part of the window: the whole window for both (``_window_store``)
        half = t.shape[axis].value // 2
        gm_axis, gm_half = _window_axis(window, axis, half, _name(tile), call.op_name)
        gm_axis += len(offs) - len(window if window is not None else t.shape)
        return _halved(box, gm_axis, gm_half, sb)

    def _load_box(self, var: Var, call: Call, sb: int) -> Box:
        offs_t, shape_t = call.args[1], call.args[2]
        if not (isinstance(offs_t, MakeTuple) and isinstance(shape_t, MakeTuple)):
            return UNKNOWN
        box = _static_box(offs_t.elements, shape_t.elements, self.params, self.loop_vars)
        axis = self.sp.mode.get(var, FULL) if var is not None else FULL
        if axis is None or axis < 0:
            if sb == 1 and var is not None and self.sb0_only(var):
                return None  # dead on sub-block 1: it feeds only work guarded to sub-block 0
            return box
        half = var.type.shape[axis].value // 2
        window = load_window(call)
        gm_axis, gm_half = _window_axis(window, axis, half, var.name, call.op_name)
        gm_axis += len(offs_t.elements) - len(window if window is not None else var.type.shape)
        return _halved(box, gm_axis, gm_half, sb)

    def _window_store(self, call: Call, axis: int) -> tuple[Box, Box, bool, str]:
        """(box of sub-block 0, of sub-block 1, partition, why not) of the store of a stored window (see
        ``window_stores.store_parts``): with a loop-invariant displacement ``d`` each sub-block's box is its fixed
        interval ``[d + sb*H, +H)`` (cut to the window when both are constant); with disjoint windows across
        iterations both get the whole window, and the store is not compared with itself."""
        whole = self._store_box(call, 0)
        w = self.sp.windows[call.args[0]]
        offs = call.args[1].elements if isinstance(call.args[1], MakeTuple) else ()
        gm_axis = axis + len(offs) - len(w.source_type.shape)
        if not isinstance(whole, list) or not 0 <= gm_axis < len(offs):
            return whole, whole, False, "the window's GM box is not known"

        def invariant(v: Var) -> bool:
            return v in self.params or v in self.outer

        parts = store_parts(w, offs[gm_axis], self.scalar_defs, self.loops, invariant)
        if parts.displacement is None:
            return whole, whole, parts.disjoint_iterations, parts.reason
        coeffs, const = parts.displacement
        base = "" if not coeffs else "d:" + ",".join(f"{v.name}#{id(v)}*{c}" for v, c in coeffs.items())
        half = w.source_extent // 2
        boxes: list[Box] = []
        for sb in (0, 1):
            lo, hi = const + sb * half, const + sb * half + half
            own = whole[gm_axis]
            if not base and own is not None and own[0] == "":  # a constant window: its part of the interval
                lo, hi = max(lo, own[1]), min(hi, own[2])
            box = list(whole)
            box[gm_axis] = (base, lo, hi, 0)
            boxes.append(box if lo < hi else None)
        return boxes[0], boxes[1], False, ""

    def call(self, var: Var | None, call: Call) -> None:
        op = op_of(call)
        if op is None:
            return
        if op.kind is OpKind.STORE:
            dst = call.args[2]
            if var is not None:
                self.roots.join(var, dst)
            if isinstance(dst, Var):
                axis = self.sp.store_plan.get(id(call))
                what = f"store of {_name(call.args[0])} into {dst.name}"
                if axis is not None and is_window_axis(self.sp, call.args[0], axis):
                    b0, b1, part, why = self._window_store(call, axis)
                    self.accesses.append(Access(dst, True, (b0, b1), what, part, why))
                else:
                    self.accesses.append(Access(dst, True, (self._store_box(call, 0), self._store_box(call, 1)),
                                                what))
        elif op.kind is OpKind.LOAD and isinstance(call.args[0], Var) and isinstance(call.args[0].type, TensorType):
            src = call.args[0]
            self.accesses.append(Access(src, False, (self._load_box(var, call, 0), self._load_box(var, call, 1)),
                                        f"load of {src.name}" + (f" into {var.name}" if var is not None else "")))
        elif op.kind in (OpKind.INDIRECT_LOAD, OpKind.INDIRECT_STORE):
            self.indirect(var, call, op.kind is OpKind.INDIRECT_STORE)
        elif op.kind is OpKind.ELEMENT_READ and isinstance(call.args[0], Var):  # pl.read: both sub-blocks read it
            src, idx = call.args[0], call.args[1].elements
            box = _static_box(idx, tuple(ConstInt(1) for _ in idx), self.params, self.loop_vars)
            self.accesses.append(Access(src, False, (box, box), f"element read of {src.name}"))
        elif op.kind is OpKind.CUSTOM:
            seg = custom_segments(call)
            for x in list(seg["ins"]) + list(seg["outs"]):
                if isinstance(x, Var) and isinstance(x.type, TensorType):  # an unknown window, read and written
                    on_1 = None if id(call) in self.sp.fenced else UNKNOWN  # fenced: sub-block 0 only
                    self.accesses.append(Access(x, True, (UNKNOWN, on_1), f"custom op on {x.name}"))


    def indirect(self, var: Var | None, call: Call, write: bool) -> None:
        """``tile.mgather`` reads, ``tile.mscatter`` writes, the rows its index values name: any row of the tensor
        (unknown on axis 0), every column. An mscatter is never split: it writes on sub-block 0 only (guarded); an
        mgather is read by both sub-blocks unless only sub-block-0 work uses it."""
        tensor = next((a for a in call.args if isinstance(a.type, TensorType)), None)
        if not isinstance(tensor, Var):
            return
        cols = tensor.type.shape[-1] if tensor.type.shape else None
        box: Box = [None] * (len(tensor.type.shape) - 1) + [_interval(ConstInt(0), cols, set(), set())]
        if write:
            if var is not None:
                self.roots.join(var, tensor)
            boxes = self._mscatter_halves(call, box) if id(call) in self.sp.store_plan else (box, None)
            self.accesses.append(Access(tensor, True, boxes, f"{call.op_name} into {tensor.name}"))
            return
        on_1 = None if var is not None and self.sb0_only(var) else box
        self.accesses.append(Access(tensor, False, (box, on_1), f"{call.op_name} of {tensor.name}"))


    def _mscatter_halves(self, call: Call, box: Box) -> tuple[Box, Box]:
        """The rows each sub-block of a split mscatter writes: its half of the (distinct) index values."""
        proof = scatters.distinct_rows(self.sp.fn, call.args[1])
        start = _interval(proof.start, ConstInt(1, INDEX), self.params, self.loop_vars) \
            if isinstance(proof, scatters.DistinctRows) and isinstance(box, list) else None
        if start is None:
            return box, box  # unknown rows: both halves may write any row (then refused against each other)
        halves = []
        for sb in (0, 1):
            lo, hi = scatters.half_rows(proof, sb)
            halves.append([(start[0], start[1] + lo, start[1] + hi, start[3]), *box[1:]])
        return halves[0], halves[1]


def check_gm_hazards(sp: Splitter) -> None:
    """Raise ``_Abort`` (this axis refused) when a sub-block may read or write bytes the other one writes."""
    col = _Collector(sp)
    col.body(sp.fn.body)
    by_root: dict[Var, list[Access]] = {}
    for a in col.accesses:
        by_root.setdefault(col.roots.find(a.root), []).append(a)
    for root, accs in by_root.items():
        # accesses with the same boxes (a tile stored to the same window again and again) overlap alike:
        # check each distinct (boxes, write) once, so repeated stores do not make this quadratic
        distinct: dict[tuple, Access] = {}
        for a in accs:  # a partition store is skipped against itself only: never merged with another store
            distinct.setdefault((_box_key(a.boxes[0]), _box_key(a.boxes[1]), a.write, id(a) if a.partition
                                 else False), a)
        accs = list(distinct.values())
        writes = [a for a in accs if a.write]
        if not writes:
            continue
        for w in writes:
            for a in accs:
                if a is w and w.partition:
                    continue  # the halves of one clipped window store are disjoint by construction
                for sb in (0, 1):
                    if _overlap(a.boxes[sb], w.boxes[1 - sb], col.loop_ranges):
                        if a is w and w.self_reason:
                            raise _Abort(f"gm_read_after_write: {w.what}: {w.self_reason}; the sub-blocks are not "
                                         "ordered")
                        kind = "writes" if a.write else "reads"
                        raise _Abort(f"gm_read_after_write: sub-block {sb} {kind} bytes of {root.name} that "
                                     f"sub-block {1 - sb} writes ({a.what} vs {w.what}); the sub-blocks are not "
                                     "ordered")
