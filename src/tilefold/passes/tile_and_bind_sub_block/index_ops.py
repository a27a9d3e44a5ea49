"""Index ops: ``tile.ci`` (consecutive integers) and ``tile.gather`` (gather along one axis of a tile).

Rules:

* ``ci(start, shape)`` holds ``start + k`` at row-major position ``k`` (``descending``: ``start - k``). Its row half
  ``sb`` is ``ci(start ± sb * H * cols, [H, cols])``; a column half is a ci only for a single row
  (``ci(start ± sb * H, [1, H])``): for several rows the half's rows are ``cols`` apart, not ``H``, so that axis
  is refused. No operand is demanded (a producer like ``tile.full``).
* ``gather(src, dim, index)`` reads ``src[i, index[i, j]]`` (dim 1) or ``src[index[i, j], j]`` (dim 0). On the axis
  the gather does not index, the half of the result reads the same half of ``index`` and of ``src`` (when
  ``src`` has the result's extent there); on the gathered axis the indices may name any element of ``src``, so
  the half of ``index`` is gathered from the whole ``src``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Add, Call, ConstInt, Expr, Mul, Sub, Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import FULL, INDEX, Refusal, _name, _rebuild

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _static(t) -> tuple[int, ...] | None:
    return t.static_shape if isinstance(t, TileType) else None


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    shape = _static(var.type)
    if shape is None or len(shape) != 2:
        raise Refusal("supported_producer", f"{call.op_name} of a non-static or non-2-D tile", op=call.op_name)
    if call.op_name == "tile.ci":
        if axis == 1 and shape[0] != 1:
            raise Refusal("supported_producer", "a column half of a multi-row tile.ci is not consecutive",
                          operand=var.name, op=call.op_name)
        return []
    src, index = call.args[0], call.args[1]
    dim = int(call.kwarg("dim", 1)) % 2
    if axis == dim:  # the gathered axis: any source element may be named
        return [(src, FULL), (index, axis)]
    if _static(src.type) is None or _static(src.type)[axis] != shape[axis]:
        raise Refusal("supported_producer", f"the gather source's extent on axis {axis} differs from the result's",
                      operand=_name(src), op=call.op_name)
    return [(src, axis), (index, axis)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    if call.op_name != "tile.ci":
        # by position, not by operand identity: in ``gather(t, 0, t)`` the source is read whole, the index halved;
        # ``sub_block_half`` lets a fault name the element of the program's whole index tile
        (_, src_axis), (_, index_axis) = demand(sp, var, call, axis)
        args = [sp.operand(call.args[0], src_axis, out), sp.operand(call.args[1], index_axis, out)]
        attrs = {**dict(call.kwargs), "sub_block_half": (axis, _static(var.type)[axis] // 2)}
        return _rebuild(call.op_name, args, attrs, call.span)
    shape = list(_static(var.type))
    half = shape[axis] // 2
    step = half * shape[1] if axis == 0 else half
    attrs = dict(call.kwargs)
    new_shape = list(attrs["shape"])
    new_shape[axis] = half
    attrs["shape"] = tuple(new_shape)
    shift = Mul(sp.sb, ConstInt(step, INDEX), INDEX)
    start = call.args[0]
    start = (Sub if attrs.get("descending") else Add)(start, shift, INDEX)
    return _rebuild("tile.ci", [start], attrs, call.span)
