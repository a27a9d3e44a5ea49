"""Rule 2: ``tile.extract(slice, r, c)`` reads the slice's base directly at ``(r + off_row, c + off_col)``.

Contract: ``fold_extract(ctx, call)`` returns the folded ``tile.extract`` call (same result type; the slice loses
one use, ``folded-extract`` remark) for a Mat, Vec or memory-less 2-D slice source, and returns ``call`` itself,
with a ``left`` remark, when the slice lives elsewhere or the folded call does not type-check. Constant offsets
fold; adding 0 returns the other operand; symbolic sums are ``INDEX`` additions (``scalar_facts.add_index``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.analysis.scalar_facts import add_index
from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call
from tilefold.ir.types import MemorySpace
from tilefold.ops.registry import make_call

if TYPE_CHECKING:
    from tilefold.passes.canonicalize_tile_slice.context import RewriteContext


def fold_extract(ctx: RewriteContext, call: Call) -> Call:
    """Rule 2: ``extract(slice, r, c)`` -> ``extract(base, r + off_row, c + off_col)``."""
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
