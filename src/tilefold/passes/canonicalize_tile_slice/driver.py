"""The per-function driver: analyse, check Acc windows, rewrite (twice when one copy must be hoisted), drop dead.

Contract: ``canonicalize_function(fn, remarks)`` is the whole pass on one function. It returns ``fn`` itself when
the function has no canonical ``tile.slice``, raises ``AccWindowError`` (``acc_windows``) before building any IR,
and otherwise returns the rewritten function. When ``remarks`` is a list, one ``Remark`` per decision is appended
to it, in program order, only for the rewrite that was kept.

Steps: ``analysis.slice_windows.analyze_slice_windows`` (slices, aliases, facts, use counts, Acc windows) ->
``acc_windows.check_accumulators`` / ``check_acc_windows`` -> ``rewrite_once`` (release slices nobody reads,
``rewriter.SliceRewriter``, ``dead_slices.DropDeadSlices``, ``closing_remarks.final_remarks``). When a slice was
copied in blocks that do not dominate each other, ``rewrite_once`` runs again from the original function with the
anchors of ``copies.hoist_plan``; the decisions are the same both times.
"""

from __future__ import annotations

from tilefold.analysis.slice_windows import SliceWindowAnalysis, analyze_slice_windows
from tilefold.ir.stmt import Function
from tilefold.passes.canonicalize_tile_slice.acc_windows import check_acc_windows, check_accumulators
from tilefold.passes.canonicalize_tile_slice.closing_remarks import final_remarks
from tilefold.passes.canonicalize_tile_slice.context import RewriteContext
from tilefold.passes.canonicalize_tile_slice.copies import PlannedCopy
from tilefold.passes.canonicalize_tile_slice.dead_slices import DropDeadSlices
from tilefold.passes.canonicalize_tile_slice.rewriter import SliceRewriter
from tilefold.passes.remarks import Remark


def canonicalize_function(fn: Function, remarks: list[Remark] | None = None) -> Function:
    """Canonicalize one function; appends a ``Remark`` per decision to ``remarks`` when given."""
    analysis = analyze_slice_windows(fn, acc_windows_only=True)
    ctx = RewriteContext(fn, analysis, remarks)
    check_accumulators(ctx)
    check_acc_windows(ctx)
    if not analysis.slices:
        final_remarks(ctx)
        return fn
    local: list[Remark] = []
    out, ctx = rewrite_once(fn, analysis, local if remarks is not None else None, None)
    anchors = ctx.hoist_plan()
    if anchors:
        # Copies of one slice in blocks that do not dominate each other (then / else, a loop body and the code
        # after it): rewrite again with one copy placed where it dominates them all. Decisions are the same.
        local = []
        out, ctx = rewrite_once(fn, analysis, local if remarks is not None else None, anchors)
    if remarks is not None:
        remarks.extend(local)
    return out


def rewrite_once(fn: Function, analysis: SliceWindowAnalysis, remarks: list[Remark] | None,
                 anchors: dict[tuple[int, int], list[PlannedCopy]] | None) -> tuple[Function, RewriteContext]:
    """One rewrite walk of ``fn`` (copies also placed at ``anchors``); returns the function and its context."""
    ctx = RewriteContext(fn, analysis, remarks, anchors)
    counts = analysis.use_counts
    for var in (*analysis.slices, *analysis.alias_src):
        if counts.get(var, 0) == 0:
            ctx.release(var, initial=True)
    out = SliceRewriter(ctx).mutate_function(fn)
    if ctx.dead:
        out = DropDeadSlices(ctx.dead).mutate_function(out)
    final_remarks(ctx)
    return out, ctx
