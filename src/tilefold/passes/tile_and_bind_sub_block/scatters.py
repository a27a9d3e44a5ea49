"""Scatters inside UB: ``tile.scatter`` (torch's scatter along ``dim``) and ``tile.scatter_update`` (whole rows by
row index); and why ``tile.mscatter`` (rows into GM) stays on sub-block 0.

A scatter may be split only on an axis along which each half's destinations are provably its own: then each half
writes its part of the result from its part of the operands, in the unsplit order (so "the later index wins"
still holds). An axis whose destination positions come from index values is refused: a half of the result may be
written from any index, and the two sub-blocks are not ordered.

* ``scatter(input, dim=1, index, src)`` writes ``input[i, index[i, j]] = src[i, j]``: row ``i`` of the result
  comes from row ``i`` of each operand, so the row half is the scatter of the row halves (``index`` and ``src``
  must have the result's row extent). Its columns are chosen by the indices: refused.
* ``scatter(input, dim=0, index, src)``: the transpose of that rule (``input[index[i, j], j] = src[i, j]``): the
  column half is the scatter of the column halves; rows refused.
* ``scatter_update(input, index, src)`` writes ``input[index.flat[k], :] = src[k, :]``: the destination rows come
  from the indices (refused), but every column is updated alike, so the column half is the update of the column
  halves of ``input`` and ``src`` with the whole ``index``.
* ``mscatter(src, index, tensor)`` writes GM rows named by the indices: a row half of ``src`` may land on any row,
  also one the other half writes (a later index must win), and the op takes no column window, so it is never
  split: it runs whole, guarded to sub-block 0 (``MSCATTER_REASON``, in the remarks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import FULL, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter

MSCATTER_REASON = ("tile.mscatter writes the GM rows its index tile names: the halves' destination rows are not "
                   "provably disjoint (and a later index must win over an earlier one), and the op takes no column "
                   "window, so it is not split; it runs whole on sub-block 0")


def _static(e: Expr) -> tuple[int, ...] | None:
    return e.type.static_shape if isinstance(e.type, TileType) else None


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    inp, index, src = call.args[0], call.args[1], call.args[2]
    shape = _static(var)
    if shape is None or len(shape) != 2 or _static(index) is None or _static(src) is None:
        raise Refusal("supported_producer", f"{call.op_name} of a non-static or non-2-D tile", op=call.op_name)
    if call.op_name == "tile.scatter_update":
        if axis == 0:
            raise Refusal("supported_producer", "scatter_update writes the rows its index tile names: a row half of "
                          "the result may receive any source row", operand=var.name, op=call.op_name)
        return [(inp, 1), (index, FULL), (src, 1)]
    dim = int(call.kwarg("dim", 1)) % 2
    if axis != 1 - dim:
        raise Refusal("supported_producer", f"scatter along dim {dim} writes the positions its index values name on "
                      f"axis {axis}: a half of the result may be written from any index", operand=var.name,
                      op=call.op_name)
    for operand in (index, src):
        if _static(operand)[axis] != shape[axis]:
            raise Refusal("supported_producer", f"the scatter {'index' if operand is index else 'source'} has "
                          f"{_static(operand)[axis]} entries on axis {axis}, the result {shape[axis]}: its halves "
                          "do not line up", operand=_name(operand), op=call.op_name)
    return [(inp, axis), (index, axis), (src, axis)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    """The op on its demanded operands, by position (an operand may appear twice, once whole)."""
    axes = [a for _, a in demand(sp, var, call, axis)]  # input, index, src
    args = [sp.operand(e, a, out) for e, a in zip(call.args, axes, strict=True)]
    return _rebuild(call.op_name, args, dict(call.kwargs), call.span)
