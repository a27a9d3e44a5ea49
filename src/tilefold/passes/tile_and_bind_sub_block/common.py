"""Shared facts of TileAndBindSubBlock: constants, remarks, refusals, tile / window helpers, candidates."""

from __future__ import annotations

from typing import Any

from tilefold.analysis.dimensions import ValueKey, flattened_split_axis
from tilefold.ir.expr import Add, Call, ConstInt, Expr, GlobalVar, MakeTuple, Mul, Var
from tilefold.ir.stmt import (
    Function,
    FunctionType,
)
from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType, TupleType, Type
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.registry import OpDef, OpKind, ParamKind, Unit, get_op, make_call, op_of
from tilefold.passes.split_aiv_regions import has_split_aiv_regions

PASS_NAME = "TileAndBindSubBlock"
LIMIT_PASS_NAME = "LimitUniqueSubBlockIdToStoreCopy"
TILED_OP = "tiled_op"
LIMIT_TAG = "limit_sub_block_id0"
REVERTED = "tile_and_bind_subblock_reverted"
AXIS_ATTR = "sub_block_axis"
REPLICATED = "sub_block_replicated"  # call attribute: an un-split custom op both sub-blocks compute whole
FULL = -1  # demand: the whole value is needed
FOLLOW = -2  # mode of an unused tuple element: halved with its (split) op, else whole
VECTOR_ALIGN = 32  # bytes: a column half-row must keep vector operands 32 B aligned
# soft demand ``SOFT - axis``: a window copy (``tile.extract``) covering its source on ``axis`` can read the
# source's ``axis``-half with its index unchanged OR the whole source with the index offset by ``sb * half``;
# the source's other consumers decide (see ``_Splitter._resolve``)
SOFT = -10

INDEX = DataType.INDEX


# =================================================================================================
# remarks
# =================================================================================================


def _remark(pass_name: str, function: str, kind: str, message: str, **details: Any) -> None:
    from tilefold.passes import remarks

    try:
        remarks.emit(remarks.Remark(pass_name, function, kind, message, details))
    except Exception:  # noqa: BLE001 - a remark must never break compilation
        return


# =================================================================================================
# refusals
# =================================================================================================


class Refusal(Exception):
    """A check failed: the function cannot be split (or, non-strict, a window stays on an op)."""

    def __init__(self, check: str, message: str, operand: str = "", op: str = "") -> None:
        self.check = check
        self.message = message
        self.operand = operand
        self.op = op
        super().__init__(self.describe())

    def describe(self) -> str:
        where = f" ({self.op}" + (f", operand {self.operand}" if self.operand else "") + ")" if self.op else ""
        return f"{self.check}: {self.message}{where}"


class _Abort(Exception):
    """Give up on the whole function (rollback). ``axis_specific=False``: the refusal holds whatever the
    split axis (e.g. a custom op with side effects), so no other candidate axis is tried."""

    def __init__(self, reason: str, axis_specific: bool = True) -> None:
        self.reason = reason
        self.axis_specific = axis_specific
        super().__init__(reason)


# custom-op checks whose outcome does not depend on the split axis
AXIS_INDEPENDENT_CHECKS = frozenset({"safe_to_duplicate", "sliceable_inputs", "supported_explicit_maps",
                                     "aligned_output_inits", "replicable"})


# =================================================================================================
# helpers
# =================================================================================================


def _name(e: Expr) -> str:
    return e.name if isinstance(e, Var) else repr(e)


def _static(t: Type) -> tuple[int, ...] | None:
    return t.static_shape if isinstance(t, (TileType, TensorType)) else None


def _result_keys(var: Var | None) -> list[ValueKey]:
    if var is None:
        return []
    if isinstance(var.type, TupleType):
        return [(var, j) for j in range(len(var.type.types))]
    return [var]


def _key_type(key: ValueKey) -> Type:
    if isinstance(key, Var):
        return key.type
    var, j = key
    return var.type.types[j]


def _key_name(key: ValueKey) -> str:
    return key.name if isinstance(key, Var) else f"{key[0].name}[{key[1]}]"


def _half_type(t: TileType, axis: int) -> TileType:
    shape = list(t.shape)
    shape[axis] = ConstInt(shape[axis].value // 2, INDEX)
    view = t.tile_view
    if view is not None and view.valid_shape is not None:
        view = None  # a halved window of a full valid shape; partial valid shapes are refused earlier
    return TileType(tuple(shape), t.dtype, t.memory_space, None, view)


def _halvable(t: Type, axis: int, allow_valid: bool = False) -> str | None:
    """None if axis of t is static and even; else the reason. A partial valid shape is refused unless
    ``allow_valid`` (a ``set_validshape`` result, whose halves get clipped valid shapes: see ``clipping``)."""
    if not isinstance(t, TileType):
        return f"{type(t).__name__} is not a tile"
    if axis >= t.rank:
        return f"axis {axis} out of range"
    ext = t.shape[axis]
    if not isinstance(ext, ConstInt):
        return f"extent {ext!r} on axis {axis} is dynamic"
    if ext.value % 2:
        return f"extent {ext.value} on axis {axis} is odd"
    if not allow_valid and t.tile_view is not None and t.tile_view.valid_shape is not None:
        vs = t.tile_view.valid_shape
        if not all(isinstance(a, ConstInt) and isinstance(b, ConstInt) and a.value == b.value
                   for a, b in zip(vs, t.shape, strict=False)):
            return "tile has a partial valid shape"
    return None


def _elem(t: Type) -> str:
    return "1/2 B" if t.dtype.packed else f"{t.dtype.itemsize} B"  # 4-bit types: two elements per byte


def _split_reason(t: Type, axis: int, allow_valid: bool = False) -> str | None:
    """None if ``t`` can be halved on ``axis``: static and even, and each half window keeps vector-aligned
    contiguous runs — a column half row a multiple of 32 B, and for a middle axis of an N-D tile (rank >= 3)
    the contiguous run of the half window (``half * prod(inner extents) * itemsize``) a multiple of 32 B."""
    reason = _halvable(t, axis, allow_valid)
    if reason is None and axis == t.rank - 1:
        half_bytes = t.dtype.nbytes(t.shape[axis].value // 2)
        if half_bytes % VECTOR_ALIGN or (t.dtype.packed and t.shape[axis].value // 2 % 2):
            reason = (f"column split: half row of {half_bytes} B ({t.shape[axis].value // 2} x "
                      f"{_elem(t)}) is not a multiple of {VECTOR_ALIGN} B")
    elif reason is None and 0 < axis < t.rank - 1:
        inner = 1
        for e in t.shape[axis + 1:]:
            if not isinstance(e, ConstInt):
                return f"middle axis {axis}: inner extent {e!r} is dynamic"
            inner *= e.value
        run = t.dtype.nbytes(t.shape[axis].value // 2 * inner)
        if run % VECTOR_ALIGN:
            reason = (f"middle axis {axis}: the half window's contiguous run of {run} B "
                      f"({t.shape[axis].value // 2} x {inner} x {_elem(t)}) is not a multiple of "
                      f"{VECTOR_ALIGN} B")
    return reason


def copy_window(op: OpDef, call: Call) -> tuple[list[int], tuple[int, ...]] | None:
    """For an ``OpKind.COPY`` op that copies a window of its tile operand (registry facts: one SCALAR index
    operand per result axis and a ``shape`` attribute, e.g. ``tile.extract``): (argument positions of the
    per-axis index operands, the window shape). None for a whole-tile copy (e.g. ``tile.move``)."""
    idx = [i for i, p in enumerate(op.operand_params) if p.kind is ParamKind.SCALAR]
    shape = call.kwarg("shape")
    if not idx or shape is None or not any(p.name == "shape" for p in op.attr_params):
        return None
    return idx, tuple(int(v.value if isinstance(v, ConstInt) else v) for v in shape)


def _offset_plus(orig: Expr, sb: Var, half: int) -> Expr:
    term = Mul(sb, ConstInt(half, INDEX), INDEX)
    if isinstance(orig, ConstInt) and orig.value == 0:
        return term
    return Add(orig, term, INDEX)


def _rebuild(name: str, args: list[Expr], kwargs: dict[str, Any], span: Any) -> Call:
    """``make_call`` for a re-emitted op: the op's own attributes go through type inference, extra IR
    attributes the op does not declare (``ir_attrs={...}`` in the DSL) are carried over unchanged."""
    declared = {p.name for p in get_op(name).attr_params}
    extra = tuple((k, v) for k, v in kwargs.items() if k not in declared)
    call = make_call(name, args, {k: v for k, v in kwargs.items() if k in declared}, span=span)
    return call.with_fields(kwargs=call.kwargs + extra) if extra else call


def store_window(call: Call) -> list[int | None] | None:
    """The N-D tensor window of a store of a flattened 2-D tile (FlattenTileNdTo2D's ``shapes=``), else None."""
    shapes = call.kwarg("shapes")
    if shapes is None:
        return None
    return [int(v) if isinstance(v, int) else (v.value if isinstance(v, ConstInt) else None) for v in shapes]


def load_window(call: Call) -> list[int | None] | None:
    """The N-D tensor window of a ``flatten=True`` load (its tile is the flattened 2-D window), else None."""
    if not call.kwarg("flatten", False) or len(call.args) < 3 or not isinstance(call.args[2], MakeTuple):
        return None
    shapes = call.args[2].elements
    if len(shapes) <= 2:
        return None
    return [e.value if isinstance(e, ConstInt) else None for e in shapes]


def _window_axis(window: list[int | None] | None, axis: int, half: int, what: str, op: str) -> tuple[int, int]:
    """The GM-window axis and half extent that halve ``axis`` of the tile (identity without a flattened
    window); raises ``Refusal`` when a flattened window cannot be halved as one N-D box."""
    if window is None:
        return axis, half
    r = flattened_split_axis(window, axis)
    if isinstance(r, str):
        raise Refusal("flattened_window", f"axis {axis} of the flattened 2-D tile: {r}", operand=what, op=op)
    return r


class _UsesSubblock(IRVisitor):
    def __init__(self) -> None:
        self.found = False
        self.vector_only = True
        self.stores = 0
        self.customs = 0
        self.element_writes = 0

    def visit_Call(self, expr: Call) -> None:
        if isinstance(expr.op, GlobalVar):
            self.vector_only = False
        else:
            op = op_of(expr)
            if expr.op_name == "tile.get_subblock_idx":
                self.found = True
            if op is None or op.unit is Unit.CUBE:
                self.vector_only = False
            if op is not None and op.kind in (OpKind.STORE, OpKind.INDIRECT_STORE):
                self.stores += 1
            if op is not None and op.kind is OpKind.CUSTOM:
                self.customs += 1
            if op is not None and op.kind is OpKind.ELEMENT_WRITE:
                self.element_writes += 1
            if isinstance(expr.type, TileType) and expr.type.memory_space not in (None, MemorySpace.Vec):
                self.vector_only = False
        super().visit_Call(expr)


def _scan(fn: Function) -> _UsesSubblock:
    v = _UsesSubblock()
    v.visit_function(fn)
    return v


def is_candidate(fn: Function) -> bool:
    """AIV functions, and InCore functions whose work is all vector (not a kernel with pl.split_aiv regions: the
    regions place its vector work themselves)."""
    if has_split_aiv_regions(fn):
        return False
    if fn.func_type is FunctionType.AIV:
        return True
    if fn.func_type is FunctionType.InCore:
        return _scan(fn).vector_only
    return False


def _tile_subexprs(e: Expr) -> list[Expr]:
    out = []
    if isinstance(e, MakeTuple):
        for x in e.elements:
            out.extend(_tile_subexprs(x))
    elif isinstance(e.type, TileType):
        out.append(e)
    return out
