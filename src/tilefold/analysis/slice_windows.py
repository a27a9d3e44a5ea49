"""Slice windows and the identity-preserving alias edges between tile values.

One forward walk over a function (``analyze_slice_windows``) records, in program order:

- ``facts``: scalar facts (constants, known multiples, loop ranges) — see ``scalar_facts``;
- ``slices``: every canonical 3-operand ``tile.slice(src, shape, offset)``, peeled down to a non-slice
  base plus the accumulated offset (slice-of-slice chains and plain aliases of slices are peeled; each
  entry is computed from its source's entry, so chains cost O(1) per slice);
- ``windows``: for every tile Var, the window of a parent tile it provably denotes. Seeds are all
  ``tile.slice`` results (3, 4 or 5 operands). A Var inherits a window along identity-preserving edges:
  plain SSA aliases; ops whose output lands on an operand's storage (registry fact
  ``OpDef.output_on_input_storage``: in-place-safe views inheriting the operand's memory, or
  ``output_reuses_input``); a loop IterArg from its init; a For/While return var from the body's yield
  only when that yield denotes the same window as the init; an If return var when both branches yield
  the same window. An edge is recorded only when both ends have the same static extent (same rank,
  dtype and constant dims), so shape-changing reshapes, dtype-changing reinterpret views and non-square
  transpose views never propagate a window;
- ``use_counts``: how many times each Var is referenced;
- ``tile_alias`` / ``alias_src``: plain SSA aliases of canonical slices, resolved transitively
  (``a = s; b = a`` maps both ``a`` and ``b`` to ``s``; each alias is resolved once, from its source's
  entry, so chains cost O(1) per alias) and the immediate source of each such alias (for use-count
  release chains);
- ``col_broadcast_operands``: the Vars read by a col_expand-family op (``OpKind.COL_BROADCAST``), each
  resolved through plain aliases to the Var that first named the value (``plain_root``);
- ``acc_findings``: every accumulator destination (the ``output_reuses_input`` operand of an op such as
  ``tile.matmul_acc``) that resolves to a window, plus the loop back edges of carried accumulators,
  each with the verdict of the L0C block-layout rule (``acc_window_verdict``).

Windows reached through a view that may permute elements are marked ``exact=False``: they still describe
the same bytes (enough for the Acc layout rule) but later slices of them are not peeled, because element
offsets would not add up. A view is an *identity* view when it keeps the extent and maps every element to
itself — decided from the registry's golden semantics on a probe tile (``view_is_identity``), so a
same-shape ``tile.reshape`` or ``tile.set_validshape`` is exact while a square ``tile.transpose_view`` is
not. A slice whose source is (derived from) a non-identity view is *opaque*: its offsets are coordinates
of a relabelled layout, not of the root allocation, so the Acc rule stays silent about it instead of
judging it against the wrong layout. A slice of an identity view of a root is placed on the root itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np

from tilefold.analysis.scalar_facts import ScalarFacts, add_index, runs_more_than_once
from tilefold.ir.expr import Call, ConstInt, Expr, IterArg, MakeTuple, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
)
from tilefold.ir.types import DataType, MemorySpace, TileType, Type
from tilefold.ops.registry import OpDef, OpKind, ParamKind, get_op, op_of

__all__ = [
    "ACC_BLOCK_COLS",
    "AccFinding",
    "AccVerdict",
    "SliceInfo",
    "SliceWindowAnalysis",
    "Window",
    "acc_window_verdict",
    "analyze_slice_windows",
    "is_canonical_slice",
    "same_extent",
    "static_extent",
    "view_is_identity",
]

ACC_BLOCK_COLS = 16  # columns of one NZ fractal block in L0C


def _slice_op() -> OpDef:
    return get_op("tile.slice")


def is_canonical_slice(call: Call, slice_op: OpDef | None = None) -> bool:
    """A ``tile.slice`` with exactly (src, shape, offset): a plain window."""
    return op_of(call) is (slice_op or _slice_op()) and len(call.args) == 3


def static_extent(t: Type) -> tuple[DataType, tuple[int, ...]] | None:
    """(dtype, static shape) of a tile type whose every extent is a constant, else None."""
    if not isinstance(t, TileType):
        return None
    shape = t.static_shape
    if shape is None:
        return None
    return t.dtype, shape


def same_extent(a: Type, b: Type) -> bool:
    """Both tile types provably have the same extent: same rank, dtype, and equal constant dims."""
    ea = static_extent(a)
    return ea is not None and ea == static_extent(b)


_PROBE_INTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_IDENTITY_CACHE: dict[Any, bool] = {}


def view_is_identity(od: OpDef, call: Call, src_type: Type, out_type: Type, facts: ScalarFacts | None = None) -> bool:
    """Does the view ``call`` (operand 0 is the viewed tile) keep the extent and map every element to itself?

    Decided from the registry, not from op names: the extent rule (``same_extent``) first, then the op's
    golden semantics run on a probe tile whose elements are their own flat index (at the element's
    storage width, so a dtype reinterpretation is compared bit for bit). A same-shape ``tile.reshape`` or
    ``tile.set_validshape`` passes; a square ``tile.transpose_view`` moves elements and fails. Non-tile
    operands must be compile-time constants; anything unprovable is ``False``. Results are cached per
    (op, extent, constant operands, attributes), so the probe runs once per distinct view shape.
    """
    if od.golden is None or not same_extent(src_type, out_type):
        return False
    ext = static_extent(src_type)
    assert ext is not None
    dtype, shape = ext
    params = od.operand_params
    if not params or params[0].kind is not ParamKind.TILE or len(call.args) > len(params):
        return False
    operands: list[Any] = [None]
    for p, a in zip(params[1:], call.args[1:], strict=False):
        if p.kind is ParamKind.TUPLE and isinstance(a, MakeTuple):
            vals = [_const(e, facts) for e in a.elements]
            if any(v is None for v in vals):
                return False
            operands.append(tuple(vals))
        elif p.kind is ParamKind.SCALAR:
            v = _const(a, facts)
            if v is None:
                return False
            operands.append(v)
        else:
            return False
    try:
        key: Any = (od.name, dtype, shape, tuple(operands[1:]), call.kwargs)
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _IDENTITY_CACHE:
        return _IDENTITY_CACHE[key]
    ok = _probe_identity(od, operands, dict(call.kwargs), shape, dtype.itemsize)
    if key is not None:
        _IDENTITY_CACHE[key] = ok
    return ok


def _const(e: Expr, facts: ScalarFacts | None) -> int | None:
    if isinstance(e, ConstInt):
        return e.value
    return facts.const_value(e) if facts is not None else None


def _probe_identity(od: OpDef, operands: list[Any], attrs: dict[str, Any], shape: tuple[int, ...],
                    itemsize: int) -> bool:
    n = prod(shape)
    int_t = _PROBE_INTS.get(itemsize)
    if int_t is None or n > 2 ** (8 * itemsize) or od.golden is None:
        return False  # the probe could not give every element a distinct value
    probe = np.arange(n, dtype=int_t).reshape(shape)
    operands = [probe, *operands[1:]]
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(od.golden(operands, attrs))
        return (out.shape == probe.shape and out.dtype.itemsize == itemsize
                and bool(np.array_equal(np.ascontiguousarray(out).view(int_t), probe)))
    except Exception:  # noqa: BLE001  (a golden that cannot run on the probe proves nothing)
        return False


@dataclass(frozen=True, eq=False)
class SliceInfo:
    """A canonical slice ``var = tile.slice(src, shape, offset)`` resolved to its non-slice base."""

    var: Var
    stmt: AssignStmt
    src: Var
    base: Var
    offsets: tuple[Expr, ...]  # accumulated offsets into ``base`` (constants resolved)
    shape: tuple[Expr, ...]  # the window extents (the slice's shape operand)
    chain_depth: int = 0  # number of slices peeled to reach the base
    local_offsets: tuple[Expr, ...] | None = None  # the slice's own offset operand (into ``src``), resolved

    @property
    def own_offsets(self) -> tuple[Expr, ...]:
        return self.local_offsets if self.local_offsets is not None else self.offsets

    @property
    def type(self) -> TileType:
        return self.var.type  # type: ignore[return-value]

    @property
    def memory_space(self) -> MemorySpace | None:
        t = self.var.type
        return t.memory_space if isinstance(t, TileType) else None

    @property
    def base_type(self) -> TileType | None:
        t = self.base.type
        return t if isinstance(t, TileType) else None

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        out = []
        for e in self.shape:
            if not isinstance(e, ConstInt):
                return None
            out.append(e.value)
        return tuple(out)


@dataclass(frozen=True, eq=False)
class Window:
    """``parent[offsets : offsets + extent]``; ``seed`` is the slice Var that created it."""

    parent: Var
    offsets: tuple[Expr, ...]
    extent: tuple[int, ...] | None
    seed: Var
    exact: bool = True  # element (i, j) of the holder is parent[offsets + (i, j)]
    # why the offsets are not coordinates of the parent's own layout (a slice of a non-identity view)
    opaque: str | None = None

    def describe(self) -> str:
        offs = ", ".join(repr(o) for o in self.offsets)
        ext = ", ".join(map(str, self.extent)) if self.extent is not None else "?"
        return f"[{ext}] at offset [{offs}] of '{self.parent.name}'"


@dataclass(frozen=True)
class AccVerdict:
    kind: str  # "accept" | "reject" | "silent"
    reason: str


@dataclass(frozen=True, eq=False)
class AccFinding:
    """An accumulator destination resolved to a window, with the L0C layout verdict."""

    stmt: Stmt
    op_name: str
    operand: Expr
    window: Window
    extent: tuple[int, ...] | None
    verdict: AccVerdict
    via_back_edge: bool = False


def acc_window_verdict(window: Window, extent: tuple[int, ...] | None, facts: ScalarFacts) -> AccVerdict:
    """Is ``window`` (with the destination's own ``extent``) contiguous in its parent's L0C layout?

    L0C stores an [M, N] tile as 16x16 NZ blocks, block (rb, cb) at (cb * M/16 + rb). A window is
    contiguous when it stays inside one 16-column block, or spans all M rows starting on a 16-column block
    boundary. Anything that cannot be
    proved either way is ``silent`` (never a false rejection).
    """
    if window.opaque is not None:
        return AccVerdict("silent", window.opaque)
    ptype = window.parent.type
    if not isinstance(ptype, TileType) or ptype.memory_space is not MemorySpace.Acc:
        return AccVerdict("silent", "parent is not known to live in Acc (L0C)")
    pshape = ptype.static_shape
    if pshape is None or len(pshape) != 2:
        return AccVerdict("silent", "parent extent is symbolic or not 2-D")
    if extent is None or len(extent) != 2 or len(window.offsets) != 2:
        return AccVerdict("silent", "window extent is symbolic or not 2-D")
    rows, cols = extent
    m, _n = pshape
    # A full-row window is one contiguous run of whole column blocks only when it starts on a block
    # boundary: a full-row window starting mid-block that crosses into the next block interleaves with the
    # parent's other columns inside every fractal row (the MAD's dense write would shift its second half by
    # a row), so the column offset matters for full-row windows too.
    col = facts.const_value(window.offsets[1])
    if col is not None:
        first, last = col // ACC_BLOCK_COLS, (col + cols - 1) // ACC_BLOCK_COLS
        if first == last:
            return AccVerdict("accept", f"columns [{col}, {col + cols}) lie inside 16-column block {first}")
        if rows == m and col % ACC_BLOCK_COLS == 0:
            return AccVerdict("accept", f"spans the full row range ({m} rows) of the parent from column block "
                                        f"{first}")
        if rows == m:
            return AccVerdict(
                "reject",
                f"columns [{col}, {col + cols}) start inside 16-column block {first} (column {col} is not a "
                f"multiple of {ACC_BLOCK_COLS}) and cross into block {last}",
            )
        return AccVerdict(
            "reject",
            f"{rows} of {m} rows and columns [{col}, {col + cols}) cross 16-column blocks {first}..{last}",
        )
    mult = facts.known_multiple(window.offsets[1])
    if mult % ACC_BLOCK_COLS == 0 and rows == m:
        return AccVerdict("accept", f"spans the full row range ({m} rows) of the parent and the column offset "
                                    f"is a multiple of {mult}")
    if mult % ACC_BLOCK_COLS == 0 and cols <= ACC_BLOCK_COLS:
        return AccVerdict("accept", f"the column offset is a multiple of {mult} and {cols} <= 16 columns")
    return AccVerdict("silent", "dynamic column offset not provably inside one 16-column block")


@dataclass
class SliceWindowAnalysis:
    facts: ScalarFacts = field(default_factory=ScalarFacts)
    slices: dict[Var, SliceInfo] = field(default_factory=dict)
    other_slices: list[AssignStmt] = field(default_factory=list)  # 4/5-operand slices (not windows)
    windows: dict[Var, Window] = field(default_factory=dict)
    use_counts: dict[Var, int] = field(default_factory=dict)
    acc_findings: list[AccFinding] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    tile_alias: dict[Var, Var] = field(default_factory=dict)  # plain alias -> canonical slice it names (transitive)
    alias_src: dict[Var, Var] = field(default_factory=dict)  # plain alias of a slice -> the Var it copies
    plain_root: dict[Var, Var] = field(default_factory=dict)  # plain alias -> first Var of its alias chain
    col_broadcast_operands: set[Var] = field(default_factory=set)  # plain roots read by a COL_BROADCAST op
    # tile Var -> the tile whose storage (and row pitch) it lives in: through plain aliases, slices (a window
    # lives in its source), shape-preserving views (``tile.reshape`` to the same shape, ``tile.set_validshape``)
    # and loop iter args (the carried value lives in its init's storage)
    pitch_root: dict[Var, Var] = field(default_factory=dict)

    def pitch_shape(self, var: Var) -> tuple[int, ...] | None:
        """The static shape of the storage root of ``var`` (its row pitch is the root's last extent)."""
        root = self.pitch_root.get(var, var)
        t = root.type
        return t.static_shape if isinstance(t, TileType) else None

    def window_of(self, expr: Expr) -> Window | None:
        return self.windows.get(expr) if isinstance(expr, Var) else None

    def slice_of(self, expr: Expr) -> SliceInfo | None:
        """The canonical slice ``expr`` names, directly or through plain aliases."""
        if not isinstance(expr, Var):
            return None
        return self.slices.get(self.tile_alias.get(expr, expr))

    def same_window(self, a: Window | None, b: Window | None) -> bool:
        """Provably the same window: same parent Var, equal offsets and equal extents."""
        if a is None or b is None:
            return False
        if a is b:
            return True
        if a.parent is not b.parent or a.extent is None or a.extent != b.extent:
            return False
        if len(a.offsets) != len(b.offsets):
            return False
        for x, y in zip(a.offsets, b.offsets, strict=False):
            if x is y:
                continue
            cx, cy = self.facts.const_value(x), self.facts.const_value(y)
            if cx is None or cx != cy:
                return False
        return True


def analyze_slice_windows(fn: Function, *, acc_windows_only: bool = False) -> SliceWindowAnalysis:
    """Run the forward walk over ``fn`` and return everything it recorded.

    With ``acc_windows_only`` the window map (and the storage chains behind the back-edge check) is kept
    only for windows of parents known to live in Acc — all the accumulator rule needs, and much less to
    allocate on functions full of Vec / Mat slices."""
    walker = _Walker(acc_windows_only)
    for p in fn.params:
        walker.result.names.add(p.name)
    walker.body(fn.body)
    return walker.result


class _Walker:
    def __init__(self, acc_windows_only: bool = False) -> None:
        self.acc_only = acc_windows_only
        self.result = SliceWindowAnalysis()
        self.slice_op = _slice_op()
        # Vars whose storage some op writes as its accumulator destination -> that op's name.
        self.acc_dest: dict[Var, str] = {}
        # storage predecessor of a tile Var (alias source, storage operand, IterArg init)
        self.storage_pred: dict[Var, Var] = {}
        # Vars whose element coordinates are not those of their storage root (a non-identity view, or
        # derived from one): the reason, for the silent verdict of any slice taken of them
        self.opaque: dict[Var, str] = {}
        # identity views / plain aliases of a root tile -> that root (a slice of them is placed on the root)
        self.view_root: dict[Var, Var] = {}

    # -- uses ----------------------------------------------------------------------------------------

    def count(self, expr: Expr | None) -> None:
        if expr is None:
            return
        counts = self.result.use_counts
        stack = [expr]
        while stack:
            e = stack.pop()
            if isinstance(e, Var):
                counts[e] = counts.get(e, 0) + 1
            elif isinstance(e, Call):
                stack.extend(e.args)
                for _, v in e.kwargs:
                    if isinstance(v, Expr):
                        stack.append(v)
            elif isinstance(e, MakeTuple):
                stack.extend(e.elements)
            else:
                for attr in ("lhs", "rhs", "operand", "tuple_value"):
                    child = getattr(e, attr, None)
                    if isinstance(child, Expr):
                        stack.append(child)

    def count_all(self, exprs: Iterable[Expr]) -> None:
        for e in exprs:
            self.count(e)

    # -- statements ----------------------------------------------------------------------------------

    def body(self, stmt: Stmt | None) -> None:
        if stmt is None:
            return
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                self.body(s) if isinstance(s, SeqStmts) else self.stmt(s)
        else:
            self.stmt(stmt)

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, AssignStmt):
            self.assign(s)
        elif isinstance(s, EvalStmt):
            self.count(s.expr)
            if isinstance(s.expr, Call):
                self.accumulator_use(s, s.expr)
        elif isinstance(s, ForStmt):
            self.for_stmt(s)
        elif isinstance(s, WhileStmt):
            self.while_stmt(s)
        elif isinstance(s, IfStmt):
            self.if_stmt(s)
        elif isinstance(s, (YieldStmt, ReturnStmt)):
            self.count_all(s.values)

    def assign(self, s: AssignStmt) -> None:
        res = self.result
        var, value = s.var, s.value
        res.names.add(var.name)
        self.count(value)
        res.facts.record_assign(var, value)
        if isinstance(value, Var):
            self.edge(var, value, exact=True)
            self.derive(var, value, None)
            res.plain_root[var] = res.plain_root.get(value, value)
            self.same_storage(var, value)
            if value in res.slices:
                res.tile_alias[var] = value
                res.alias_src[var] = value
            elif value in res.tile_alias:
                res.tile_alias[var] = res.tile_alias[value]  # union to the root once: O(1) per alias
                res.alias_src[var] = value
            return
        if not isinstance(value, Call):
            return
        od = op_of(value)
        if od is None:
            return
        if od is self.slice_op:
            if value.args and isinstance(value.args[0], Var):
                self.same_storage(var, value.args[0])
            self.slice(s, value)
            return
        self.accumulator_use(s, value)
        idx = od.output_on_input_storage
        if idx is not None and idx < len(value.args) and isinstance(value.args[idx], Var):
            src = value.args[idx]
            if od.kind is OpKind.VIEW and same_extent(var.type, src.type):  # shape-preserving view
                self.same_storage(var, src)
            if od.output_reuses_input is not None:
                identity = True  # written through in place: the same elements at the same places
            elif isinstance(var.type, TileType) and self.may_be_acc(var.type):
                identity = view_is_identity(od, value, src.type, var.type, res.facts)
            else:
                identity = False
            self.edge(var, src, exact=identity)
            self.derive(var, src, None if identity else
                        f"'{var.name}' is a {od.name} of '{src.name}' that does not keep every element in place, "
                        "so a window of it is not a window of the root's L0C layout")

    def same_storage(self, dst: Var, src: Var) -> None:
        if isinstance(dst.type, TileType) and isinstance(src.type, TileType):
            roots = self.result.pitch_root
            roots[dst] = roots.get(src, src)

    def edge(self, dst: Var, src: Var, *, exact: bool) -> None:
        """``dst`` denotes the same bytes as ``src``; inherit its window when extents provably match."""
        if isinstance(dst.type, TileType) and self.may_be_acc(dst.type):
            self.storage_pred[dst] = src
        w = self.result.windows.get(src)
        if w is None or not same_extent(dst.type, src.type):
            return
        if not exact and w.exact:
            w = Window(w.parent, w.offsets, w.extent, w.seed, exact=False, opaque=w.opaque)
        self.result.windows[dst] = w

    def derive(self, dst: Var, src: Var, non_identity: str | None) -> None:
        """``dst`` is ``src`` (plain alias, identity view: ``non_identity`` None) or a relabelling of it."""
        if not (isinstance(dst.type, TileType) and self.may_be_acc(dst.type)):
            return
        reason = self.opaque.get(src)
        if reason is None and non_identity is not None:
            reason = non_identity
        if reason is not None:
            self.opaque[dst] = reason
        else:
            self.view_root[dst] = self.view_root.get(src, src)

    def carry_opaque(self, dst: Var, *srcs: Expr) -> None:
        """A loop / if value that may be any of ``srcs``: opaque when one of them is (never resolved to a root)."""
        for src in srcs:
            reason = self.opaque.get(src) if isinstance(src, Var) else None
            if reason is not None:
                self.opaque[dst] = reason
                return

    def slice(self, s: AssignStmt, call: Call) -> None:
        res = self.result
        facts = res.facts
        var = s.var
        src = call.args[0]
        shape_arg, offset_arg = call.args[1], call.args[2]
        if not (isinstance(src, Var) and isinstance(shape_arg, MakeTuple) and isinstance(offset_arg, MakeTuple)):
            return
        shape = tuple(facts.resolve(e) for e in shape_arg.elements)
        offsets = tuple(facts.resolve(e) for e in offset_arg.elements)
        if isinstance(var.type, TileType) and self.may_be_acc(var.type):
            self.storage_pred[var] = src
        # window map: peel through exact windows of the same rank
        w_src = res.windows.get(src)
        if w_src is None and self.acc_only and not _in_acc(src.type):
            pass  # a window of a non-Acc parent: nothing the accumulator rule could conclude
        else:
            extent = tuple(e.value for e in shape) if all(isinstance(e, ConstInt) for e in shape) else None
            opaque = self.opaque.get(src)
            if w_src is not None and w_src.exact and len(w_src.offsets) == len(offsets):
                summed = tuple(add_index(a, b, facts) for a, b in zip(w_src.offsets, offsets, strict=True))
                res.windows[var] = Window(w_src.parent, summed, extent, var, opaque=w_src.opaque or opaque)
            elif w_src is not None or opaque is not None:
                # a slice of a relabelled view: its offsets are not coordinates of the root's layout
                res.windows[var] = Window(src, offsets, extent, var, opaque=opaque or (
                    f"'{src.name}' denotes window {w_src.describe() if w_src else '?'} through a view whose "
                    "coordinates do not add up with this slice's, so its place in the root's L0C layout is "
                    "unknown"))
            else:
                res.windows[var] = Window(self.view_root.get(src, src), offsets, extent, var)
        if len(call.args) != 3:
            res.other_slices.append(s)
            return
        # canonical slice index: peel slice chains (and plain aliases of slices)
        inner = res.slices.get(res.tile_alias.get(src, src))
        if inner is not None and len(inner.offsets) == len(offsets):
            info = SliceInfo(var, s, src, inner.base,
                             tuple(add_index(a, b, facts) for a, b in zip(inner.offsets, offsets, strict=False)),
                             shape, inner.chain_depth + 1, offsets)
        else:
            info = SliceInfo(var, s, src, src, offsets, shape, 0)
        res.slices[var] = info

    def may_be_acc(self, t: TileType) -> bool:
        return not self.acc_only or t.memory_space in (MemorySpace.Acc, None)

    # -- accumulators --------------------------------------------------------------------------------

    def accumulator_use(self, s: Stmt, call: Call) -> None:
        od = op_of(call)
        if od is None:
            return
        if od.kind is OpKind.COL_BROADCAST:
            roots = self.result.plain_root
            self.result.col_broadcast_operands.update(roots.get(a, a) for a in call.args if isinstance(a, Var))
        if od.output_reuses_input is None:
            return
        idx = od.output_reuses_input
        if idx >= len(call.args) or not isinstance(call.args[idx], Var):
            return
        operand = call.args[idx]
        # mark the destination storage chain (stop at the first Var already marked: linear overall)
        v: Var | None = operand
        while v is not None and v not in self.acc_dest:
            self.acc_dest[v] = od.name
            v = self.storage_pred.get(v)
        w = self.result.windows.get(operand)
        if w is None:
            return
        self.acc_finding(s, od.name, operand, w, operand.type)

    def back_edges(self, s: ForStmt, yielded: tuple[Expr, ...] | None) -> None:
        rng = self.result.facts.loop_range(s.loop_var)
        if rng is None or not runs_more_than_once(rng.start_value, rng.stop_value, rng.step_value):
            return
        if yielded is None:
            return
        for ia, y in zip(s.iter_args, yielded, strict=False):
            op_name = self.acc_dest.get(ia)
            if op_name is None or not isinstance(y, Var):
                continue
            w = self.result.windows.get(y)
            if w is None:
                continue
            self.acc_finding(s, op_name, y, w, ia.type, via_back_edge=True)

    def acc_finding(self, s: Stmt, op_name: str, value: Expr, w: Window, t: Type, via_back_edge: bool = False) -> None:
        """Judge window ``w`` of accumulator ``value`` (written by ``op_name``) against the column extent of
        the storage of type ``t`` and record the finding."""
        ext = static_extent(t)
        extent = ext[1] if ext is not None else None
        verdict = acc_window_verdict(w, extent, self.result.facts)
        self.result.acc_findings.append(AccFinding(s, op_name, value, w, extent, verdict,
                                                   via_back_edge=via_back_edge))

    # -- control flow --------------------------------------------------------------------------------

    def iter_args(self, iter_args: tuple[IterArg, ...]) -> None:
        for ia in iter_args:
            self.result.names.add(ia.name)
            self.count(ia.init)
            if isinstance(ia.init, Var):
                self.same_storage(ia, ia.init)
                self.edge(ia, ia.init, exact=True)
                self.carry_opaque(ia, ia.init)

    def loop_results(self, iter_args: tuple[IterArg, ...], return_vars: tuple[Var, ...],
                     yielded: tuple[Expr, ...] | None) -> None:
        res = self.result
        for rv in return_vars:
            res.names.add(rv.name)
        if yielded is None:
            return
        for ia, rv, y in zip(iter_args, return_vars, yielded, strict=False):
            self.carry_opaque(rv, ia.init, y)
            if not isinstance(y, Var) or not isinstance(ia.init, Var):
                continue
            w_init, w_y = res.windows.get(ia.init), res.windows.get(y)
            if res.same_window(w_init, w_y) and same_extent(rv.type, y.type) and same_extent(rv.type, ia.init.type):
                res.windows[rv] = w_init  # type: ignore[assignment]

    def for_stmt(self, s: ForStmt) -> None:
        self.count_all((s.start, s.stop, s.step))
        self.result.names.add(s.loop_var.name)
        self.result.facts.record_loop(s.loop_var, s.start, s.stop, s.step)
        self.iter_args(s.iter_args)
        self.body(s.body)
        yielded = _final_yield(s.body)
        self.back_edges(s, yielded)
        self.loop_results(s.iter_args, s.return_vars, yielded)

    def while_stmt(self, s: WhileStmt) -> None:
        self.iter_args(s.iter_args)
        self.count(s.condition)
        self.body(s.body)
        # while loops never prove a trip count: back edges stay unchecked (silent)
        self.loop_results(s.iter_args, s.return_vars, _final_yield(s.body))

    def if_stmt(self, s: IfStmt) -> None:
        res = self.result
        self.count(s.condition)
        self.body(s.then_body)
        self.body(s.else_body)
        for rv in s.return_vars:
            res.names.add(rv.name)
        then_y, else_y = _final_yield(s.then_body), _final_yield(s.else_body)
        if then_y is None or else_y is None:
            return
        for rv, a, b in zip(s.return_vars, then_y, else_y, strict=False):
            self.carry_opaque(rv, a, b)
            if not (isinstance(a, Var) and isinstance(b, Var)):
                continue
            wa, wb = res.windows.get(a), res.windows.get(b)
            if res.same_window(wa, wb) and same_extent(rv.type, a.type) and same_extent(rv.type, b.type):
                res.windows[rv] = wa  # type: ignore[assignment]


def _in_acc(t: Type) -> bool:
    return isinstance(t, TileType) and t.memory_space is MemorySpace.Acc


def _final_yield(body: Stmt | None) -> tuple[Expr, ...] | None:
    y = final_yield(body)
    return y.values if y is not None else None
