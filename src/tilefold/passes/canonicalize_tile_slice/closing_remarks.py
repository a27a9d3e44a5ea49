"""Rule 10: every slice of a function gets at least one remark; this module writes the closing ones.

Contract: ``final_remarks(ctx)`` runs after a rewrite walk (and for a function without canonical slices) and
appends, in program order, one closing record per slice through ``ctx.remark``: ``skipped`` (a 4-5 operand slice,
never rewritten), ``peeled`` (a chain link resolved to its base), ``dropped`` (no users left) or ``kept`` (no
consumer decision mentioned it: why it stays a zero-copy subview). It changes no IR and does nothing when remarks
are not collected. Decision remarks are written by the rules themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Call, Var

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


def final_remarks(ctx: RewriteContext) -> None:
    """One closing record per slice, in program order: skipped (4-5 operands), peeled (chain links),
    dropped, or kept (a slice no consumer decision mentioned: why it stays)."""
    if ctx.remarks is None:
        return
    for stmt in ctx.analysis.other_slices:
        n = len(stmt.value.args) if isinstance(stmt.value, Call) else 0
        ctx.remark("skipped", f"slice '{stmt.var.name}' has {n} operands (valid_shape / drop_dims): it is "
                              "not a plain window, so it is never rewritten; if a col_expand op reads it "
                              "with a dynamic offset or a strided window, strict codegen rejects it — write "
                              "a 3-operand slice or an explicit tile.extract instead",
                   var=stmt.var, operands=n)
    decided = set(ctx.decided)
    tile_alias = ctx.analysis.tile_alias
    readers: dict[Var, list[Var]] = {}
    for info in ctx.slices.values():
        if info.chain_depth:
            readers.setdefault(tile_alias.get(info.src, info.src), []).append(info.var)
    for info in ctx.slices.values():
        var = info.var
        if info.chain_depth:
            ctx.remark("peeled", f"slice '{var.name}' of slice '{info.src.name}' is peeled to its base: it "
                                 f"reads '{info.base.name}' at [{_offsets(info)}] (chain depth "
                                 f"{info.chain_depth})",
                       var=var, base=info.base.name, offsets=tuple(repr(o) for o in info.offsets),
                       depth=info.chain_depth)
        if var in ctx.dead:
            ctx.remark("dropped", f"slice '{var.name}' has no users left and was removed",
                       var=var, base=info.base.name)
            continue
        if var in decided:
            continue
        live = [r.name for r in readers.get(var, ()) if r not in ctx.dead]
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
        ctx.remark("kept", f"slice '{var.name}' is kept: {why}", var=var, reason=reason)


def _offsets(info: SliceInfo) -> str:
    return ", ".join(repr(o) for o in info.offsets)
