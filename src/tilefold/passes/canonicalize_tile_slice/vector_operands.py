"""Rule 5: a Vec slice read by any other call must sit at a provably 32-byte aligned address (seed hazard #1789).

Contract: ``vector_operand_rule(ctx, call, od)`` is the rule the per-operand loop
(``rewriter.SliceRewriter.rewrite_operands``) applies to every slice operand of a call that is neither
``tile.extract``, a matmul nor a col_expand-family op. A Vec slice (or a slice with no memory yet, when the op
runs on the vector unit) whose address ``slice_alignment`` proves aligned stays zero-copy (``kept-zero-copy``
remark); a misaligned or unprovable one is copied into Vec (``materialized`` remark, with the misalignment).
Any other slice is left as a subview (``left`` remark).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace
from tilefold.ops.registry import OpDef, Unit
from tilefold.passes.canonicalize_tile_slice.alignment import slice_alignment
from tilefold.passes.canonicalize_tile_slice.copies import CopyRequest, OperandRule, reused_note

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


def vector_operand_rule(ctx: RewriteContext, call: Call, od: OpDef | None) -> OperandRule:
    """Rule 5 for the operands of ``call`` (``od`` its registry entry, None for a call the registry lacks)."""
    vector_consumer = od is not None and od.unit is Unit.VECTOR

    def rule(i: int, info: SliceInfo) -> CopyRequest | None:
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
                                       f"({what}){reused_note(built)}: {align.how}",
                       var=info.var, consumer=call.op_name, reason=align.status,
                       misaligned_bytes=align.misaligned_bytes, reused=not built[0])

        return CopyRequest(MemorySpace.Vec, "ext", report)

    return rule
