"""Gathers whose indices may name any element of their source: ``tile.gatherb`` (32-byte blocks of a UB tile at
byte offsets) and ``tile.mgather`` (rows of a GM tensor by an index tile; an indirect DMA).

Rules:

* ``gatherb(src, offsets)``: block ``j`` of row ``i`` of the ``[r, c * B]`` result (``B`` elements per 32-byte
  block) is the block of ``src`` at byte ``offsets[i, j]``, an address into the whole of ``src``. The result's
  row half reads the row half of ``offsets``, its column half (``c`` even) the column half of ``offsets`` (whole
  blocks: a half of ``c * B`` columns is ``c / 2`` blocks); ``src`` is read whole on either axis.
* ``mgather(tensor, index)``: row ``k`` of the ``[n, C]`` result is the GM row ``index.flat[k]`` (an ``[n, 1]`` or
  ``[1, n]`` index), whatever the out-of-range policy. The result's row half is the gather of the index half
  (its axis 0 for ``[n, 1]``, axis 1 for ``[1, n]``); the tensor is GM, read where the indices say (the GM
  data-flow check counts every row of it as read by both sub-blocks). The column axis is refused: the op moves
  whole rows of the tensor and takes no column window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import FULL, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _static(e: Expr) -> tuple[int, ...] | None:
    return e.type.static_shape if isinstance(e.type, TileType) else None


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    if call.op_name == "tile.mgather":
        return _mgather(var, call, axis)
    src, offsets = call.args[0], call.args[1]
    shape = _static(offsets)
    if shape is None or len(shape) != 2:
        raise Refusal("supported_producer", "gatherb with a non-static or non-2-D offset tile", op=call.op_name)
    if shape[axis] % 2:
        raise Refusal("supported_producer", f"the offset tile has {shape[axis]} entries on axis {axis}: a half of "
                      "the result is not made of whole gathered blocks", operand=_name(offsets), op=call.op_name)
    return [(src, FULL), (offsets, axis)]


def _mgather(var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    index = call.args[1]
    if axis != 0:
        raise Refusal("supported_producer", "tile.mgather moves whole rows of its GM tensor and takes no column "
                      "window: only its rows are split", operand=var.name, op=call.op_name)
    shape = _static(index)
    if shape is None or len(shape) != 2:
        raise Refusal("supported_producer", "mgather with a non-static or non-2-D index tile", op=call.op_name)
    return [(index, 0 if shape[1] == 1 else 1)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    """The op on its demanded operands, by position (``gatherb(t, t)`` reads ``t`` whole and halved)."""
    demands = demand(sp, var, call, axis)
    if call.op_name == "tile.mgather":
        (_, index_axis), = demands
        args = [call.args[0], sp.operand(call.args[1], index_axis, out), *call.args[2:]]
        # ``sub_block_half``: a bad-index fault names the entry of the program's whole index tile (the simulator)
        half = _static(call.args[1])[index_axis] // 2
        return _rebuild(call.op_name, args, {**dict(call.kwargs), "sub_block_half": (index_axis, half)}, call.span)
    args = [call.args[0], sp.operand(call.args[1], axis, out)]
    return _rebuild(call.op_name, args, dict(call.kwargs), call.span)
