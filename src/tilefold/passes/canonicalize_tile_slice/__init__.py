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

Modules (one concern each; every module's docstring states its contract)
-----------------------------------------------------------------------
- ``contract``: pass name, CLI name, required / produced IR properties.
- ``driver``: ``canonicalize_function``, the per-function pipeline (analyse, check Acc, rewrite, drop).
- ``context``: ``RewriteContext``, the state of one rewrite (aliases, use counts, remarks, copy placement).
- ``copies``: ``CopyRequest`` / ``OperandRule`` (a rule's verdict), ``PlannedCopy`` and ``hoist_plan``.
- ``rewriter``: ``SliceRewriter``, the statement walk and the dispatch of consumers to their rule.
- rules: ``extract_fold`` (2), ``matmul_operands`` (3), ``col_expand`` (4: ``col_expand_decision``),
  ``alignment`` (the #1789 fact: ``slice_alignment``) and ``vector_operands`` (5), ``escapes`` (6),
  ``dead_slices`` (7), ``acc_windows`` (9: ``AccWindowError``), ``closing_remarks`` (10).
"""

from __future__ import annotations

from tilefold.ir.stmt import Function, Program
from tilefold.passes import remarks as remarks_mod
from tilefold.passes.base import Pass, function_pass
from tilefold.passes.canonicalize_tile_slice.acc_windows import AccWindowError
from tilefold.passes.canonicalize_tile_slice.alignment import ALIGN_BITS, slice_alignment
from tilefold.passes.canonicalize_tile_slice.col_expand import col_expand_decision
from tilefold.passes.canonicalize_tile_slice.contract import CLI_NAME, PASS_NAME, PROPERTIES
from tilefold.passes.canonicalize_tile_slice.driver import canonicalize_function
from tilefold.passes.remarks import Remark
from tilefold.util.gc import no_gc

__all__ = [
    "ALIGN_BITS",
    "CLI_NAME",
    "PASS_NAME",
    "PROPERTIES",
    "AccWindowError",
    "canonicalize_function",
    "canonicalize_tile_slice",
    "canonicalize_tile_slice_with_remarks",
    "col_expand_decision",
    "slice_alignment",
]


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
