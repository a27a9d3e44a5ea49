"""Assembles (``tile.assemble(target, value, offsets)``: ``value`` written into a window of ``target``).

Rule 1 (covering): the ``axis``-half of the result is the assemble of the target's ``axis``-half with the value's
``axis``-half at the same offsets, when the value covers the target on ``axis`` (static offset 0, the target's
extent).

Rule 2 (clipped, the fallback): a value that covers only part ``[off, off + n)`` of the split axis (static or
run-time ``off``) stays whole on both sub-blocks and each sub-block writes into its half of the target only the
part of the value inside ``[sb*H, sb*H + H)`` — in the half's coordinates from ``lo = min(max(off - sb*H, 0), H)``,
``count = min(max(off + n - sb*H, 0), H) - lo`` elements taken from ``shift = min(max(sb*H - off, 0), n)`` of the
value (a stored window's clip, ``window_stores.clip_exprs``; ``count`` = 0: the half is left as it is); the MLIR
side prints that arithmetic (``tilefold.mlir.clipped_stores``). Tiles have static extents and an assemble writes
its whole value, so here the part is written through a frame of the target's full extent ``2H``: the half placed
at ``sb*H``, the whole value assembled at ``off`` (an offset outside the target faults as in the original
program), the half read back at ``sb*H``. That is two Vec copies of
a half and one of the value per sub-block, so the pass tries this rule only when no candidate split succeeds
without it (``Splitter.clip_assembles``): a covering split on another axis is preferred.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, Mul, Var
from tilefold.ir.stmt import AssignStmt, Stmt
from tilefold.ir.types import TileType
from tilefold.ops.registry import make_call
from tilefold.passes.tile_and_bind_sub_block.common import FULL, INDEX, Refusal, _name, _rebuild, _static

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def _covers(call: Call, axis: int) -> bool | None:
    """Whether the value covers the target on ``axis``; None when the shapes are not static."""
    target, value, offsets = call.args[0], call.args[1], call.args[2]
    ts = _static(target.type) if isinstance(target.type, TileType) else None
    vs = _static(value.type) if isinstance(value.type, TileType) else None
    if ts is None or vs is None or not isinstance(offsets, MakeTuple) or axis >= len(offsets.elements):
        return None
    off = offsets.elements[axis]
    return isinstance(off, ConstInt) and off.value == 0 and vs[axis] == ts[axis]


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    target, value = call.args[0], call.args[1]
    covers = _covers(call, axis)
    if covers:
        return [(target, axis), (value, axis)]
    if covers is None or not sp.clip_assembles:
        sp.partial_assembles = True
        raise Refusal("assemble_window", f"the assembled value does not cover its target on axis {axis}"
                      + ("" if covers is None else " (a clipped per-half write is tried when no covering split "
                                                    "exists)"), operand=_name(value), op=call.op_name)
    return [(target, axis), (value, FULL)]


def rewrite(sp: Splitter, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
    target, value, offsets = call.args
    if _covers(call, axis):
        return _rebuild(call.op_name, [sp.get_half(target, axis, out), sp.get_half(value, axis, out), offsets],
                        dict(call.kwargs), call.span)
    half_t = sp.get_half(target, axis, out)
    tt = target.type
    half = tt.shape[axis].value // 2
    at = list(ConstInt(0, INDEX) for _ in tt.shape)
    at[axis] = Mul(sp.sb, ConstInt(half, INDEX), INDEX)
    at_t = MakeTuple(tuple(at))

    def bind(name: str, c: Call) -> Var:
        v = Var(f"{var.name}_{name}", c.type)
        out.append(AssignStmt(v, c))
        return v

    blank = bind("frame0", make_call("tile.full", [], {"shape": tuple(s.value for s in tt.shape), "dtype": tt.dtype,
                                                       "value": 0.0, "target_memory": tt.memory_space}))
    placed = bind("frame1", make_call("tile.assemble", [blank, half_t, at_t]))
    written = bind("frame", _rebuild(call.op_name, [placed, value, offsets], dict(call.kwargs), call.span))
    sp.note("clipped", f"assemble into {var.name} clipped per half on axis {axis}: the value's part inside "
            f"[sb * {half}, +{half}) is written through a {tt.shape[axis].value}-wide frame", {"axis": axis})
    shape = list(half_t.type.shape)
    return make_call("tile.slice", [written, MakeTuple(tuple(shape)), at_t], span=call.span)
