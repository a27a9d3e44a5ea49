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
- per parameter (``Param``): its kind, and for an operand the memory spaces, rank and dtype classes it may have;
  ``check_operands`` enforces them all in one place (``make_call``, the verifier); ``operand_dtypes`` is the
  shorthand for "every tile / tensor parameter has these dtype classes" (a tensor op's parameter without its own
  declaration takes its tile op's).

Passes, the golden interpreter, codegen and the simulator all query this table.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from tilefold.errors import Span, TypeInferenceError
from tilefold.ir.expr import Call, ConstInt, Expr, GlobalVar
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType, TupleType, Type
from tilefold.ops.operand_checks import describe


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
    INDIRECT_LOAD = "indirect_load"  # GM rows into a tile by an index tile (tile.mgather)
    INDIRECT_STORE = "indirect_store"  # tile rows into GM rows by an index tile (tile.mscatter)
    ROW_GATHER = "row_gather"  # a caller-addressed GM window DMA'd into a region of an on-chip tile (tile.gather_row)
    CROSS_CORE = "cross_core"  # a tile handed between the cube and a vector lane (ops/cross_core_ops.py)
    SYSTEM = "system"  # a multi-block barrier, GM fence or cache maintenance (ops/system_ops.py)
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
INT_ONLY = (DTypeClass.INT,)

#: the dtype a cast hint suggests for an operand outside a class
_CAST_TARGET = {DTypeClass.FLOAT: "FP32", DTypeClass.FP32: "FP32", DTypeClass.INT: "INT32", DTypeClass.BOOL: "BOOL"}


@dataclass(frozen=True)
class Param:
    """One parameter of an op. Beyond its kind, an operand parameter may declare what its value must be; the
    registry checks every declaration generically (``check_operands``, from ``make_call`` and the verifier):

    - ``memory``: the memory spaces a tile operand may live in (a tile not yet placed always passes);
    - ``rank``: the rank a tile / tensor operand must have;
    - ``dtypes``: the dtype classes a tile / tensor operand may have;
    - ``hint``: what to pass instead, for the messages of this parameter's checks.
    """

    name: str
    kind: ParamKind
    default: Any = None
    required: bool = True
    memory: tuple[MemorySpace, ...] | None = None
    rank: int | None = None
    dtypes: tuple[DTypeClass, ...] | None = None
    hint: str | None = None

    @property
    def is_attr(self) -> bool:
        return self.kind is ParamKind.ATTR


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
    if op.operand_dtypes is not None:  # the shorthand: every tile / tensor parameter without its own declaration
        params = tuple(replace(p, dtypes=op.operand_dtypes) if p.kind in _VALUE_KINDS and p.dtypes is None else p
                       for p in op.params)
        op = replace(op, params=params)
    _REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    op = find_op(name)
    if op is None:
        raise KeyError(f"unknown op {name!r}")
    return op


#: PyPTO's other spellings of an op's base name (``maximums`` for ``maxs``), in every namespace
_SPELLINGS: dict[str, str] = {}


def register_spelling(alias: str, canonical: str) -> None:
    """Resolve the base name ``alias`` (``tile.<alias>``, ``tensor.<alias>``) to the op named ``canonical``."""
    _SPELLINGS[alias] = canonical


def find_op(name: str) -> OpDef | None:
    """The op named ``name``, also under one of PyPTO's spellings (``tile.and_``, ``tile.maximums``)."""
    op = _REGISTRY.get(name)
    if op is None and "." in name:
        ns, base = name.split(".", 1)
        canonical = _SPELLINGS.get(base)
        op = _REGISTRY.get(f"{ns}.{canonical}") if canonical else None
    return op


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


def op_of(expr: Expr) -> OpDef | None:
    """The OpDef of a call to a registered op, else None (function calls, non-calls)."""
    if type(expr) is Call or isinstance(expr, Call):
        op = expr.op
        if type(op) is str:
            return _REGISTRY.get(op)
        if not isinstance(op, GlobalVar):
            return find_op(op)
    return None


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
    """The dtype classes ``op``'s tile / tensor operands may have (the first operand parameter that declares any),
    else (a tensor op) those of the tile op it lowers to."""
    for p in _value_params(op):
        if p.dtypes:
            return p.dtypes
    return None


_VALUE_KINDS = (ParamKind.TILE, ParamKind.TENSOR, ParamKind.TILE_OR_TENSOR)


def _value_params(op: OpDef) -> tuple[Param, ...]:
    """The tile / tensor parameters of ``op`` with their declarations; a tensor op's parameter that declares no
    dtypes takes those of the same parameter of the tile op it lowers to (one declaration of the op's domain)."""
    own = tuple(p for p in op.operand_params if p.kind in _VALUE_KINDS)
    tile_op = op.extra.get("tile_op")
    lowered = _REGISTRY.get(tile_op) if isinstance(tile_op, str) else None
    if lowered is None or lowered is op:
        return own
    theirs = [p for p in lowered.operand_params if p.kind in _VALUE_KINDS]
    return tuple(p if p.dtypes or i >= len(theirs) or not theirs[i].dtypes else replace(p, dtypes=theirs[i].dtypes)
                 for i, p in enumerate(own))


def _kind_error(op: OpDef, p: Param, i: int, t: Any) -> TypeInferenceError | None:
    """The error of operand ``i`` (parameter ``p``) whose type ``t`` is not of the parameter's kind, else None."""
    tensor_level = op.name.startswith("tensor.")
    if p.kind is ParamKind.TILE and not isinstance(t, TileType):
        hint = (p.hint or "load tensors into tiles with pl.tile.load before using tile ops" if isinstance(t, TensorType)
                else p.hint or f"pass a tile as {p.name!r}; a scalar operand goes to the scalar form of the op "
                               "(e.g. pl.tile.adds instead of pl.tile.add)" if isinstance(t, ScalarType)
                else p.hint or f"pass a tile as {p.name!r}")
        return TypeInferenceError(f"{op.name}: operand #{i} must be a tile, got {describe(t)}", hint=hint)
    wants_tensor = p.kind is ParamKind.TENSOR or (p.kind is ParamKind.TILE_OR_TENSOR and tensor_level)
    if wants_tensor and not isinstance(t, TensorType):
        hint = p.hint or ("tensor-level ops take pl.Tensor values; tiles go to the tile form (pl.tile.*)"
                          if tensor_level else
                          "pass a pl.Tensor here (a function parameter or pl.create_tensor result); tiles move to "
                          "and from tensors only through pl.tile.load / pl.store")
        return TypeInferenceError(f"{op.name}: operand #{i} must be a tensor, got {describe(t)}", hint=hint)
    if p.kind is ParamKind.TILE_OR_TENSOR and not isinstance(t, (TileType, TensorType)):
        return TypeInferenceError(f"{op.name}: operand #{i} must be a tile or a tensor, got {describe(t)}",
                                  hint=p.hint or f"pass a pl.Tensor or a pl.Tile as {p.name!r}")
    if p.kind is ParamKind.SCALAR and not isinstance(t, ScalarType):
        return TypeInferenceError(f"{op.name}: operand #{i} must be a scalar, got {describe(t)}",
                                  hint=p.hint or "pass a number or a pl.Scalar value here")
    return None


def _declaration_error(op: OpDef, p: Param, i: int, t: Any) -> TypeInferenceError | None:
    """The error of a tile / tensor operand outside its parameter's declared memory spaces, rank or dtypes."""
    if p.memory and isinstance(t, TileType) and t.memory_space is not None and t.memory_space not in p.memory:
        spaces = " / ".join(m.name for m in p.memory)
        return TypeInferenceError(
            f"{op.name}: operand {p.name!r} is a {t.memory_space.name} tile; {op.name} takes it in {spaces} only",
            hint=f"move it first: pl.tile.move(x, target_memory=pl.Mem.{p.memory[0].name}), or produce it there "
                 "(pl.load's default target is Vec)")
    if p.rank is not None and isinstance(t, (TileType, TensorType)) and len(t.shape) != p.rank:
        kind = "tile" if isinstance(t, TileType) else "tensor"
        return TypeInferenceError(
            f"{op.name}: {p.name} must be a {p.rank}-D {kind}, got rank {len(t.shape)}",
            hint="reshape to [rows, cols] first (FlattenTileNdTo2D does this for N-D tiles)" if p.rank == 2
            else f"reshape it to rank {p.rank} first")
    if p.dtypes and isinstance(t, (TileType, TensorType)) and not any(c.holds(t.dtype) for c in p.dtypes):
        classes = " or ".join(c.value for c in p.dtypes)
        reason, hint = _extra_of(op, "dtype_reason"), _extra_of(op, "dtype_hint")
        cast = "pl.tile.cast" if op.name.startswith("tile.") else "pl.cast"
        return TypeInferenceError(
            f"{op.name} is defined for {classes} operands only{f' ({reason})' if reason else ''}, but its operand "
            f"{p.name!r} is {t.dtype.name}",
            hint=hint or f"cast the operand first, e.g. {cast}(x, target_type=pl.{_CAST_TARGET[p.dtypes[0]]}), and "
                         "cast the result back if you need it in the original type")
    return None


def _extra_of(op: OpDef, key: str) -> Any:
    """``op.extra[key]``, else that of the tile op a tensor op lowers to."""
    if key in op.extra:
        return op.extra[key]
    tile_op = op.extra.get("tile_op")
    lowered = _REGISTRY.get(tile_op) if isinstance(tile_op, str) else None
    return lowered.extra.get(key) if lowered is not None else None


def check_operands(op: OpDef, args: Sequence[Expr]) -> None:
    """Check every operand against its parameter's declaration (kind, memory spaces, rank, dtypes): the one place
    these rules are enforced, for ``make_call`` and for the verifier. Custom ops (operand lists spliced into the
    arguments) are checked by their structured view instead."""
    params = op.operand_params
    if any(p.kind is ParamKind.TILE_LIST for p in params):
        return
    declared = {p.name: p for p in _value_params(op)}
    for i, p in enumerate(params):
        if i >= len(args):
            if p.required and p.kind in _VALUE_KINDS and (op.min_args is None or i < op.min_args):
                raise TypeInferenceError(f"{op.name}: missing operand #{i} ({p.name!r})",
                                         hint=f"pass {p.name!r} as argument #{i} of pl.{op.name}")
            return
        if p.kind in (ParamKind.TUPLE, ParamKind.ATTR):
            continue
        t = getattr(args[i], "type", None)
        err = _kind_error(op, p, i, t) or _declaration_error(op, declared.get(p.name, p), i, t)
        if err is not None:
            raise err


def check_operand_dtypes(op: OpDef, args: Sequence[Expr]) -> None:
    """Kept for callers that only ask about dtypes: the full per-parameter check (``check_operands``)."""
    check_operands(op, args)


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
    memory = dict(kwargs).get("target_memory")
    if memory is not None and not isinstance(memory, MemorySpace):
        raise TypeInferenceError(f"{name}: target_memory={memory!r} is not a memory space", span=span,
                                 hint="write target_memory=pl.Mem.Vec (or Mat, Left, Right, Acc, Bias)")
    try:
        check_operands(op, args)
        result_type = op.infer(tuple(args), dict(kwargs))
        _check_positive_shape(name, result_type)
        _refuse_unencoded(name, [getattr(a, "type", None) for a in args] + [result_type],
                          [v for _, v in kwargs], span)
    except TypeInferenceError as exc:
        if exc.span is None and span is not None:
            raise TypeInferenceError(exc.message, span=span, hint=exc.hint) from None
        raise
    call = Call(name, tuple(args), kwargs, result_type)
    if span is not None:
        call = call.with_fields(span=span)
    return call


def _dtypes_of(t: Any) -> list[DataType]:
    if isinstance(t, TupleType):
        return [d for sub in t.types for d in _dtypes_of(sub)]
    d = getattr(t, "dtype", None)
    return [d] if isinstance(d, DataType) else []


def _refuse_unencoded(name: str, types: list[Any], attrs: list[Any], span: Span | None) -> None:
    """An op on, or producing, a dtype with no documented bit encoding (HF4 / HF8) is a located NotSupportedError:
    tilefold could only guess its values (``DataType.encoded``)."""
    for d in [d for t in types for d in _dtypes_of(t)] + [a for a in attrs if isinstance(a, DataType)]:
        if not d.encoded:
            from tilefold.ir.types import raise_unencoded

            raise_unencoded(d, name, span)


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
    """Indices of the operands of ``op`` whose elements it combines across positions (a broadcast: its vector), or
    moves to other positions of a result that is fully valid (``extra["whole_tile_operands"]``: concat, assemble,
    gather, sort ...): a partially valid operand of either kind would pass its undefined padding off as data."""
    whole = op.extra.get("whole_tile_operands")
    if whole:
        return range(n_args)
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

