"""Rule 3: a Mat slice used as the ``lhs`` / ``rhs`` operand of an ``OpKind.MATMUL`` op (no L1->L1 copy).

Contract: ``matmul_operand_rule(ctx, call, od)`` is the rule the per-operand loop
(``rewriter.SliceRewriter.rewrite_operands``) applies to every slice operand of a matmul-kind call. A Mat slice in
the ``lhs`` / ``rhs`` role (the registry's operand parameter names) becomes a fresh
``tile.extract(base, off_row, off_col, target_memory=Left|Right)`` named ``<slice>_left`` / ``<slice>_right``
(``folded-matmul`` remark); accumulator and bias operands, and slices outside Mat, are never rewritten
(``left`` remark).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace
from tilefold.ops.registry import OpDef
from tilefold.passes.canonicalize_tile_slice.copies import CopyRequest, OperandRule, reused_note

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


def matmul_operand_rule(ctx: RewriteContext, call: Call, od: OpDef) -> OperandRule:
    """Rule 3 for the operands of ``call`` (``od`` its registry entry, of kind ``OpKind.MATMUL``)."""
    names = [p.name for p in od.operand_params]

    def rule(i: int, info: SliceInfo) -> CopyRequest | None:
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
                                        f"{reused_note(built)}",
                       var=info.var, base=info.base.name, consumer=call.op_name, operand=role,
                       reused=not built[0])

        return CopyRequest(memory, "left" if role == "lhs" else "right", report)

    return rule
