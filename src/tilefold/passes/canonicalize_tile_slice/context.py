"""The state of one rewrite of one function: slices through aliases, use counts, remarks and copy placement.

Contract: a ``RewriteContext`` is created per rewrite walk (``driver.rewrite_once``) from the function's
``SliceWindowAnalysis`` and is the only mutable state of the pass. It offers

- ``lookup`` / ``refresh`` / ``bind_alias``: the canonical slice an expression names through any number of plain
  aliases, re-derived in program order when a chain link became a copy;
- ``remark``: the one way a decision is recorded (a ``Remark`` of pass ``CanonicalizeTileSlice``; the slice is
  marked decided, see ``closing_remarks``);
- ``release``: one use of a slice or alias went away; at zero it is dead and releases its own source (rule 7);
- ``obtain`` / ``remember`` / ``push_scope`` / ``pop_scope`` / ``hoisted_at``: one copy per (slice, memory),
  reused by every later consumer it dominates, and placed at the anchors of ``copies.hoist_plan`` on a second
  rewrite.

The rules (``extract_fold``, ``matmul_operands``, ``col_expand``, ``vector_operands``, ``escapes``,
``acc_windows``) decide; the context does the bookkeeping they share. It never decides a rule by itself.
"""

from __future__ import annotations

from typing import Any

from tilefold.analysis.scalar_facts import add_index
from tilefold.analysis.slice_windows import SliceInfo, SliceWindowAnalysis
from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.names import NameSupply
from tilefold.ir.stmt import AssignStmt, Function, Stmt
from tilefold.ir.types import MemorySpace
from tilefold.ops.registry import get_op, make_call
from tilefold.passes.canonicalize_tile_slice.contract import PASS_NAME
from tilefold.passes.canonicalize_tile_slice.copies import PlannedCopy, hoist_plan
from tilefold.passes.remarks import Remark


class RewriteContext:
    """Bookkeeping of one rewrite walk over ``fn`` (see the module docstring)."""

    def __init__(self, fn: Function, analysis: SliceWindowAnalysis, remarks: list[Remark] | None,
                 anchors: dict[tuple[int, int], list[PlannedCopy]] | None = None) -> None:
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
        self.made: dict[tuple[Var, MemorySpace], list[PlannedCopy]] = {}  # every new copy, per (slice, memory)
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
        self.made.setdefault((info.var, memory), []).append(PlannedCopy(info, memory, suffix, tuple(self.position)))
        return [AssignStmt(var, call, span) if span is not None else AssignStmt(var, call)], var

    def hoist_plan(self) -> dict[tuple[int, int], list[PlannedCopy]]:
        """The anchors of a second rewrite (``copies.hoist_plan`` over every copy this rewrite made)."""
        return hoist_plan(self.made)

    def hoisted_at(self, block: int, index: int, stmt: Stmt) -> list[Stmt]:
        """The planned copies to place before statement ``index`` of ``block`` (remembered for later users)."""
        out: list[Stmt] = []
        for plan in self.anchors.get((block, index), ()):
            built = self.obtain(plan.info, plan.memory, plan.suffix, stmt)
            if built is not None:
                out.extend(built[0])
        return out
