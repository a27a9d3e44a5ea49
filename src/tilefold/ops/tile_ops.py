"""Declarations of the tile ops. Each op appears exactly once, via ``register_op``.

Golden semantics take evaluated operands (numpy arrays for tiles and tensors, tuples of ints for list
operands, Python numbers for scalars) and attributes; they return the value in a wide dtype — the
golden interpreter casts it to the result type's dtype. Low-precision floats compute in FP32.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tilefold.budget import MAX_TENSOR_BYTES
from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt, Expr, MakeTuple, Max, Min, Sub
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import (
    INDEX,
    AtomicType,
    DataType,
    MemorySpace,
    PadValue,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    canonical_tile_view,
    static_shape,
)
from tilefold.ops.conversions import element_value, int_range, is_float_dtype
from tilefold.ops.custom.structured import CUSTOM_SEGMENTS, StructuredView
from tilefold.ops.operand_checks import check_fill_value, check_integer_scalar, describe, shape_repr
from tilefold.ops.registry import (
    FLOAT_ONLY,
    MemoryRule,
    MemoryRuleKind,
    OpDef,
    OpKind,
    Param,
    ParamKind,
    Unit,
    op_of,
    register_op,
)

T = ParamKind.TILE
S = ParamKind.SCALAR
TUP = ParamKind.TUPLE
A = ParamKind.ATTR

INHERIT0 = MemoryRule(MemoryRuleKind.INHERIT, operand=0)
#: the operand memory of the vector unit's and the scalar unit's UB accesses
VEC_ONLY = (MemorySpace.Vec,)
VEC = MemoryRule(MemoryRuleKind.FIXED, MemorySpace.Vec)
ACC = MemoryRule(MemoryRuleKind.FIXED, MemorySpace.Acc)


# ------------------------------------------------------------------------------------------------
# type-inference helpers
# ------------------------------------------------------------------------------------------------


def _fail(op: str, msg: str, hint: str | None = None) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _transpose_flag(op: str, attrs: dict) -> bool:
    """``transpose=``: True or False (a numpy boolean counts); anything else is an error, not a truthy guess."""
    value = attrs.get("transpose", False)
    if value is None or isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise _fail(op, f"transpose={value!r} is not True or False", "write transpose=True or leave it out")


# The kind, memory space, rank and dtypes of an operand are declared on its ``Param`` and checked by the registry
# before type inference runs (``registry.check_operands``): the accessors below only read the checked type.


def _tile(op: str, args: Sequence[Expr], i: int, what: str = "operand") -> TileType:
    """Operand ``i``'s tile type (a ``TILE`` parameter: checked by the registry)."""
    return args[i].type


def _tensor(op: str, args: Sequence[Expr], i: int) -> TensorType:
    """Operand ``i``'s tensor type (a ``TENSOR`` parameter: checked by the registry)."""
    return args[i].type


def _tuple(op: str, args: Sequence[Expr], i: int, what: str) -> tuple[Expr, ...]:
    if i >= len(args) or not isinstance(args[i], MakeTuple):
        raise _fail(op, f"{what} must be a list, e.g. [0, 0]",
                    f"write {what} as a bracketed list with one integer or pl.Scalar[pl.INDEX] entry per axis")
    for e in args[i].elements:
        if not isinstance(e.type, ScalarType):
            raise _fail(op, f"{what} entries must be scalars",
                        f"use integer constants or scalar index expressions (e.g. i * 16) in {what}, not "
                        f"{_describe(e.type)} values")
    return args[i].elements


def _scalar(op: str, args: Sequence[Expr], i: int, hint: str | None = None) -> ScalarType:
    """Operand ``i``'s scalar type (a ``SCALAR`` parameter: checked by the registry; ``hint`` is unused)."""
    return args[i].type


_K_HINT = ("the lhs column count must equal the rhs row count (K): take matching K windows of both, or "
           "transpose the rhs with pl.tile.transpose_view")


def _window_hint(axis: int, offset: int, extent: int, limit: int) -> str:
    """What to change when a window [offset, offset + extent) does not fit in an axis of ``limit``."""
    if extent > limit:
        return f"the window extent {extent} on axis {axis} exceeds the source extent {limit}: use at most {limit}"
    if offset < 0:
        return f"offsets are non-negative: use an offset in [0, {limit - extent}] on axis {axis}"
    return f"use an offset in [0, {limit - extent}] on axis {axis} for a window of {extent}, or a smaller window"


def _check_gm_window(op: str, tensor: TensorType, offsets: Sequence[Expr], extents: Sequence[Expr | int],
                     what: str) -> None:
    """Reject a GM window that statically leaves ``tensor``. Only axes whose tensor extent, offset and window
    extent are all constants are checked; dynamic offsets are left to the device (it traps OutOfBounds)."""
    for axis, (dim, off, ext) in enumerate(zip(tensor.shape, offsets, extents, strict=True)):
        ext_v = ext if isinstance(ext, int) else ext.value if isinstance(ext, ConstInt) else None
        if not (isinstance(dim, ConstInt) and isinstance(off, ConstInt) and ext_v is not None):
            continue
        lo, hi, limit = off.value, off.value + ext_v, dim.value
        if lo >= 0 and hi <= limit:
            continue
        raise _fail(op, f"{what} window [{lo}:{hi}) on axis {axis} is outside the tensor extent {limit} "
                        f"(tensor {_shape_repr(tensor.shape)}, offsets {_shape_repr(tuple(offsets))}, "
                        f"window {[e if isinstance(e, int) else _shape_repr((e,))[0] for e in extents]})",
                    _window_hint(axis, lo, ext_v, limit))


_describe = describe
_shape_repr = shape_repr


def _same_extent(a: Expr, b: Expr) -> bool:
    if a is b:
        return True
    return isinstance(a, ConstInt) and isinstance(b, ConstInt) and a.value == b.value


def _same_shape(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    return len(a) == len(b) and all(_same_extent(x, y) for x, y in zip(a, b, strict=True))


def _require_2d(op: str, t: TileType, what: str = "operand") -> None:
    if t.rank != 2:
        raise _fail(op, f"{what} must be a 2-D tile, got rank {t.rank}",
                    "reshape to [rows, cols] first (FlattenTileNdTo2D does this for N-D tiles)")


def _valid_view(*tiles: TileType) -> TileView | None:
    """The valid shape a position-preserving op (elementwise, scalar, unary, cast, move) gives its result: the
    region valid in every operand (per axis the operands' extent, their ``min`` when they differ), so a partial
    tile's padding never passes for data. None when every operand is fully valid."""
    valid: list[Expr] | None = None
    for t in tiles:
        vs = t.tile_view.valid_shape if t.tile_view is not None else None
        if vs is None:
            continue
        if valid is None:
            valid = list(vs)
            continue
        for axis, (mine, theirs) in enumerate(zip(valid, vs, strict=True)):
            if mine is theirs or (isinstance(mine, ConstInt) and isinstance(theirs, ConstInt)
                                  and mine.value == theirs.value):
                continue
            if isinstance(mine, ConstInt) and isinstance(theirs, ConstInt):
                valid[axis] = mine if mine.value < theirs.value else theirs
            else:
                valid[axis] = Min(mine, theirs)
    return TileView(valid_shape=tuple(valid)) if valid is not None else None


def _window_valid_view(src: TileType, offsets: Sequence[Expr], extents: Sequence[Expr]) -> TileView | None:
    """The valid shape of a window of ``src`` (a slice, an extract): per axis the source's valid extent past the
    window's offset, clipped to ``[0, extent]`` (``min(max(v - off, 0), ext)`` at run time). None when the source
    is fully valid (or the window lies inside its valid region)."""
    vs = src.tile_view.valid_shape if src.tile_view is not None else None
    if vs is None:
        return None
    out: list[Expr] = []
    for v, off, ext in zip(vs, offsets, extents, strict=True):
        if isinstance(v, ConstInt) and isinstance(off, ConstInt) and isinstance(ext, ConstInt):
            out.append(ConstInt(max(0, min(v.value - off.value, ext.value))))
        else:
            past = v if isinstance(off, ConstInt) and off.value == 0 else Sub(v, off)
            out.append(Min(Max(past, ConstInt(0)), ext))
    if all(isinstance(x, ConstInt) and isinstance(e, ConstInt) and x.value == e.value
           for x, e in zip(out, extents, strict=True)):
        return None
    return TileView(valid_shape=tuple(out))


def _vec_tile(shape, dtype: DataType, view: TileView | None = None) -> TileType:
    shape = tuple(shape)
    return TileType(shape, dtype, MemorySpace.Vec, None, canonical_tile_view(shape, MemorySpace.Vec, view))


def _int_attr_list(op: str, value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, tuple) or not all(isinstance(v, int) for v in value):
        raise _fail(op, f"{what} must be a list of integer constants",
                    f"write {what} as a list of integer literals or module-level int constants, e.g. "
                    f"{what}=[16, 64]")
    return value


def scalar_operand(tile: Any, scalar: Any) -> Any:
    """A run-time integer scalar combined with an integer tile, converted to the tile's dtype as the vector unit
    reads it (two's complement: an INT32 ``s * 3`` past 2**31 wraps, as the device's register does)."""
    if isinstance(tile, np.ndarray) and tile.dtype.kind in "iu" and isinstance(scalar, (int, np.integer)) \
            and not isinstance(scalar, (bool, np.bool_)):
        return element_value(scalar, tile.dtype)
    return scalar


def _f32(x: Any) -> Any:
    """Compute low-precision floats (FP16, BF16, FP8, FP4) in FP32. Integers stay in their dtype, the 4-bit ones
    too (ml_dtypes' int4 / uint4 wrap as the wider integers do; in FP32 they would saturate when stored back)."""
    if isinstance(x, np.ndarray) and x.dtype.itemsize <= 2 and is_float_dtype(x.dtype):
        return x.astype(np.float32)
    return x


def _window(arr: np.ndarray, offsets: Sequence[int], shape: Sequence[int]) -> np.ndarray:
    idx = tuple(slice(int(o), int(o) + int(s)) for o, s in zip(offsets, shape, strict=True))
    win = arr[idx]
    if win.shape != tuple(int(s) for s in shape):
        raise IndexError(f"window offsets {list(offsets)} shape {list(shape)} exceeds {list(arr.shape)}")
    return win


# ------------------------------------------------------------------------------------------------
# memory: load / store / create / full
# ------------------------------------------------------------------------------------------------


def _infer_load(args, attrs) -> Type:
    op = "tile.load"
    tt = _tensor(op, args, 0)
    offsets = _tuple(op, args, 1, "offsets")
    shapes = _tuple(op, args, 2, "shapes")
    if len(offsets) != tt.rank or len(shapes) != tt.rank:
        raise _fail(op, f"offsets and shapes need {tt.rank} entries for a rank-{tt.rank} tensor, got "
                        f"{len(offsets)} and {len(shapes)}",
                    f"give one offset and one extent per tensor axis, e.g. pl.tile.load(x, {[0] * tt.rank}, "
                    f"{_shape_repr(tt.shape)})")
    valid = _load_valid_shapes(op, args, tuple(shapes)) if len(args) > 3 else None
    # the DMA moves the valid region only: the bounds that matter are the valid region's (a partial last block
    # declares a window past the tensor's end); a dynamic valid extent is left to the device
    _check_gm_window(op, tt, offsets, valid if valid is not None else shapes, "load")
    mem = attrs.get("target_memory") or MemorySpace.Vec
    if _transpose_flag(op, attrs):
        return _transposed_load_type(op, tt, tuple(shapes), mem, valid)
    if attrs.get("flatten") and len(shapes) > 2:
        return TileType(_flat_2d(op, tuple(shapes)), tt.dtype, mem)
    if valid is not None:
        return TileType(tuple(shapes), tt.dtype, mem, None,
                        canonical_tile_view(tuple(shapes), mem, TileView(valid_shape=valid)))
    return TileType(tuple(shapes), tt.dtype, mem)


def _transposed_load_type(op: str, tt: TensorType, shapes: tuple[Expr, ...], mem: MemorySpace,
                          valid: tuple[Expr, ...] | None) -> Type:
    """``transpose=True``: the [r, c] GM window lands in L1 as the [c, r] tile (GM row i is tile column i). The
    DMA realises it by reading the window through a DN (column-major) view of the tensor, dev/10's DN -> NZ
    ``tload``: so only a Mat destination, only a 2-D window, and (as PyPTO's gather_row) no valid shape."""
    if mem is not MemorySpace.Mat:
        raise _fail(op, f"transpose=True loads into Mat (L1) only, not {mem.name}",
                    "load into L1 for a matmul operand: pl.load(x, offs, shapes, target_memory=pl.Mem.Mat, "
                    "transpose=True); for a transposed Vec tile load it as it is, then pl.transpose(t, 0, 1)")
    if len(shapes) != 2:
        raise _fail(op, f"transpose=True needs a 2-D window, got rank {len(shapes)}",
                    "load a 2-D window of the tensor (a rank-2 tensor, or slice a rank-2 view first)")
    if valid is not None:
        raise _fail(op, "transpose=True with valid_shapes is not supported (a run-time column extent of a "
                        "transposed L1 tile)", "load the whole window transposed, or load it straight with "
                        "valid_shapes and use pl.matmul(..., b_trans=True)")
    return TileType((shapes[1], shapes[0]), tt.dtype, mem)


def _flat_2d(op: str, shape: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """[d0, ..., dn-2, dn-1] -> [d0 * ... * dn-2, dn-1] (leading extents must be static)."""
    rows = 1
    for e in shape[:-1]:
        if not isinstance(e, ConstInt):
            raise _fail(op, "flattening an N-D window needs static leading extents",
                        "use integer constants for every window extent except the last")
        rows *= e.value
    return (ConstInt(rows), shape[-1])


def _golden_load(a, k):
    if len(a) > 3 and a[3] is not None:
        return _golden_valid_load(a[0], a[1], a[2], a[3])
    win = _window(a[0], a[1], a[2])
    if k.get("transpose"):
        return np.ascontiguousarray(win.T)
    win = win.copy()
    if k.get("flatten") and win.ndim > 2:
        win = win.reshape(-1, win.shape[-1])
    return win


#: ``transpose=`` on a move: the transposed copy is the cube's L1 -> L0 path (a Mat tile into Left / Right, the
#: layout a transposed matmul operand takes); elsewhere there is no transposing copy to model
_MOVE_TRANSPOSE_PATHS = {(MemorySpace.Mat, MemorySpace.Left), (MemorySpace.Mat, MemorySpace.Right)}


register_op(OpDef(
    "tile.load", (Param("tensor", ParamKind.TENSOR), Param("offsets", TUP), Param("shapes", TUP),
                  # PyPTO's valid_shapes: the region the DMA moves (static or run-time extents, an operand so
                  # that a dynamic extent stays in the use-def chain); the rest of the tile is undefined
                  Param("valid_shapes", TUP, required=False),
                  Param("target_memory", A, MemorySpace.Vec),
                  # the [r, c] window lands as the [c, r] tile (Mat only: a DN-strided view load, dev/10)
                  Param("transpose", A, required=False),
                  # set by FlattenTileNdTo2D: the N-D window is laid out as the 2-D tile [prod(leading), last]
                  Param("flatten", A, required=False)),
    _infer_load, OpKind.LOAD, Unit.DMA, MemoryRule(MemoryRuleKind.KWARG, MemorySpace.Vec),
    golden=_golden_load, pto="tload", cost="dma",
    # PyPTO's tutorials spell it valid_shape=
    extra={"keyword_aliases": {"valid_shape": "valid_shapes"}},
))


def _store_dtype_hint(value: Expr, t: TileType, out: TensorType) -> str:
    """How to make a tile's dtype match the tensor it is stored into. An Acc tile (a matmul-family result)
    has no path to Vec for pl.tile.cast, so the fix there is the matmul's own ``out_dtype``."""
    producer = op_of(value)
    from_cube = producer is not None and producer.kind is OpKind.MATMUL
    if t.memory_space is MemorySpace.Acc or from_cube:
        return (f"the tile is a matmul result in Acc, which pl.tile.cast cannot read: produce it in "
                f"{out.dtype.name} directly with out_dtype=pl.{out.dtype.name} on the matmul, e.g. "
                f"pl.tile.matmul(lhs, rhs, out_dtype=pl.{out.dtype.name}), or store into a "
                f"{t.dtype.name} tensor")
    return (f"cast the tile with pl.tile.cast(tile, target_type=pl.{out.dtype.name}) before storing, or store "
            f"into a {t.dtype.name} tensor")


def _infer_store(args, attrs) -> Type:
    op = "tile.store"
    t = _tile(op, args, 0)
    offsets = _tuple(op, args, 1, "offsets")
    out = _tensor(op, args, 2)
    if len(offsets) != out.rank:
        raise _fail(op, f"offsets need {out.rank} entries for the rank-{out.rank} output tensor",
                    f"give one offset per tensor axis, e.g. pl.store(tile, {[0] * out.rank}, out)")
    if t.dtype != out.dtype:
        raise _fail(op, f"tile dtype {t.dtype.name} differs from output tensor dtype {out.dtype.name}",
                    _store_dtype_hint(args[0], t, out))
    check_atomic(op, attrs.get("atomic"), out.dtype)
    window = attrs.get("shapes")
    if window is not None:
        # A 2-D tile holding a flattened N-D window (FlattenTileNdTo2D): shapes is the window in the tensor.
        window = _int_attr_list(op, window, "shapes")
        if len(window) != out.rank:
            raise _fail(op, f"shapes needs {out.rank} entries for the rank-{out.rank} output tensor",
                        "shapes= is the N-D tensor window the flattened tile fills: one extent per tensor axis")
        flat = _flat_2d(op, make_shape(window)) if len(window) > 2 else make_shape(window)
        if not _same_shape(t.shape, flat):
            raise _fail(op, f"tile {_shape_repr(t.shape)} does not hold the window {list(window)} "
                            f"(flattened {_shape_repr(flat)})",
                        "make shapes= match the tile: the product of its leading extents is the tile's rows, "
                        "its last extent the tile's columns")
        _check_gm_window(op, out, offsets, window, "store")
        return out
    if t.rank != out.rank:
        raise _fail(op, f"tile rank {t.rank} differs from output tensor rank {out.rank}",
                    f"pl.tile.reshape the tile to rank {out.rank} before storing, or store into a rank-{t.rank} "
                    "tensor")
    _check_gm_window(op, out, offsets, t.shape, "store")
    return out


def _golden_store(a, k):
    tile, offsets, out = a
    out = np.array(out, copy=True)
    if k.get("shapes") is not None:
        tile = np.reshape(tile, k["shapes"])
    win = _window(out, offsets, tile.shape)
    win[...] = atomic_add(win, tile) if k.get("atomic") is AtomicType.Add else tile
    return out


register_op(OpDef(
    "tile.store", (Param("tile", T), Param("offsets", TUP), Param("output_tensor", ParamKind.TENSOR),
                   # marker set by TileAndBindSubBlock on a store it split across the two sub-blocks
                   Param("tiled_op", A, required=False),
                   # set by FlattenTileNdTo2D: the N-D tensor window a flattened 2-D tile fills
                   Param("shapes", A, required=False),
                   # PyPTO's atomic=pl.AtomicType.Add: the store adds into GM (read-add-write, atomic per unit)
                   Param("atomic", A, required=False)),
    _infer_store, OpKind.STORE, Unit.DMA, golden=_golden_store, pto="tstore", cost="dma",
))


def _infer_create(args, attrs) -> Type:
    shape = _int_attr_list("tile.create", attrs.get("shape"), "shape")
    return TileType(make_shape(shape), attrs["dtype"], attrs.get("target_memory") or MemorySpace.Vec)


register_op(OpDef(
    "tile.create", (Param("shape", A), Param("dtype", A, DataType.FP32),
                    Param("target_memory", A, MemorySpace.Vec)),
    _infer_create, OpKind.CREATE, Unit.NONE, MemoryRule(MemoryRuleKind.KWARG, MemorySpace.Vec),
    golden=lambda a, k: np.zeros(k["shape"], dtype=k["dtype"].np_dtype), pto=None, cost="none",
    # no instruction runs: the tile's contents are undefined until something writes it (reading it first is
    # rejected by tilefold.analysis.uninitialized_reads; pl.tile.full gives defined contents)
    extra={"uninitialized": True},
))


def _infer_full(args, attrs) -> Type:
    shape = _int_attr_list("tile.full", attrs.get("shape"), "shape")
    check_fill_value("tile.full", attrs["dtype"], attrs.get("value"))
    return TileType(make_shape(shape), attrs["dtype"], attrs.get("target_memory") or MemorySpace.Vec)


register_op(OpDef(
    "tile.full", (Param("shape", A), Param("dtype", A, DataType.FP32), Param("value", A, 0.0),
                  Param("target_memory", A, MemorySpace.Vec)),
    _infer_full, OpKind.CREATE, Unit.VECTOR, MemoryRule(MemoryRuleKind.KWARG, MemorySpace.Vec),
    golden=lambda a, k: np.full(k["shape"], k["value"], dtype=np.float64), pto="texpands", cost="vector",
))


# ------------------------------------------------------------------------------------------------
# views
# ------------------------------------------------------------------------------------------------


def _infer_slice(args, attrs) -> Type:
    op = "tile.slice"
    src = _tile(op, args, 0, "source")
    shape = _tuple(op, args, 1, "shape")
    offset = _tuple(op, args, 2, "offset")
    if len(shape) != src.rank or len(offset) != src.rank:
        raise _fail(op, f"shape and offset need {src.rank} entries for a rank-{src.rank} source, got "
                        f"{len(shape)} and {len(offset)}",
                    f"give one window extent and one offset per source axis, e.g. pl.tile.slice(t, "
                    f"{_shape_repr(src.shape)}, {[0] * src.rank})")
    src_static = src.static_shape
    for d, (ext, off) in enumerate(zip(shape, offset, strict=True)):
        if src_static is not None and isinstance(ext, ConstInt) and isinstance(off, ConstInt):
            if off.value < 0 or off.value + ext.value > src_static[d]:
                raise _fail(op, f"window [{off.value}, {off.value + ext.value}) on axis {d} is outside the "
                                f"source extent {src_static[d]}", _window_hint(d, off.value, ext.value, src_static[d]))
    view = _window_valid_view(src, offset, shape)  # a window of a partial tile is partial (unless given)
    if len(args) >= 4:
        valid = _tuple(op, args, 3, "valid_shape")
        if len(valid) != src.rank:
            raise _fail(op, "valid_shape needs one entry per axis",
                        f"give valid_shape {src.rank} entries, one per axis of the window (before drop_dims)")
        for axis, (v, n) in enumerate(zip(valid, shape, strict=True)):
            if isinstance(v, ConstInt) and isinstance(n, ConstInt) and not 0 <= v.value <= n.value:
                raise _fail(op, f"valid extent {v.value} on axis {axis} is outside [0, {n.value}] (the window "
                                "extent)", "a valid extent is at most the window's extent")
        view = TileView(valid_shape=tuple(valid))
    out_shape = tuple(shape)
    if len(args) >= 5:
        drops = _tuple(op, args, 4, "drop_dims")
        drop_idx = set()
        for e in drops:
            if not isinstance(e, ConstInt) or not 0 <= e.value < src.rank:
                raise _fail(op, "drop_dims entries must be constant axis indices",
                            f"list integer axis numbers in [0, {src.rank - 1}], e.g. drop_dims [0]")
            if not (isinstance(shape[e.value], ConstInt) and shape[e.value].value == 1):
                raise _fail(op, f"drop_dims axis {e.value} must have extent 1",
                            f"set the window extent of axis {e.value} to 1 in shape, or remove {e.value} from "
                            "drop_dims")
            drop_idx.add(e.value)
        out_shape = tuple(x for i, x in enumerate(shape) if i not in drop_idx)
        if view is not None and view.valid_shape is not None:
            view = TileView(valid_shape=tuple(x for i, x in enumerate(view.valid_shape) if i not in drop_idx))
    return TileType(out_shape, src.dtype, src.memory_space, None,
                    canonical_tile_view(out_shape, src.memory_space, view))


def _golden_slice(a, k):
    win = _window(a[0], a[2], a[1])
    if len(a) >= 5 and a[4]:
        win = win.reshape([s for i, s in enumerate(win.shape) if i not in set(a[4])])
    return win.copy()


register_op(OpDef(
    "tile.slice", (Param("tile", T), Param("shape", TUP), Param("offset", TUP),
                   Param("valid_shape", TUP, required=False), Param("drop_dims", TUP, required=False)),
    _infer_slice, OpKind.VIEW, Unit.NONE, INHERIT0, golden=_golden_slice, pto="tsubview", cost="none",
    min_args=3,
))


def _infer_extract(args, attrs) -> Type:
    op = "tile.extract"
    src = _tile(op, args, 0, "source")
    shape = attrs.get("shape")
    if shape is None:
        raise _fail(op, "missing shape=[rows, cols]",
                    "add shape=[rows, cols] giving the extracted window, e.g. shape=[16, 64]")
    shape = _int_attr_list(op, shape, "shape")
    if len(shape) != 2:
        raise _fail(op, "shape must have 2 entries",
                    "tile.extract copies a 2-D window: write shape=[rows, cols]")
    src_static = src.static_shape
    if src_static is not None:
        for d, idx in enumerate(args[1:3]):
            if isinstance(idx, ConstInt) and (idx.value < 0 or idx.value + shape[d] > src_static[d]):
                raise _fail(op, f"window [{idx.value}, {idx.value + shape[d]}) on axis {d} is outside the "
                                f"source extent {src_static[d]}", _window_hint(d, idx.value, shape[d], src_static[d]))
    mem = attrs.get("target_memory") or src.memory_space
    out_shape = make_shape(shape)
    view = _window_valid_view(src, (_index_expr(args[1]), _index_expr(args[2])), out_shape)
    return TileType(out_shape, src.dtype, mem, None, canonical_tile_view(out_shape, mem, view) if view else None)


_INDEX_HINT = "index_row / index_col are scalar offsets: an int or a pl.Scalar[pl.INDEX] value"


def _index_expr(e: Expr) -> Expr:
    return e if isinstance(e, Expr) else ConstInt(int(e))


register_op(OpDef(
    "tile.extract", (Param("tile", T, rank=2), Param("index_row", S, hint=_INDEX_HINT),
                     Param("index_col", S, hint=_INDEX_HINT), Param("shape", A),
                     Param("target_memory", A, required=False)),
    _infer_extract, OpKind.COPY, Unit.DMA, MemoryRule(MemoryRuleKind.KWARG), not_inplace_safe=True,
    golden=lambda a, k: _window(a[0], (a[1], a[2]), k["shape"]).copy(), pto="textract", cost="copy",
))


def _infer_move(args, attrs) -> Type:
    src = _tile("tile.move", args, 0)
    mem = attrs.get("target_memory")
    if mem is None:
        raise _fail("tile.move", "missing target_memory=",
                    "add target_memory=pl.Mem.<space> naming where the copy goes, e.g. target_memory=pl.Mem.Left")
    view = _valid_view(src)  # a copy of a partial tile is as partial: its padding is as undefined
    if _transpose_flag("tile.move", attrs):
        if (src.memory_space, mem) not in _MOVE_TRANSPOSE_PATHS or src.rank != 2:
            where = src.memory_space.name if src.memory_space else "an unplaced space"
            raise _fail("tile.move", f"transpose=True moves a 2-D Mat tile into Left or Right only (here {where} "
                                     f"-> {mem.name}, rank {src.rank})",
                        "transpose in L1 -> L0 for a matmul operand (pl.move(t, target_memory=pl.Mem.Right, "
                        "transpose=True)); on Vec use pl.transpose(t, 0, 1)")
        if view is not None:
            raise _fail("tile.move", "transpose=True of a tile with a valid shape smaller than its shape",
                        "fill the padding first (pl.tile.fillpad), or move the whole tile")
        return TileType((src.shape[1], src.shape[0]), src.dtype, mem)
    return TileType(src.shape, src.dtype, mem, None, canonical_tile_view(src.shape, mem, view) if view else None)


def _golden_move(a, k):
    return np.ascontiguousarray(np.swapaxes(a[0], -1, -2)) if k.get("transpose") else np.array(a[0], copy=True)


register_op(OpDef(
    "tile.move", (Param("tile", T), Param("target_memory", A),
                  # Mat -> Left / Right: the [r, c] tile lands as the [c, r] one (the L1 -> L0 transposing copy)
                  Param("transpose", A, required=False)),
    _infer_move, OpKind.COPY, Unit.DMA, MemoryRule(MemoryRuleKind.KWARG), not_inplace_safe=True,
    golden=_golden_move, pto="tmov", cost="copy",
))


def _infer_reshape(args, attrs) -> Type:
    op = "tile.reshape"
    src = _tile(op, args, 0)
    shape = _tuple(op, args, 1, "shape")
    a, b = src.static_shape, static_shape(tuple(shape))
    if a is not None and b is not None and int(np.prod(a)) != int(np.prod(b)):
        raise _fail(op, f"cannot reshape {list(a)} ({int(np.prod(a))} elements) to {list(b)}",
                    f"choose extents whose product is {int(np.prod(a))}, the source's element count")
    view = _valid_view(src)
    if view is not None:
        if a is not None and b is not None and tuple(a) == tuple(b):
            return TileType(tuple(shape), src.dtype, src.memory_space, None, src.tile_view)
        # the valid region of a partial tile is not a rectangle of another shape: its padding would pass for data
        raise _fail(op, f"reshape of a tile whose valid shape is smaller than its shape {_shape_repr(src.shape)}",
                    "fill the padding first (pl.tile.fillpad), or reshape before pl.tile.set_validshape")
    return TileType(tuple(shape), src.dtype, src.memory_space)


register_op(OpDef(
    "tile.reshape", (Param("tile", T), Param("shape", TUP)),
    _infer_reshape, OpKind.VIEW, Unit.NONE, INHERIT0,
    golden=lambda a, k: np.reshape(a[0], a[1]).copy(), pto="treshape", cost="none",
))


def _infer_set_validshape(args, attrs) -> Type:
    op = "tile.set_validshape"
    src = _tile(op, args, 0)
    valid = _tuple(op, args, 1, "valid_shape")
    if len(valid) != src.rank:
        raise _fail(op, "valid_shape needs one entry per axis",
                    f"give valid_shape {src.rank} entries, one per axis of the tile")
    view = canonical_tile_view(src.shape, src.memory_space, TileView(valid_shape=tuple(valid)))
    return TileType(src.shape, src.dtype, src.memory_space, None, view)


register_op(OpDef(
    "tile.set_validshape", (Param("tile", T), Param("valid_shape", TUP)),
    _infer_set_validshape, OpKind.VIEW, Unit.NONE, INHERIT0,
    golden=lambda a, k: np.array(a[0], copy=True), pto="tsetvalidshape", cost="none",
))


def _infer_transpose_view(args, attrs) -> Type:
    src = _tile("tile.transpose_view", args, 0)
    return TileType((src.shape[1], src.shape[0]), src.dtype, src.memory_space)


register_op(OpDef(
    "tile.transpose_view", (Param("tile", T, rank=2),),
    _infer_transpose_view, OpKind.VIEW, Unit.NONE, INHERIT0,
    golden=lambda a, k: np.ascontiguousarray(np.swapaxes(a[0], -1, -2)), pto="ttransview", cost="none",
))


def _infer_reinterpret_view(args, attrs) -> Type:
    op = "tile.reinterpret_view"
    src = _tile(op, args, 0)
    dtype: DataType = attrs["dtype"]
    last = src.shape[-1]
    if not isinstance(last, ConstInt):
        raise _fail(op, "the last extent must be static to reinterpret the dtype",
                    "give the tile a constant last extent (load or slice it with an integer width)")
    if src.dtype.packed or dtype.packed:  # numpy (golden) holds one 4-bit element per byte: not the chip's bytes
        packed = src.dtype if src.dtype.packed else dtype
        raise _fail(op, f"reinterpreting {packed.name} (two elements per byte) is not supported",
                    "convert with pl.cast instead (FP4 / INT4 / UINT4 -> FP16 are exact widenings)")
    bits = last.value * src.dtype.storage_bits
    if bits % dtype.storage_bits:
        raise _fail(op, f"a row of {bits} bits is not a whole number of {dtype.name} elements",
                    f"choose a dtype whose width divides {bits} bits, or widen the tile's last extent")
    shape = src.shape[:-1] + (ConstInt(bits // dtype.storage_bits),)
    return TileType(shape, dtype, src.memory_space)


register_op(OpDef(
    "tile.reinterpret_view", (Param("tile", T), Param("dtype", A)),
    _infer_reinterpret_view, OpKind.VIEW, Unit.NONE, INHERIT0,
    golden=lambda a, k: np.ascontiguousarray(a[0]).view(k["dtype"].np_dtype).copy(),
    pto="treinterpret", cost="none",
))


def _infer_transpose(args, attrs) -> Type:
    op = "tile.transpose"
    src = _tile(op, args, 0)
    a1, a2 = attrs.get("axis1", 0), attrs.get("axis2", 1)
    if not (0 <= a1 < src.rank and 0 <= a2 < src.rank):
        raise _fail(op, f"axes ({a1}, {a2}) out of range for rank {src.rank}",
                    f"use axis1= and axis2= in [0, {src.rank - 1}]")
    shape = list(src.shape)
    shape[a1], shape[a2] = shape[a2], shape[a1]
    return TileType(tuple(shape), src.dtype, src.memory_space)


register_op(OpDef(
    "tile.transpose", (Param("tile", T), Param("axis1", A, 0), Param("axis2", A, 1)),
    _infer_transpose, OpKind.TRANSPOSE, Unit.VECTOR, INHERIT0, not_inplace_safe=True,
    golden=lambda a, k: np.ascontiguousarray(np.swapaxes(a[0], k["axis1"], k["axis2"])),
    pto="ttrans", cost="vector",
))


# ------------------------------------------------------------------------------------------------
# cube: matmul family
# ------------------------------------------------------------------------------------------------


def _acc_dtype(op: str, lhs: TileType, rhs: TileType, attrs) -> DataType:
    if lhs.dtype != rhs.dtype:
        raise _fail(op, f"lhs dtype {lhs.dtype.name} differs from rhs dtype {rhs.dtype.name}",
                    "cast one operand with pl.tile.cast(tile, target_type=...) so lhs and rhs share a dtype")
    if attrs.get("out_dtype") is not None:
        return attrs["out_dtype"]
    return DataType.INT32 if lhs.dtype.is_int else DataType.FP32


def _mm_shapes(op: str, lhs: TileType, rhs: TileType) -> tuple[Expr, Expr]:
    """(M, N) of lhs [M, K] x rhs [K, N] (both declared rank 2)."""
    if not _same_extent(lhs.shape[1], rhs.shape[0]):
        raise _fail(op, f"lhs {_shape_repr(lhs.shape)} and rhs {_shape_repr(rhs.shape)} disagree on K",
                    _K_HINT)
    return lhs.shape[0], rhs.shape[1]


def _infer_matmul(args, attrs) -> Type:
    op = "tile.matmul"
    lhs, rhs = _tile(op, args, 0, "lhs"), _tile(op, args, 1, "rhs")
    m, n = _mm_shapes(op, lhs, rhs)
    return TileType((m, n), _acc_dtype(op, lhs, rhs, attrs), MemorySpace.Acc)


def _infer_matmul_acc(args, attrs) -> Type:
    op = attrs.get("__op__", "tile.matmul_acc")
    acc, lhs, rhs = _tile(op, args, 0, "accumulator"), _tile(op, args, 1, "lhs"), _tile(op, args, 2, "rhs")
    m, n = _mm_shapes(op, lhs, rhs)
    if not (_same_extent(acc.shape[0], m) and _same_extent(acc.shape[1], n)):
        raise _fail(op, f"accumulator {_shape_repr(acc.shape)} does not match lhs x rhs "
                        f"[{_shape_repr((m,))[0]}, {_shape_repr((n,))[0]}]",
                    "accumulate into a tile of the product's shape [M, N], e.g. the result of the first "
                    "pl.tile.matmul(lhs, rhs)")
    _acc_dtype(op, lhs, rhs, attrs)
    mem = acc.memory_space or MemorySpace.Acc
    return TileType(acc.shape, acc.dtype, mem, None, canonical_tile_view(acc.shape, mem, acc.tile_view))


def _infer_matmul_bias(args, attrs) -> Type:
    op = "tile.matmul_bias"
    lhs, rhs, bias = _tile(op, args, 0, "lhs"), _tile(op, args, 1, "rhs"), _tile(op, args, 2, "bias")
    m, n = _mm_shapes(op, lhs, rhs)
    if not _same_extent(bias.shape[-1], n):
        raise _fail(op, "bias must have N columns",
                    f"give the bias {_shape_repr((n,))[0]} columns (the rhs column count), e.g. shape "
                    f"[1, {_shape_repr((n,))[0]}]")
    return TileType((m, n), _acc_dtype(op, lhs, rhs, attrs), MemorySpace.Acc)


def _mm(a, b):
    """Cube product semantics: float inputs multiply-accumulate in FP32; integer inputs (INT8) in INT32,
    wrapping around on overflow like the hardware accumulator."""
    if a.dtype.kind in "iu":
        return np.matmul(a.astype(np.int32, copy=False), b.astype(np.int32, copy=False))
    return np.matmul(a.astype(np.float32, copy=False), b.astype(np.float32, copy=False))


def _mm_acc(acc, a, b, init_cond=False):
    """``acc + a @ b`` accumulated in the product's type (FP32, or INT32 with wraparound). ``init_cond``: the
    MMAD's init flag, a run-time bool: when it holds the accumulator starts afresh (``a @ b``, acc not read)."""
    r = _mm(a, b)
    if not bool(init_cond):
        r += np.asarray(acc).astype(r.dtype, copy=False)
    return r


def _mm_bias(a, b, bias):
    r = _mm(a, b)
    r += np.reshape(bias, (1, -1)).astype(r.dtype, copy=False)
    return r


register_op(OpDef(
    "tile.matmul", (Param("lhs", T, rank=2), Param("rhs", T, rank=2), Param("out_dtype", A, required=False)),
    _infer_matmul, OpKind.MATMUL, Unit.CUBE, ACC,
    golden=lambda a, k: _mm(a[0], a[1]), pto="tmatmul", cost="cube",
))
register_op(OpDef(
    "tile.matmul_acc", (Param("acc", T, rank=2), Param("lhs", T, rank=2), Param("rhs", T, rank=2),
                        Param("init_cond", S, required=False)),
    _infer_matmul_acc, OpKind.MATMUL, Unit.CUBE, INHERIT0, output_reuses_input=0,
    golden=lambda a, k: _mm_acc(a[0], a[1], a[2], a[3] if len(a) > 3 else False), pto="tmatmul_acc",
    cost="cube", extra={"init_operand": 3},  # the accumulator is not read where init_cond holds
))
register_op(OpDef(
    "tile.matmul_bias", (Param("lhs", T, rank=2), Param("rhs", T, rank=2), Param("bias", T),
                         Param("out_dtype", A, required=False)),
    _infer_matmul_bias, OpKind.MATMUL, Unit.CUBE, ACC,
    golden=lambda a, k: _mm_bias(a[0], a[1], a[2]),
    pto="tmatmul_bias", cost="cube",
))


def _infer_gemv(args, attrs) -> Type:
    op = "tile.gemv"
    lhs, rhs = _tile(op, args, 0, "lhs"), _tile(op, args, 1, "rhs")
    m, n = _mm_shapes(op, lhs, rhs)
    if not (isinstance(m, ConstInt) and m.value == 1):
        raise _fail(op, "gemv lhs must have exactly one row", "use pl.tile.matmul for M > 1")
    return TileType((m, n), _acc_dtype(op, lhs, rhs, attrs), MemorySpace.Acc)


register_op(OpDef(
    "tile.gemv", (Param("lhs", T, rank=2), Param("rhs", T, rank=2), Param("out_dtype", A, required=False)),
    _infer_gemv, OpKind.MATMUL, Unit.CUBE, ACC,
    golden=lambda a, k: _mm(a[0], a[1]), pto="tgemv", cost="cube",
))
register_op(OpDef(
    "tile.gemv_acc", (Param("acc", T, rank=2), Param("lhs", T, rank=2), Param("rhs", T, rank=2)),
    lambda args, attrs: _infer_matmul_acc(args, {**attrs, "__op__": "tile.gemv_acc"}),
    OpKind.MATMUL, Unit.CUBE, INHERIT0, output_reuses_input=0,
    golden=lambda a, k: _mm_acc(a[0], a[1], a[2]), pto="tgemv_acc", cost="cube",
))


def _batch_shape(op: str, lhs: TileType, rhs: TileType) -> tuple[tuple[Expr, ...], Expr, Expr]:
    if lhs.rank < 2 or rhs.rank < 2:
        raise _fail(op, "operands need rank >= 2",
                    "batch operands are [..., M, K] and [..., K, N]; reshape them to at least 2-D")
    if not _same_extent(lhs.shape[-1], rhs.shape[-2]):
        raise _fail(op, f"lhs {_shape_repr(lhs.shape)} and rhs {_shape_repr(rhs.shape)} disagree on K",
                    _K_HINT)
    lb, rb = list(lhs.shape[:-2]), list(rhs.shape[:-2])
    n = max(len(lb), len(rb))
    lb = [ConstInt(1)] * (n - len(lb)) + lb
    rb = [ConstInt(1)] * (n - len(rb)) + rb
    batch = []
    for x, y in zip(lb, rb, strict=True):
        if _same_extent(x, y) or (isinstance(y, ConstInt) and y.value == 1):
            batch.append(x)
        elif isinstance(x, ConstInt) and x.value == 1:
            batch.append(y)
        else:
            raise _fail(op, f"batch dims {_shape_repr(lhs.shape[:-2])} and {_shape_repr(rhs.shape[:-2])} "
                            "do not broadcast", "make each batch extent equal on both sides or 1 on one side")
    return tuple(batch), lhs.shape[-2], rhs.shape[-1]


def _infer_batch_matmul(args, attrs) -> Type:
    op = "tile.batch_matmul"
    lhs, rhs = _tile(op, args, 0, "lhs"), _tile(op, args, 1, "rhs")
    batch, m, n = _batch_shape(op, lhs, rhs)
    return TileType(batch + (m, n), _acc_dtype(op, lhs, rhs, attrs), MemorySpace.Acc)


def _infer_batch_matmul_acc(args, attrs) -> Type:
    op = "tile.batch_matmul_acc"
    acc, lhs, rhs = _tile(op, args, 0, "accumulator"), _tile(op, args, 1, "lhs"), _tile(op, args, 2, "rhs")
    batch, m, n = _batch_shape(op, lhs, rhs)
    if not _same_shape(acc.shape, batch + (m, n)):
        raise _fail(op, f"accumulator {_shape_repr(acc.shape)} does not match {_shape_repr(batch + (m, n))}",
                    f"accumulate into a tile of the product's shape {_shape_repr(batch + (m, n))}")
    return TileType(acc.shape, acc.dtype, acc.memory_space or MemorySpace.Acc)


register_op(OpDef(
    "tile.batch_matmul", (Param("lhs", T), Param("rhs", T), Param("out_dtype", A, required=False)),
    _infer_batch_matmul, OpKind.MATMUL, Unit.CUBE, ACC,
    golden=lambda a, k: _mm(a[0], a[1]), pto=None, cost="cube",
))
register_op(OpDef(
    "tile.batch_matmul_acc", (Param("acc", T), Param("lhs", T), Param("rhs", T)),
    _infer_batch_matmul_acc, OpKind.MATMUL, Unit.CUBE, INHERIT0, output_reuses_input=0,
    golden=lambda a, k: _mm_acc(a[0], a[1], a[2]), pto=None, cost="cube",
))


# ------------------------------------------------------------------------------------------------
# vector: elementwise, scalar, unary, cast
# ------------------------------------------------------------------------------------------------


def _infer_binary(name):
    def infer(args, attrs) -> Type:
        a, b = _tile(name, args, 0, "lhs"), _tile(name, args, 1, "rhs")
        if not _same_shape(a.shape, b.shape):
            raise _fail(name, f"operand shapes {_shape_repr(a.shape)} and {_shape_repr(b.shape)} differ",
                        "use row_expand_* / col_expand_* to broadcast a row or column vector")
        if a.dtype != b.dtype:
            raise _fail(name, f"operand dtypes {a.dtype.name} and {b.dtype.name} differ",
                        "cast one operand with pl.tile.cast first")
        return _vec_tile(a.shape, a.dtype, _valid_view(a, b))
    return infer


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum,
}


def _register_vector_family(table: dict, params, infer_of, kind: OpKind, golden_of,
                            float_only: tuple[str, ...] = ()) -> None:
    """Register ``tile.<name>`` (PTO ``t<name>``) for each numpy function of ``table``: a vector op with the
    parameters ``params`` (or ``params(name)``), whose type rule is ``infer_of("tile.<name>")`` and whose golden is
    ``golden_of(fn)``; the ops named in ``float_only``
    take floating-point operands only."""
    for name, fn in table.items():
        register_op(OpDef(
            f"tile.{name}", params(name) if callable(params) else params, infer_of(f"tile.{name}"), kind,
            Unit.VECTOR, VEC,
            golden=golden_of(fn), pto=f"t{name}", cost="vector", extra={"numpy": fn},
            operand_dtypes=FLOAT_ONLY if name in float_only else None,
        ))


# Division, exp, log, sqrt, rsqrt and recip are float math: PyPTO's catalog defines no integer form of them (PTO
# prices them for FP16 / FP32 only), so integer and bool operands are refused rather than given a made-up meaning.
_register_vector_family(_BINARY, (Param("lhs", T), Param("rhs", T)), _infer_binary, OpKind.ELEMENTWISE,
                        lambda fn: lambda a, k: fn(_f32(a[0]), _f32(a[1])), float_only=("div",))


def _scalar_binary_params(name: str) -> tuple[Param, ...]:
    base = name[:-1]  # adds -> add, maxs -> max
    tile_op = {"max": "maximum", "min": "minimum"}.get(base, base)
    return (Param("tile", T), Param("scalar", S, hint=f"pass a number or a pl.Scalar value; to combine two tiles "
                                                        f"use pl.tile.{tile_op}"))


def _infer_scalar_binary(name):
    def infer(args, attrs) -> Type:
        a = args[0].type
        check_integer_scalar(name, a.dtype, args[1] if len(args) > 1 else None)
        return _vec_tile(a.shape, a.dtype, _valid_view(a))
    return infer


_SCALAR_BINARY = {
    "adds": np.add, "subs": np.subtract, "muls": np.multiply, "divs": np.divide,
    "maxs": np.maximum, "mins": np.minimum,
}
_register_vector_family(_SCALAR_BINARY, _scalar_binary_params, _infer_scalar_binary,
                        OpKind.SCALAR_ELEMENTWISE, lambda fn: lambda a, k: fn(_f32(a[0]), scalar_operand(a[0], a[1])),
                        float_only=("divs",))


def _infer_unary(name):
    def infer(args, attrs) -> Type:
        a = _tile(name, args, 0)
        return _vec_tile(a.shape, a.dtype, _valid_view(a))
    return infer


_UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "neg": np.negative,
    "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
}  # recip has two precision variants: ops/reciprocal.py
_register_vector_family(_UNARY, (Param("tile", T),), _infer_unary, OpKind.UNARY,
                        lambda fn: lambda a, k: fn(_f32(a[0])), float_only=("exp", "log", "sqrt", "rsqrt"))


def _round_half_away(x: np.ndarray) -> np.ndarray:
    # x - trunc(x) is exact; floor(x + 0.5) is not (0.49999997 + 0.5 rounds to 1 in FP32)
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0)


#: PyPTO's cast rounding modes, applied on a float -> integer conversion (``ROUND`` rounds ties away from zero,
#: ``RINT`` to even: PyPTO's LowerCompositeOps page); float -> float rounds to nearest even in every mode
CAST_MODES = {"round": _round_half_away, "rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}


CAST_NOTE = ("mode= rounds a float -> integer conversion: round (default; PyPTO's ROUND, nearest with ties away from "
             "zero), rint (ties to even), floor, ceil, trunc; NaN gives 0 and out-of-range values saturate. Float -> "
             "float rounds to nearest even (overflow to inf); integer -> integer wraps")


def check_cast_mode(op: str, mode: Any) -> None:
    if mode is not None and (not isinstance(mode, str) or mode.lower() not in CAST_MODES):
        raise _fail(op, f"mode={mode!r} is not a cast rounding mode",
                    f"use one of {', '.join(repr(m) for m in CAST_MODES)} (round: nearest, ties away from zero; "
                    "rint: nearest, ties to even)")


def _infer_cast(args, attrs) -> Type:
    a = _tile("tile.cast", args, 0)
    dtype = attrs.get("target_type")
    if not isinstance(dtype, DataType):
        raise _fail("tile.cast", "missing target_type=<dtype>",
                    "add target_type=pl.<dtype>, e.g. pl.tile.cast(t, target_type=pl.FP16)")
    check_cast_mode("tile.cast", attrs.get("mode"))
    return _vec_tile(a.shape, dtype, _valid_view(a))


def _golden_cast(a, k):
    x = _f32(a[0])
    if k["target_type"].is_int and np.asarray(x).dtype.kind == "f":
        x = CAST_MODES[str(k.get("mode") or "round").lower()](x)
    return x


register_op(OpDef(
    "tile.cast", (Param("tile", T), Param("target_type", A), Param("mode", A, "round")),
    _infer_cast, OpKind.CAST, Unit.VECTOR, VEC, golden=_golden_cast, pto="tcvt", cost="vector",
    extra={"note": CAST_NOTE},
))


# ------------------------------------------------------------------------------------------------
# vector: reductions and broadcasts
# ------------------------------------------------------------------------------------------------


def _infer_reduction(name, axis):
    """Row reductions reduce the last axis of a tile of any rank >= 2 ([..., M, N] -> [..., M, 1]); column
    reductions reduce the rows of a 2-D tile ([M, N] -> [1, N])."""
    def infer(args, attrs) -> Type:
        a = _tile(name, args, 0)
        if axis == 1:
            if a.rank < 2:
                _require_2d(name, a)
            return _vec_tile(tuple(a.shape[:-1]) + (ConstInt(1),), a.dtype)
        if a.rank != 2:
            raise _fail(name, f"operand must be a 2-D tile, got rank {a.rank}: a column reduction of an N-D tile "
                              "would reduce across batch pages once the tile is flattened to 2-D",
                        "reduce each 2-D page separately (pl.tile.slice / pl.tile.reshape it to [M, N] first), "
                        "or use a row reduction on the transposed data")
        return _vec_tile((ConstInt(1), a.shape[1]), a.dtype)
    return infer


_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}
for _name, _fn in _REDUCE.items():
    for _prefix, _axis, _kind in (("row", 1, OpKind.ROW_REDUCTION), ("col", 0, OpKind.COL_REDUCTION)):
        register_op(OpDef(
            f"tile.{_prefix}_{_name}", (Param("tile", T),), _infer_reduction(f"tile.{_prefix}_{_name}", _axis),
            _kind, Unit.VECTOR, VEC,
            golden=(lambda fn, ax: lambda a, k: fn(_f32(a[0]), axis=-1 if ax == 1 else 0, keepdims=True))(_fn, _axis),
            pto=f"t{_prefix}{_name}", cost="vector", extra={"axis": _axis, "numpy": _fn},
        ))


def _infer_expand(name, axis):
    """axis 1: row broadcast (vector [M, 1]); axis 0: column broadcast (vector [1, N])."""
    def infer(args, attrs) -> Type:
        tgt = _tile(name, args, 0, "target")
        vec = _tile(name, args, 1, "vector")
        if axis == 1:
            ok = _same_extent(vec.shape[0], tgt.shape[0]) and _same_extent(vec.shape[1], ConstInt(1))
            want = f"[{_shape_repr(tgt.shape)[0]}, 1]"
        else:
            ok = _same_extent(vec.shape[1], tgt.shape[1]) and _same_extent(vec.shape[0], ConstInt(1))
            want = f"[1, {_shape_repr(tgt.shape)[1]}]"
        if not ok:
            raise _fail(name, f"vector operand {_shape_repr(vec.shape)} must be {want} for target "
                              f"{_shape_repr(tgt.shape)}",
                        f"pass a {want} vector, e.g. the result of pl.tile.{'row' if axis == 1 else 'col'}_sum / "
                        f"_max / _min of the target, or slice the vector to {want}")
        if tgt.dtype != vec.dtype:
            raise _fail(name, f"operand dtypes {tgt.dtype.name} and {vec.dtype.name} differ",
                        "cast the vector or the target with pl.tile.cast so both share a dtype")
        return _vec_tile(tgt.shape, tgt.dtype, _valid_view(tgt))  # valid where the target is
    return infer


#: the operands of a row / column broadcast: a 2-D target and its [M, 1] / [1, N] vector
EXPAND_PARAMS = (Param("target", T, rank=2), Param("vector", T, rank=2))
_EXPAND = {
    "": lambda t, v: np.broadcast_to(v, t.shape).astype(np.float64),
    "_add": np.add, "_sub": np.subtract, "_mul": np.multiply, "_div": np.divide,
    "_max": np.maximum, "_min": np.minimum,
}
for _prefix, _axis, _kind in (("row", 1, OpKind.ROW_BROADCAST), ("col", 0, OpKind.COL_BROADCAST)):
    _family = dict(_EXPAND)
    if _prefix == "col":
        _family["_expdif"] = lambda t, v: np.exp(t - v)
    for _suffix, _fn in _family.items():
        _nm = f"tile.{_prefix}_expand{_suffix}"
        register_op(OpDef(
            _nm, EXPAND_PARAMS, _infer_expand(_nm, _axis), _kind, Unit.VECTOR, VEC,
            golden=(lambda fn: lambda a, k: fn(_f32(a[0]), _f32(a[1])))(_fn),
            pto=f"t{_prefix}expand{_suffix.lstrip('_')}", cost="vector",
            # the plain broadcast only takes the target's shape (its contents are not read)
            extra={"axis": _axis, **({"shape_only_operands": (0,)} if _suffix == "" else {})},
            operand_dtypes=FLOAT_ONLY if _suffix in ("_div", "_expdif") else None,
        ))


# ------------------------------------------------------------------------------------------------
# scalar: block / sub-block index
# ------------------------------------------------------------------------------------------------

register_op(OpDef(
    "tile.get_block_idx", (), lambda a, k: INDEX, OpKind.INDEX, Unit.SCALAR,
    golden=None, pto="get_block_idx", cost="scalar",
))
register_op(OpDef(
    "tile.get_subblock_idx", (), lambda a, k: INDEX, OpKind.INDEX, Unit.SCALAR,
    golden=None, pto="get_subblock_idx", cost="scalar",
))
register_op(OpDef(
    "tile.get_block_num", (), lambda a, k: INDEX, OpKind.INDEX, Unit.SCALAR,
    golden=None, pto="get_block_num", cost="scalar",
))


# ------------------------------------------------------------------------------------------------
# custom ops: user kernels described by indexing maps and iterator types
# ------------------------------------------------------------------------------------------------

def result_destination_indices(call) -> tuple[int, ...] | None:
    """Operand indices (into ``call.args``) of the destinations of a destination-passing call (registry
    ``results_reuse_segment``): result i is written into ``call.args[indices[i]]``. None when the op does
    not pass destinations."""
    op = op_of(call)
    if op is None or op.results_reuse_segment is None:
        return None
    sizes = call.kwarg("operand_segment_sizes") or ()
    seg = CUSTOM_SEGMENTS.index(op.results_reuse_segment)
    start = sum(sizes[:seg])
    return tuple(range(start, start + (sizes[seg] if seg < len(sizes) else 0)))


def result_destinations(call) -> tuple[Expr, ...] | None:
    """The destination operands of a destination-passing call: result i is written into element i."""
    idx = result_destination_indices(call)
    return None if idx is None else tuple(call.args[i] for i in idx)


def _infer_custom(op: str):
    def infer(args, attrs) -> Type:
        result_types = StructuredView.from_parts(op, args, attrs).verify()
        return result_types[0] if len(result_types) == 1 else TupleType(tuple(result_types))
    return infer


_CUSTOM_ATTRS = (
    Param("symbol", A, required=False),
    Param("indexing_maps", A, required=False),
    Param("iterator_types", A, required=False),
    Param("no_side_effect", A, False),
    Param("builtin", A, False),
    Param("extra_buffers_info", A, ()),
    Param("pipe", A, required=False),
    Param("attrs", A, ()),
)

register_op(OpDef(
    "tile.custom",
    (_CUSTOM_ATTRS[0], Param("ins", ParamKind.TILE_LIST), Param("outs", ParamKind.TILE_LIST),
     Param("tmps", ParamKind.TILE_LIST, required=False)) + _CUSTOM_ATTRS[1:]
    + (Param("operand_segment_sizes", A), Param("tiled_op", A, required=False)),
    _infer_custom("tile.custom"), OpKind.CUSTOM, Unit.VECTOR, MemoryRule(MemoryRuleKind.NONE),
    golden=None, pto="custom", cost="custom", results_reuse_segment="outs",
    extra={"read_segments": ("ins",)},  # the kernel reads only its ins (outs are destinations, tmps scratch)
))
register_op(OpDef(
    "tile.custom_macro",
    (_CUSTOM_ATTRS[0], Param("ins", ParamKind.TILE_LIST), Param("outs", ParamKind.TILE_LIST),
     Param("tmps", ParamKind.TILE_LIST, required=False)) + _CUSTOM_ATTRS[1:]
    + (Param("sync_event_slots", A, ()), Param("sync_related_args", ParamKind.TILE_LIST, required=False),
       Param("operand_segment_sizes", A), Param("tiled_op", A, required=False)),
    _infer_custom("tile.custom_macro"), OpKind.CUSTOM, Unit.VECTOR, MemoryRule(MemoryRuleKind.NONE),
    golden=None, pto="custom_macro", cost="custom", results_reuse_segment="outs",
    extra={"read_segments": ("ins",)},  # the kernel reads only its ins (outs are destinations, tmps scratch)
))


# ------------------------------------------------------------------------------------------------
# tensor.create: a fresh GM tensor (PyPTO's ``pl.create_tensor(shape, dtype=...)`` in orchestration code)
# ------------------------------------------------------------------------------------------------


def _infer_tensor_create(args, attrs) -> Type:
    op = "tensor.create"
    shape = attrs.get("shape")
    if not isinstance(shape, tuple) or not shape:
        raise _fail(op, "shape must be a non-empty list of extents", "e.g. pl.create_tensor([16, 64], dtype=pl.FP32)")
    for e in shape:
        if isinstance(e, bool) or not (isinstance(e, int) or (isinstance(e, Expr) and isinstance(e.type, ScalarType))):
            raise _fail(op, f"shape extent {e!r} is neither an integer nor a scalar expression",
                        "extents are integer constants or scalar (index) variables")
        if isinstance(e, int) and e <= 0:
            raise _fail(op, f"shape extents must be positive, got {list(shape)}", "every extent must be >= 1")
    dtype = attrs.get("dtype")
    if not isinstance(dtype, DataType):
        raise _fail(op, "dtype must be a data type such as pl.FP32", "e.g. dtype=pl.FP32 or dtype=pl.BF16")
    if all(isinstance(e, int) for e in shape) and math.prod(shape) * dtype.storage_bits > MAX_TENSOR_BYTES * 8:
        raise _fail(op, f"a {list(shape)} {dtype.name} tensor is {math.prod(shape) * dtype.storage_bits // 8:,} bytes, "
                        f"above the {MAX_TENSOR_BYTES // 2**20} MiB limit of one tensor in simulated GM",
                    "create a smaller tensor: tilefold models GM byte by byte in host memory")
    return TensorType(make_shape(shape), dtype)


register_op(OpDef(
    "tensor.create", (Param("shape", A), Param("dtype", A, DataType.FP32)),
    _infer_tensor_create, OpKind.CREATE, Unit.NONE, MemoryRule(MemoryRuleKind.NONE),
    golden=lambda a, k: np.zeros(tuple(int(s) for s in k["shape"]), dtype=k["dtype"].np_dtype), pto=None,
    cost="none",
))


# ------------------------------------------------------------------------------------------------
# valid shapes, padding, atomic stores (PyPTO's valid_shapes / fillpad / AtomicType)
# ------------------------------------------------------------------------------------------------

#: The element dtypes a store can add into GM atomically: PyPTO checks "a destination dtype the backend's store
#: pipe can combine" (its AtomicAddDtypeValid property) without listing them; the list is the store pipe's own,
#: AscendC's ``SetAtomicAdd<T>`` on the 910B / 950 class (float, half, bfloat16_t, int32_t, int16_t, int8_t).
#: Floats add in FP32 and round to the tensor's dtype, integers wrap in it. The one place this set is stated:
#: docs/valid_shapes_atomics_writes.md and docs/dsl.md quote it.
ATOMIC_ADD_DTYPES = (DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT32, DataType.INT16, DataType.INT8)


def check_atomic(op: str, atomic: Any, dtype: DataType) -> None:
    """Reject an ``atomic=`` that is not a ``pl.AtomicType``, or an atomic add into an unsupported dtype."""
    if atomic is None or atomic is AtomicType.None_:
        return
    if not isinstance(atomic, AtomicType):
        raise _fail(op, f"atomic={atomic!r} is not a pl.AtomicType",
                    "write atomic=pl.AtomicType.Add (or leave it out for a plain store)")
    if dtype not in ATOMIC_ADD_DTYPES:
        raise _fail(op, f"an atomic add into a {dtype.name} tensor is not supported: the store pipe adds "
                        f"{', '.join(d.name for d in ATOMIC_ADD_DTYPES)} only",
                    "accumulate in FP32 (pl.matmul(..., out_dtype=pl.FP32)) and cast afterwards")


def atomic_add(current: np.ndarray, value: Any) -> np.ndarray:
    """``current + value`` as an atomic store computes it: floats in FP32, integers wrapping in the dtype."""
    cur = np.asarray(current)
    if is_float_dtype(cur.dtype):
        return (cur.astype(np.float32) + np.asarray(value, np.float32)).astype(cur.dtype)
    return (cur.astype(np.int64) + np.asarray(value).astype(np.int64)).astype(cur.dtype)


def _load_valid_shapes(op: str, args: Sequence[Expr], shapes: tuple[Expr, ...]) -> tuple[Expr, ...]:
    valid = _tuple(op, args, 3, "valid_shapes")
    if len(valid) != len(shapes):
        raise _fail(op, f"valid_shapes needs {len(shapes)} entries (one per window axis), got {len(valid)}",
                    f"e.g. valid_shapes={_shape_repr(shapes)}")
    if len(shapes) > 2:
        raise _fail(op, "valid_shapes on an N-D window is not supported (only 1-D and 2-D windows)",
                    "load a 2-D window, or leave valid_shapes out")
    for axis, (v, n) in enumerate(zip(valid, shapes, strict=True)):
        if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
            raise _fail(op, f"valid extent #{axis} must be an integer scalar",
                        "use integer constants or pl.Scalar[pl.INDEX] expressions (e.g. min(n - i, 64))")
        if isinstance(v, ConstInt) and isinstance(n, ConstInt) and not 0 <= v.value <= n.value:
            raise _fail(op, f"valid extent {v.value} on axis {axis} is outside [0, {n.value}] (the window extent)",
                        "a valid extent is at most the window's extent")
    return tuple(valid)


def _undefined_fill(dtype: np.dtype) -> Any:
    """What golden puts in the part of a tile no instruction wrote: NaN for floats (so a value computed from it
    shows), 0 for integers. Kernels must not depend on it (fillpad, or store the valid region only)."""
    return np.nan if is_float_dtype(dtype) else 0


def _golden_valid_load(tensor: np.ndarray, offsets, shapes, valid) -> np.ndarray:
    """The tile a load moving only its valid region gives: the window's valid part, the rest undefined."""
    dtype = np.asarray(tensor).dtype
    ext = [min(max(int(v), 0), int(n)) for v, n in zip(valid, shapes, strict=True)]
    # in the tensor's own dtype where it holds the undefined fill (floats: NaN; numpy ints: 0), so that the moved
    # region keeps its bytes, NaN payloads too; other ml_dtypes (int4) go through float64 as before
    own = dtype.kind in "fiu" or dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")
    tile = np.full(tuple(int(n) for n in shapes), _undefined_fill(dtype), dtype if own else np.float64)
    tile[tuple(slice(0, e) for e in ext)] = _window(tensor, offsets, ext)
    return tile


def pad_value_of(value: Any) -> PadValue:
    """``pl.PadValue`` of a fillpad ``pad_value`` (PyPTO also takes 0, 0.0, math.inf and -math.inf)."""
    if isinstance(value, PadValue):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 0:
            return PadValue.zero
        if value == float("inf"):
            return PadValue.max
        if value == float("-inf"):
            return PadValue.min
    raise _fail("tile.fillpad", f"pad_value={value!r} is not a pl.PadValue",
                "write pl.PadValue.zero, pl.PadValue.min, pl.PadValue.max or pl.PadValue.null (or 0, math.inf, "
                "-math.inf)")


def pad_scalar(pad: PadValue, dtype: np.dtype) -> Any:
    """The element ``pad`` stands for in ``dtype``: 0, or the lowest / highest value (+-inf for floats)."""
    if pad is PadValue.zero:
        return 0
    if is_float_dtype(dtype):
        return -np.inf if pad is PadValue.min else np.inf
    lo, hi = int_range(dtype)  # (int4 / uint4 too)
    return lo if pad is PadValue.min else hi


def _infer_fillpad(args, attrs) -> Type:
    op = "tile.fillpad"
    t = _tile(op, args, 0)
    pad = pad_value_of(attrs.get("pad_value", PadValue.zero))
    view = t.tile_view
    # after the fill every element is defined: the result is fully valid (null fills nothing: it stays partial)
    valid = view.valid_shape if view is not None and pad is PadValue.null else None
    return _vec_tile(t.shape, t.dtype, TileView(valid_shape=valid) if valid is not None else None)


def _golden_fillpad(a, k):
    tile = np.asarray(a[0])
    pad = pad_value_of(k.get("pad_value", PadValue.zero))
    valid = a[1] if len(a) > 1 and a[1] is not None else tile.shape
    # in the tile's dtype: the valid region keeps its bytes (NaN payloads too); an int4 tile pads through float64
    own = tile.dtype.kind in "fiu" or tile.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")
    out = np.array(tile, dtype=None if own else np.float64, copy=True)
    if pad is PadValue.null:
        return out
    mask = np.ones(out.shape, bool)
    mask[tuple(slice(0, min(max(int(v), 0), n)) for v, n in zip(valid, out.shape, strict=False))] = False
    out[mask] = pad_scalar(pad, tile.dtype)
    return out


register_op(OpDef(
    "tile.fillpad", (Param("tile", T, memory=VEC_ONLY), Param("pad_value", A, PadValue.zero)),
    _infer_fillpad, OpKind.UNARY, Unit.VECTOR, VEC, golden=_golden_fillpad, pto="tfillpad", cost="vector",
    # golden / the instruction get the operand's valid extents as a trailing operand (evaluated at run time)
    extra={"reads_valid_shape": True},
))


# ------------------------------------------------------------------------------------------------
# element write into a tile (the scalar unit's store into UB): PyPTO's pl.write on a staged tile
# ------------------------------------------------------------------------------------------------


def check_element_indices(op: str, shape: Sequence[Any], idx: Sequence[Expr], what: str, spelling: str) -> None:
    """One integer index per axis of the ``what`` ("tensor" / "tile"); a constant one inside its extent."""
    if len(idx) != len(shape):
        raise _fail(op, f"{len(idx)} indices given for a rank-{len(shape)} {what}",
                    f"give one index per {what} axis, e.g. {spelling}({what}, {[0] * len(shape)}, ...)")
    for axis, (e, dim) in enumerate(zip(idx, shape, strict=True)):
        if not isinstance(e.type, ScalarType) or e.type.dtype.is_float:
            raise _fail(op, f"index #{axis} must be an integer scalar",
                        "use integer constants or pl.Scalar[pl.INDEX] expressions as indices")
        if isinstance(e, ConstInt) and isinstance(dim, ConstInt) and not 0 <= e.value < dim.value:
            raise _fail(op, f"index {e.value} on axis {axis} is outside the {what} extent {dim.value}",
                        f"use an index in [0, {dim.value - 1}] on axis {axis}")


def _infer_tile_write(args, attrs) -> Type:
    op = "tile.write"
    t = _tile(op, args, 0)
    check_element_indices(op, t.shape, _tuple(op, args, 1, "indices"), "tile", "pl.write")
    v = _scalar(op, args, 2)
    if v.dtype.is_float and not t.dtype.is_float:
        raise _fail(op, f"a {v.dtype.name} value cannot be written into a {t.dtype.name} tile",
                    f"write an integer value into a {t.dtype.name} tile")
    return TileType(t.shape, t.dtype, t.memory_space, None, t.tile_view)


def _golden_tile_write(a, k):
    tile, idx, value = np.array(a[0], copy=True), tuple(int(i) for i in a[1]), a[2]
    for axis, (i, dim) in enumerate(zip(idx, tile.shape, strict=True)):
        if not 0 <= i < dim:
            raise IndexError(f"element index {list(idx)} leaves the tile of shape {list(tile.shape)} on axis {axis}")
    tile[idx] = element_value(value, tile.dtype)
    return tile


register_op(OpDef(
    "tile.write", (Param("tile", T, memory=VEC_ONLY), Param("indices", TUP),
                   Param("value", S, hint="write one element: a scalar expression or constant")),
    _infer_tile_write, OpKind.ELEMENT_WRITE, Unit.SCALAR, INHERIT0, output_reuses_input=0,
    golden=_golden_tile_write, pto="ssetval", cost="scalar",
    # the result is the tile with one element written (tilefold.analysis.uninitialized_reads)
    extra={"window_write": (0, None, 1)},
))


def _infer_tile_read(args, attrs) -> Type:
    op = "tile.read"
    t = _tile(op, args, 0)
    if len(args) < 2 or not isinstance(args[1], MakeTuple):
        raise _fail(op, "the indices must be a list with one entry per tile axis", "write pl.tile.read(tile, [i, j])")
    check_element_indices(op, t.shape, args[1].elements, "tile", "pl.tile.read")
    return ScalarType(t.dtype)


def _golden_tile_read(a, k):
    tile, idx = np.asarray(a[0]), tuple(int(i) for i in a[1])
    for axis, (i, dim) in enumerate(zip(idx, tile.shape, strict=True)):
        if not 0 <= i < dim:
            raise IndexError(f"element index {list(idx)} leaves the tile of shape {list(tile.shape)} on axis {axis}")
    return tile[idx].item()


# one element of a Vec tile into a scalar register (the scalar unit's load from UB, PTO's sgetval)
register_op(OpDef(
    "tile.read", (Param("tile", T, memory=VEC_ONLY), Param("indices", TUP)),
    _infer_tile_read, OpKind.ELEMENT_READ, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE),
    golden=_golden_tile_read, pto="sgetval", cost="scalar",
))



# ------------------------------------------------------------------------------------------------
# tile concat / assemble (the tile forms of pl.concat / pl.assemble): vector copies into a fresh Vec tile
# ------------------------------------------------------------------------------------------------


def _static_2d(op: str, t: TileType, what: str) -> tuple[int, int]:
    shape = t.static_shape
    if shape is None:
        raise _fail(op, f"the {what} needs a static shape", "use tiles of constant extents")
    return shape


def _infer_tile_concat(args, attrs) -> Type:
    op = "tile.concat"
    a, b = _tile(op, args, 0, "lhs"), _tile(op, args, 1, "rhs")
    (m, n1), (m2, n2) = _static_2d(op, a, "lhs"), _static_2d(op, b, "rhs")
    if m != m2 or a.dtype is not b.dtype:
        raise _fail(op, f"cannot join [{m}, {n1}] {a.dtype.name} and [{m2}, {n2}] {b.dtype.name} along columns",
                    "pl.concat joins two tiles with the same row count and dtype along axis 1")
    return _vec_tile(make_shape((m, n1 + n2)), a.dtype)


register_op(OpDef(
    "tile.concat", (Param("lhs", T, rank=2), Param("rhs", T, rank=2)), _infer_tile_concat, OpKind.OTHER,
    Unit.VECTOR, VEC,
    golden=lambda a, k: np.concatenate([np.asarray(a[0]), np.asarray(a[1])], axis=1), pto="tconcat", cost="vector",
    extra={"whole_tile_operands": True},  # the result is fully valid: a partial operand's padding would be data
))


def _infer_tile_assemble(args, attrs) -> Type:
    op = "tile.assemble"
    dst, src = _tile(op, args, 0, "target"), _tile(op, args, 1, "value")
    dshape, sshape = _static_2d(op, dst, "target"), _static_2d(op, src, "value")
    offs = _tuple(op, args, 2, "offsets")
    if len(offs) != 2:
        raise _fail(op, "give one offset per tile axis", "e.g. pl.tile.assemble(target, value, [0, 64])")
    for axis, (o, e, d) in enumerate(zip(offs, sshape, dshape, strict=True)):
        if isinstance(o, ConstInt) and not 0 <= o.value <= d - e or e > d:
            raise _fail(op, f"the value [{getattr(o, 'value', '?')}:+{e}) on axis {axis} leaves the target "
                            f"extent {d}", f"write a value that fits inside [0, {d})")
    if src.dtype is not dst.dtype:
        raise _fail(op, f"value dtype {src.dtype.name} differs from target dtype {dst.dtype.name}",
                    f"cast the value first: pl.cast(value, target_type=pl.{dst.dtype.name})")
    return _vec_tile(dst.shape, dst.dtype)


def _golden_tile_assemble(a, k):
    dst, src, offs = np.array(a[0], copy=True), np.asarray(a[1]), [int(o) for o in a[2]]
    for axis, (o, e, d) in enumerate(zip(offs, src.shape, dst.shape, strict=True)):
        if not 0 <= o <= d - e:
            raise IndexError(f"tile.assemble: the value [{o}:{o + e}) leaves the target extent {d} on axis {axis}")
    dst[offs[0]:offs[0] + src.shape[0], offs[1]:offs[1] + src.shape[1]] = src
    return dst


register_op(OpDef(
    "tile.assemble", (Param("target", T, rank=2), Param("value", T, rank=2), Param("offsets", TUP)),
    _infer_tile_assemble, OpKind.OTHER, Unit.VECTOR, VEC, golden=_golden_tile_assemble, pto="tassemble", cost="vector",
    # the result is the target with the value's window written; the target's other elements pass through
    # unread (tilefold.analysis.uninitialized_reads tracks which elements of a created target are written)
    extra={"window_write": (0, 1, 2), "whole_tile_operands": True},
))
