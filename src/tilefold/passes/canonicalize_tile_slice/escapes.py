"""Rule 6: a Vec slice escaping its definition without passing through a call (alias, loop init, yield).

Contract: ``escape(ctx, expr, holders)`` decides, without building IR, whether the slice ``expr`` names (directly
or through plain aliases), flowing into ``holders`` (an IterArg, a loop / if result; none for a plain alias),
must be materialized where it escapes: when its address is not provably aligned (#1789), or when a holder is
read by a col_expand-family op that would need a non-identity copy (the consumer's lookup cannot see through an
IterArg). ``materialize_escape(ctx, expr, holders, stmt, where)`` applies that decision: it returns the copy
(``context.RewriteContext.obtain``: new statements to place before ``stmt`` and the Var), releases the slice and
reports ``materialized``; or returns None, reporting ``kept-zero-copy`` for an aligned Vec escape.
The rewriter (``rewriter.SliceRewriter``) calls it at alias definitions, loop inits and yields.
"""

from __future__ import annotations

from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Expr, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace
from tilefold.passes.canonicalize_tile_slice.alignment import slice_alignment
from tilefold.passes.canonicalize_tile_slice.col_expand import col_expand_decision
from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


def escape(ctx: RewriteContext, expr: Expr | None,
           holders: tuple[Var, ...]) -> tuple[SliceInfo, str, str, int | None] | None:
    """Rule 6: should the slice ``expr`` names (directly or through plain aliases), flowing into ``holders``
    (an IterArg or loop / if result) without passing a call, be materialized where it escapes? Yes when
    its address is not provably aligned, or when a holder is read by a col_expand-family op that would
    need a non-identity copy. Returns (info, status, explanation, misaligned bytes)."""
    info = ctx.lookup(expr)
    if info is None or info.var in ctx.dead:
        return None
    to_col_broadcast = any(h in ctx.analysis.col_broadcast_operands for h in holders)
    mem = info.memory_space
    if not (mem is MemorySpace.Vec or (mem is None and to_col_broadcast)):
        return None
    align = slice_alignment(info, ctx.facts)
    if align.status != "aligned":
        return info, align.status, align.how, align.misaligned_bytes
    if to_col_broadcast:
        materialize, kind, why = col_expand_decision(info, ctx.facts, ctx.analysis.pitch_shape(info.base))
        if materialize:
            return info, kind, why, None
    return None


def materialize_escape(ctx: RewriteContext, expr: Expr | None, holders: tuple[Var, ...], stmt: Stmt,
                       where: str) -> tuple[list[Stmt], Var] | None:
    """Apply ``escape``'s decision at ``stmt`` (``where``: ``alias``, ``loop init`` or ``yield``): the copy, or None."""
    hit = escape(ctx, expr, holders)
    if hit is None:
        info = ctx.lookup(expr)
        if info is not None and holders and info.var not in ctx.dead and info.memory_space is MemorySpace.Vec:
            ctx.remark("kept-zero-copy", f"slice '{info.var.name}' escaping through {where} stays zero-copy: "
                                         "its address is provably aligned", var=info.var, consumer=where,
                       reason=f"escape-{where.replace(' ', '-')}/aligned")
        return None
    info, status, why, nbytes = hit
    built = ctx.obtain(info, MemorySpace.Vec, "ext", stmt)
    if built is None:
        return None
    assert isinstance(expr, Var)
    ctx.release(expr)
    reused = "" if built[0] else f" (reusing '{built[1].name}')"
    ctx.remark("materialized", f"slice '{info.var.name}' escaping through {where} is materialized there"
                               f"{reused}: {why}", var=info.var,
               reason=f"escape-{where.replace(' ', '-')}/{status}", consumer=where, misaligned_bytes=nbytes,
               reused=not built[0])
    return built

