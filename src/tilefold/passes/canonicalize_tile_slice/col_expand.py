"""Rule 4: a Vec slice read by a col_expand-family op (``OpKind.COL_BROADCAST``; seed hazards #1640, #2010).

Contract: ``col_expand_decision(info, facts, pitch_shape)`` says, without building IR, whether such a slice must
be materialized and why (``(materialize?, reason kind, explanation)``; kinds ``dynamic-offset``,
``non-contiguous``, ``misaligned``, ``unprovable``, ``identity-copy``). ``col_broadcast_rule(ctx, call)`` is the
rule the per-operand loop (``rewriter.SliceRewriter.rewrite_operands``) applies to every slice operand of such a
call: it reports a kept slice and returns None, or returns a ``CopyRequest`` into Vec that reports the copy.
Beyond the seed, the identity copy must also start at a 32-byte aligned address (#1789).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.scalar_facts import ScalarFacts
from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace
from tilefold.passes.canonicalize_tile_slice.alignment import slice_alignment
from tilefold.passes.canonicalize_tile_slice.copies import CopyRequest, OperandRule, reused_note

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


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


def col_broadcast_rule(ctx: RewriteContext, call: Call) -> OperandRule:
    """Rule 4 for the operands of ``call`` (both operands of the col_expand family are checked)."""

    def rule(i: int, info: SliceInfo) -> CopyRequest | None:
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
                                       f"{reused_note(built)}: {why}",
                       var=info.var, consumer=call.op_name, reason=kind, reused=not built[0])

        return CopyRequest(MemorySpace.Vec, "ext", report)

    return rule
