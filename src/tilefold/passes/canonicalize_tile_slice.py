"""CanonicalizeTileSlice: lower unsafe ``tile.slice`` windows to ``tile.extract``; reject bad Acc windows.

Contract
--------
- API: ``passes.canonicalize_tile_slice()(program)``; pass name ``CanonicalizeTileSlice``, CLI name
  ``canonicalize-tile-slice``. Function level, over InCore / AIC / AIV functions.
- Required and produced: SSAForm, SplitIncoreOrch, IncoreTileOps, TileOps2D, NormalizedStmtStructure.
  Invalidates nothing. A function without a canonical ``tile.slice`` comes back as the same object.
- Pipeline slot: right after AutoTileMatmulL0, before InferTileMemorySpace (and once more after
  TileAndBindSubBlock, see ``passes/pipeline.py``).

Rules (seed ``canonicalize_tile_slice.zh.txt``; doc page ``docs/passes/canonicalize_tile_slice.md``)
---------------------------------------------------------------------------------------------------
1. Collect canonical 3-operand slices; peel chains to a non-slice base plus accumulated offsets
   (``tilefold.analysis.slice_windows``); constants and known multiples of scalars come from
   ``tilefold.analysis.scalar_facts``. Plain aliases of slices are resolved transitively (each alias once,
   from its source's entry), and every consumer, escape and release looks operands up through them.
2. ``tile.extract(slice, r, c)`` reads the base directly at ``(r + off_row, c + off_col)``.
3. Mat slices used as the ``lhs`` / ``rhs`` operand of an ``OpKind.MATMUL`` op become a fresh
   ``tile.extract(base, off_row, off_col, target_memory=Left|Right)``; accumulators and biases are never
   rewritten.
4. Vec slices used by an ``OpKind.COL_BROADCAST`` op are materialized with ``tile.extract(...,
   target_memory=Vec)`` unless the lazy copy into the slice's own buffer is an identity copy at an
   aligned address (constant offset, contiguous window; the alignment requirement goes beyond the seed).
5. Vec slices used by any other op are materialized unless their inherited address is provably 32-byte
   aligned.
6. Vec slices escaping through a plain alias, a loop init or a yield are materialized there when they are
   misaligned, or (loop init / yield) when the receiving variable is read by a col_expand op that would
   need a real copy. A chained slice of an alias that became a copy is re-derived as a window of the copy.
   One copy per (slice, memory): later consumers it dominates reuse it; copies needed in blocks that do
   not dominate each other are merged into one placed where it dominates them all.
7. Slices and their aliases left without users are dropped (use counts; chains die from the outside in).
8. Slices with other consumers (e.g. a Mat slice into ``tile.move``) stay untouched.
9. An accumulator destination (registry ``output_reuses_input``) that resolves to an Acc window which
   neither spans its parent's rows nor stays inside one 16-column block raises ``AccWindowError``
   (a ``ValueError``). A slice of an identity view is judged on the view's root; a slice of a view that
   moves elements (transpose_view, shape-changing reshape, dtype-changing reinterpret) stays silent.
   A window of an Acc tile that an op reads (not as its accumulator destination) must be addressable from its
   first element with the parent's NZ formula: a constant column offset that is not a multiple of 16, with a
   window that crosses into the next 16-column block, raises ``AccWindowError`` (``check_acc_windows``).
10. Every decision is reported as a structured remark (``canonicalize_tile_slice_with_remarks``), and every
    slice gets at least one (``skipped`` / ``peeled`` / ``dropped`` / ``kept`` close the list, in program
    order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilefold.analysis.scalar_facts import ScalarFacts, add_index
from tilefold.analysis.slice_windows import (
    ACC_BLOCK_COLS,
    AccFinding,
    SliceInfo,
    SliceWindowAnalysis,
    analyze_slice_windows,
)
from tilefold.analysis.tile_layout import all_stmts
from tilefold.errors import Span, TilefoldError
from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.names import NameSupply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import MemorySpace, TileType
from tilefold.ir.visitor import IRMutator
from tilefold.ops.registry import OpDef, OpKind, Unit, get_op, make_call, op_of
from tilefold.passes import remarks as remarks_mod
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.passes.remarks import Remark
from tilefold.util.gc import no_gc

__all__ = [
    "PASS_NAME",
    "PROPERTIES",
    "AccWindowError",
    "canonicalize_function",
    "canonicalize_tile_slice",
    "canonicalize_tile_slice_with_remarks",
    "col_expand_decision",
    "slice_alignment",
]

PASS_NAME = "CanonicalizeTileSlice"
CLI_NAME = "canonicalize-tile-slice"
PROPERTIES = (
    IRProperty.SSAForm,
    IRProperty.SplitIncoreOrch,
    IRProperty.IncoreTileOps,
    IRProperty.TileOps2D,
    IRProperty.NormalizedStmtStructure,
)
ALIGN_BITS = 256  # vector operands need 32-byte aligned base addresses


class AccWindowError(TilefoldError, ValueError):
    """A matmul accumulator destination is a window that is not contiguous in L0C's NZ block layout."""


# ------------------------------------------------------------------------------------------------
# pass objects
# ------------------------------------------------------------------------------------------------


def canonicalize_tile_slice() -> Pass:
    """The CanonicalizeTileSlice function pass."""
    return function_pass(
        PASS_NAME,
        _transform,
        required=PROPERTIES,
        produced=PROPERTIES,
        invalidated=(),
        cli_name=CLI_NAME,
    )


def canonicalize_tile_slice_with_remarks(program: Program) -> tuple[Program, list[Remark]]:
    """Run the pass and also return its remarks (one structured ``Remark`` per decision)."""
    with remarks_mod.collect_remarks() as collected:
        out = canonicalize_tile_slice()(program)
    return out, [r for r in collected if r.pass_name == PASS_NAME]


# The pass builds only acyclic data (IR nodes, maps from Vars), which reference counting frees: the cyclic
# collector is paused per function (no_gc) so its full collections do not rescan what the pass keeps alive.
def _transform(fn: Function, program: Program | None = None) -> Function:
    if not remarks_mod.remarks_enabled():
        with no_gc():
            return canonicalize_function(fn)
    records: list[Remark] = []
    try:
        with no_gc():
            return canonicalize_function(fn, records)
    finally:
        for r in records:
            remarks_mod.emit(r)


def canonicalize_function(fn: Function, remarks: list[Remark] | None = None) -> Function:
    """Canonicalize one function; appends a ``Remark`` per decision to ``remarks`` when given."""
    analysis = analyze_slice_windows(fn, acc_windows_only=True)
    ctx = _Context(fn, analysis, remarks)
    ctx.check_accumulators()
    ctx.check_acc_windows()
    if not analysis.slices:
        ctx.final_remarks()
        return fn
    local: list[Remark] = []
    out, ctx = _rewrite(fn, analysis, local if remarks is not None else None, None)
    anchors = ctx.hoist_plan()
    if anchors:
        # Copies of one slice in blocks that do not dominate each other (then / else, a loop body and the code
        # after it): rewrite again with one copy placed where it dominates them all. Decisions are the same.
        local = []
        out, ctx = _rewrite(fn, analysis, local if remarks is not None else None, anchors)
    if remarks is not None:
        remarks.extend(local)
    return out


def _rewrite(fn: Function, analysis: SliceWindowAnalysis, remarks: list[Remark] | None,
             anchors: dict[tuple[int, int], list[_Planned]] | None) -> tuple[Function, _Context]:
    ctx = _Context(fn, analysis, remarks, anchors)
    counts = analysis.use_counts
    for var in (*analysis.slices, *analysis.alias_src):
        if counts.get(var, 0) == 0:
            ctx.release(var, initial=True)
    out = _Rewriter(ctx).mutate_function(fn)
    if ctx.dead:
        out = _DropDead(ctx.dead).mutate_function(out)
    ctx.final_remarks()
    return out, ctx


# ------------------------------------------------------------------------------------------------
# decisions
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Alignment:
    status: str  # "aligned" | "misaligned" | "unprovable"
    how: str
    misaligned_bytes: int | None = None


def slice_alignment(info: SliceInfo, facts: ScalarFacts) -> _Alignment:
    """Is the zero-copy address ``base + offset`` of a slice provably 32-byte aligned?

    bits = memref_byte_offset * 8 + (sum_d off_d * stride_d) * storage_bits, checked mod 256. A concrete
    MemRef byte offset counts; no MemRef or the planning sentinel (byte_offset None) is an aligned root;
    a symbolic byte offset is unprovable. Dynamic offsets count through their known multiple.
    """
    bt = info.base_type
    if bt is None:
        return _Alignment("unprovable", "the base is not a tile")
    bits = bt.dtype.storage_bits
    const_bits = 0
    proofs: list[str] = []
    mr = bt.memref
    if mr is not None and mr.byte_offset is not None:
        off = facts.const_value(mr.byte_offset)
        if off is None:
            return _Alignment("unprovable", f"the MemRef byte offset of '{info.base.name}' is not a constant")
        const_bits += off * 8
    shape = bt.static_shape
    rank = len(info.offsets)
    for d, off_expr in enumerate(info.offsets):
        c = facts.const_value(off_expr)
        if c == 0:
            continue
        stride = _stride(shape, d, rank)
        if stride is None:
            return _Alignment("unprovable", f"the extents of '{info.base.name}' after axis {d} are symbolic")
        if c is not None:
            const_bits += c * stride * bits
            continue
        mult = facts.known_multiple(off_expr)
        step_bits = mult * stride * bits
        if step_bits % ALIGN_BITS:
            what = f"a multiple of {mult}" if mult > 1 else "not a known multiple"
            return _Alignment(
                "unprovable",
                f"axis-{d} offset {facts.describe(off_expr)} is {what}; steps of {step_bits // 8} B are not "
                "provably 32-byte aligned",
            )
        proofs.append(f"axis-{d} offset {facts.describe(off_expr)} moves by multiples of {step_bits // 8} B")
    rem = const_bits % ALIGN_BITS
    if rem:
        return _Alignment("misaligned", f"the constant part is {const_bits // 8} B, {rem // 8} B past a 32-byte "
                                        "boundary", rem // 8)
    proofs.insert(0, f"constant part {const_bits // 8} B is a multiple of 32 B")
    return _Alignment("aligned", "; ".join(proofs))


def _stride(shape: tuple[int, ...] | None, axis: int, rank: int) -> int | None:
    if axis == rank - 1:
        return 1
    if shape is None or len(shape) != rank:
        return None
    s = 1
    for e in shape[axis + 1:]:
        s *= e
    return s


def col_expand_decision(info: SliceInfo, facts: ScalarFacts,
                        pitch_shape: tuple[int, ...] | None = None) -> tuple[bool, str, str]:
    """(materialize?, reason kind, explanation) for a Vec slice read by a col_expand-family op.

    The op cannot read a subview, so codegen copies the slice into the slice's own buffer (inside its
    live source). That copy is safe only if it is an identity copy: constant offset (#1640) and a window
    contiguous in the base (single row or full width, #2010). The buffer is then ``base + offset``, so it
    must also be 32-byte aligned (#1789) for the vector op that reads it.

    ``pitch_shape`` is the static shape of the storage root the base lives in (``SliceWindowAnalysis.
    pitch_shape``): the contiguity test uses the root's row pitch, not the extent of a shape-preserving view
    (reshape to the same shape, set_validshape) or of a loop iter arg whose init is a column window.
    """
    dynamic = [repr(o) for o in info.offsets if facts.const_value(o) is None]
    if dynamic:
        return True, "dynamic-offset", (f"offset {', '.join(dynamic)} is dynamic: the lazy copy would land at the "
                                        "bare source base (#1640)")
    shape = info.static_shape
    bt = info.base_type
    base_shape = bt.static_shape if bt is not None else None
    if pitch_shape is not None and base_shape is not None and len(pitch_shape) == len(base_shape) == 2:
        base_shape = (base_shape[0], max(base_shape[1], pitch_shape[1]))  # the root's row pitch
    if shape is None or len(shape) != 2:
        return True, "non-contiguous", "the window extent is symbolic or not 2-D: contiguity is unprovable"
    rows, cols = shape
    if rows > 1:
        if base_shape is None or len(base_shape) != 2:
            return True, "non-contiguous", "the base extent is symbolic: contiguity is unprovable"
        if cols < base_shape[1]:
            return True, "non-contiguous", (f"{rows} rows x {cols} of {base_shape[1]} columns is strided in the "
                                            "base: the dense repack would overwrite the live source (#2010)")
    align = slice_alignment(info, facts)
    if align.status == "misaligned":
        return True, "misaligned", f"the identity copy would start at a misaligned address: {align.how} (#1789)"
    if align.status == "unprovable":
        return True, "unprovable", f"alignment of the identity copy is unprovable: {align.how}"
    return False, "identity-copy", f"constant offset, contiguous window, aligned ({align.how})"


# ------------------------------------------------------------------------------------------------
# the rewrite
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Planned:
    """A copy of ``info``'s window into ``memory`` (named ``<slice>_<suffix>``) and where it was placed."""

    info: SliceInfo
    memory: MemorySpace
    suffix: str
    path: tuple[tuple[int, int], ...]  # (id of the block, statement index) from the function body inwards


class _Context:
    def __init__(self, fn: Function, analysis: SliceWindowAnalysis, remarks: list[Remark] | None,
                 anchors: dict[tuple[int, int], list[_Planned]] | None = None) -> None:
        self.fn = fn
        self.analysis = analysis
        self.facts = analysis.facts
        self.slices = dict(analysis.slices)  # re-based by ``refresh`` when a chain link became a copy
        self.counts = dict(analysis.use_counts)
        # plain alias of a slice -> the Var it copies; an alias materialized at its definition leaves
        self.alias_src = dict(analysis.alias_src)
        # plain alias -> the slice it names, built in program order by the rewriter (``bind_alias``)
        self.root: dict[Var, Var] = {}
        self.names = NameSupply(analysis.names)
        self.remarks = remarks
        self.decided: set[Var] = set()  # slices that got a decision remark
        self.dead: set[Var] = set()  # slices and aliases of slices with no users left
        self.slice_op = get_op("tile.slice")
        self.extract_op = get_op("tile.extract")
        # (slice, memory) -> the Var holding its materialized copy, visible in the block that defines it and
        # the blocks nested in it after that point (the places it dominates); undone when a block ends
        self.copies: dict[tuple[Var, MemorySpace], Var] = {}
        self.scopes: list[list[tuple[tuple[Var, MemorySpace], Var | None]]] = []
        # where the rewriter is: (id of the block, statement index) per enclosing block
        self.position: list[tuple[int, int]] = []
        self.made: dict[tuple[Var, MemorySpace], list[_Planned]] = {}  # every new copy, per (slice, memory)
        self.anchors = anchors or {}  # (block id, index) -> copies to place before that statement

    # -- slices through plain aliases ----------------------------------------------------------------

    def lookup(self, expr: Expr | None) -> SliceInfo | None:
        """The canonical slice ``expr`` names, directly or through any number of plain aliases."""
        if not isinstance(expr, Var):
            return None
        return self.slices.get(self.root.get(expr, expr))

    def refresh(self, var: Var) -> None:
        """Re-derive the chained slice ``var`` from its source as the rewrite left it (program order, O(1)).

        The analysis peels ``s2 = slice(a)`` through ``a = s1`` down to ``s1``'s base. When the rewrite turned
        ``a`` into a copy (a misaligned alias is materialized at its definition), ``s2`` is a window of that
        copy instead: its base and offsets, and those of the slices chained on it, change accordingly."""
        info = self.slices[var]
        inner = self.lookup(info.src)
        analysed = self.analysis.slice_of(info.src)
        if inner is analysed and info is self.analysis.slices[var]:
            return
        local = info.own_offsets
        if inner is not None and len(inner.offsets) == len(local):
            offsets = tuple(add_index(a, b, self.facts) for a, b in zip(inner.offsets, local, strict=True))
            new = SliceInfo(var, info.stmt, info.src, inner.base, offsets, info.shape, inner.chain_depth + 1, local)
        else:
            new = SliceInfo(var, info.stmt, info.src, info.src, local, info.shape, 0, local)
        self.slices[var] = new

    def bind_alias(self, var: Var, info: SliceInfo | None) -> None:
        """``var = w`` stays a plain alias of ``info``'s slice (``None``: it no longer names a slice)."""
        if info is None:
            self.alias_src.pop(var, None)
        else:
            self.root[var] = info.var

    # -- remarks -------------------------------------------------------------------------------------

    def remark(self, kind: str, message: str, *, var: Var | None = None, **details: Any) -> None:
        if var is not None:
            self.decided.add(var)
            details = {"slice": var.name, **details}
        if self.remarks is not None:
            self.remarks.append(Remark(PASS_NAME, self.fn.name, kind, message, details))

    def final_remarks(self) -> None:
        """One closing record per slice, in program order: skipped (4-5 operands), peeled (chain links),
        dropped, or kept (a slice no consumer decision mentioned: why it stays)."""
        if self.remarks is None:
            return
        for stmt in self.analysis.other_slices:
            n = len(stmt.value.args) if isinstance(stmt.value, Call) else 0
            self.remark("skipped", f"slice '{stmt.var.name}' has {n} operands (valid_shape / drop_dims): it is "
                                   "not a plain window, so it is never rewritten; if a col_expand op reads it "
                                   "with a dynamic offset or a strided window, strict codegen rejects it — write "
                                   "a 3-operand slice or an explicit tile.extract instead",
                        var=stmt.var, operands=n)
        decided = set(self.decided)
        tile_alias = self.analysis.tile_alias
        readers: dict[Var, list[Var]] = {}
        for info in self.slices.values():
            if info.chain_depth:
                readers.setdefault(tile_alias.get(info.src, info.src), []).append(info.var)
        for info in self.slices.values():
            var = info.var
            if info.chain_depth:
                self.remark("peeled", f"slice '{var.name}' of slice '{info.src.name}' is peeled to its base: it "
                                      f"reads '{info.base.name}' at [{_offsets(info)}] (chain depth "
                                      f"{info.chain_depth})",
                            var=var, base=info.base.name, offsets=tuple(repr(o) for o in info.offsets),
                            depth=info.chain_depth)
            if var in self.dead:
                self.remark("dropped", f"slice '{var.name}' has no users left and was removed",
                            var=var, base=info.base.name)
                continue
            if var in decided:
                continue
            live = [r.name for r in readers.get(var, ()) if r not in self.dead]
            if live:
                why = (f"it is the source of chained slice(s) {', '.join(repr(n) for n in live)} that still "
                       "read it, and stays a zero-copy subview")
                reason = "chained"
            else:
                mem = info.memory_space.name if info.memory_space else "memory-less"
                why = ("none of its readers is a consumer this pass rewrites (a return, a value carried through "
                       f"a loop or an if at a safe address, or an op that reads a {mem} subview); it stays a "
                       "zero-copy subview")
                reason = "no-rewrite"
            self.remark("kept", f"slice '{var.name}' is kept: {why}", var=var, reason=reason)

    # -- use counts ----------------------------------------------------------------------------------

    def release(self, var: Var, *, initial: bool = False) -> None:
        """One use of ``var`` (a slice or a plain alias of one) went away; when none are left it dies,
        releasing the Var it reads (an alias's source, a chained slice's source)."""
        current: Var | None = var
        first = True
        while current is not None:
            if not (first and initial):
                self.counts[current] = self.counts.get(current, 0) - 1
            first = False
            if self.counts.get(current, 0) > 0 or current in self.dead:
                return
            if current in self.slices:
                nxt = self.slices[current].src
            elif current in self.alias_src:
                nxt = self.alias_src[current]
            else:
                return
            self.dead.add(current)
            current = nxt if (nxt in self.slices or nxt in self.alias_src) else None

    # -- Acc windows ---------------------------------------------------------------------------------

    def check_accumulators(self) -> None:
        for finding in self.analysis.acc_findings:
            v = finding.verdict
            if v.kind == "reject":
                self.remark("acc-window-rejected", _acc_message(finding), op=finding.op_name,
                            window=finding.window.describe(), reason=v.reason)
                raise AccWindowError(_acc_message(finding), span=_finding_span(finding), hint=_acc_hint(finding))
            self.remark(f"acc-window-{'accepted' if v.kind == 'accept' else 'unproven'}",
                        f"{finding.op_name} accumulator window {finding.window.describe()}: {v.reason}",
                        op=finding.op_name, window=finding.window.describe(), verdict=v.kind)

    def check_acc_windows(self) -> None:
        """A window of an Acc tile is read through its parent's NZ block formula from the window's first element:
        right only when its column offset is a whole number of 16-column blocks or the window stays inside the
        block it starts in. An op that reads such a window (any operand but an accumulator destination, which the
        seed's rule above judges) would get the wrong elements, and no consumer can copy it: refuse it."""
        bad: dict[Var, str] = {}
        for info in self.analysis.slices.values():
            bt = info.base_type
            extent = info.static_shape
            if bt is not None and bt.memory_space is MemorySpace.Acc and extent is not None and len(extent) == 2 \
                    and len(info.offsets) == 2:
                problem = _acc_window_problem(info.offsets, extent, self.facts)
                if problem is not None:
                    bad[info.var] = problem
        if not bad:
            return
        for stmt in all_stmts(self.fn.body):
            call = getattr(stmt, "value", None) if isinstance(stmt, AssignStmt) else getattr(stmt, "expr", None)
            od = op_of(call) if isinstance(call, Call) else None
            if od is None or od.name == "tile.slice":
                continue
            for i, arg in enumerate(call.args):
                info = self.slices.get(self.analysis.tile_alias.get(arg, arg)) if isinstance(arg, Var) else None
                if info is None or info.var not in bad or i == od.output_reuses_input:
                    continue
                offs = ", ".join(repr(o) for o in info.offsets)
                rows, cols = info.static_shape or ("?", "?")
                message = (f"{od.name} reads a window [{rows}, {cols}] at offset [{offs}] of the Acc tile "
                           f"'{info.base.name}' (tile.slice '{info.var.name}') that L0C's NZ block layout cannot "
                           f"address: {bad[info.var]}")
                self.remark("acc-window-rejected", message, var=info.var, reason=bad[info.var])
                span = info.stmt.span if info.stmt.span.line else stmt.span
                raise AccWindowError(message, span=span if span.line else None,
                                     hint=f"start the window on a multiple of {ACC_BLOCK_COLS} columns (or keep it "
                                          f"inside one {ACC_BLOCK_COLS}-column block); or store the whole matmul "
                                          "result to a tensor and take the window from the tensor")

    # -- building extracts ---------------------------------------------------------------------------

    def fresh(self, name: str) -> str:
        return self.names.fresh(name)

    def push_scope(self) -> None:
        self.scopes.append([])

    def pop_scope(self) -> None:
        for key, previous in reversed(self.scopes.pop()):
            if previous is None:
                self.copies.pop(key, None)
            else:
                self.copies[key] = previous

    def remember(self, info: SliceInfo, memory: MemorySpace, var: Var) -> None:
        key = (info.var, memory)
        if self.scopes:
            self.scopes[-1].append((key, self.copies.get(key)))
        self.copies[key] = var

    def extract_call(self, info: SliceInfo, memory: MemorySpace, stmt: Stmt) -> Call | None:
        """``tile.extract(base, off_row, off_col, shape=..., target_memory=memory)`` or None (with a remark)."""
        shape = info.static_shape
        if shape is None or len(shape) != 2 or len(info.offsets) != 2:
            self.remark("left", f"slice '{info.var.name}' has a symbolic or non-2-D extent; it cannot be "
                                "materialized with tile.extract and is left as it is", var=info.var)
            return None
        try:
            return make_call("tile.extract", [info.base, info.offsets[0], info.offsets[1]],
                             {"shape": shape, "target_memory": memory}, getattr(stmt, "span", None))
        except TilefoldError as exc:
            self.remark("left", f"slice '{info.var.name}' cannot be materialized: {exc.message}", var=info.var)
            return None

    def obtain(self, info: SliceInfo, memory: MemorySpace, suffix: str, stmt: Stmt) -> tuple[list[Stmt], Var] | None:
        """A Var holding the slice copied into ``memory``: the copy an earlier consumer made when it dominates
        this one (same block or an enclosing one), else a new ``<name>_<suffix> = tile.extract(...)`` that the
        caller places right before ``stmt``."""
        cached = self.copies.get((info.var, memory))
        if cached is not None:
            return [], cached
        call = self.extract_call(info, memory, stmt)
        if call is None:
            return None
        name = info.var.name
        if name.endswith("_slice") and len(name) > len("_slice"):
            name = name[: -len("_slice")]
        var = Var(self.fresh(f"{name}_{suffix}"), call.type, info.var.span)
        span = getattr(stmt, "span", None)
        self.remember(info, memory, var)
        self.made.setdefault((info.var, memory), []).append(_Planned(info, memory, suffix, tuple(self.position)))
        return [AssignStmt(var, call, span) if span is not None else AssignStmt(var, call)], var

    def hoist_plan(self) -> dict[tuple[int, int], list[_Planned]]:
        """For each (slice, memory) copied more than once, the one place that dominates every copy: in the
        innermost block enclosing them all, right before the statement that holds the first one."""
        anchors: dict[tuple[int, int], list[_Planned]] = {}
        for made in self.made.values():
            if len(made) < 2:
                continue
            paths = [m.path for m in made]
            anchor: tuple[int, int] | None = None
            for level in range(min(len(p) for p in paths)):
                steps = [p[level] for p in paths]
                if any(st[0] != steps[0][0] for st in steps):
                    break  # different blocks (then / else): the statement one level up encloses them
                anchor = (steps[0][0], min(st[1] for st in steps))
                if any(st != steps[0] for st in steps):
                    break  # same block, different statements: this is the innermost common block
            if anchor is not None:
                anchors.setdefault(anchor, []).append(made[0])
        return anchors

    def hoisted_at(self, block: int, index: int, stmt: Stmt) -> list[Stmt]:
        """The planned copies to place before statement ``index`` of ``block`` (remembered for later users)."""
        out: list[Stmt] = []
        for plan in self.anchors.get((block, index), ()):
            built = self.obtain(plan.info, plan.memory, plan.suffix, stmt)
            if built is not None:
                out.extend(built[0])
        return out

    def escape(self, expr: Expr | None, holders: tuple[Var, ...]) -> tuple[SliceInfo, str, str, int | None] | None:
        """Rule 6: should the slice ``expr`` names (directly or through plain aliases), flowing into ``holders``
        (an IterArg or loop / if result) without passing a call, be materialized where it escapes? Yes when
        its address is not provably aligned, or when a holder is read by a col_expand-family op that would
        need a non-identity copy. Returns (info, status, explanation, misaligned bytes)."""
        info = self.lookup(expr)
        if info is None or info.var in self.dead:
            return None
        to_col_broadcast = any(h in self.analysis.col_broadcast_operands for h in holders)
        mem = info.memory_space
        if not (mem is MemorySpace.Vec or (mem is None and to_col_broadcast)):
            return None
        align = slice_alignment(info, self.facts)
        if align.status != "aligned":
            return info, align.status, align.how, align.misaligned_bytes
        if to_col_broadcast:
            materialize, kind, why = col_expand_decision(info, self.facts, self.analysis.pitch_shape(info.base))
            if materialize:
                return info, kind, why, None
        return None

    def materialize_escape(self, expr: Expr | None, holders: tuple[Var, ...], stmt: Stmt,
                           where: str) -> tuple[list[Stmt], Var] | None:
        hit = self.escape(expr, holders)
        if hit is None:
            info = self.lookup(expr)
            if info is not None and holders and info.var not in self.dead and info.memory_space is MemorySpace.Vec:
                self.remark("kept-zero-copy", f"slice '{info.var.name}' escaping through {where} stays zero-copy: "
                                              "its address is provably aligned", var=info.var, consumer=where,
                            reason=f"escape-{where.replace(' ', '-')}/aligned")
            return None
        info, status, why, nbytes = hit
        built = self.obtain(info, MemorySpace.Vec, "ext", stmt)
        if built is None:
            return None
        assert isinstance(expr, Var)
        self.release(expr)
        reused = "" if built[0] else f" (reusing '{built[1].name}')"
        self.remark("materialized", f"slice '{info.var.name}' escaping through {where} is materialized there"
                                    f"{reused}: {why}", var=info.var,
                    reason=f"escape-{where.replace(' ', '-')}/{status}", consumer=where, misaligned_bytes=nbytes,
                    reused=not built[0])
        return built


class _Rewriter(IRMutator):
    def __init__(self, ctx: _Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.constructs: list[tuple[tuple[Var, ...], tuple[Var, ...]]] = []  # enclosing loops / ifs

    # -- statements ----------------------------------------------------------------------------------

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt | list[Stmt]:
        ctx = self.ctx
        ctx.push_scope()  # a copy made in this block dominates the rest of it and the blocks inside
        out: list[Stmt] = []
        changed = False
        block = id(stmt)
        try:
            for i, s in enumerate(stmt.stmts):
                ctx.position.append((block, i))
                try:
                    if ctx.anchors:
                        hoisted = ctx.hoisted_at(block, i, s)
                        if hoisted:
                            out.extend(hoisted)
                            changed = True
                    r = self.mutate_stmt(s)
                finally:
                    ctx.position.pop()
                if isinstance(r, list):
                    out.extend(r)
                    changed = True
                else:
                    out.append(r)
                    changed = changed or r is not s
        finally:
            ctx.pop_scope()
        return stmt.with_fields(stmts=tuple(out)) if changed else stmt

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        value = stmt.value
        ctx = self.ctx
        if isinstance(value, Var):
            if stmt.var in ctx.dead:
                return stmt  # an alias nobody reads: dropped with its slice
            info = ctx.lookup(value)
            built = ctx.materialize_escape(value, (), stmt, "alias") if info is not None else None
            if built is not None:
                pre, copy = built
                ctx.bind_alias(stmt.var, None)
                if pre:  # the alias itself becomes the copy, and later consumers reuse it
                    new_var = stmt.var
                    ctx.remember(info, MemorySpace.Vec, new_var)  # type: ignore[arg-type]
                    return stmt.with_fields(value=self._remap_expr(pre[0].value))  # type: ignore[attr-defined]
                return stmt.with_fields(value=self._remap_expr(copy))
            ctx.bind_alias(stmt.var, info)
            return super().mutate_AssignStmt(stmt) if self.var_map else stmt
        pre: list[Stmt] = []
        if isinstance(value, Call):
            if stmt.var in ctx.slices:
                ctx.refresh(stmt.var)
            value, pre = self.rewrite_call(stmt, value)
        if self.var_map:  # only loop-init escapes rename IterArgs; skip the expression walk otherwise
            value = self.mutate_expr(value)
            pre = self._remap(pre)
        new = stmt if value is stmt.value else stmt.with_fields(value=value)
        return [*pre, new] if pre else new

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        expr = stmt.expr
        pre: list[Stmt] = []
        if isinstance(expr, Call):
            expr, pre = self.rewrite_call(stmt, expr)
        if self.var_map:
            expr = self.mutate_expr(expr)
            pre = self._remap(pre)
        new = stmt if expr is stmt.expr else stmt.with_fields(expr=expr)
        return [*pre, new] if pre else new

    def _remap_expr(self, expr: Expr) -> Expr:
        """``expr`` with the IterArgs renamed by loop-init escapes replaced (identity when none were)."""
        return self.mutate_expr(expr) if self.var_map else expr

    def _remap(self, stmts: list[Stmt]) -> list[Stmt]:
        """Copies built by the rewrite read the analysis' Vars; an enclosing loop whose init escaped has a
        rebuilt IterArg, so map those reads to it (else the copy reads a Var no longer defined)."""
        if not self.var_map:
            return stmts
        out: list[Stmt] = []
        for st in stmts:
            if isinstance(st, AssignStmt):
                v = self.mutate_expr(st.value)
                st = st if v is st.value else st.with_fields(value=v)
            elif isinstance(st, EvalStmt):
                e = self.mutate_expr(st.expr)
                st = st if e is st.expr else st.with_fields(expr=e)
            out.append(st)
        return out

    def _escape_inits(self, stmt: ForStmt | WhileStmt) -> tuple[list[Stmt], ForStmt | WhileStmt]:
        pre: list[Stmt] = []
        new_iter_args = []
        for i, ia in enumerate(stmt.iter_args):
            holders = (ia, stmt.return_vars[i]) if i < len(stmt.return_vars) else (ia,)
            built = self.ctx.materialize_escape(ia.init, holders, stmt, "loop init")
            if built is None:
                new_iter_args.append(ia)
                continue
            pre.extend(self._remap(list(built[0])))
            new_ia = ia.with_fields(init=self._remap_expr(built[1]))
            self.var_map[ia] = new_ia
            new_iter_args.append(new_ia)
        if len(new_iter_args) and any(a is not b for a, b in zip(new_iter_args, stmt.iter_args, strict=True)):
            stmt = stmt.with_fields(iter_args=tuple(new_iter_args))
        return pre, stmt

    def _in_construct(self, stmt: Stmt, iter_args: tuple[Var, ...], return_vars: tuple[Var, ...], mutate):
        self.constructs.append((iter_args, return_vars))
        try:
            return mutate(stmt)
        finally:
            self.constructs.pop()

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        pre, changed = self._escape_inits(stmt)
        out = self._in_construct(changed, stmt.iter_args, stmt.return_vars, super().mutate_ForStmt)
        return [*pre, *(out if isinstance(out, list) else [out])] if pre else out

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        pre, changed = self._escape_inits(stmt)
        out = self._in_construct(changed, stmt.iter_args, stmt.return_vars, super().mutate_WhileStmt)
        return [*pre, *(out if isinstance(out, list) else [out])] if pre else out

    def mutate_IfStmt(self, stmt: IfStmt) -> Stmt | list[Stmt]:
        return self._in_construct(stmt, (), stmt.return_vars, super().mutate_IfStmt)

    def mutate_YieldStmt(self, stmt: YieldStmt) -> Stmt | list[Stmt]:
        pre: list[Stmt] = []
        values = list(stmt.values)
        iter_args, return_vars = self.constructs[-1] if self.constructs else ((), ())
        for i, v in enumerate(values):
            holders = tuple(h[i] for h in (iter_args, return_vars) if i < len(h))
            built = self.ctx.materialize_escape(v, holders, stmt, "yield")
            if built is None:
                continue
            pre.extend(built[0])
            values[i] = built[1]
        if any(a is not b for a, b in zip(values, stmt.values, strict=True)):
            stmt = stmt.with_fields(values=tuple(values))
        out = super().mutate_YieldStmt(stmt) if self.var_map else stmt
        pre = self._remap(pre)
        return [*pre, out] if pre else out  # type: ignore[list-item]

    # -- consumers -----------------------------------------------------------------------------------

    def rewrite_call(self, stmt: Stmt, call: Call) -> tuple[Call, list[Stmt]]:
        ctx = self.ctx
        if not any(ctx.lookup(a) is not None for a in call.args):
            return call, []
        od = op_of(call)
        if od is ctx.slice_op:
            return call, []
        if od is ctx.extract_op:
            return self.fold_extract(stmt, call), []
        if od is not None and od.kind is OpKind.MATMUL:
            return self.matmul_operands(stmt, call, od)
        if od is not None and od.kind is OpKind.COL_BROADCAST:
            return self.col_broadcast(stmt, call, od)
        return self.ordinary(stmt, call, od)

    def fold_extract(self, stmt: Stmt, call: Call) -> Call:
        """Rule 2: ``extract(slice, r, c)`` -> ``extract(base, r + off_row, c + off_col)``."""
        ctx = self.ctx
        src = call.args[0]
        info = ctx.lookup(src)
        if info is None:
            return call
        if info.memory_space not in (MemorySpace.Mat, MemorySpace.Vec, None) or len(info.offsets) != 2:
            ctx.remark("left", f"slice '{info.var.name}' in {info.memory_space} feeding tile.extract is not "
                               "canonicalized", var=info.var, consumer=call.op_name)
            return call
        facts = ctx.facts
        row = add_index(facts.resolve(call.args[1]), info.offsets[0], facts)
        col = add_index(facts.resolve(call.args[2]), info.offsets[1], facts)
        try:
            new = make_call("tile.extract", [info.base, row, col, *call.args[3:]], dict(call.kwargs),
                            getattr(call, "span", None))
        except TilefoldError as exc:
            ctx.remark("left", f"slice '{info.var.name}' could not be folded into tile.extract: {exc.message}",
                       var=info.var, consumer=call.op_name)
            return call
        new = new.with_fields(type=call.type)  # same window, same result type
        ctx.release(src)  # type: ignore[arg-type]
        ctx.remark("folded-extract", f"slice '{info.var.name}' folded into tile.extract: reads "
                                     f"'{info.base.name}' at [{row!r}, {col!r}]",
                   var=info.var, base=info.base.name, consumer=call.op_name,
                   offsets=(repr(info.offsets[0]), repr(info.offsets[1])))
        return new

    def rewrite_operands(self, stmt: Stmt, call: Call, rule: Callable[[int, SliceInfo], _Copy | None]
                         ) -> tuple[Call, list[Stmt]]:
        """The per-operand loop of rules 3-5. For each operand of ``call`` that is a slice, ``rule(i, info)``
        either leaves it (returns None, having reported why) or asks for a copy; the copy is obtained (or
        reused, ``obtain``), replaces the operand, the slice is released and the copy reported. Returns the
        call (the same object when no operand changed) and the statements to place before ``stmt``."""
        ctx = self.ctx
        args = list(call.args)
        pre: list[Stmt] = []
        for i, a in enumerate(call.args):
            info = ctx.lookup(a)
            if info is None:
                continue
            copy = rule(i, info)
            if copy is None:
                continue
            built = ctx.obtain(info, copy.memory, copy.suffix, stmt)
            if built is None:
                continue
            pre.extend(built[0])
            args[i] = built[1]
            ctx.release(a)  # type: ignore[arg-type]
            copy.report(built)
        if all(x is y for x, y in zip(args, call.args, strict=True)):
            return call, []
        return call.with_fields(args=tuple(args)), pre

    def matmul_operands(self, stmt: Stmt, call: Call, od: OpDef) -> tuple[Call, list[Stmt]]:
        """Rule 3: Mat slices as lhs / rhs become tile.extract into Left / Right."""
        ctx = self.ctx
        names = [p.name for p in od.operand_params]

        def rule(i: int, info: SliceInfo) -> _Copy | None:
            role = names[i] if i < len(names) else "?"
            if role not in ("lhs", "rhs") or info.memory_space is not MemorySpace.Mat:
                ctx.remark("left", f"slice '{info.var.name}' ({info.memory_space}) as the {role} operand of "
                                   f"{call.op_name} is not rewritten", var=info.var,
                           consumer=call.op_name, operand=role)
                return None
            memory = MemorySpace.Left if role == "lhs" else MemorySpace.Right

            def report(built: tuple[list[Stmt], Var]) -> None:
                ctx.remark("folded-matmul", f"Mat slice '{info.var.name}' as the {role} of {call.op_name} becomes "
                                            f"tile.extract of '{info.base.name}' into {memory.name}"
                                            f"{_reused(built)}",
                           var=info.var, base=info.base.name, consumer=call.op_name, operand=role,
                           reused=not built[0])

            return _Copy(memory, "left" if role == "lhs" else "right", report)

        return self.rewrite_operands(stmt, call, rule)

    def col_broadcast(self, stmt: Stmt, call: Call, od: OpDef) -> tuple[Call, list[Stmt]]:
        """Rule 4: Vec slices read by the col_expand family (both operands checked)."""
        ctx = self.ctx

        def rule(i: int, info: SliceInfo) -> _Copy | None:
            if info.memory_space not in (MemorySpace.Vec, None):
                ctx.remark("left", f"slice '{info.var.name}' in {info.memory_space} read by {call.op_name} is "
                                   "not canonicalized", var=info.var, consumer=call.op_name)
                return None
            materialize, kind, why = col_expand_decision(info, ctx.facts, ctx.analysis.pitch_shape(info.base))
            if not materialize:
                ctx.remark("kept-zero-copy", f"slice '{info.var.name}' read by {call.op_name} stays a slice: {why}",
                           var=info.var, consumer=call.op_name, reason=kind)
                return None

            def report(built: tuple[list[Stmt], Var]) -> None:
                ctx.remark("materialized", f"slice '{info.var.name}' read by {call.op_name} is materialized"
                                           f"{_reused(built)}: {why}",
                           var=info.var, consumer=call.op_name, reason=kind, reused=not built[0])

            return _Copy(MemorySpace.Vec, "ext", report)

        return self.rewrite_operands(stmt, call, rule)

    def ordinary(self, stmt: Stmt, call: Call, od: OpDef | None) -> tuple[Call, list[Stmt]]:
        """Rule 5: Vec slices read by any other call must sit at a provably aligned address (#1789)."""
        ctx = self.ctx
        vector_consumer = od is not None and od.unit is Unit.VECTOR

        def rule(i: int, info: SliceInfo) -> _Copy | None:
            mem = info.memory_space
            if not (mem is MemorySpace.Vec or (mem is None and vector_consumer)):
                ctx.remark("left", f"slice '{info.var.name}' ({mem.name if mem else 'no memory yet'}) read by "
                                   f"{call.op_name}: not a canonicalizable consumer; it lowers to a subview",
                           var=info.var, consumer=call.op_name)
                return None
            align = slice_alignment(info, ctx.facts)
            if align.status == "aligned":
                ctx.remark("kept-zero-copy", f"slice '{info.var.name}' read by {call.op_name} stays zero-copy: "
                                             f"proved aligned ({align.how})",
                           var=info.var, consumer=call.op_name, reason="aligned", proof=align.how)
                return None

            def report(built: tuple[list[Stmt], Var]) -> None:
                what = (f"misaligned by {align.misaligned_bytes} B" if align.status == "misaligned"
                        else "alignment unprovable")
                ctx.remark("materialized", f"slice '{info.var.name}' read by {call.op_name} is materialized "
                                           f"({what}){_reused(built)}: {align.how}",
                           var=info.var, consumer=call.op_name, reason=align.status,
                           misaligned_bytes=align.misaligned_bytes, reused=not built[0])

            return _Copy(MemorySpace.Vec, "ext", report)

        return self.rewrite_operands(stmt, call, rule)


@dataclass(frozen=True)
class _Copy:
    """A rule's verdict on one slice operand: copy it into ``memory`` (fresh name ``<slice>_<suffix>``), then
    ``report`` the copy (``obtain``'s result: the new statements, empty when an earlier copy is reused, and
    the variable)."""

    memory: MemorySpace
    suffix: str
    report: Callable[[tuple[list[Stmt], Var]], None]


def _reused(built: tuple[list[Stmt], Var]) -> str:
    return "" if built[0] else f" (reusing '{built[1].name}', which dominates this use)"


def _offsets(info: SliceInfo) -> str:
    return ", ".join(repr(o) for o in info.offsets)


class _DropDead(IRMutator):
    def __init__(self, dead: set[Var]) -> None:
        super().__init__()
        self.dead = dead

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        if stmt.var in self.dead:
            return []
        return stmt

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_YieldStmt(self, stmt: YieldStmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_ReturnStmt(self, stmt: Stmt) -> Stmt | list[Stmt]:
        return stmt

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        body = self._body(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        body = self._body(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)


# ------------------------------------------------------------------------------------------------
# Acc window diagnostics
# ------------------------------------------------------------------------------------------------


def _acc_message(f: AccFinding) -> str:
    w = f.window
    ptype = w.parent.type
    pshape = ptype.static_shape if isinstance(ptype, TileType) else None
    rows, cols = f.extent if f.extent is not None else ("?", "?")
    offs = ", ".join(repr(o) for o in w.offsets)
    parent = f"'{w.parent.name}' [{', '.join(map(str, pshape))}]" if pshape else f"'{w.parent.name}'"
    where = " (the value carried around the loop back edge)" if f.via_back_edge else ""
    return (
        f"{f.op_name} accumulates into a window [{rows}, {cols}] at offset [{offs}] of the Acc tile {parent}"
        f"{where} that is not contiguous in L0C's block layout: {f.verdict.reason}. In the NZ layout a window is "
        f"contiguous only if it stays inside one 16-column block or spans all rows of its parent starting on a "
        f"16-column block boundary; the MAD writes "
        f"its destination densely with no destination stride, so every column block after the first would "
        "silently land on the wrong row tile (pto-isa#253). Allocate the accumulator as [rows, N * tiles] and "
        "slice columns instead."
    )


def _acc_window_problem(offsets: tuple[Expr, ...], extent: tuple[int, ...], facts: ScalarFacts) -> str | None:
    """Why a window at ``offsets`` of ``extent`` elements is not addressable in an NZ tile, or None. Inside one
    16-column block the rows of every fractal follow each other, so any row offset is fine; a column offset is
    fine when it starts a block, or when the window ends inside the block it starts in."""
    off, cols = offsets[1], extent[1]
    value = facts.const_value(off)
    if value is None:  # a dynamic offset: never a false rejection (as the seed's accumulator rule)
        return None
    inner = value % ACC_BLOCK_COLS
    if inner and inner + cols > ACC_BLOCK_COLS:
        return (f"the column offset {value} is not a multiple of {ACC_BLOCK_COLS} and the window's {cols} columns "
                f"cross into the next {ACC_BLOCK_COLS}-column block")
    return None


def _finding_span(f: AccFinding) -> Span | None:
    """The statement's location, else the accumulating call's (statements built by a pass may carry the
    location on the call only)."""
    span = getattr(f.stmt, "span", None)
    if span is not None and span.line:
        return span
    call = getattr(f.stmt, "value", None) or getattr(f.stmt, "expr", None)
    cspan = getattr(call, "span", None)
    return cspan if cspan is not None and cspan.line else span


def _acc_hint(f: AccFinding) -> str:
    rows, cols = f.extent if f.extent is not None else ("rows", "N")
    return (
        f"allocate the accumulator as [rows, N * tiles] (e.g. [{rows}, {cols} * tiles]) and slice columns, "
        f"tile.slice(acc, [{rows}, {cols}], [0, j * {cols}]), so each window spans the full row range and starts "
        "on a 16-column block boundary (pad N to a multiple of 16). The window "
        "may have been produced by a compiler pass rather than written in the kernel; reshape the accumulation "
        "so the tiles are packed along columns."
    )


