"""Tensor-level ops: operators on whole GM tensors, as ``@pl.jit`` kernels write them (``pl.add(a, b)`` on two
``pl.Tensor`` values). The compiler decides placement: ``ConvertTensorToTileOps`` lowers each op to the tile op
named by its ``extra["tile_op"]`` (loads, the tile op, stores, tiled when tensors exceed on-chip memory).

Each op is declared once, here, with type inference and golden numpy semantics, so the golden interpreter runs a
tensor-level program directly. Value operands use ``ParamKind.TILE_OR_TENSOR``: only ``tensor.assemble``'s
target is a ``TENSOR`` destination (the golden interpreter writes a tensor-typed result through it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt, Expr, MakeTuple
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import AtomicType, DataType, ScalarType, TensorType, Type
from tilefold.ops.conversions import element_value
from tilefold.ops.operand_checks import check_fill_value, check_integer_scalar
from tilefold.ops.registry import MemoryRule, MemoryRuleKind, OpDef, OpKind, Param, ParamKind, Unit, register_op
from tilefold.ops.tile_ops import CAST_NOTE, atomic_add, check_atomic, check_cast_mode, check_element_indices

V = ParamKind.TILE_OR_TENSOR
S = ParamKind.SCALAR
A = ParamKind.ATTR
TUP = ParamKind.TUPLE
NO_MEM = MemoryRule(MemoryRuleKind.NONE)


def _fail(op: str, msg: str, hint: str) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _tensor(op: str, args: Sequence[Expr], i: int, what: str = "operand") -> TensorType:
    """Operand ``i``'s tensor type: a value parameter of a tensor op is a tensor, which the registry checks from the
    declaration (``registry.check_operands``) before type inference runs."""
    return args[i].type


def _static(op: str, t: TensorType) -> tuple[int, ...]:
    shape = t.static_shape
    if shape is None:
        raise _fail(op, "tensor-level ops need static shapes here",
                    "give the tensor constant extents (a bare pl.Tensor takes them from the call's arguments)")
    return shape


def _dims(t: TensorType) -> tuple[Any, ...]:
    """Extents as ints where constant, else the extent expression (a ``pl.dynamic`` dimension's variable)."""
    return tuple(e.value if isinstance(e, ConstInt) else e for e in t.shape)


def _same_dim(a: Any, b: Any) -> bool:
    return a == b if isinstance(a, int) and isinstance(b, int) else a is b


def _same_dims(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(_same_dim(x, y) for x, y in zip(a, b, strict=True))


def _fmt(dims: tuple[Any, ...]) -> str:
    return "[" + ", ".join(str(d) if isinstance(d, int) else getattr(d, "name", "?") for d in dims) + "]"


def _same_shape(op: str, a: TensorType, b: TensorType) -> None:
    if not _same_dims(_dims(a), _dims(b)):
        raise _fail(op, f"operand shapes differ: {_fmt(_dims(a))} vs {_fmt(_dims(b))}",
                    "element-wise tensor ops need equal shapes; broadcast a [M, 1] / [1, N] vector with "
                    "pl.row_expand_* / pl.col_expand_*")
    if a.dtype is not b.dtype:
        raise _fail(op, f"operand dtypes differ: {a.dtype.name} vs {b.dtype.name}",
                    "cast one operand with pl.cast(x, target_type=...)")


def _binary_infer(op: str):
    def infer(args, attrs) -> Type:
        a, b = _tensor(op, args, 0), _tensor(op, args, 1)
        _same_shape(op, a, b)
        return TensorType(a.shape, a.dtype)
    return infer


def _scalar_infer(op: str):
    def infer(args, attrs) -> Type:
        a = _tensor(op, args, 0)
        return TensorType(a.shape, a.dtype)
    return infer


def _arith_scalar_infer(op: str):
    """``adds`` ... ``mins``: the result keeps the tensor's dtype, so a constant scalar must be one of its values."""
    def infer(args, attrs) -> Type:
        a = _tensor(op, args, 0)
        check_integer_scalar(op, a.dtype, args[1] if len(args) > 1 else None)
        return TensorType(a.shape, a.dtype)
    return infer


def _unary_infer(op: str):
    def infer(args, attrs) -> Type:
        a = _tensor(op, args, 0)
        return TensorType(a.shape, a.dtype)
    return infer


def _rank2(op: str, t: TensorType) -> tuple[Any, Any]:
    """The two extents of a tensor declared rank 2 (``Param(..., rank=2)``: checked by the registry)."""
    return _dims(t)  # type: ignore[return-value]


#: a rank-2 value operand (reductions, broadcasts, matmul, concat)
def V2(name: str) -> Param:  # noqa: N802  (a Param constructor, named like the kinds above)
    return Param(name, V, rank=2)


def _reduce_infer(op: str, axis: int):
    def infer(args, attrs) -> Type:
        a = _tensor(op, args, 0)
        m, n = _rank2(op, a)
        return TensorType(make_shape((m, 1) if axis == 1 else (1, n)), a.dtype)
    return infer


def _expand_infer(op: str, axis: int):
    def infer(args, attrs) -> Type:
        a, v = _tensor(op, args, 0), _tensor(op, args, 1, "vector")
        m, n = _rank2(op, a)
        want = (m, 1) if axis == 1 else (1, n)
        if not _same_dims(_dims(v), want):
            raise _fail(op, f"the vector must have shape {_fmt(want)}, got {_fmt(_dims(v))}",
                        "row_expand_* takes a [M, 1] vector (a row reduction), col_expand_* a [1, N] one")
        if a.dtype is not v.dtype:
            raise _fail(op, f"operand dtypes differ: {a.dtype.name} vs {v.dtype.name}", "cast one operand")
        return TensorType(a.shape, a.dtype)
    return infer


_NP_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
              "maximum": np.maximum, "minimum": np.minimum}
_SCALAR_FORMS = {"adds": "add", "subs": "sub", "muls": "mul", "divs": "div", "maxs": "maximum", "mins": "minimum"}
_NP_UNARY = {"exp": np.exp, "neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "log": np.log,
             "rsqrt": lambda x: 1.0 / np.sqrt(x), "relu": lambda x: np.maximum(x, 0)}  # recip: ops/reciprocal.py
_NP_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}
_COMBINE = {"sum": ("tile.add", 0.0), "max": ("tile.maximum", float("-inf")), "min": ("tile.minimum", float("inf"))}
_EXPAND = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _as_tile_op(tile_op: str):
    """The golden of a tensor op whose values are its tile op's (one declaration of the semantics: integers wrap
    in their dtype, low-precision floats compute in FP32, a cast honours its rounding mode)."""
    from tilefold.ops.registry import get_op

    return lambda a, k: get_op(tile_op).golden(a, k)


def _declare(name: str, params: tuple[Param, ...], infer, kind: OpKind, golden, tile_op: str,
             **extra: Any) -> None:
    register_op(OpDef(f"tensor.{name}", params, infer, kind, Unit.NONE, NO_MEM, golden=golden, cost="none",
                      extra={"tile_op": tile_op, **extra}))


_SCALAR_FORM_OF = {base: form for form, base in _SCALAR_FORMS.items()}
for _n, _fn in _NP_BINARY.items():
    # scalar_form: what pl.<name>(x, scalar) dispatches to (ops__00-dispatch: add of a tile and a scalar is adds)
    _declare(_n, (Param("lhs", V), Param("rhs", V)), _binary_infer(f"tensor.{_n}"), OpKind.ELEMENTWISE,
             _as_tile_op(f"tile.{_n}"), f"tile.{_n}",
             **({"scalar_form": _SCALAR_FORM_OF[_n]} if _n in _SCALAR_FORM_OF else {}))
for _n, _base in _SCALAR_FORMS.items():
    _declare(_n, (Param("tensor", V), Param("scalar", S)), _arith_scalar_infer(f"tensor.{_n}"),
             OpKind.SCALAR_ELEMENTWISE,
             _as_tile_op(f"tile.{_n}"), f"tile.{_n}")
for _n, _fn in _NP_UNARY.items():
    _declare(_n, (Param("tensor", V),), _unary_infer(f"tensor.{_n}"), OpKind.UNARY,
             _as_tile_op(f"tile.{_n}"), f"tile.{_n}")
for _r, _fn in _NP_REDUCE.items():
    _declare(f"row_{_r}", (V2("tensor"),), _reduce_infer(f"tensor.row_{_r}", 1), OpKind.ROW_REDUCTION,
             _as_tile_op(f"tile.row_{_r}"), f"tile.row_{_r}",
             combine=_COMBINE[_r][0], identity=_COMBINE[_r][1])  # column blocks of a dynamic width add up too
    # combine / identity: how partial column reductions of row blocks add up (ConvertTensorToTileOps tiles them)
    _declare(f"col_{_r}", (V2("tensor"),), _reduce_infer(f"tensor.col_{_r}", 0), OpKind.COL_REDUCTION,
             _as_tile_op(f"tile.col_{_r}"), f"tile.col_{_r}",
             combine=_COMBINE[_r][0], identity=_COMBINE[_r][1])
for _e, _fn in _EXPAND.items():
    _declare(f"row_expand_{_e}", (V2("target"), V2("vector")), _expand_infer(f"tensor.row_expand_{_e}", 1),
             OpKind.ROW_BROADCAST, _as_tile_op(f"tile.row_expand_{_e}"), f"tile.row_expand_{_e}")
    _declare(f"col_expand_{_e}", (V2("target"), V2("vector")), _expand_infer(f"tensor.col_expand_{_e}", 0),
             OpKind.COL_BROADCAST, _as_tile_op(f"tile.col_expand_{_e}"), f"tile.col_expand_{_e}")


def _infer_cast(args, attrs) -> Type:
    a = _tensor("tensor.cast", args, 0)
    dt = attrs.get("target_type")
    if not isinstance(dt, DataType):
        raise _fail("tensor.cast", "target_type must be a data type", "e.g. pl.cast(x, target_type=pl.FP16)")
    check_cast_mode("tensor.cast", attrs.get("mode"))
    return TensorType(a.shape, dt)


_declare("cast", (Param("tensor", V), Param("target_type", A), Param("mode", A, "round")), _infer_cast, OpKind.CAST,
         _as_tile_op("tile.cast"), "tile.cast", note=CAST_NOTE)


def _infer_matmul(args, attrs) -> Type:
    op = "tensor.matmul"
    a, b = _tensor(op, args, 0, "lhs"), _tensor(op, args, 1, "rhs")
    (m, ka), (kb, n) = _rank2(op, a), _rank2(op, b)
    if attrs.get("a_trans"):  # lhs stored [K, M]
        m, ka = ka, m
    if attrs.get("b_trans"):  # rhs stored [N, K] (a weight laid out as out_features x in_features)
        kb, n = n, kb
    if not _same_dim(ka, kb):
        raise _fail(op, f"lhs is {_fmt((m, ka))} but rhs is {_fmt((kb, n))}: K differs",
                    "the lhs column count must equal the rhs row count")
    if a.dtype is not b.dtype:
        raise _fail(op, f"operand dtypes differ: {a.dtype.name} vs {b.dtype.name}", "cast one operand")
    out = attrs.get("out_dtype") or DataType.FP32
    return TensorType(make_shape((m, n)), out)


_declare("matmul", (V2("lhs"), V2("rhs"), Param("out_dtype", A, DataType.FP32),
                    Param("a_trans", A, False), Param("b_trans", A, False)),
         _infer_matmul, OpKind.MATMUL,
         lambda a, k: _maybe_t(a[0], k.get("a_trans")) @ _maybe_t(a[1], k.get("b_trans")), "tile.matmul")


def _maybe_t(x: Any, flag: Any) -> np.ndarray:
    x = np.asarray(x, np.float32)
    return x.T if flag else x


def _infer_transpose(args, attrs) -> Type:
    op = "tensor.transpose"
    a = _tensor(op, args, 0)
    shape = list(a.shape)
    a1, a2 = attrs.get("axis1", 0), attrs.get("axis2", 1)
    if isinstance(a1, bool) or isinstance(a2, bool) or not (isinstance(a1, int) and isinstance(a2, int)) \
            or not (0 <= a1 < len(shape) and 0 <= a2 < len(shape)):
        raise _fail(op, f"axes ({a1}, {a2}) out of range for rank {len(shape)}",
                    f"use two axes in [0, {len(shape) - 1}]")
    shape[a1], shape[a2] = shape[a2], shape[a1]
    return TensorType(make_shape(tuple(shape)), a.dtype)


# not row-local (result rows are operand columns): ConvertTensorToTileOps lowers it on whole tiles
_declare("transpose", (Param("tensor", V), Param("axis1", A, 0), Param("axis2", A, 1)), _infer_transpose,
         OpKind.TRANSPOSE, lambda a, k: np.ascontiguousarray(np.swapaxes(np.asarray(a[0]), k["axis1"], k["axis2"])),
         "tile.transpose")


def _ints(op: str, e: Expr | Any, what: str) -> tuple[int, ...]:
    elems = e.elements if isinstance(e, MakeTuple) else e
    out = []
    for x in elems:
        if isinstance(x, ConstInt):
            out.append(x.value)
        elif isinstance(x, int):
            out.append(x)
        else:
            raise _fail(op, f"{what} must be constant here", f"use integer constants for {what}")
    return tuple(out)


def _offsets(op: str, e: Expr | Any) -> tuple[int | None, ...]:
    """Window offsets: ints where constant, None where a scalar index expression (a loop variable's multiple:
    ConvertTensorToTileOps proves such a window inside the tensor or leaves it to the device's bounds check)."""
    elems = e.elements if isinstance(e, MakeTuple) else e
    out: list[int | None] = []
    for x in elems:
        if isinstance(x, (ConstInt, int)):
            out.append(x.value if isinstance(x, ConstInt) else x)
        elif isinstance(getattr(x, "type", None), ScalarType) and not x.type.dtype.is_float:
            out.append(None)
        else:
            raise _fail(op, "offsets must be integer constants or integer scalar expressions",
                        "use constants or loop-variable expressions such as i * 64")
    return tuple(out)


def _infer_slice(args, attrs) -> Type:
    op = "tensor.slice"
    a = _tensor(op, args, 0)
    shape = _dims(a)  # a pl.dynamic extent: the window is checked against it at run time
    ext = _ints(op, args[1], "shape")
    offs = _offsets(op, args[2])
    if len(ext) != len(shape) or len(offs) != len(shape):
        raise _fail(op, "shape and offsets need one entry per axis", f"the tensor has rank {len(shape)}")
    for axis, (o, e, d) in enumerate(zip(offs, ext, shape, strict=True)):
        if not isinstance(d, int):
            if e <= 0 or (o is not None and o < 0):
                raise _fail(op, f"window [{o}:{o}+{e}) on axis {axis} is empty or starts before 0",
                            "use a positive extent and a non-negative offset")
            continue
        if e <= 0 or e > d or (o is not None and (o < 0 or o + e > d)):
            at = "?" if o is None else o
            raise _fail(op, f"window [{at}:{at}+{e}) on axis {axis} is outside the extent {d}",
                        f"use a window inside [0, {d})")
    return TensorType(make_shape(ext), a.dtype)


def _golden_slice(a, k):
    src, ext, offs = a
    index = tuple(slice(int(o), int(o) + int(e)) for o, e in zip(offs, ext, strict=True))
    return np.array(np.asarray(src)[index], copy=True)


_declare("slice", (Param("tensor", V), Param("shape", TUP), Param("offsets", TUP)), _infer_slice, OpKind.VIEW,
         _golden_slice, "tile.load")


def _infer_assemble(args, attrs) -> Type:
    op = "tensor.assemble"
    dst = _tensor(op, args, 0, "target")
    src = _tensor(op, args, 1, "value")
    dshape, sshape = _dims(dst), _dims(src)
    offs = _offsets(op, args[2])
    if len(offs) != len(dshape) or len(sshape) != len(dshape):
        raise _fail(op, f"value rank {len(sshape)} / offsets {len(offs)} do not match the target rank {len(dshape)}",
                    "give one offset per target axis and a value of the same rank")
    for axis, (o, e, d) in enumerate(zip(offs, sshape, dshape, strict=True)):
        if isinstance(e, int) and not isinstance(d, int):  # a static window of a pl.dynamic axis: checked at run time
            if o is not None and o < 0:
                raise _fail(op, f"the value starts at {o} on axis {axis}, before 0", "use a non-negative offset")
            continue
        if not (isinstance(e, int) and isinstance(d, int)):  # a pl.dynamic extent: only the whole axis
            if o != 0 or not _same_dim(e, d):
                raise _fail(op, f"axis {axis} has a dynamic extent: only whole-axis writes at offset 0 are supported",
                            "write the whole dynamic axis (out[:, ...] = value)")
            continue
        if e > d or (o is not None and (o < 0 or o + e > d)):
            at = "?" if o is None else o
            raise _fail(op, f"the value [{at}:{at}+{e}) on axis {axis} is outside the target extent {d}",
                        f"write a value that fits inside [0, {d}) at that offset")
    if src.dtype is not dst.dtype:
        raise _fail(op, f"value dtype {src.dtype.name} differs from target dtype {dst.dtype.name}",
                    f"cast the value first: pl.cast(value, target_type=pl.{dst.dtype.name})")
    check_atomic(op, attrs.get("atomic"), dst.dtype)
    return TensorType(dst.shape, dst.dtype)


def _golden_assemble(a, k):
    dst, src, offs = a
    out = np.array(dst, copy=True)
    index = tuple(slice(int(o), int(o) + s) for o, s in zip(offs, np.shape(src), strict=True))
    out[index] = atomic_add(out[index], src) if k.get("atomic") is AtomicType.Add else src
    return out


register_op(OpDef("tensor.assemble", (Param("target", ParamKind.TENSOR), Param("value", V), Param("offsets", TUP),
                                      # atomic=pl.AtomicType.Add: the write adds into the target (split-K)
                                      Param("atomic", A, required=False)),
                  _infer_assemble, OpKind.STORE, Unit.NONE, NO_MEM, golden=_golden_assemble, cost="none",
                  extra={"tile_op": "tile.store"}))


def _infer_concat(args, attrs) -> Type:
    op = "tensor.concat"
    a, b = _tensor(op, args, 0), _tensor(op, args, 1)
    (m, n1), (m2, n2) = _rank2(op, a), _rank2(op, b)
    _static(op, a)
    _static(op, b)
    if m != m2 or a.dtype is not b.dtype:
        raise _fail(op, f"cannot join [{m}, {n1}] {a.dtype.name} and [{m2}, {n2}] {b.dtype.name} along columns",
                    "pl.concat joins two tensors with the same row count and dtype along axis 1")
    return TensorType(make_shape((m, n1 + n2)), a.dtype)


def _infer_matmul_acc(args, attrs) -> Type:
    op = "tensor.matmul_acc"
    acc = _tensor(op, args, 0, "accumulator")
    product = _infer_matmul(args[1:], {k: attrs.get(k) for k in ("a_trans", "b_trans")})
    assert isinstance(product, TensorType)
    if not _same_dims(_dims(acc), _dims(product)):
        raise _fail(op, f"accumulator {_fmt(_dims(acc))} does not match lhs x rhs {_fmt(_dims(product))}",
                    "accumulate into the result of pl.matmul(lhs, rhs, out_dtype=pl.FP32)")
    return TensorType(acc.shape, acc.dtype)


_declare("matmul_acc", (V2("acc"), V2("lhs"), V2("rhs"), Param("a_trans", A, False),
                        Param("b_trans", A, False)), _infer_matmul_acc, OpKind.MATMUL,
         lambda a, k: (np.asarray(a[0], np.float32)
                       + _maybe_t(a[1], k.get("a_trans")) @ _maybe_t(a[2], k.get("b_trans"))),
         "tile.matmul_acc")


def _infer_full(args, attrs) -> Type:
    op = "tensor.full"
    shape = attrs.get("shape")
    if not isinstance(shape, (list, tuple)) or not shape or not all(isinstance(x, int) and x > 0 for x in shape):
        raise _fail(op, "shape must be a list of positive integer constants", "e.g. pl.full([64, 64], ...)")
    dt = attrs.get("dtype")
    if not isinstance(dt, DataType):
        raise _fail(op, "dtype must be a data type", "e.g. pl.full([64, 64], dtype=pl.FP32, value=0.0)")
    check_fill_value(op, dt, attrs.get("value"))
    return TensorType(make_shape(tuple(shape)), dt)


_declare("full", (Param("shape", A), Param("dtype", A, DataType.FP32), Param("value", A, 0.0)), _infer_full,
         OpKind.CREATE, lambda a, k: np.full(k["shape"], k["value"], dtype=np.float64), "tile.full")

_declare("concat", (V2("lhs"), V2("rhs")), _infer_concat, OpKind.OTHER,
         lambda a, k: np.concatenate([np.asarray(a[0]), np.asarray(a[1])], axis=1), "tile.store")


def tensor_level_ops() -> list[str]:
    """Names of the tensor-level ops declared here."""
    from tilefold.ops.registry import all_ops

    return sorted(n for n, op in all_ops().items() if n.startswith("tensor.") and "tile_op" in op.extra)


__all__ = ["tensor_level_ops"]


# ------------------------------------------------------------------------------------------------
# element read: one GM element into a scalar register (the scalar unit reads GM directly)
# ------------------------------------------------------------------------------------------------


def _infer_read(args, attrs) -> Type:
    op = "tensor.read"
    t = _tensor(op, args, 0, "tensor")
    if len(args) < 2 or not isinstance(args[1], MakeTuple):
        raise _fail(op, "the indices must be a list with one entry per tensor axis",
                    f"write pl.read(tensor, {[0] * t.rank})")
    _element_indices(op, t, args[1].elements, "pl.read")
    return ScalarType(t.dtype)


def _checked_index(arr: np.ndarray, idx: list[int]) -> tuple[int, ...]:
    for axis, (i, dim) in enumerate(zip(idx, arr.shape, strict=True)):
        if not 0 <= i < dim:  # numpy would wrap a negative index; the device faults
            raise IndexError(f"element index {idx} leaves the tensor of shape {list(arr.shape)} on axis {axis}")
    return tuple(idx)


def _golden_read(a, k):
    arr = np.asarray(a[0])
    return arr[_checked_index(arr, [int(i) for i in a[1]])].item()


register_op(OpDef("tensor.read", (Param("tensor", ParamKind.TENSOR), Param("indices", TUP)), _infer_read,
                  OpKind.ELEMENT_READ, Unit.SCALAR, NO_MEM, golden=_golden_read, pto="sread", cost="scalar"))


# ------------------------------------------------------------------------------------------------
# element write: one scalar into one GM tensor element (the scalar unit's store, the counterpart of tensor.read)
# ------------------------------------------------------------------------------------------------


def _infer_write(args, attrs) -> Type:
    op = "tensor.write"
    t = _tensor(op, args, 0, "tensor")
    if len(args) < 3 or not isinstance(args[1], MakeTuple):
        raise _fail(op, "pl.write takes (tensor, indices, value) with one index per tensor axis",
                    f"write pl.write(tensor, {[0] * t.rank}, value)")
    _element_indices(op, t, args[1].elements, "pl.write")
    v = args[2].type
    if v.dtype.is_float and not t.dtype.is_float:  # an int value into a float tensor converts exactly enough
        raise _fail(op, f"a {v.dtype.name} value cannot be written into a {t.dtype.name} tensor",
                    f"cast it first: pl.cast(value, pl.{t.dtype.name})")
    return TensorType(t.shape, t.dtype)


def _element_indices(op: str, t: TensorType, idx: Sequence[Expr], spelling: str) -> None:
    check_element_indices(op, t.shape, idx, "tensor", spelling)


def _golden_write(a, k):
    arr, value = np.array(a[0], copy=True), a[2]
    arr[_checked_index(arr, [int(i) for i in a[1]])] = element_value(value, arr.dtype)
    return arr


register_op(OpDef("tensor.write", (Param("tensor", ParamKind.TENSOR), Param("indices", TUP),
                                   Param("value", S, hint="write one element: a scalar expression or constant "
                                                          "(store tiles with pl.store)")),
                  _infer_write, OpKind.ELEMENT_WRITE, Unit.SCALAR, NO_MEM, golden=_golden_write, pto="swrite",
                  cost="scalar"))


# ------------------------------------------------------------------------------------------------
# dump marker: PyPTO's pl.dump_tag(t) (and dumps=[...] on pl.at / pl.submit), an orchestration statement
# ------------------------------------------------------------------------------------------------


def _infer_dump_tag(args, attrs) -> Type:
    t = _tensor("tensor.dump_tag", args, 0, "tensor")
    return TensorType(t.shape, t.dtype)


#: ``tensor.dump_tag(t)``: from here on, every kernel launch binding ``t``'s GM tensor dumps its values before and
#: after the launch when the run asks for dumps (``RunConfig(enable_dump_args=1)``, runtime/dfx.py);
#: ``next_launch=True`` (``dumps=[t]`` on one ``pl.at`` / ``pl.submit``): the next launch only. Values are never
#: changed (golden: the identity) and the simulated time is not either (the host reads GM between launches).
register_op(OpDef("tensor.dump_tag",
                  (Param("tensor", ParamKind.TENSOR), Param("next_launch", ParamKind.ATTR, required=False)),
                  _infer_dump_tag, OpKind.OTHER, Unit.SCALAR, NO_MEM, golden=lambda a, k: a[0], cost="none"))
