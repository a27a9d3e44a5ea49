"""Ops that address elements by index or generate them (issue 19): consecutive integers (``ci`` / ``arange``),
counter-based random numbers, the 32-element sort and the merge of sorted runs, gathers and scatters inside UB
(``gather``, ``scatter``, ``scatter_update``), row gathers and scatters between a GM tensor and a tile by an index
tile (``mgather``, ``mscatter``), the L2 prefetch hint, ``expand_clone`` and ``fillpad_expand``.

Each op is declared once, tile form and (where PyPTO's catalog reaches it through ``pl.``) tensor form; the tensor
form names its tile op (``extra["tile_op"]``) and ConvertTensorToTileOps lowers it on whole tiles. The vector ops
are one vector instruction each, computed by the golden below (the simulator runs the same function on the bytes
it reads from UB); ``mgather`` / ``mscatter`` are DMA instructions of their own (``backend.pto.TIndirect``).

Semantics tilefold fixes where PyPTO's pages are silent (each is repeated in the op's ``extra["note"]``, which
``docs/ops.md`` prints, and listed in docs/op_reference.md):

- an index outside its axis is a fault (golden: ``IndexError``; the simulator: ``OutOfBounds``), never a wrap;
  ``mgather``'s ``gather_oob=`` chooses another policy (``"zero"``: the row reads as zeros; ``"clamp"``: the
  nearest row); ``mscatter`` skips a row whose index is negative (the mask) and faults past the last row;
- where two indices name one destination element, the later one (row-major order of the index tile) wins;
- ``sort32`` sorts each 32-element block of a row (FP32 or FP16) in descending order, ties in index order, NaN
  last, and writes 8-byte (value, index) structures as PTO's TSORT32 does (the index's 32 bits in the last 4 bytes);
- ``random`` is counter-based: element k (row-major) of a tile is ``splitmix64(seed * 2**32 + k)``, its top
  mantissa-width bits scaled into [0, 1) for floats, its low bits for integers. PyPTO's catalog says only
  "random-filled tensor"; this generator is tilefold's choice, reproducible on every target;
- ``prefetch`` has no numerical effect and no price: tilefold models no L2, so it cannot make a later load
  cheaper, and charging it would report a slowdown the device does not have.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, MemorySpace, PadValue, TensorType, TileType, TileView, Type
from tilefold.ops import tensor_ops as _tn
from tilefold.ops import tile_ops as _tl
from tilefold.ops.registry import (
    FLOAT_ONLY,
    INT_ONLY,
    MemoryRule,
    MemoryRuleKind,
    OpDef,
    OpKind,
    Param,
    ParamKind,
    Unit,
    register_op,
    register_spelling,
)

T = ParamKind.TILE
V = ParamKind.TILE_OR_TENSOR
S = ParamKind.SCALAR
A = ParamKind.ATTR
VEC_ONLY = _tl.VEC_ONLY
#: an index operand: a 2-D Vec tile of integers
INDEX = {"memory": VEC_ONLY, "rank": 2, "dtypes": INT_ONLY}

register_spelling("arange", "ci")


def _fail(op: str, msg: str, hint: str) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _static(op: str, t: Any, what: str, rank: int | None = None) -> tuple[int, ...]:
    shape = t.static_shape
    if shape is None:
        raise _fail(op, f"the {what} needs a static shape", f"give the {what} constant extents")
    if rank is not None and len(shape) != rank:
        raise _fail(op, f"the {what} has rank {len(shape)}; {op} takes rank {rank}", f"give the {what} {rank} extents")
    return tuple(shape)


def _result(op: str, shape: Sequence[int], dtype: DataType, view: TileView | None = None) -> Type:
    """A Vec tile of ``shape`` for a tile op, a tensor for its tensor form."""
    if op.startswith("tensor."):
        return TensorType(make_shape(tuple(shape)), dtype)
    return _tl._vec_tile(make_shape(tuple(shape)), dtype, view)


def _shape_attr(op: str, attrs: dict[str, Any], rank: int | None = None) -> tuple[int, ...]:
    shape = _tl._int_attr_list(op, attrs.get("shape"), "shape")
    if not shape or any(s <= 0 for s in shape):
        raise _fail(op, f"shape extents must be positive, got {list(shape)}", "e.g. shape=[16, 64]")
    if rank is not None and len(shape) != rank:
        raise _fail(op, f"shape {list(shape)} has {len(shape)} extents; {op} makes a rank-{rank} tile",
                    "e.g. shape=[16, 64]")
    return shape


def _dim(op: str, attrs: dict[str, Any], allowed: tuple[int, ...] = (0, 1, -1, -2)) -> int:
    dim = attrs.get("dim")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim not in allowed:
        raise _fail(op, f"dim={dim!r} is not an axis of a 2-D operand",
                    f"use dim= one of {', '.join(map(str, allowed))}")
    return dim % 2


class IndexOutOfRange(IndexError):
    """An index operand names an element outside the axis it indexes; ``element`` is where it sits in the index
    tile (so a fault on a split tile can be told in the coordinates of the whole tile: ``at``)."""

    def __init__(self, op: str, value: int, element: list[int], limit: int, axis: str) -> None:
        self.op, self.value, self.element, self.limit, self.axis = op, value, element, limit, axis
        super().__init__(self.at(element))

    def at(self, element: list[int]) -> str:
        return (f"{self.op}: index {self.value} at element {element} of the index tile is outside "
                f"[0, {self.limit}) ({self.axis})")


def _checked_index(op: str, idx: np.ndarray, limit: int, axis: str) -> np.ndarray:
    idx = np.asarray(idx).astype(np.int64)
    bad = np.flatnonzero((idx < 0) | (idx >= limit))
    if bad.size:
        k = int(bad[0])
        where = [int(e) for e in np.unravel_index(k, idx.shape)]
        raise IndexOutOfRange(op, int(idx.flat[k]), where, limit, axis)
    return idx


def _last_wins(targets: np.ndarray) -> np.ndarray:
    """A mask of the positions of ``targets`` (flat destination numbers, in write order) that are not overwritten
    by a later position naming the same destination."""
    flat = np.asarray(targets).ravel()
    _, first_of_reversed = np.unique(flat[::-1], return_index=True)
    keep = np.zeros(flat.size, bool)
    keep[flat.size - 1 - first_of_reversed] = True
    return keep


# ------------------------------------------------------------------------------------------------
# ci (arange): consecutive integers
# ------------------------------------------------------------------------------------------------

_CI_NOTE = ("element k of the tile in row-major order is start + k (descending=True: start - k), wrapped to the "
            "integer dtype")


def _infer_ci(name: str):
    def infer(args, attrs) -> Type:
        shape = _shape_attr(name, attrs)
        dtype = attrs.get("dtype")
        if not isinstance(dtype, DataType) or not dtype.is_int:
            raise _fail(name, f"dtype={dtype!r} is not an integer dtype", "ci makes integers: dtype=pl.INT32")
        if args[0].type.dtype.is_float:
            raise _fail(name, "start must be an integer", "pass an integer constant or a pl.Scalar[pl.INDEX]")
        if not isinstance(attrs.get("descending", False), bool):
            raise _fail(name, f"descending={attrs.get('descending')!r} is not True or False",
                        "descending=True counts down from start; the default False counts up")
        return _result(name, shape, dtype)
    return infer


def _golden_ci(a, k):
    n = int(np.prod(k["shape"]))
    step = -1 if k.get("descending") else 1
    return (int(a[0]) + step * np.arange(n, dtype=np.int64)).reshape(k["shape"])


_CI_PARAMS = (Param("start", S, hint="start is an integer: a constant or a pl.Scalar[pl.INDEX]"), Param("shape", A),
              Param("dtype", A, DataType.INT32), Param("descending", A, False))
register_op(OpDef("tile.ci", _CI_PARAMS, _infer_ci("tile.ci"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_ci, pto="tci", cost="vector", extra={"note": _CI_NOTE}))
_tn._declare("ci", _CI_PARAMS, _infer_ci("tensor.ci"), OpKind.OTHER, _golden_ci, "tile.ci", note=_CI_NOTE)


# ------------------------------------------------------------------------------------------------
# random: counter-based, keyed by a seed
# ------------------------------------------------------------------------------------------------

_RANDOM_NOTE = ("counter-based: element k (row-major) is splitmix64(seed * 2**32 + offset + k); floats take its top "
                "mantissa-width bits (24 FP32, 11 FP16, 8 BF16) as a fraction in [0, 1), integers its low bits "
                "(two's complement). offset (a scalar, default 0) starts the counter further on: a tile of rows "
                "[r, r + R) of a [M, N] random tensor is random(offset=r * N, shape=[R, N]), bit for bit. PyPTO does "
                "not specify a generator: this one is tilefold's")
_MANTISSA = {"float32": 24, "float16": 11, "bfloat16": 8}
_M64 = (1 << 64) - 1


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser of counters ``x`` (uint64, wrapping)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _infer_random(name: str):
    def infer(args, attrs) -> Type:
        shape = _shape_attr(name, attrs)
        dtype = attrs.get("dtype")
        if not isinstance(dtype, DataType) or not (dtype.is_int or dtype.np_dtype.name in _MANTISSA):
            raise _fail(name, f"dtype={dtype!r} is not FP32 / FP16 / BF16 or an integer dtype",
                        "e.g. dtype=pl.FP32 (uniform in [0, 1)) or dtype=pl.INT32 (uniform bits)")
        seed = attrs.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
            raise _fail(name, f"seed={seed!r} is not an integer in [0, 2**32)", "e.g. seed=0 or seed=1234")
        if args and args[0].type.dtype.is_float:
            raise _fail(name, "offset must be an integer", "pass an integer constant or a pl.Scalar[pl.INDEX]")
        return _result(name, shape, dtype)
    return infer


def _golden_random(a, k):
    shape, dtype = tuple(k["shape"]), k["dtype"]
    n = int(np.prod(shape))
    start = ((int(k.get("seed") or 0) << 32) + (int(a[0]) if a and a[0] is not None else 0)) % (1 << 64)
    with np.errstate(over="ignore"):
        counters = np.uint64(start) + np.arange(n, dtype=np.uint64)
    bits = splitmix64(counters)
    width = _MANTISSA.get(dtype.np_dtype.name)
    if width is not None:
        return ((bits >> np.uint64(64 - width)).astype(np.float64) / float(1 << width)).reshape(shape)
    ibits = dtype.np_dtype.itemsize * 8
    low = (bits & np.uint64((1 << ibits) - 1)).astype(np.uint64)
    return low.astype(np.dtype(f"u{dtype.np_dtype.itemsize}")).view(dtype.np_dtype).reshape(shape)


_RANDOM_PARAMS = (Param("shape", A), Param("dtype", A, DataType.FP32), Param("seed", A, 0),
                  Param("offset", S, required=False, hint="offset is an integer: a constant or a pl.Scalar[pl.INDEX]"))
register_op(OpDef("tile.random", _RANDOM_PARAMS, _infer_random("tile.random"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_random, pto="trandom", cost="vector", extra={"note": _RANDOM_NOTE}))
_tn._declare("random", _RANDOM_PARAMS, _infer_random("tensor.random"), OpKind.OTHER, _golden_random, "tile.random",
             note=_RANDOM_NOTE)


# ------------------------------------------------------------------------------------------------
# sort32 / mrgsort: (value, index) pairs
# ------------------------------------------------------------------------------------------------

_SORT_NOTE = ("each 32-element block of a row sorted in descending order (ties in index order, NaN last); the "
              "result row holds one 8-byte (value, index) structure per element, as PTO's TSORT32 writes it: FP32 "
              "[value, index bits] ([rows, 2 * cols]), FP16 [value, 0, index low half, index high half] "
              "([rows, 4 * cols])")
_MRG_NOTE = ("one source: a row of sort32 structures holding sorted runs of block_len (default 32) structures, each "
             "group of 4 consecutive runs merged into one descending run (ties keep the earlier run first); 2-4 "
             "sources (TMRGSORT's multi-list form, no block_len): per row, each source row is one descending list, "
             "and the result row is all of them merged (ties: the earlier source first), as wide as the sources "
             "together")
#: elements per 8-byte (value, index) structure, by value dtype
_STRIDE = {DataType.FP32: 2, DataType.FP16: 4}


def _sort_dtype(name: str, t: Any) -> int:
    stride = _STRIDE.get(t.dtype)
    if stride is None:
        raise _fail(name, f"the source is {t.dtype.name}; the sort instructions take FP32 or FP16 values",
                    "cast the values first: pl.tile.cast(x, target_type=pl.FP32)")
    return stride


def _infer_sort32(name: str):
    def infer(args, attrs) -> Type:
        src, idx = args[0].type, args[1].type
        stride = _sort_dtype(name, src)
        rows, cols = _static(name, src, "source")
        if cols % 32:
            raise _fail(name, f"the source has {cols} columns, not a multiple of 32",
                        "sort32 sorts blocks of 32 elements: pad the row to a multiple of 32 (e.g. with -inf)")
        if _static(name, idx, "index tile") != (rows, cols) or idx.dtype.np_dtype.itemsize != 4:
            raise _fail(name, f"the index tile must be [{rows}, {cols}] of a 4-byte integer dtype",
                        "pass the element indices as an INT32 / UINT32 tile of the source's shape (pl.tile.ci)")
        return _result(name, (rows, stride * cols), src.dtype)
    return infer


def _structures(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(value, index) structures of PTO's sort instructions: 8 bytes each, the value first, the index's 32 bits in
    the last 4 bytes (FP32: [value, index]; FP16: [value, 0, index low, index high]); one row per value row."""
    rows, n = values.shape
    if values.dtype == np.float32:
        out = np.empty((rows, n, 2), np.uint32)
        out[..., 0] = values.view(np.uint32)
        out[..., 1] = indices
        return out.reshape(rows, 2 * n).view(np.float32)
    out16 = np.zeros((rows, n, 4), np.uint16)
    out16[..., 0] = values.view(np.uint16)
    out16[..., 2:] = np.ascontiguousarray(indices).view(np.uint16).reshape(rows, n, 2)
    return out16.reshape(rows, 4 * n).view(np.float16)


def _descending(v: np.ndarray) -> np.ndarray:
    """Per last axis: the order sorting ``v`` descending, ties in position order, NaN last."""
    nan = np.isnan(v)
    key = -np.where(nan, -np.inf, v.astype(np.float64))
    return np.lexsort((np.broadcast_to(np.arange(v.shape[-1]), v.shape), key, nan), axis=-1)


def _golden_sort32(a, k):
    src = np.asarray(a[0])
    src = src if src.dtype in (np.float32, np.float16) else src.astype(np.float32)
    idx = np.asarray(a[1]).astype(np.int64).astype(np.uint32)
    rows, cols = src.shape
    blocks = src.reshape(rows, cols // 32, 32)
    order = _descending(blocks)
    values = np.take_along_axis(blocks, order, axis=-1).reshape(rows, cols)
    indices = np.take_along_axis(idx.reshape(rows, cols // 32, 32), order, axis=-1).reshape(rows, cols)
    return _structures(values, indices)


def _infer_mrgsort(name: str):
    def infer(args, attrs) -> Type:
        srcs = [a.type for a in args if a is not None]
        src = srcs[0]
        stride = _sort_dtype(name, src)
        rows, cols = _static(name, src, "source")
        block = attrs.get("block_len")
        if len(srcs) > 1:
            return _result(name, (rows, _merged_cols(name, srcs, stride, rows, block)), src.dtype)
        block = 32 if block is None else block
        if isinstance(block, bool) or not isinstance(block, int) or block <= 0 or cols % stride \
                or (cols // stride) % block:
            raise _fail(name, f"block_len={block!r} does not divide the row's {cols // stride} (value, index) "
                              "structures", "block_len is the length of each sorted run, e.g. 32 after "
                                            "pl.tile.sort32")
        return _result(name, (rows, cols), src.dtype)
    return infer


def _merged_cols(name: str, srcs: list[Any], stride: int, rows: int, block: Any) -> int:
    """The columns of the multi-source merge's result (the sources' columns added), each source checked."""
    if block is not None:
        raise _fail(name, "block_len= applies to the one-source form (runs inside one row)",
                    "with 2-4 sources each source row is one sorted list: drop block_len")
    total = 0
    for k, t in enumerate(srcs):
        if t.dtype is not srcs[0].dtype:
            raise _fail(name, f"source {k} is {t.dtype.name}, source 0 {srcs[0].dtype.name}",
                        "merge lists of one value dtype")
        r, c = _static(name, t, f"source {k}")
        if r != rows or c % stride:
            raise _fail(name, f"source {k} is [{r}, {c}]; every source needs {rows} rows of whole "
                              f"{stride}-element (value, index) structures",
                        "pass sort32 / mrgsort results with the same number of rows")
        total += c
    return total


def _golden_mrgsort(a, k):
    srcs = [np.asarray(x) for x in a if x is not None]
    if len(srcs) > 1:
        return merge_lists(srcs)
    src = srcs[0]
    stride = 2 if src.dtype == np.float32 else 4
    rows, cols = src.shape
    items = src.reshape(rows, cols // stride, stride)
    group = 4 * int(k.get("block_len") or 32)
    out = items.copy()
    for start in range(0, cols // stride, group):
        part = items[:, start:start + group]
        order = _descending(part[..., 0])
        out[:, start:start + group] = np.take_along_axis(part, order[..., None], axis=1)
    return out.reshape(rows, cols)


def merge_lists(srcs: list[np.ndarray]) -> np.ndarray:
    """TMRGSORT's multi-list form: per row, the 2-4 descending lists of (value, index) structures merged into one
    descending list (a stable merge: on equal values the earlier source first, then list order; NaN last)."""
    stride = 2 if srcs[0].dtype == np.float32 else 4
    rows = srcs[0].shape[0]
    items = np.concatenate([s.reshape(rows, -1, stride) for s in srcs], axis=1)
    order = _descending(items[..., 0])
    return np.take_along_axis(items, order[..., None], axis=1).reshape(rows, -1)


_SORT_PARAMS = (Param("src", T, memory=VEC_ONLY, rank=2, dtypes=FLOAT_ONLY), Param("idx", T, **INDEX))
register_op(OpDef("tile.sort32", _SORT_PARAMS, _infer_sort32("tile.sort32"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_sort32, pto="tsort32", cost="vector", extra={
                      "note": _SORT_NOTE, "whole_tile_operands": True}))
_tn._declare("sort32", (Param("src", V, rank=2), Param("idx", V, rank=2)), _infer_sort32("tensor.sort32"),
             OpKind.OTHER, _golden_sort32, "tile.sort32", note=_SORT_NOTE)
_SORTED = {"memory": VEC_ONLY, "rank": 2, "dtypes": FLOAT_ONLY}
_MRG_PARAMS = (Param("src", T, **_SORTED), *(Param(f"src{k}", T, required=False, **_SORTED) for k in (1, 2, 3)),
               Param("block_len", A, required=False))
register_op(OpDef("tile.mrgsort", _MRG_PARAMS, _infer_mrgsort("tile.mrgsort"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_mrgsort, pto="tmrgsort", cost="vector", min_args=1, extra={
                      "note": _MRG_NOTE, "whole_tile_operands": True}))
_tn._declare("mrgsort", (Param("src", V, rank=2), *(Param(f"src{k}", V, rank=2, required=False) for k in (1, 2, 3)),
                         Param("block_len", A, required=False)), _infer_mrgsort("tensor.mrgsort"),
             OpKind.OTHER, _golden_mrgsort, "tile.mrgsort", note=_MRG_NOTE)


# ------------------------------------------------------------------------------------------------
# gather / scatter / scatter_update inside UB (torch semantics along dim)
# ------------------------------------------------------------------------------------------------

_GATHER_NOTE = ("out[i, j] = src[index[i, j], j] (dim=0) or src[i, index[i, j]] (dim=1 / -1); the result has the "
                "index's shape; an index outside the axis is a fault")
_SCATTER_NOTE = ("a copy of input with input[index[i, j], j] = src[i, j] (dim=0) or input[i, index[i, j]] = src[i, j] "
                 "(dim=1 / -1); a later index (row-major) wins over an earlier one naming the same element; an index "
                 "outside the axis is a fault")
_UPDATE_NOTE = ("whole-row update (dim=-2 only): a copy of input with input[index.flat[k], :] = src[k, :]; a later "
                "k wins over an earlier one naming the same row; a row index outside input is a fault")


def _infer_gather(name: str):
    def infer(args, attrs) -> Type:
        dim = _dim(name, attrs)
        src, index = args[0].type, args[1].type
        (m, n), (p, q) = _static(name, src, "source"), _static(name, index, "index")
        if (dim == 0 and q > n) or (dim == 1 and p > m):
            raise _fail(name, f"index [{p}, {q}] is wider than the source [{m}, {n}] off the gathered axis",
                        "the index may not exceed the source on the axis it does not index")
        return _result(name, (p, q), src.dtype)
    return infer


def _golden_gather(a, k):
    src, dim = np.asarray(a[0]), int(k["dim"]) % 2
    idx = _checked_index("gather", a[1], src.shape[dim], f"axis {dim} of the source")
    p, q = idx.shape
    return np.take_along_axis(src[:, :q] if dim == 0 else src[:p, :], idx, axis=dim).copy()


def _infer_scatter(name: str):
    def infer(args, attrs) -> Type:
        dim = _dim(name, attrs)
        inp, index, src = args[0].type, args[1].type, args[2].type
        (m, n), (p, q), (r, c) = (_static(name, inp, "input"), _static(name, index, "index"),
                                  _static(name, src, "source"))
        if p > r or q > c or (dim == 0 and q > n) or (dim == 1 and p > m):
            raise _fail(name, f"index [{p}, {q}] does not fit the source [{r}, {c}] / input [{m}, {n}]",
                        "the index may not exceed the source, nor the input on the axis it does not index")
        if src.dtype is not inp.dtype:
            raise _fail(name, f"source dtype {src.dtype.name} differs from input dtype {inp.dtype.name}",
                        "cast the source first")
        return _result(name, (m, n), inp.dtype)
    return infer


def _golden_scatter(a, k):
    out, dim = np.array(a[0], copy=True), int(k["dim"]) % 2
    idx = _checked_index("scatter", a[1], out.shape[dim], f"axis {dim} of the input")
    src = np.asarray(a[2])[:idx.shape[0], :idx.shape[1]]
    rows, cols = np.indices(idx.shape)
    if dim == 0:
        rows = idx
    else:
        cols = idx
    keep = _last_wins(rows * out.shape[1] + cols)
    out[rows.ravel()[keep], cols.ravel()[keep]] = src.ravel()[keep]
    return out


def _infer_scatter_update(name: str):
    def infer(args, attrs) -> Type:
        _dim(name, attrs, (-2, 0))
        inp, index, src = args[0].type, args[1].type, args[2].type
        (m, d), (r, c) = _static(name, inp, "input"), _static(name, src, "source")
        n = int(np.prod(_static(name, index, "index")))
        if n != r or c != d:
            raise _fail(name, f"{n} row indices and a source [{r}, {c}] do not update rows of [{m}, {d}]",
                        "give one index per source row, and a source as wide as the input")
        if src.dtype is not inp.dtype:
            raise _fail(name, f"source dtype {src.dtype.name} differs from input dtype {inp.dtype.name}",
                        "cast the source first")
        return _result(name, (m, d), inp.dtype)
    return infer


def _golden_scatter_update(a, k):
    out = np.array(a[0], copy=True)
    rows = _checked_index("scatter_update", np.asarray(a[1]).ravel(), out.shape[0], "rows of the input")
    keep = _last_wins(rows)
    out[rows[keep]] = np.asarray(a[2])[keep]
    return out


_DIM = Param("dim", A)
register_op(OpDef("tile.gather", (Param("src", T, memory=VEC_ONLY, rank=2), _DIM, Param("index", T, **INDEX)),
                  _infer_gather("tile.gather"), OpKind.OTHER, Unit.VECTOR, _tl.VEC, golden=_golden_gather,
                  pto="tgather", cost="vector", extra={
                      "note": _GATHER_NOTE, "whole_tile_operands": True}))
_tn._declare("gather", (Param("src", V, rank=2), _DIM, Param("index", V, rank=2, dtypes=INT_ONLY)),
             _infer_gather("tensor.gather"), OpKind.OTHER, _golden_gather, "tile.gather", note=_GATHER_NOTE)
register_op(OpDef("tile.scatter", (Param("input", T, memory=VEC_ONLY, rank=2), _DIM, Param("index", T, **INDEX),
                                   Param("src", T, memory=VEC_ONLY, rank=2)),
                  _infer_scatter("tile.scatter"), OpKind.OTHER, Unit.VECTOR, _tl.VEC, golden=_golden_scatter,
                  pto="tscatter", cost="vector", extra={
                      "note": _SCATTER_NOTE, "whole_tile_operands": True}))
_tn._declare("scatter", (Param("input", V, rank=2), _DIM, Param("index", V, rank=2, dtypes=INT_ONLY),
                         Param("src", V, rank=2)),
             _infer_scatter("tensor.scatter"), OpKind.OTHER, _golden_scatter, "tile.scatter", note=_SCATTER_NOTE)
_DIM_ROWS = Param("dim", A, -2)
register_op(OpDef("tile.scatter_update", (Param("input", T, memory=VEC_ONLY, rank=2), _DIM_ROWS,
                                          Param("index", T, **INDEX), Param("src", T, memory=VEC_ONLY, rank=2)),
                  _infer_scatter_update("tile.scatter_update"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_scatter_update, pto="tscatterupdate", cost="vector", extra={
                      "note": _UPDATE_NOTE, "whole_tile_operands": True}))
_tn._declare("scatter_update", (Param("input", V, rank=2), _DIM_ROWS, Param("index", V, rank=2, dtypes=INT_ONLY),
                                Param("src", V, rank=2)),
             _infer_scatter_update("tensor.scatter_update"), OpKind.OTHER, _golden_scatter_update,
             "tile.scatter_update", note=_UPDATE_NOTE)


# ------------------------------------------------------------------------------------------------
# expand_clone / fillpad_expand
# ------------------------------------------------------------------------------------------------

_EXPAND_NOTE = "src ([1, N], [M, 1], [1, 1] or [M, N]) broadcast to shape [M, N] and copied into a fresh tile"
_FILLPAD_EXPAND_NOTE = ("a tile of the larger shape: the source's valid region at [0, 0], every other element the "
                        "pad value (0, or the dtype's lowest / highest value, +-inf for floats)")


def _infer_expand_clone(name: str):
    def infer(args, attrs) -> Type:
        src = args[0].type
        (a, b), (m, n) = _static(name, src, "source", 2), _shape_attr(name, attrs, 2)
        if a not in (1, m) or b not in (1, n):
            raise _fail(name, f"[{a}, {b}] does not broadcast to [{m}, {n}]",
                        "each source extent must be 1 or the target extent")
        return _result(name, (m, n), src.dtype)
    return infer


_EXPAND_PARAMS = (Param("src", T, rank=2), Param("shape", A))
register_op(OpDef("tile.expand_clone", _EXPAND_PARAMS, _infer_expand_clone("tile.expand_clone"), OpKind.OTHER,
                  Unit.VECTOR, _tl.VEC, golden=lambda a, k: np.broadcast_to(np.asarray(a[0]), k["shape"]).copy(),
                  pto="texpandclone", cost="vector", extra={
                      "note": _EXPAND_NOTE, "whole_tile_operands": True}))
_tn._declare("expand_clone", (Param("src", V, rank=2), Param("shape", A)), _infer_expand_clone("tensor.expand_clone"),
             OpKind.OTHER, lambda a, k: np.broadcast_to(np.asarray(a[0]), k["shape"]).copy(), "tile.expand_clone",
             note=_EXPAND_NOTE)


def _infer_fillpad_expand(args, attrs) -> Type:
    op = "tile.fillpad_expand"
    src = args[0].type
    (a, b), (m, n) = _static(op, src, "source", 2), _shape_attr(op, attrs, 2)
    if len(src.shape) != 2 or len((m, n)) != 2 or a > m or b > n:
        raise _fail(op, f"[{a}, {b}] does not fit in shape [{m}, {n}]", "the target shape contains the source's")
    pad = _tl.pad_value_of(attrs.get("pad_value", PadValue.zero))
    if pad is PadValue.null:
        raise _fail(op, "pad_value=pl.PadValue.null leaves the expansion undefined", "pick zero, min or max")
    return _result(op, (m, n), src.dtype)


def _golden_fillpad_expand(a, k):
    src = np.asarray(a[0])
    pad = _tl.pad_value_of(k.get("pad_value", PadValue.zero))
    valid = a[1] if len(a) > 1 and a[1] is not None else src.shape
    r, c = (min(max(int(v), 0), s) for v, s in zip(valid, src.shape, strict=True))
    # in the source's dtype (the valid region keeps its bytes, NaN payloads too); an int4 tile through float64
    own = src.dtype.kind in "fiu" or src.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")
    out = np.full(tuple(k["shape"]), _tl.pad_scalar(pad, src.dtype), dtype=src.dtype if own else np.float64)
    out[:r, :c] = src[:r, :c]
    return out


register_op(OpDef("tile.fillpad_expand", (Param("tile", T, memory=VEC_ONLY, rank=2), Param("shape", A),
                                          Param("pad_value", A, PadValue.zero)),
                  _infer_fillpad_expand, OpKind.OTHER, Unit.VECTOR, _tl.VEC, golden=_golden_fillpad_expand,
                  pto="tfillpadexpand", cost="vector",
                  extra={"note": _FILLPAD_EXPAND_NOTE, "reads_valid_shape": True}))


# ------------------------------------------------------------------------------------------------
# mgather / mscatter: rows between a GM tensor and a tile, by an index tile (indirect DMA)
# ------------------------------------------------------------------------------------------------

#: mgather's policies for a row index outside the tensor
GATHER_OOB = ("error", "zero", "clamp")
_MGATHER_NOTE = ("row k of the result is row index.flat[k] of the GM tensor (index [n, 1] or [1, n]); gather_oob= "
                 "'error' (default: an index outside the tensor faults), 'zero' (that row reads as zeros) or "
                 "'clamp' (the nearest row); coalesce=True prices runs of consecutive indices as one DMA block")
_MSCATTER_NOTE = ("row k of src is written to row index.flat[k] of the GM tensor; a negative index masks the row "
                  "(not written), an index past the last row faults; a later k wins over an earlier one")


def _index_count(op: str, t: TileType) -> int:
    p, q = _static(op, t, "index tile")
    if p != 1 and q != 1:
        raise _fail(op, f"the index tile is [{p}, {q}]; it must be one row or one column", "use an [n, 1] index tile")
    return p * q


def _infer_mgather(args, attrs) -> Type:
    op = "tile.mgather"
    tensor, index = args[0].type, args[1].type
    _, cols = _static(op, tensor, "tensor")
    if attrs.get("gather_oob", "error") not in GATHER_OOB:
        raise _fail(op, f"gather_oob={attrs.get('gather_oob')!r} is not a policy",
                    f"use one of {', '.join(repr(p) for p in GATHER_OOB)}")
    return _tl._vec_tile(make_shape((_index_count(op, index), cols)), tensor.dtype)


def gather_rows(tensor: np.ndarray, index: np.ndarray, policy: str) -> np.ndarray:
    """The rows of ``tensor`` named by ``index`` under mgather's out-of-range ``policy``."""
    rows = np.asarray(index).astype(np.int64).ravel()
    m = tensor.shape[0]
    if policy == "clamp":
        return tensor[np.clip(rows, 0, m - 1)].copy()
    if policy == "zero":
        inside = (rows >= 0) & (rows < m)
        out = np.zeros((rows.size, tensor.shape[1]), tensor.dtype)
        out[inside] = tensor[rows[inside]]
        return out
    return tensor[_checked_index("mgather", rows, m, "rows of the tensor")].copy()


def scatter_rows(tensor: np.ndarray, src: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``tensor`` with row k of ``src`` written to row ``index[k]`` (negative: masked; later k wins)."""
    out = np.array(tensor, copy=True)
    rows = np.asarray(index).astype(np.int64).ravel()
    live = rows >= 0
    _checked_index("mscatter", rows[live], out.shape[0], "rows of the tensor")
    sel = np.flatnonzero(live)
    keep = _last_wins(rows[sel])
    out[rows[sel][keep]] = np.asarray(src)[sel][keep]
    return out


def _infer_mscatter(args, attrs) -> Type:
    op = "tile.mscatter"
    src, index, tensor = args[0].type, args[1].type, args[2].type
    (n, c), (_, cols) = _static(op, src, "source"), _static(op, tensor, "tensor")
    if _index_count(op, index) != n or c != cols:
        raise _fail(op, f"{_index_count(op, index)} row indices and a source [{n}, {c}] do not write rows of a "
                        f"tensor with {cols} columns", "give one index per source row, and a source as wide as "
                                                       "the tensor")
    if src.dtype is not tensor.dtype:
        raise _fail(op, f"source dtype {src.dtype.name} differs from tensor dtype {tensor.dtype.name}",
                    "cast the source first")
    return tensor


_GM = {"rank": 2}
register_op(OpDef(
    "tile.mgather", (Param("tensor", ParamKind.TENSOR, **_GM), Param("index", T, **INDEX),
                     Param("gather_oob", A, "error"), Param("coalesce", A, False)),
    _infer_mgather, OpKind.INDIRECT_LOAD, Unit.DMA, _tl.VEC,
    golden=lambda a, k: gather_rows(np.asarray(a[0]), a[1], k.get("gather_oob") or "error"), pto="tmgather",
    cost="dma", extra={"note": _MGATHER_NOTE}))
register_op(OpDef(
    "tile.mscatter", (Param("src", T, memory=VEC_ONLY, rank=2), Param("index", T, **INDEX),
                      Param("tensor", ParamKind.TENSOR, **_GM)),
    _infer_mscatter, OpKind.INDIRECT_STORE, Unit.DMA, MemoryRule(MemoryRuleKind.NONE),
    golden=lambda a, k: scatter_rows(np.asarray(a[2]), a[0], a[1]), pto="tmscatter", cost="dma",
    extra={"note": _MSCATTER_NOTE}))


# ------------------------------------------------------------------------------------------------
# prefetch: a GM -> L2 hint
# ------------------------------------------------------------------------------------------------

_PREFETCH_NOTE = ("a hint to bring a GM window (offsets, shapes; the whole tensor without them) into L2: no "
                  "numerical effect; not charged (tilefold models no L2, so no later load gets cheaper); a constant "
                  "window outside the tensor is refused")


def _infer_prefetch(args, attrs) -> Type:
    op = "tile.prefetch"
    tensor = args[0].type
    if len(args) == 1:  # the whole tensor
        return tensor
    offsets = _tl._tuple(op, args, 1, "offsets")
    shapes = _tl._tuple(op, args, 2, "shapes")
    if len(offsets) != tensor.rank or len(shapes) != tensor.rank:
        raise _fail(op, f"offsets and shapes need {tensor.rank} entries", "one offset and one extent per axis")
    bad = [e for e in shapes if isinstance(e, ConstInt) and e.value < 1]
    if bad:
        raise _fail(op, f"prefetch window extent {bad[0].value} is not positive", "each window extent is at least 1")
    _tl._check_gm_window(op, tensor, offsets, shapes, "prefetch")
    return tensor


register_op(OpDef(
    "tile.prefetch", (Param("tensor", ParamKind.TENSOR), Param("offsets", ParamKind.TUPLE, required=False),
                      Param("shapes", ParamKind.TUPLE, required=False)),
    _infer_prefetch, OpKind.OTHER, Unit.NONE, MemoryRule(MemoryRuleKind.NONE), min_args=1,
    golden=lambda a, k: np.asarray(a[0]), pto=None, cost="none", extra={"note": _PREFETCH_NOTE, "no_effect": True}))




# ------------------------------------------------------------------------------------------------
# gather_row: one caller-addressed GM window DMA'd into a region of an on-chip accumulator (DPS)
# ------------------------------------------------------------------------------------------------

_GATHER_ROW_NOTE = ("DMA of the GM window src[src_offsets : src_offsets + valid_shape] (valid_shape defaults to "
                    "shapes) into acc at dst_offsets, the rest of acc unchanged (the result is acc's storage); "
                    "transpose=True writes the window transposed (GM [r, c] -> acc [c, r]); the written region must "
                    "fit acc (dst_offsets + valid_shape <= acc.shape) and the source window the tensor: a "
                    "provable violation is refused, a run-time one faults")
#: elements of one 32-byte fractal row (C0) of an L1 box, by element size; an L1 box is 16 rows high
_BOX_ROWS, _BOX_BYTES = 16, 32


def _const_entries(elements: Sequence[Any]) -> list[int | None]:
    from tilefold.ir.expr import ConstInt

    return [e.value if isinstance(e, ConstInt) else None for e in elements]


def box_aligned(shape: Sequence[int], itemsize: int) -> tuple[int, int]:
    """The box-aligned physical size of an L1 (NZ) sub-region of ``shape``: rows rounded up to 16, columns to
    C0 = 32 / itemsize (PyPTO's tile.gather_row codegen; a Vec region keeps its exact size)."""
    c0 = max(_BOX_BYTES // itemsize, 1)
    rows, cols = shape
    return -(-rows // _BOX_ROWS) * _BOX_ROWS, -(-cols // c0) * c0


def _gather_row_shapes(op: str, args: Sequence[Any], attrs: dict[str, Any]) -> tuple[tuple[int, ...], list]:
    """The static window ``shapes`` and the written extents (valid_shape entries, constants or None)."""
    shapes = _const_entries(_tl._tuple(op, args, 4, "shapes"))
    if len(shapes) != 2 or any(s is None or s <= 0 for s in shapes):
        raise _fail(op, f"shapes must be two positive integer constants, got {shapes}",
                    "shapes sizes the static sub-region (e.g. [1, 64]); a run-time length goes in valid_shape=")
    if len(args) <= 5:
        return tuple(shapes), list(shapes)
    if attrs.get("transpose"):
        raise _fail(op, "valid_shape= cannot be combined with transpose=True",
                    "a run-time column extent on a transposed (ZN) L1 tile is not supported: gather whole windows "
                    "when transposing, or drop transpose=True")
    valid = _const_entries(_tl._tuple(op, args, 5, "valid_shape"))
    if len(valid) != 2:
        raise _fail(op, f"valid_shape needs 2 entries, got {len(valid)}", "one extent per axis of shapes")
    for axis, (v, s) in enumerate(zip(valid, shapes, strict=True)):
        if v is not None and not 0 <= v <= s:
            raise _fail(op, f"valid_shape[{axis}] = {v} is outside [0, {s}] (shapes[{axis}] = {s})",
                        "the transfer length may not exceed the declared window, nor be negative")
    return tuple(shapes), valid


def _infer_gather_row(name: str):
    def infer(args, attrs) -> Type:
        acc, src = args[0].type, args[1].type
        if not isinstance(attrs.get("transpose", False), bool):
            raise _fail(name, f"transpose={attrs.get('transpose')!r} must be True or False", "transpose=True")
        if src.dtype is not acc.dtype:
            raise _fail(name, f"source dtype {src.dtype.name} differs from accumulator dtype {acc.dtype.name}",
                        "gather into an accumulator of the tensor's dtype (the DMA does not convert)")
        if len(acc.shape) != 2:
            raise _fail(name, f"the accumulator must be 2-D, got rank {len(acc.shape)}", "use an [rows, cols] tile")
        _, written = _gather_row_shapes(name, args, attrs)
        if name.startswith("tile.") and attrs.get("transpose") and acc.memory_space is not MemorySpace.Mat:
            raise _fail(name, "transpose=True gathers into an L1 (Mat) accumulator only",
                        "create the accumulator with target_memory=pl.Mem.Mat")
        dst_off, src_off = _tl._tuple(name, args, 2, "dst_offsets"), _tl._tuple(name, args, 3, "src_offsets")
        if len(dst_off) != 2 or len(src_off) != len(src.shape):
            raise _fail(name, f"dst_offsets needs 2 entries and src_offsets {len(src.shape)}",
                        "one offset per axis of the accumulator / of the source tensor")
        region = written[::-1] if attrs.get("transpose") else written
        acc_shape = _const_entries(acc.shape)
        for axis, (o, w, n) in enumerate(zip(_const_entries(dst_off), region, acc_shape, strict=True)):
            if o is not None and (o < 0 or (w is not None and n is not None and o + w > n)):
                raise _fail(name, f"the written region [{o}, {o + (w or 0)}) on axis {axis} leaves the accumulator "
                                  f"of extent {n}", "dst_offsets + valid_shape must fit the accumulator (the "
                                                    "declared shapes window may overhang it, the written rows not)")
        if len(src.shape) == 2 and all(w is not None for w in written):
            _tl._check_gm_window(name, src, src_off, written, "gather_row source")
        if name.startswith("tensor."):
            return TensorType(acc.shape, acc.dtype)
        return TileType(acc.shape, acc.dtype, acc.memory_space, None, acc.tile_view)
    return infer


def gather_row_value(acc: np.ndarray, src: np.ndarray, dst_off: Sequence[int], src_off: Sequence[int],
                     extents: Sequence[int], transpose: bool) -> np.ndarray:
    """``acc`` with the GM window of ``extents`` at ``src_off`` written at ``dst_off`` (transposed on request);
    a window outside ``src`` or a region outside ``acc`` raises IndexError (never a clip or a wrap)."""
    (d0, d1), (s0, s1), (r, c) = ([int(x) for x in dst_off], [int(x) for x in src_off], [int(x) for x in extents])
    if min(r, c) < 0:
        raise IndexError(f"gather_row: negative transfer extent {[r, c]}")
    if s0 < 0 or s1 < 0 or s0 + r > src.shape[0] or s1 + c > src.shape[1]:
        raise IndexError(f"gather_row: source window at {[s0, s1]} of {[r, c]} leaves the tensor {list(src.shape)}")
    rr, cc = (c, r) if transpose else (r, c)
    if d0 < 0 or d1 < 0 or d0 + rr > acc.shape[0] or d1 + cc > acc.shape[1]:
        raise IndexError(f"gather_row: written region at {[d0, d1]} of {[rr, cc]} leaves the accumulator "
                         f"{list(acc.shape)}")
    out = np.array(acc, copy=True)
    win = np.asarray(src)[s0:s0 + r, s1:s1 + c]
    out[d0:d0 + rr, d1:d1 + cc] = win.T if transpose else win
    return out


def _golden_gather_row(a, k):
    extents = a[5] if len(a) > 5 and a[5] is not None else a[4]
    return gather_row_value(np.asarray(a[0]), np.asarray(a[1]), a[2], a[3], extents, bool(k.get("transpose")))


def _gather_row_extents(call: Any) -> tuple[int, ...] | None:
    """The static extents of the region a gather_row call writes (uninitialised-read analysis), else None."""
    from tilefold.ir.expr import MakeTuple

    at = 5 if len(call.args) > 5 else 4
    ext = _const_entries(call.args[at].elements) if isinstance(call.args[at], MakeTuple) else [None]
    if None in ext:
        return None
    return tuple(ext[::-1]) if call.kwarg("transpose") else tuple(ext)


def _gather_row_region(call: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(offsets, extents) of the region a gather_row call writes, as expressions (run-time values allowed)."""
    ext = call.args[5 if len(call.args) > 5 else 4].elements
    return tuple(call.args[2].elements), tuple(ext[::-1]) if call.kwarg("transpose") else tuple(ext)


_GR_OFFS = (Param("dst_offsets", ParamKind.TUPLE), Param("src_offsets", ParamKind.TUPLE),
            Param("shapes", ParamKind.TUPLE))
_GR_EXTRA = {"note": _GATHER_ROW_NOTE, "keyword_only": ("valid_shape",), "window_write": (0, None, 2),
             "window_extents": _gather_row_extents, "window_region": _gather_row_region}
register_op(OpDef(
    "tile.gather_row", (Param("acc", T, memory=(MemorySpace.Mat, MemorySpace.Vec), rank=2),
                        Param("src", ParamKind.TENSOR, rank=2), *_GR_OFFS, Param("transpose", A, False),
                        Param("valid_shape", ParamKind.TUPLE, required=False)),
    _infer_gather_row("tile.gather_row"), OpKind.ROW_GATHER, Unit.DMA, MemoryRule(MemoryRuleKind.INHERIT),
    output_reuses_input=0, golden=_golden_gather_row, pto="tgatherrow", cost="dma", extra=_GR_EXTRA))
_tn._declare("gather_row", (Param("acc", ParamKind.TENSOR, rank=2), Param("src", ParamKind.TENSOR, rank=2), *_GR_OFFS,
                            Param("transpose", A, False), Param("valid_shape", ParamKind.TUPLE, required=False)),
             _infer_gather_row("tensor.gather_row"), OpKind.OTHER, _golden_gather_row, "tile.gather_row",
             gm_operands=(1,), **{k: v for k, v in _GR_EXTRA.items() if k in ("note", "keyword_only")})


# ------------------------------------------------------------------------------------------------
# create_l1: an L1 (Mat) accumulator for a kernel-driven gather
# ------------------------------------------------------------------------------------------------

_CREATE_L1_NOTE = ("an uninitialised L1 (Mat) buffer of shape and dtype, the accumulator of pl.gather_row; "
                   "transpose=True asks for the transposed (ZN) fractal layout on the device, which tilefold's value "
                   "model does not distinguish (the tile's logical [rows, cols] is what ops read)")


def _infer_create_l1(args, attrs) -> Type:
    op = "tensor.create_l1"
    shape = _shape_attr(op, attrs)
    dtype = attrs.get("dtype")
    if not isinstance(dtype, DataType):
        raise _fail(op, f"dtype={dtype!r} is not a dtype", "e.g. pl.create_l1([128, 64], pl.BF16)")
    if len(shape) != 2:
        raise _fail(op, f"shape {list(shape)} is not 2-D", "an L1 accumulator is [rows, cols]")
    if not isinstance(attrs.get("transpose", False), bool):
        raise _fail(op, f"transpose={attrs.get('transpose')!r} must be True or False", "transpose=True")
    return TensorType(make_shape(shape), dtype)


_tn._declare("create_l1", (Param("shape", A), Param("dtype", A, DataType.FP32), Param("transpose", A, False)),
             _infer_create_l1, OpKind.CREATE, lambda a, k: np.zeros(k["shape"], dtype=k["dtype"].np_dtype),
             "tile.create", note=_CREATE_L1_NOTE, tile_attrs={"target_memory": MemorySpace.Mat},
             uninitialized=True)


# ------------------------------------------------------------------------------------------------
# paged_gather: rows of a paged pool through a block table, into an on-chip buffer
# ------------------------------------------------------------------------------------------------

_PAGED_NOTE = ("row i of the result is row block_table[idx // block_size] * block_size + idx % block_size of src "
               "(idx = indices[i]), columns [col_offset, col_offset + size); is_trans=True (Mat only) gives the "
               "transposed [size, max_indices] buffer (row i as column i); len(indices) may be a run-time (pl.dynamic) "
               "count: the loop runs over it, and the rows past it up to max_indices are zero (PyPTO leaves them "
               "unwritten; tilefold fills the buffer with zeros first: a Vec fill, through a GM workspace into L1); "
               "an index, block-table entry or pool row outside its tensor, or a count past max_indices, faults. "
               "Lowered by ConvertTensorToTileOps to a loop of scalar reads and tile.gather_row")


def _paged_attrs(op: str, src: Any, idx: Any, attrs: dict[str, Any]) -> tuple[int, int, int, int]:
    """(block_size, rows, size, col_offset) of a paged_gather, checked."""
    def positive(key: str, value: Any, lo: int = 1) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise _fail(op, f"{key}={value!r} must be an integer >= {lo}", f"e.g. {key}=16")
        return value

    bs = positive("block_size", attrs.get("block_size"))
    cols = _static(op, src, "source pool")[1]
    col = positive("col_offset", attrs.get("col_offset", 0), 0)
    size = positive("size", attrs.get("size") if attrs.get("size") is not None else cols - col)
    if col + size > cols:
        raise _fail(op, f"columns [{col}, {col + size}) leave the pool's {cols} columns", "shrink size or col_offset")
    n = idx.static_shape[0] if idx.static_shape is not None else None
    rows = attrs.get("max_indices") if attrs.get("max_indices") is not None else n
    if rows is None:
        raise _fail(op, "the index count is dynamic and max_indices is not given",
                    "pass max_indices= (the static row capacity of the on-chip buffer)")
    rows = positive("max_indices", rows)
    if n is not None and n > rows:
        raise _fail(op, f"{n} indices do not fit max_indices={rows}", "raise max_indices to the index count")
    return bs, rows, size, col


def _infer_paged_gather(args, attrs) -> Type:
    op = "tensor.paged_gather"
    src, idx, table = (a.type for a in args[:3])
    for t, what in ((idx, "indices"), (table, "block_table")):
        if not t.dtype.is_int:
            raise _fail(op, f"{what} is {t.dtype.name}; it must hold integers", f"pass {what} as an INT32 tensor")
    _, rows, size, _ = _paged_attrs(op, src, idx, attrs)
    space = attrs.get("target_memory", MemorySpace.Mat)
    if space not in (MemorySpace.Mat, MemorySpace.Vec):
        raise _fail(op, f"target_memory={space!r} is not Mat or Vec", "gather into pl.Mem.Mat (L1) or pl.Mem.Vec (UB)")
    trans = attrs.get("is_trans", False)
    if not isinstance(trans, bool) or (trans and space is not MemorySpace.Mat):
        raise _fail(op, "is_trans=True gathers into L1 (target_memory=pl.Mem.Mat) only",
                    "drop is_trans, or gather into Mat")
    return TensorType(make_shape((size, rows) if trans else (rows, size)), src.dtype)


def paged_rows(indices: np.ndarray, table: np.ndarray, block_size: int, pool_rows: int) -> np.ndarray:
    """The physical pool row of every logical index (faults, as IndexError, on any address outside its tensor)."""
    idx = np.asarray(indices).astype(np.int64).ravel()
    tab = np.asarray(table).astype(np.int64).ravel()
    pages = _checked_index("paged_gather", idx // block_size, tab.size, "entries of the block table")
    phys = tab[pages] * block_size + idx % block_size
    bad = np.flatnonzero((idx < 0) | (phys < 0) | (phys >= pool_rows))
    if bad.size:
        k = int(bad[0])
        raise IndexError(f"paged_gather: index {int(idx[k])} (entry {k}) maps to pool row {int(phys[k])}, outside "
                         f"[0, {pool_rows})")
    return phys


def _golden_paged_gather(a, k):
    src = np.asarray(a[0])
    bs, col = int(k["block_size"]), int(k.get("col_offset") or 0)
    size = int(k["size"]) if k.get("size") is not None else src.shape[1] - col
    n = np.asarray(a[1]).size
    rows = int(k["max_indices"]) if k.get("max_indices") is not None else n
    out = np.zeros((rows, size), src.dtype)
    out[:n] = src[paged_rows(a[1], a[2], bs, src.shape[0]), col:col + size]
    return out.T.copy() if k.get("is_trans") else out


register_op(OpDef(
    "tensor.paged_gather",
    (Param("src", ParamKind.TENSOR, rank=2), Param("indices", ParamKind.TENSOR, rank=1, dtypes=INT_ONLY),
     Param("block_table", ParamKind.TENSOR, rank=1, dtypes=INT_ONLY), Param("block_size", A),
     Param("max_indices", A, required=False), Param("size", A, required=False), Param("col_offset", A, 0),
     Param("target_memory", A, MemorySpace.Mat), Param("is_trans", A, False)),
    _infer_paged_gather, OpKind.OTHER, Unit.NONE, golden=_golden_paged_gather, cost="none",
    extra={"note": _PAGED_NOTE, "lowering": "paged_gather", "tile_op": "tile.gather_row"}))


# ------------------------------------------------------------------------------------------------
# gatherb: 32-byte blocks of a UB tile by UINT32 byte offsets
# ------------------------------------------------------------------------------------------------

_GATHERB_NOTE = ("block j of row i of the result is the 32 bytes of src (its row-major bytes) starting at byte "
                 "offsets[i, j]; one offset column gives 32 / sizeof(dtype) elements; an offset that is not a "
                 "multiple of 32 or whose block leaves src is a fault")
_BLOCK = 32


def _infer_gatherb(args, attrs) -> Type:
    op = "tile.gatherb"
    src, offs = args[0].type, args[1].type
    if offs.dtype is not DataType.UINT32:
        raise _fail(op, f"the offsets are {offs.dtype.name}; gatherb takes UINT32 byte offsets",
                    "cast the offsets: pl.tile.cast(o, target_type=pl.UINT32)")
    _static(op, src, "source")
    rows, cols = _static(op, offs, "offset tile")
    per = _BLOCK // src.dtype.itemsize
    if per < 1 or _BLOCK % src.dtype.itemsize:
        raise _fail(op, f"{src.dtype.name} elements do not divide a 32-byte block", "use a 1-, 2- or 4-byte dtype")
    return _result(op, (rows, cols * per), src.dtype)


def gatherb_value(src: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The 32-byte blocks of ``src``'s row-major bytes at byte ``offsets`` (UINT32), one block per offset."""
    raw = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
    offs = np.asarray(offsets).astype(np.int64)
    bad = np.flatnonzero((offs % _BLOCK != 0) | (offs < 0) | (offs + _BLOCK > raw.size))
    if bad.size:
        k = int(bad[0])
        where = [int(e) for e in np.unravel_index(k, offs.shape)]
        raise IndexError(f"gatherb: byte offset {int(offs.flat[k])} at element {where} of the offset tile is not a "
                         f"32-byte-aligned block inside the {raw.size}-byte source")
    blocks = raw[offs.reshape(-1, 1) + np.arange(_BLOCK)]
    rows, cols = offs.shape
    return blocks.reshape(rows, cols * _BLOCK).view(src.dtype).copy()


register_op(OpDef(
    "tile.gatherb", (Param("src", T, memory=VEC_ONLY, rank=2), Param("offsets", T, **INDEX)), _infer_gatherb,
    OpKind.OTHER, Unit.VECTOR, _tl.VEC, golden=lambda a, k: gatherb_value(np.asarray(a[0]), np.asarray(a[1])),
    pto="tgatherb", cost="vector", extra={
                      "note": _GATHERB_NOTE, "whole_tile_operands": True}))


__all__ = ["GATHER_OOB", "IndexOutOfRange", "box_aligned", "gather_row_value", "gather_rows", "gatherb_value",
           "paged_rows", "scatter_rows", "splitmix64"]
