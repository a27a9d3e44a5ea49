"""The op registry: every op is declared once, with everything any layer needs to know about it.

An ``OpDef`` states
- its signature (``params``): positional operands become ``Call.args``; attribute params become
  ``Call.kwargs``. The DSL binds user arguments to params by position or keyword, like Python.
- type inference (``infer``), raising ``TypeInferenceError`` with a hint on bad operands;
- the output memory rule (``memory``): from the ``target_memory`` attribute, fixed, inherited from an
  operand, or none;
- aliasing facts: ``not_inplace_safe``, ``output_reuses_input`` (index of the operand whose storage the
  result is written through), ``is_view`` (zero-copy view of operand 0), ``results_reuse_segment``
  (destination passing: result i is written into element i of the named operand segment, e.g. the
  ``outs`` of a custom op; ``tilefold.ops.result_destinations(call)`` lists those operands);
- which unit runs it (``unit``) and its semantic ``kind`` (elementwise, reduction, broadcast, ...),
  used by analyses instead of op-name lists;
- ``golden``: numpy value semantics ``golden(args, attrs) -> value``;
- ``pto``: the PTO instruction it lowers to; ``cost``: the cost class the target prices it by;
- ``operand_dtypes``: the dtype classes its tile / tensor operands may have, for ops not defined on every dtype
  (``check_operand_dtypes`` refuses the rest; a tensor op without its own entry takes its tile op's).

Passes, the golden interpreter, codegen and the simulator all query this table.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tilefold.errors import Span, TypeInferenceError
from tilefold.ir.expr import Call, ConstInt, Expr, GlobalVar
from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType, TupleType, Type


class Unit(enum.Enum):
    CUBE = "cube"
    VECTOR = "vector"
    DMA = "dma"
    SCALAR = "scalar"
    NONE = "none"  # views and pure metadata: no instruction executes


class OpKind(enum.Enum):
    """Semantic class, used by analyses (dimension analysis, sub-block tiling, memory inference)."""

    LOAD = "load"
    STORE = "store"
    CREATE = "create"
    VIEW = "view"  # slice, reshape, set_validshape, transpose_view, reinterpret_view
    COPY = "copy"  # extract, move
    ELEMENTWISE = "elementwise"  # tile (op) tile, same shape
    SCALAR_ELEMENTWISE = "scalar_elementwise"  # tile (op) scalar
    UNARY = "unary"
    CAST = "cast"
    ROW_REDUCTION = "row_reduction"  # [M, N] -> [M, 1]
    COL_REDUCTION = "col_reduction"  # [M, N] -> [1, N]
    ROW_BROADCAST = "row_broadcast"  # tile [M, N] (op) row vector [M, 1]
    COL_BROADCAST = "col_broadcast"  # tile [M, N] (op) col vector [1, N]
    MATMUL = "matmul"
    TRANSPOSE = "transpose"
    INDEX = "index"  # get_block_idx / get_subblock_idx
    ELEMENT_READ = "element_read"  # one GM tensor element read into a scalar register (tensor.read)
    ELEMENT_WRITE = "element_write"  # one scalar register written into a GM tensor element (tensor.write)
    CUSTOM = "custom"
    OTHER = "other"


class MemoryRuleKind(enum.Enum):
    KWARG = "kwarg"  # from the target_memory attribute (default in MemoryRule.space)
    FIXED = "fixed"  # always MemoryRule.space
    INHERIT = "inherit"  # the memory space of operand MemoryRule.operand
    NONE = "none"  # result is not a tile


@dataclass(frozen=True)
class MemoryRule:
    kind: MemoryRuleKind
    space: MemorySpace | None = None
    operand: int = 0


class ParamKind(enum.Enum):
    TILE = "tile"
    TENSOR = "tensor"
    TILE_OR_TENSOR = "tile_or_tensor"
    SCALAR = "scalar"  # scalar expression (constants allowed)
    TUPLE = "tuple"  # list of scalar expressions -> MakeTuple operand
    TILE_LIST = "tile_list"  # list of tiles / scalars (custom op segments) -> spliced into args
    ATTR = "attr"  # compile-time attribute (int, float, bool, str, dtype, memory, list of ints, maps)


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    default: Any = None
    required: bool = True

    @property
    def is_attr(self) -> bool:
        return self.kind is ParamKind.ATTR


class DTypeClass(enum.Enum):
    """A class of data types an op's operands may be restricted to (``OpDef.operand_dtypes``)."""

    FLOAT = "floating-point"  # FP16, BF16, FP32, FP64, FP8
    FP32 = "FP32"
    INT = "integer"  # signed and unsigned integers
    BOOL = "bool"

    def holds(self, dtype: DataType) -> bool:
        if self is DTypeClass.FLOAT:
            return dtype.is_float
        if self is DTypeClass.FP32:
            return dtype is DataType.FP32
        if self is DTypeClass.INT:
            return dtype.is_int
        return dtype.is_bool


FLOAT_ONLY = (DTypeClass.FLOAT,)
FP32_ONLY = (DTypeClass.FP32,)


InferFn = Callable[[Sequence[Expr], dict[str, Any]], Type]
GoldenFn = Callable[[Sequence[Any], dict[str, Any]], Any]


@dataclass(frozen=True)
class OpDef:
    name: str
    params: tuple[Param, ...]
    infer: InferFn
    kind: OpKind
    unit: Unit
    memory: MemoryRule = MemoryRule(MemoryRuleKind.NONE)
    not_inplace_safe: bool = False
    output_reuses_input: int | None = None
    golden: GoldenFn | None = None
    pto: str | None = None
    cost: str = "none"  # cost class priced by the target: dma, vector, cube, scalar, none, custom
    min_args: int | None = None  # operand count below which trailing optional operands are absent
    extra: dict[str, Any] = field(default_factory=dict)  # op-family specifics (e.g. numpy fn name)
    # destination passing: result i is written into (and lives on the storage of) element i of this operand
    # segment (``"outs"`` for custom ops); those operands are pure destinations, never read by the op
    results_reuse_segment: str | None = None
    # dtype classes every tile / tensor operand must belong to (None: any dtype); see check_operand_dtypes
    operand_dtypes: tuple[DTypeClass, ...] | None = None

    @cached_property
    def operand_params(self) -> tuple[Param, ...]:  # cached: queried for every call by every pass
        return tuple(p for p in self.params if not p.is_attr)

    @cached_property
    def attr_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.is_attr)

    @property
    def is_view(self) -> bool:
        return self.kind is OpKind.VIEW

    @property
    def output_inherits_input_memory(self) -> bool:
        return self.memory.kind is MemoryRuleKind.INHERIT

    @property
    def is_inplace_safe(self) -> bool:
        return not self.not_inplace_safe

    @property
    def output_on_input_storage(self) -> int | None:
        """Operand index whose bytes the result occupies (views and write-through ops), else None.

        This is the registry fact the seed calls ``OutputMemoryInheritsInput() && IsInplaceSafe()``
        or ``set_output_reuses_input``.
        """
        if self.output_reuses_input is not None:
            return self.output_reuses_input
        if self.is_view and self.output_inherits_input_memory and self.is_inplace_safe:
            return self.memory.operand
        return None


_REGISTRY: dict[str, OpDef] = {}


def register_op(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} is declared twice")
    _REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    op = find_op(name)
    if op is None:
        raise KeyError(f"unknown op {name!r}")
    return op


def find_op(name: str) -> OpDef | None:
    """The op named ``name``, also under one of PyPTO's spellings (``tile.and_``, ``tile.maximums``)."""
    _ensure_loaded()
    op = _REGISTRY.get(name)
    if op is None and "." in name:
        from tilefold.ops.catalog_ops import SPELLINGS

        ns, base = name.split(".", 1)
        canonical = SPELLINGS.get(base)
        op = _REGISTRY.get(f"{ns}.{canonical}") if canonical else None
    return op


def all_ops() -> dict[str, OpDef]:
    _ensure_loaded()
    return dict(_REGISTRY)


def op_of(expr: Expr) -> OpDef | None:
    """The OpDef of a call to a registered op, else None (function calls, non-calls)."""
    if type(expr) is Call or isinstance(expr, Call):
        op = expr.op
        if type(op) is str:
            return (_REGISTRY if _REGISTRY else _loaded_registry()).get(op)
        if not isinstance(op, GlobalVar):
            return find_op(op)
    return None


def _loaded_registry() -> dict[str, OpDef]:
    _ensure_loaded()
    return _REGISTRY


def _ensure_loaded() -> None:
    if not _REGISTRY:
        import tilefold.ops.catalog_ops  # noqa: F401
        import tilefold.ops.tensor_ops  # noqa: F401
        import tilefold.ops.tile_ops  # noqa: F401  (declarations register themselves)


def _check_positive_shape(name: str, t: Any) -> None:
    """Every constant extent of a tile or tensor an op produces is positive: a zero-size or negative tile
    has no storage (the sub-block split would halve -16 to -8 and only the simulator would fault)."""
    types = t.types if isinstance(t, TupleType) else (t,)
    for one in types:
        if not isinstance(one, (TileType, TensorType)):
            continue
        if isinstance(one, TileType) and one.memory_space is MemorySpace.DDR:
            raise TypeInferenceError(
                f"{name}: a tile cannot live in DDR: DDR is the global memory tensors live in, tiles are on-chip",
                hint="put the tile in an on-chip memory (target_memory=pl.Mem.Vec, Mat, Left, Right or Acc); "
                     "data goes back to DDR with pl.store")
        for axis, extent in enumerate(one.shape):
            if isinstance(extent, ConstInt) and extent.value <= 0:
                kind = "tile" if isinstance(one, TileType) else "tensor"
                shape = [e.value if isinstance(e, ConstInt) else str(e) for e in one.shape]
                raise TypeInferenceError(
                    f"{name}: the result {kind} has shape {shape}; extent {extent.value} on axis {axis} is not "
                    "positive", hint="every tile and tensor extent must be at least 1")


def operand_dtype_classes(op: OpDef) -> tuple[DTypeClass, ...] | None:
    """The dtype classes ``op``'s tile / tensor operands may have: its own declaration, else (a tensor op) that of
    the tile op it lowers to."""
    if op.operand_dtypes is not None:
        return op.operand_dtypes
    tile_op = op.extra.get("tile_op")
    lowered = _REGISTRY.get(tile_op) if isinstance(tile_op, str) else None
    return lowered.operand_dtypes if lowered is not None and lowered is not op else None


def check_operand_dtypes(op: OpDef, args: Sequence[Expr]) -> None:
    """Refuse a tile / tensor operand whose dtype ``op`` is not defined for (``OpDef.operand_dtypes``)."""
    allowed = operand_dtype_classes(op)
    if not allowed:
        return
    names = [p.name for p in op.operand_params]
    for i, arg in enumerate(args):
        t = getattr(arg, "type", None)
        if not isinstance(t, (TileType, TensorType)) or any(c.holds(t.dtype) for c in allowed):
            continue
        what = names[i] if i < len(names) else f"operand #{i}"
        classes = " or ".join(c.value for c in allowed)
        target = "FP32" if DTypeClass.FLOAT in allowed or DTypeClass.FP32 in allowed else allowed[0].name
        cast = "pl.tile.cast" if op.name.startswith("tile.") else "pl.cast"
        raise TypeInferenceError(
            f"{op.name} is defined for {classes} operands only, but its operand {what!r} is {t.dtype.name}",
            hint=f"cast the operand first, e.g. {cast}(x, target_type=pl.{target}), and cast the result back "
                 "if you need it in the original type")


def make_call(name: str, args: Sequence[Expr], attrs: dict[str, Any] | None = None,
              span: Span | None = None) -> Call:
    """Build a type-inferred call of a registered op. Attribute defaults are filled in."""
    op = get_op(name)
    name = op.name  # PyPTO's spellings (tile.and_) build the registry op
    attrs = dict(attrs or {})
    for p in op.attr_params:
        if p.name not in attrs and p.default is not None:
            attrs[p.name] = p.default
    kwargs = tuple((p.name, attrs.pop(p.name)) for p in op.attr_params if p.name in attrs)
    if attrs:
        raise TypeInferenceError(
            f"{name} got unknown attribute(s) {sorted(attrs)}", span=span,
            hint=f"{name} accepts: {', '.join(p.name for p in op.attr_params) or 'no attributes'}",
        )
    try:
        check_operand_dtypes(op, args)
        result_type = op.infer(tuple(args), dict(kwargs))
        _check_positive_shape(name, result_type)
    except TypeInferenceError as exc:
        if exc.span is None and span is not None:
            raise TypeInferenceError(exc.message, span=span, hint=exc.hint) from None
        raise
    call = Call(name, tuple(args), kwargs, result_type)
    if span is not None:
        call = call.with_fields(span=span)
    return call


def result_memory(op: OpDef, args: Sequence[Expr], attrs: dict[str, Any]) -> MemorySpace | None:
    """Output memory space of ``op`` applied to ``args`` with ``attrs``, per its memory rule."""
    rule = op.memory
    if rule.kind is MemoryRuleKind.KWARG:
        return attrs.get("target_memory", rule.space) or rule.space
    if rule.kind is MemoryRuleKind.FIXED:
        return rule.space
    if rule.kind is MemoryRuleKind.INHERIT:
        t = args[rule.operand].type if rule.operand < len(args) else None
        return t.memory_space if isinstance(t, TileType) else None
    return None


#: op kinds whose result elements combine operand elements from other positions (reductions, broadcast vectors,
#: matmul, transpose): on the device they read a partially valid operand's padding, so golden and codegen refuse
#: such an operand (``pl.tile.fillpad`` first makes it fully valid)
POSITION_MIXING_KINDS = (OpKind.ROW_REDUCTION, OpKind.COL_REDUCTION, OpKind.ROW_BROADCAST, OpKind.COL_BROADCAST,
                         OpKind.MATMUL, OpKind.TRANSPOSE)


def position_mixing_operands(op: OpDef, n_args: int) -> range:
    """Indices of the operands of ``op`` whose elements it combines across positions (a broadcast: its vector)."""
    if op.kind not in POSITION_MIXING_KINDS:
        return range(0)
    return range(1, min(2, n_args)) if op.kind in (OpKind.ROW_BROADCAST, OpKind.COL_BROADCAST) else range(n_args)


def valid_shape_operands(op: OpDef) -> tuple[int, ...]:
    """The operands whose valid extents ``op``'s golden and instruction receive as trailing operands, in order
    (``extra["reads_valid_shape"]``: True for the first operand, or a tuple of operand indices)."""
    flag = op.extra.get("reads_valid_shape")
    if not flag:
        return ()
    return (0,) if flag is True else tuple(flag)

