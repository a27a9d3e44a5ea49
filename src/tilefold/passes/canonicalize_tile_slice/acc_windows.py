"""Rule 9: Acc (L0C) windows that the NZ block layout cannot serve are rejected with ``AccWindowError``.

Contract: nothing here rewrites IR; both checks run before any rewrite of a function and either record a remark
per accumulator window or raise.

- ``check_accumulators(ctx)``: every destination of an op with a registry ``output_reuses_input`` operand that
  resolves (``analysis.slice_windows``) to an Acc window neither spanning its parent's rows nor staying inside one
  16-column block raises ``AccWindowError`` at the statement, with the working idiom as hint; accepted and
  unproven windows get an ``acc-window-accepted`` / ``acc-window-unproven`` remark.
- ``check_acc_windows(ctx)``: a window of an Acc tile read by any other operand must be addressable from its
  first element with the parent's NZ formula; a constant column offset off a 16-column boundary whose window
  crosses into the next block raises ``AccWindowError``. A dynamic offset is never rejected.

``AccWindowError`` is a ``TilefoldError`` and a ``ValueError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.scalar_facts import ScalarFacts
from tilefold.analysis.slice_windows import ACC_BLOCK_COLS, AccFinding
from tilefold.analysis.tile_layout import all_stmts
from tilefold.errors import Span, TilefoldError
from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import AssignStmt
from tilefold.ir.types import MemorySpace, TileType
from tilefold.ops.registry import op_of

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


class AccWindowError(TilefoldError, ValueError):
    """A matmul accumulator destination is a window that is not contiguous in L0C's NZ block layout."""


def check_accumulators(ctx: RewriteContext) -> None:
    """Rule 9 (the seed's): judge every accumulator destination window; raise ``AccWindowError`` on a reject."""
    for finding in ctx.analysis.acc_findings:
        v = finding.verdict
        if v.kind == "reject":
            ctx.remark("acc-window-rejected", _acc_message(finding), op=finding.op_name,
                       window=finding.window.describe(), reason=v.reason)
            raise AccWindowError(_acc_message(finding), span=_finding_span(finding), hint=_acc_hint(finding))
        ctx.remark(f"acc-window-{'accepted' if v.kind == 'accept' else 'unproven'}",
                   f"{finding.op_name} accumulator window {finding.window.describe()}: {v.reason}",
                   op=finding.op_name, window=finding.window.describe(), verdict=v.kind)


def check_acc_windows(ctx: RewriteContext) -> None:
    """Windows read out of Acc. A window of an Acc tile is read through its parent's NZ block formula from the
    window's first element: right only when its column offset is a whole number of 16-column blocks or the
    window stays inside the block it starts in. An op that reads such a window (any operand but an accumulator
    destination, which ``check_accumulators`` judges) would get the wrong elements, and no consumer can copy
    it: refuse it."""
    bad: dict[Var, str] = {}
    for info in ctx.analysis.slices.values():
        bt = info.base_type
        extent = info.static_shape
        if bt is not None and bt.memory_space is MemorySpace.Acc and extent is not None and len(extent) == 2 \
                and len(info.offsets) == 2:
            problem = _acc_window_problem(info.offsets, extent, ctx.facts)
            if problem is not None:
                bad[info.var] = problem
    if not bad:
        return
    for stmt in all_stmts(ctx.fn.body):
        call = getattr(stmt, "value", None) if isinstance(stmt, AssignStmt) else getattr(stmt, "expr", None)
        od = op_of(call) if isinstance(call, Call) else None
        if od is None or od.name == "tile.slice":
            continue
        for i, arg in enumerate(call.args):
            info = ctx.slices.get(ctx.analysis.tile_alias.get(arg, arg)) if isinstance(arg, Var) else None
            if info is None or info.var not in bad or i == od.output_reuses_input:
                continue
            offs = ", ".join(repr(o) for o in info.offsets)
            rows, cols = info.static_shape or ("?", "?")
            message = (f"{od.name} reads a window [{rows}, {cols}] at offset [{offs}] of the Acc tile "
                       f"'{info.base.name}' (tile.slice '{info.var.name}') that L0C's NZ block layout cannot "
                       f"address: {bad[info.var]}")
            ctx.remark("acc-window-rejected", message, var=info.var, reason=bad[info.var])
            span = info.stmt.span if info.stmt.span.line else stmt.span
            raise AccWindowError(message, span=span if span.line else None,
                                 hint=f"start the window on a multiple of {ACC_BLOCK_COLS} columns (or keep it "
                                      f"inside one {ACC_BLOCK_COLS}-column block); or store the whole matmul "
                                      "result to a tensor and take the window from the tensor")


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
