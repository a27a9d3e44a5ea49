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
* ``mscatter(src, index, tensor)`` writes row ``k`` of ``src`` to GM row ``index.flat[k]`` (a negative index masks
  its row; a later ``k`` wins). It is split on the rows of ``src`` (each sub-block scatters its own rows of the
  source and of the index: ``[n, 1]`` index halved on axis 0, ``[1, n]`` on axis 1) only when the index values are
  provably distinct, so the halves never write the same GM row and no "later index wins" is lost between
  unordered sub-blocks: the index is ``tile.ci(start, ...)`` (``start +- k``, ``n`` at most the dtype's value
  count), possibly moved by ``tile.adds`` / ``tile.subs`` of a scalar (a bijection of the dtype), whose values do
  not wrap around the dtype (a constant start whose run fits the range, or a run-time start of a 32 / 64-bit
  index: a wrapped value would name a row outside the box below). Sub-block ``sb``
  then writes the rows ``[start + sb * H, +H)`` (descending: ``(start - sb * H - H, start - sb * H]``), the box
  the GM data-flow check (``gm_hazards``) compares with every other access of the tensor, and with the other
  half of the same scatter (across loop iterations too). Any other index (loaded from GM, computed) may repeat a
  row across the halves: the scatter is not split; it runs whole on sub-block 0, with a remark naming the index's
  producer. The column axis is refused: the op writes whole GM rows and takes no column window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from tilefold.ir.expr import Add, Call, ConstInt, Expr, Sub, Var
from tilefold.ir.stmt import AssignStmt, EvalStmt, Function, Stmt
from tilefold.ir.types import DataType, ScalarType, TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    INDEX,
    TILED_OP,
    Refusal,
    _halvable,
    _name,
    _rebuild,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter

MSCATTER_REASON = ("tile.mscatter writes the GM rows its index tile names: {why}; the two halves could name the "
                   "same row (a later index must win, and the sub-blocks are not ordered), so it is not split; it "
                   "runs whole on sub-block 0")
MSCATTER_COLUMNS = "axis 1 of a tile.mscatter source: the op writes whole GM rows and takes no column window"


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
        return [(inp, 1), (index, FULL), (src, 1)]  # every column is updated alike, from the whole index
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
    attrs = dict(call.kwargs)
    if axes[1] != FULL:  # a fault names the element of the program's whole index tile (see the simulator)
        attrs["sub_block_half"] = (axis, _static(var)[axis] // 2)
    return _rebuild(call.op_name, args, attrs, call.span)


# ------------------------------------------------------------------------------------------------ mscatter


class DistinctRows(NamedTuple):
    """An index tile holding ``count`` distinct values ``start + k`` (``start - k`` when ``descending``), k in
    row-major order."""

    start: Expr
    count: int
    descending: bool


class _Defs(IRVisitor):
    def __init__(self) -> None:
        self.defs: dict[Var, Expr] = {}

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.defs[stmt.var] = stmt.value
        super().visit_AssignStmt(stmt)


_DEFS_CACHE: list[Any] = [None, None]  # (function, its definitions): one walk per function, not per scatter


def _defs(fn: Function) -> dict[Var, Expr]:
    if _DEFS_CACHE[0] is not fn:
        v = _Defs()
        v.visit_function(fn)
        _DEFS_CACHE[:] = [fn, v.defs]
    return _DEFS_CACHE[1]


def _shifted(start: Expr, by: Expr, sign: int) -> Expr:
    if isinstance(start, ConstInt) and isinstance(by, ConstInt):
        return ConstInt(start.value + sign * by.value, INDEX)
    if isinstance(by, ConstInt):
        return Add(start, ConstInt(sign * by.value, INDEX), INDEX)
    return (Add if sign > 0 else Sub)(start, by, INDEX)


def _wraps(start: Expr, count: int, descending: bool, dtype: DataType) -> str | None:
    """Why the values ``start +- k`` may wrap around ``dtype`` (then the rows written are not ``[start, +count)``:
    a wrapped value names another row, the GM data-flow boxes would be wrong), or None."""
    signed = dtype.value[2] == "i"
    least, most = (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1) if signed else (0, (1 << dtype.bits) - 1)
    if isinstance(start, ConstInt):
        lo, hi = (start.value - count + 1, start.value) if descending else (start.value, start.value + count - 1)
        if lo < least or hi > most:
            return f"holds the values {lo}..{hi}, which wrap around its {dtype.name} range [{least}, {most}]"
        return None
    if dtype.bits < 32:  # a run-time start may wrap a narrow dtype onto rows of the tensor
        return f"starts at a run-time value, which may wrap around its {dtype.name} range [{least}, {most}]"
    return None  # 32 / 64 bits: a wrapped value is negative (masked) or past any tensor's last row (a fault)


def distinct_rows(fn: Function, index: Expr) -> DistinctRows | str:
    """The proof that ``index`` holds distinct values, or why there is none (the name of its producer)."""
    shift: list[tuple[Expr, int]] = []  # scalar shifts applied after the ci, innermost last
    e = index
    for _ in range(64):  # a chain of aliases / shifts; SSA, so it ends
        value = _defs(fn).get(e) if isinstance(e, Var) else None
        if isinstance(value, Var):
            e = value
            continue
        if not isinstance(value, Call):
            kind = "a parameter or loop-carried value" if isinstance(e, Var) else "an expression"
            return f"the index tile {_name(index)} is {kind}, whose values are not known"
        name = value.op_name
        by_t = value.args[1].type if len(value.args) > 1 else None
        if name in ("tile.adds", "tile.subs") and isinstance(by_t, ScalarType) and not by_t.dtype.is_float:
            # an integer shift wraps in the index dtype: a bijection (a float one truncates: -0.5 and 0.5 meet)
            shift.append((value.args[1], 1 if name == "tile.adds" else -1))
            e = value.args[0]
            continue
        if name != "tile.ci":
            return (f"the index tile {_name(index)} comes from {name}, whose values are not known to be "
                    "distinct")
        count = 1
        for x in value.type.static_shape or ():
            count *= x
        if count > 1 << value.type.dtype.bits:
            return f"the tile.ci of {_name(index)} wraps around its {value.type.dtype.name} values"
        start = value.args[0]
        for by, sign in reversed(shift):
            start = _shifted(start, by, sign)
        descending = bool(value.kwarg("descending", False))
        wraps = _wraps(start, count, descending, value.type.dtype)
        if wraps:
            return f"the index tile {_name(index)} {wraps}"
        return DistinctRows(start, count, descending)
    return f"the index tile {_name(index)} is defined through too long a chain"


def half_rows(proof: DistinctRows, sb: int) -> tuple[int, int]:
    """Rows ``[start + lo, start + hi)`` that sub-block ``sb`` writes (its half of the index values)."""
    h = proof.count // 2
    return (-sb * h - h + 1, -sb * h + 1) if proof.descending else (sb * h, sb * h + h)


def _index_axis(call: Call) -> int:
    shape = _static(call.args[1])
    return 0 if shape is None or shape[1] == 1 else 1


def mscatter_axes(an: Any, call: Call) -> tuple[list[int], list[str]]:
    """The split axes of a ``tile.mscatter`` (its source's rows, or none) and the reasons for the rest."""
    src = call.args[0]
    why = [MSCATTER_COLUMNS]
    reason = _halvable(src.type, 0) if isinstance(src, Var) else f"the source {_name(src)} is not a tile variable"
    if reason is None and not an.is_parallel((src, 0)):
        reason = "axis 0 of the source is a reduction axis"
    if reason is None:
        proof = distinct_rows(an.fn, call.args[1])
        reason = MSCATTER_REASON.format(why=proof) if isinstance(proof, str) else None
    return ([0], why) if reason is None else ([], [reason, *why])


def seed_mscatter(sp: Splitter, call: Call) -> None:
    """A planned scatter demands the row halves of its source and index; an unplanned one needs them whole (a weak
    demand: it runs on sub-block 0 only)."""
    if sp.store_plan.get(id(call)) is None:
        ok, why = mscatter_axes(sp.an, call)
        sp.note("indirect-store", f"{call.op_name} of {_name(call.args[0])} not split: "
                f"{why[0] if not ok else 'its source rows are not in the split axis class'}", {"op": call.op_name})
        sp.want_expr(call.args[0], FULL, weak=True)
        sp.want_expr(call.args[1], FULL, weak=True)
        return
    sp.want_expr(call.args[0], 0)
    sp.want_expr(call.args[1], _index_axis(call))


def rewrite_mscatter(sp: Splitter, var: Var | None, call: Call, out: list[Stmt]) -> Stmt | None:
    """The scatter of this sub-block's rows of source and index, marked ``tiled_op`` (None: kept whole)."""
    if sp.store_plan.get(id(call)) is None:
        return None
    src = sp.operand(call.args[0], 0, out)
    index = sp.operand(call.args[1], _index_axis(call), out)
    half = call.args[0].type.shape[0].value // 2
    # ``sub_block_half``: a bad-index fault names the entry of the program's whole index tile (see the simulator)
    attrs = {**dict(call.kwargs), TILED_OP: True, "sub_block_half": (_index_axis(call), half)}
    new = _rebuild(call.op_name, [src, index, *call.args[2:]], attrs, call.span)
    sp.note("split", f"split tile.mscatter of {_name(call.args[0])} on axis 0 (half {half}): the index values are "
            "distinct, each sub-block writes the rows of its half", {"op": call.op_name, "axis": 0, "half": half})
    return AssignStmt(var, new) if var is not None else EvalStmt(new)
