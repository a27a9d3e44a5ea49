"""Operators of PyPTO's catalog (``ops__01-catalog.md``) beyond the core set of ``tile_ops`` / ``tensor_ops``:
remainders, bitwise logic and shifts, comparison and selection, three-input adds, leaky / parametric relu,
sin / cos, products and arg-extrema reductions, the remaining broadcast forms, ``expands`` and the partial
(segmented) arithmetic family.

Each op is declared once here, tile form and (where the catalog reaches it through ``pl.``) tensor form. A tile
op is one vector instruction (``t<name>``), computed by its golden on the operands the simulator reads from Vec
and priced by the target's vector rate like every other vector op. A tensor op names its tile op in
``extra["tile_op"]``; ConvertTensorToTileOps lowers it like the core tensor ops.

Model choices (also stated per op in ``extra["note"]``, which ``docs/ops.md`` prints):

- comparison masks are dense: ``cmp`` / ``cmps`` give a tile of the operands' shape and dtype holding 1 where the
  comparison holds and 0 elsewhere (PTO packs mask bits; tilefold keeps one element per position), and ``sel`` /
  ``sels`` pick where the mask is non-zero;
- ``part_*`` take operands of nested shapes and nested valid regions: the result has the larger shape, is
  ``op(a, b)`` where both operands hold data (their valid regions, a tile's shape when it has no valid shape) and
  the operand that holds data where only one does (PyPTO copies src0 where only src0 is valid).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tilefold.errors import TilefoldError
from tilefold.ir.expr import ConstFloat, ConstInt, Expr, Max
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, TensorType, TileType, TileView, Type
from tilefold.ops import tensor_ops as _tn
from tilefold.ops import tile_ops as _tl
from tilefold.ops.operand_checks import check_integer_scalar
from tilefold.ops.registry import (
    FLOAT_ONLY,
    FP32_ONLY,
    INT_ONLY,
    DTypeClass,
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

#: PyPTO's long scalar max / min names, which are the registry's ``maxs`` / ``mins``; ``registry.find_op`` resolves
#: them. (The bitwise ops keep PyPTO's trailing underscore in their registry names, ``tile.and_``: ``and`` is a
#: Python keyword, and the printed ``pl`` text must parse again.)
SPELLINGS = {"maximums": "maxs", "minimums": "mins", "fillpad_inplace": "fillpad"}
for _alias, _canonical in SPELLINGS.items():
    register_spelling(_alias, _canonical)
#: PyPTO spellings that update an operand in place (by index): as a statement, ``pl.tile.fillpad_inplace(t, ...)``
#: rebinds ``t`` to the result
IN_PLACE_SPELLINGS = {"fillpad_inplace": 0}

#: PyPTO catalog operators tilefold refuses, with the reason (``pl.<name>`` in a jit kernel raises NotSupportedError
#: with it). Composite operators PyPTO's users write themselves (SiLU = x * sigmoid(x) from neg / exp / adds /
#: recip / mul, GELU, softmax from row_max / row_expand_sub / exp / row_sum / row_expand_div) need no entry.
UNSUPPORTED = {
}


def catalog_coverage_markdown() -> list[str]:
    """The section of docs/ops.md listing PyPTO's spellings and the catalog operators tilefold refuses."""
    lines = ["## PyPTO catalog coverage", "",
             "PyPTO spellings resolved to a registry op: " + ", ".join(
                 f"`{k}` -> `{v}`" for k, v in SPELLINGS.items()) + ".", "",
             "Composite operators (no registry entry, written from the ops above as PyPTO's examples do): SiLU = "
             "x * sigmoid(x) with sigmoid = recip(1 + exp(-x)); softmax = row_max, row_expand_sub, exp, row_sum, "
             "row_expand_div; RMSNorm = mul, row_sum, muls, adds, rsqrt, row_expand_mul, col_expand_mul.", "",
             "Catalog operators tilefold refuses (a `NotSupportedError` naming the reason):", "",
             "| operator | reason |", "|---|---|"]
    from tilefold.ops.registry import find_op

    lines += [f"| `{name}` | {why} |" for name, why in UNSUPPORTED.items()
              if find_op(f"tile.{name}") is None and find_op(f"tensor.{name}") is None]
    return lines


#: comparison kinds, by PyPTO's ``cmp_type`` integer (EQ, NE, LT, LE, GT, GE) and by name
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal}
_CMP_BY_INT = ("eq", "ne", "lt", "le", "gt", "ge")

_MASK_NOTE = ("the mask is dense: 1 where the comparison holds, 0 elsewhere, in the operands' dtype (PTO packs mask "
              "bits; tilefold keeps one element per position)")
_SEL_NOTE = "picks the first value where the mask is non-zero (a dense mask, as pl.cmp produces)"
_PART_NOTE = ("operands of nested shapes and nested valid regions, anchored at [0, 0]: the result has the larger "
              "shape; where both operands are valid it is the op of both, where one is, that operand; its valid "
              "shape is the larger valid region")


def _cmp_fn(attrs: dict[str, Any], op: str) -> Callable[[Any, Any], Any]:
    kind = attrs.get("cmp_type", 0)
    if isinstance(kind, int) and not isinstance(kind, bool) and 0 <= kind < len(_CMP_BY_INT):
        kind = _CMP_BY_INT[kind]
    if not isinstance(kind, str) or kind.lower() not in _CMP:
        raise _tl._fail(op, f"cmp_type={kind!r} is not a comparison",
                        "use cmp_type=0..5 (EQ, NE, LT, LE, GT, GE) or one of 'eq', 'ne', 'lt', 'le', 'gt', 'ge'")
    return _CMP[kind.lower()]


#: the bitwise ops' dtype rule (declared on their parameters: ``operand_dtypes=INT_ONLY``), with its wording
_INT_EXTRA = {"dtype_reason": "bitwise ops need an integer dtype",
              "dtype_hint": "use INT8 / INT16 / INT32 operands (pl.cast to an integer type first), or "
                            "pl.tile.reinterpret_view a float tile as integers"}


def _wide(x: Any) -> Any:
    return _tl._f32(x)


def check_scalar_operand(op: str, dtype: Any, scalar: Any) -> None:
    """A constant scalar combined with an operand of ``dtype``: with an integer operand it must be one of the
    dtype's values (``check_integer_scalar``: the vector unit reads it in that dtype, so 300 would become 44 and
    1.5 would become 1, silently); a constant shift amount must lie in [0, bits) (the hardware leaves a longer shift
    undefined); a constant integer divisor of ``rems`` must not be 0. Scalars known only at run time are not judged
    (they reach the vector unit as a register value of the operand's dtype: ``tile_ops.scalar_operand``)."""
    check_integer_scalar(op, dtype, scalar)
    value = scalar.value if isinstance(scalar, (ConstInt, ConstFloat)) else scalar
    if not isinstance(dtype, DataType) or not dtype.is_int or isinstance(value, bool) \
            or not isinstance(value, (int, float)):
        return
    base = op.rsplit(".", 1)[-1]
    if base in ("shls", "shrs") and not 0 <= int(value) < dtype.bits:
        raise _tl._fail(op, f"a shift by {value!r} is outside [0, {dtype.bits}) for a {dtype.name} operand",
                        f"shift by 0 to {dtype.bits - 1}; to clear the value write pl.tile.muls(t, 0)")
    if base == "rems" and int(value) == 0:
        raise _tl._fail(op, "an integer remainder by zero is undefined",
                        "divide by a non-zero constant, or cast the operand to a float type (x rem 0 is NaN there)")


# ------------------------------------------------------------------------------------------------
# tile forms
# ------------------------------------------------------------------------------------------------


def _reg_tile(name: str, params: tuple[Param, ...], infer: Callable[[Any, Any], Type], kind: OpKind,
              golden: Callable[[Any, Any], Any], note: str | None = None,
              operand_dtypes: tuple[DTypeClass, ...] | None = None, **extra: Any) -> None:
    ex = dict(extra)
    if note:
        ex["note"] = note
    register_op(OpDef(f"tile.{name}", params, infer, kind, Unit.VECTOR, _tl.VEC, golden=golden,
                      pto=f"t{name.rstrip('_')}", cost="vector", extra=ex, operand_dtypes=operand_dtypes))


def _binary(name: str) -> Callable[[Any, Any], Type]:
    base = _tl._infer_binary(f"tile.{name}")

    def infer(args, attrs) -> Type:
        t = base(args, attrs)
        if name == "cmp":
            _cmp_fn(attrs, "tile.cmp")
        return t
    return infer


def _scalar(name: str) -> Callable[[Any, Any], Type]:
    def infer(args, attrs) -> Type:
        op = f"tile.{name}"
        a = _tl._tile(op, args, 0)
        if name == "cmps":
            _cmp_fn(attrs, op)
        check_scalar_operand(op, a.dtype, args[1] if len(args) > 1 else None)
        return _tl._vec_tile(a.shape, a.dtype, _tl._valid_view(a))  # the padding stays padding
    return infer


def _unary(name: str) -> Callable[[Any, Any], Type]:
    def infer(args, attrs) -> Type:
        a = _tl._tile(f"tile.{name}", args, 0)
        return _tl._vec_tile(a.shape, a.dtype, _tl._valid_view(a))
    return infer


def _ints(x: Any) -> Any:
    return np.asarray(x)


_BINARY: dict[str, tuple[Callable[..., Any], bool]] = {
    "rem": (np.remainder, False), "fmod": (np.fmod, False),
    "and_": (np.bitwise_and, True), "or_": (np.bitwise_or, True), "xor": (np.bitwise_xor, True),
    "shl": (np.left_shift, True), "shr": (np.right_shift, True),
}
_SCALAR: dict[str, tuple[Callable[..., Any], bool]] = {
    "rems": (np.remainder, False), "fmods": (np.fmod, False),
    "ands": (np.bitwise_and, True), "ors": (np.bitwise_or, True), "xors": (np.bitwise_xor, True),
    "shls": (np.left_shift, True), "shrs": (np.right_shift, True),
}
_FLOAT_MODULO = ("fmod", "fmods")  # "floating-point modulo" in PyPTO's catalog; rem / rems take integers too
def _domain(name: str, ints: bool) -> dict[str, Any]:
    """The operand dtype declaration of a remainder / bitwise op: integers for the bitwise ones, floats for fmod."""
    if ints:
        return {"operand_dtypes": INT_ONLY, **_INT_EXTRA}
    return {"operand_dtypes": FLOAT_ONLY} if name in _FLOAT_MODULO else {}


for _n, (_fn, _i) in _BINARY.items():
    _reg_tile(_n, (Param("lhs", T), Param("rhs", T)), _binary(_n), OpKind.ELEMENTWISE,
              (lambda f, i: lambda a, k: f(_ints(a[0]), _ints(a[1])) if i else f(_wide(a[0]), _wide(a[1])))(_fn, _i),
              numpy=_fn, **_domain(_n, _i))
for _n, (_fn, _i) in _SCALAR.items():
    _reg_tile(_n, (Param("tile", T), Param("scalar", S)), _scalar(_n), OpKind.SCALAR_ELEMENTWISE,
              (lambda f, i: lambda a, k: f(_ints(a[0]), _tl.scalar_operand(_ints(a[0]), int(a[1]))) if i
               else f(_wide(a[0]), a[1]))(_fn, _i),
              numpy=_fn, **_domain(_n, _i))

_reg_tile("not_", (Param("tile", T),), _unary("not_"), OpKind.UNARY,
          lambda a, k: np.invert(_ints(a[0])), numpy=np.invert, **_domain("not_", True))
# sin / cos are FP32-only in PyPTO (its DeduceTileFP32OnlyType refuses FP16, BF16 and integers)
_reg_tile("sin", (Param("tile", T),), _unary("sin"), OpKind.UNARY, lambda a, k: np.sin(_wide(a[0])), numpy=np.sin,
          operand_dtypes=FP32_ONLY)
_reg_tile("cos", (Param("tile", T),), _unary("cos"), OpKind.UNARY, lambda a, k: np.cos(_wide(a[0])), numpy=np.cos,
          operand_dtypes=FP32_ONLY)

_reg_tile("cmp", (Param("lhs", T), Param("rhs", T), Param("cmp_type", A, 0)), _binary("cmp"), OpKind.ELEMENTWISE,
          lambda a, k: _cmp_fn(k, "tile.cmp")(_wide(a[0]), _wide(a[1])).astype(np.float64), note=_MASK_NOTE)
_reg_tile("cmps", (Param("tile", T), Param("scalar", S), Param("cmp_type", A, 0)), _scalar("cmps"),
          OpKind.SCALAR_ELEMENTWISE,
          lambda a, k: _cmp_fn(k, "tile.cmps")(_wide(a[0]), _tl.scalar_operand(np.asarray(a[0]), a[1])
                                               ).astype(np.float64), note=_MASK_NOTE)


def _infer_sel(args, attrs) -> Type:
    op = "tile.sel"
    mask, lhs, rhs = (_tl._tile(op, args, i, w) for i, w in enumerate(("mask", "lhs", "rhs")))
    for t, what in ((lhs, "lhs"), (rhs, "rhs")):
        if not _tl._same_shape(mask.shape, t.shape):
            raise _tl._fail(op, f"mask {_tl._shape_repr(mask.shape)} and {what} {_tl._shape_repr(t.shape)} differ",
                            "the mask has the shape of the values it selects between (a pl.cmp result)")
    if lhs.dtype != rhs.dtype:
        raise _tl._fail(op, f"lhs dtype {lhs.dtype.name} differs from rhs dtype {rhs.dtype.name}",
                        "cast one operand with pl.tile.cast first")
    return _tl._vec_tile(lhs.shape, lhs.dtype, _tl._valid_view(mask, lhs, rhs))


def _infer_sels(args, attrs) -> Type:
    op = "tile.sels"
    mask, value = _tl._tile(op, args, 0, "mask"), _tl._tile(op, args, 1, "value")
    check_scalar_operand(op, value.dtype, args[2] if len(args) > 2 else None)
    if not _tl._same_shape(mask.shape, value.shape):
        raise _tl._fail(op, f"mask {_tl._shape_repr(mask.shape)} and value {_tl._shape_repr(value.shape)} differ",
                        "the mask has the shape of the tile it selects from (a pl.cmp result)")
    return _tl._vec_tile(value.shape, value.dtype, _tl._valid_view(mask, value))


_reg_tile("sel", (Param("mask", T), Param("lhs", T), Param("rhs", T)), _infer_sel, OpKind.ELEMENTWISE,
          lambda a, k: np.where(np.asarray(a[0]) != 0, _wide(a[1]), _wide(a[2])), note=_SEL_NOTE)
_reg_tile("sels", (Param("mask", T), Param("tile", T),
                   Param("scalar", S, hint="the value taken where the mask is zero is a number or a pl.Scalar")),
          _infer_sels, OpKind.ELEMENTWISE,
          lambda a, k: np.where(np.asarray(a[0]) != 0, _wide(a[1]), _tl.scalar_operand(np.asarray(a[1]), a[2])),
          note="the tile where the mask is non-zero, the scalar elsewhere")


_SC_HINT = "the middle operand of the *sc form is a scalar"


def _infer_three(name: str, scalar_mid: bool) -> Callable[[Any, Any], Type]:
    def infer(args, attrs) -> Type:
        op = f"tile.{name}"
        a = _tl._tile(op, args, 0, "src0")
        if scalar_mid:
            check_scalar_operand(op, a.dtype, args[1])
        else:
            b = _tl._tile(op, args, 1, "src1")
            if not _tl._same_shape(a.shape, b.shape) or a.dtype != b.dtype:
                raise _tl._fail(op, "src0 and src1 differ in shape or dtype", "pass tiles of one shape and dtype")
        c = _tl._tile(op, args, 2, "src2")
        if not _tl._same_shape(a.shape, c.shape) or a.dtype != c.dtype:
            raise _tl._fail(op, "src0 and src2 differ in shape or dtype", "pass tiles of one shape and dtype")
        tiles = (a, c) if scalar_mid else (a, _tl._tile(op, args, 1, "src1"), c)
        return _tl._vec_tile(a.shape, a.dtype, _tl._valid_view(*tiles))
    return infer


_reg_tile("addc", (Param("src0", T), Param("src1", T), Param("src2", T)), _infer_three("addc", False),
          OpKind.ELEMENTWISE, lambda a, k: _wide(a[0]) + _wide(a[1]) + _wide(a[2]), note="src0 + src1 + src2")
_reg_tile("subc", (Param("src0", T), Param("src1", T), Param("src2", T)), _infer_three("subc", False),
          OpKind.ELEMENTWISE, lambda a, k: _wide(a[0]) - _wide(a[1]) + _wide(a[2]), note="src0 - src1 + src2")
_reg_tile("addsc", (Param("src0", T), Param("scalar", S, hint=_SC_HINT), Param("src1", T)), _infer_three("addsc", True),
          OpKind.ELEMENTWISE, lambda a, k: _wide(a[0]) + _tl.scalar_operand(a[0], a[1]) + _wide(a[2]),
          note="src0 + scalar + src1")
_reg_tile("subsc", (Param("src0", T), Param("scalar", S, hint=_SC_HINT), Param("src1", T)), _infer_three("subsc", True),
          OpKind.ELEMENTWISE, lambda a, k: _wide(a[0]) - _tl.scalar_operand(a[0], a[1]) + _wide(a[2]),
          note="src0 - scalar + src1")

_reg_tile("prelu", (Param("tile", T), Param("slope", T)), _binary("prelu"), OpKind.ELEMENTWISE,
          lambda a, k: np.where(_wide(a[0]) > 0, _wide(a[0]), _wide(a[0]) * _wide(a[1])),
          note="x where x > 0, else slope * x (slope: a tile of x's shape)",
          operand_dtypes=FLOAT_ONLY)
_reg_tile("lrelu", (Param("tile", T), Param("slope", S)), _scalar("lrelu"), OpKind.SCALAR_ELEMENTWISE,
          lambda a, k: np.where(_wide(a[0]) > 0, _wide(a[0]), _wide(a[0]) * a[1]),
          note="x where x > 0, else slope * x (slope: a scalar)",
          operand_dtypes=FLOAT_ONLY)


def _infer_expands(args, attrs) -> Type:
    op = "tile.expands"
    a = _tl._tile(op, args, 0, "target")
    check_scalar_operand(op, a.dtype, args[1] if len(args) > 1 else None)
    return _tl._vec_tile(a.shape, a.dtype, _tl._valid_view(a))  # the target's valid region is what is filled


_EXPANDS_HINT = "the value broadcast over the target's shape is a number or a pl.Scalar"
_reg_tile("expands", (Param("target", T), Param("scalar", S, hint=_EXPANDS_HINT)), _infer_expands,
          OpKind.SCALAR_ELEMENTWISE,
          lambda a, k: np.full(np.shape(a[0]), _tl.scalar_operand(np.asarray(a[0]), a[1]),
                               dtype=np.float64 if np.asarray(a[0]).dtype.kind == "f" else np.asarray(a[0]).dtype),
          note="every element of the target's shape set to the scalar (the target's values are not read)",
          shape_only_operands=(0,))


# reductions: products and arg-extrema (an INT32 index of the extremum; the first one on ties)
def _infer_reduce(name: str, axis: int, index: bool) -> Callable[[Any, Any], Type]:
    base = _tl._infer_reduction(f"tile.{name}", axis)

    def infer(args, attrs) -> Type:
        t = base(args, attrs)
        return _tl._vec_tile(t.shape, DataType.INT32) if index else t
    return infer


def _golden_reduce(fn: Callable[..., Any], axis: int, index: bool) -> Callable[[Any, Any], Any]:
    ax = -1 if axis == 1 else 0
    if index:
        return lambda a, k: np.expand_dims(fn(_wide(a[0]), axis=ax), ax).astype(np.int64)
    return lambda a, k: fn(_wide(a[0]), axis=ax, keepdims=True)


_REDUCE: dict[str, Callable[..., Any]] = {"prod": np.prod, "argmax": np.argmax, "argmin": np.argmin}
for _r, _fn in _REDUCE.items():
    for _prefix, _axis, _kind in (("row", 1, OpKind.ROW_REDUCTION), ("col", 0, OpKind.COL_REDUCTION)):
        _idx = _r.startswith("arg")
        _golden = _golden_reduce(_fn, _axis, _idx)
        register_op(OpDef(
            f"tile.{_prefix}_{_r}", (Param("tile", T),), _infer_reduce(f"{_prefix}_{_r}", _axis, _idx), _kind,
            Unit.VECTOR, _tl.VEC, golden=_golden, pto=f"t{_prefix}{_r}", cost="vector",
            extra={"axis": _axis, "numpy": _fn, **({"note": "INT32 index of the first extremum"} if _idx else {})},
        ))

# the row form of the softmax broadcast (the column form is in tile_ops)
register_op(OpDef(
    "tile.row_expand_expdif", _tl.EXPAND_PARAMS,
    _tl._infer_expand("tile.row_expand_expdif", 1), OpKind.ROW_BROADCAST, Unit.VECTOR, _tl.VEC,
    golden=lambda a, k: np.exp(_wide(a[0]) - _wide(a[1])), pto="trowexpandexpdif", cost="vector",
    extra={"axis": 1, "note": "exp(target - vector), the vector broadcast along the row"}, operand_dtypes=FLOAT_ONLY,
))


# partial arithmetic: operands of nested regions
def _valid_extents_of(t: Any) -> tuple[Expr, ...]:
    """The region of ``t`` that holds data: its valid shape (a tile's TileView), else its shape."""
    view = getattr(t, "tile_view", None)
    return tuple(view.valid_shape) if view is not None and view.valid_shape is not None else tuple(t.shape)


def _part_valid_view(a: Any, b: Any, big: tuple[int, ...], op: str) -> TileView | None:
    """The result of a partial op holds data wherever either operand does: per axis the larger valid extent
    (``Max`` of run-time extents). Static regions that are not nested would leave positions valid in neither
    operand inside that box: refused (golden and the simulator check run-time extents the same way)."""
    va, vb = _valid_extents_of(a), _valid_extents_of(b)
    if all(isinstance(x, ConstInt) for x in va + vb):
        ia, ib = [x.value for x in va], [x.value for x in vb]
        if not (all(x >= y for x, y in zip(ia, ib, strict=True)) or all(x <= y for x, y in zip(ia, ib, strict=True))):
            raise _tl._fail(op, f"the operands' valid regions {ia} and {ib} are not nested",
                            "one operand's valid region must contain the other's (both start at [0, 0])")
    out: list[Expr] = []
    for x, y in zip(va, vb, strict=True):
        if isinstance(x, ConstInt) and isinstance(y, ConstInt):
            out.append(x if x.value >= y.value else y)
        elif x is y:
            out.append(x)
        else:
            out.append(Max(x, y, DataType.INDEX))
    if all(isinstance(x, ConstInt) and x.value == n for x, n in zip(out, big, strict=True)):
        return None
    return TileView(valid_shape=tuple(out))


def _infer_part(name: str) -> Callable[[Any, Any], Type]:
    def infer(args, attrs) -> Type:
        op = name
        operand = _tl._tile if op.startswith("tile.") else _tn._tensor
        a, b = operand(op, args, 0, "lhs"), operand(op, args, 1, "rhs")  # both declared rank 2
        sa, sb = a.static_shape, b.static_shape
        if sa is None or sb is None:
            raise _tl._fail(op, "partial arithmetic needs static shapes", "give both operands constant extents")
        if a.dtype != b.dtype:
            raise _tl._fail(op, f"operand dtypes {a.dtype.name} and {b.dtype.name} differ", "cast one operand first")
        big, small = (sa, sb) if all(x >= y for x, y in zip(sa, sb, strict=True)) else (sb, sa)
        if not all(x >= y for x, y in zip(big, small, strict=True)):
            raise _tl._fail(op, f"operand shapes {list(sa)} and {list(sb)} are not nested",
                            "one operand's region must contain the other's (both start at [0, 0])")
        shape = make_shape(big)
        if not isinstance(a, TileType):
            return TensorType(shape, a.dtype)
        return _tl._vec_tile(shape, a.dtype, _part_valid_view(a, b, tuple(big), op))
    return infer


def _golden_part(fn: Callable[..., Any], name: str) -> Callable[[Any, Any], Any]:
    """``fn`` where both operands hold data, the operand that does where only one does. The valid extents of
    both operands come as trailing operands (``reads_valid_shape``; absent: each operand's shape)."""
    def golden(a, k):
        x, y = _wide(np.asarray(a[0])), _wide(np.asarray(a[1]))
        shape = tuple(max(p, q) for p, q in zip(x.shape, y.shape, strict=True))
        masks, full = [], []
        for v, valid in ((x, a[2] if len(a) > 2 else None), (y, a[3] if len(a) > 3 else None)):
            ext = tuple(min(max(int(e), 0), n) for e, n in zip(valid if valid is not None else v.shape, v.shape,
                                                                 strict=True))
            m = np.zeros(shape, bool)
            m[tuple(slice(0, e) for e in ext)] = True
            f = np.zeros(shape, v.dtype)
            f[tuple(slice(0, n) for n in v.shape)] = v
            masks.append((m, ext))
            full.append(f)
        (mx, ex), (my, ey) = masks
        box = tuple(max(p, q) for p, q in zip(ex, ey, strict=True))
        inside = np.zeros(shape, bool)
        inside[tuple(slice(0, e) for e in box)] = True
        if np.any(inside & ~mx & ~my):
            raise TilefoldError(f"{name}: the operands' valid regions {list(ex)} and {list(ey)} are not nested",
                                hint="one operand's valid region must contain the other's (both start at [0, 0])")
        both = fn(full[0], full[1])
        out = np.where(mx & my, both, np.where(mx, full[0], np.where(my, full[1], 0)))
        return out.astype(np.result_type(both, np.float32) if both.dtype.kind == "f" else both.dtype)
    return golden


_PART = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
for _n, _fn in _PART.items():
    register_op(OpDef(
        f"tile.part_{_n}", (Param("lhs", T, rank=2), Param("rhs", T, rank=2)), _infer_part(f"tile.part_{_n}"),
        OpKind.OTHER, Unit.VECTOR, _tl.VEC, golden=_golden_part(_fn, f"tile.part_{_n}"), pto=f"tpart{_n}",
        cost="vector",
        # golden / the instruction get both operands' valid extents (evaluated at run time) as trailing operands
        extra={"note": _PART_NOTE, "reads_valid_shape": (0, 1)},
    ))


# ------------------------------------------------------------------------------------------------
# tensor forms (the catalog reaches these through ``pl.``)
# ------------------------------------------------------------------------------------------------


def _t_checked(base_factory: Callable[[str], Callable[[Any, Any], Type]], name: str,
               ints: bool) -> Callable[[Any, Any], Type]:
    """The tensor form's inference: the core family's rule, then the comparison kind of cmp / cmps (the operand
    dtypes are the tile op's declaration, which the registry applies to the tensor form)."""
    base = base_factory(f"tensor.{name}")

    def infer(args, attrs) -> Type:
        t = base(args, attrs)
        if name in ("cmp", "cmps"):
            _cmp_fn(attrs, f"tensor.{name}")
        if name in _SCALAR or name == "cmps":
            check_scalar_operand(f"tensor.{name}", args[0].type.dtype, args[1] if len(args) > 1 else None)
        return t
    return infer


def _t_binary(name: str, ints: bool) -> Callable[[Any, Any], Type]:
    return _t_checked(_tn._binary_infer, name, ints)


def _t_scalar(name: str, ints: bool) -> Callable[[Any, Any], Type]:
    return _t_checked(_tn._scalar_infer, name, ints)


def _t_unary(name: str, ints: bool) -> Callable[[Any, Any], Type]:
    return _t_checked(_tn._unary_infer, name, ints)


def _tile_golden(name: str) -> Callable[[Any, Any], Any]:
    """A tensor op computes what its tile op computes (one declaration of the semantics)."""
    from tilefold.ops.registry import get_op

    return lambda a, k: get_op(f"tile.{name}").golden(a, k)


def _t_note(name: str) -> dict[str, Any]:
    from tilefold.ops.registry import get_op

    note = get_op(f"tile.{name}").extra.get("note")
    return {"note": note} if note else {}


for _n, (_fn, _i) in _BINARY.items():
    _tn._declare(_n, (Param("lhs", V), Param("rhs", V)), _t_binary(_n, _i), OpKind.ELEMENTWISE, _tile_golden(_n),
                 f"tile.{_n}", scalar_form=_n.rstrip("_") + "s")
for _n, (_fn, _i) in _SCALAR.items():
    _tn._declare(_n, (Param("tensor", V), Param("scalar", S)), _t_scalar(_n, _i), OpKind.SCALAR_ELEMENTWISE,
                 _tile_golden(_n), f"tile.{_n}")
for _n, _i in (("not_", True), ("sin", False), ("cos", False)):
    _tn._declare(_n, (Param("tensor", V),), _t_unary(_n, _i), OpKind.UNARY, _tile_golden(_n), f"tile.{_n}")
_tn._declare("cmp", (Param("lhs", V), Param("rhs", V), Param("cmp_type", A, 0)), _t_binary("cmp", False),
             OpKind.ELEMENTWISE, _tile_golden("cmp"), "tile.cmp", scalar_form="cmps", **_t_note("cmp"))
_tn._declare("cmps", (Param("tensor", V), Param("scalar", S), Param("cmp_type", A, 0)), _t_scalar("cmps", False),
             OpKind.SCALAR_ELEMENTWISE, _tile_golden("cmps"), "tile.cmps", **_t_note("cmps"))


def _t_expands(args, attrs) -> Type:
    a = _tn._tensor("tensor.expands", args, 0, "target")
    check_scalar_operand("tensor.expands", a.dtype, args[1] if len(args) > 1 else None)
    return TensorType(a.shape, a.dtype)


_tn._declare("expands", (Param("target", V), Param("scalar", S)), _t_expands, OpKind.SCALAR_ELEMENTWISE,
             _tile_golden("expands"), "tile.expands", **_t_note("expands"))


def _t_reduce(name: str, axis: int, index: bool) -> Callable[[Any, Any], Type]:
    base = _tn._reduce_infer(f"tensor.{name}", axis)

    def infer(args, attrs) -> Type:
        t = base(args, attrs)
        return TensorType(t.shape, DataType.INT32) if index else t
    return infer


for _r in _REDUCE:
    for _prefix, _axis, _kind in (("row", 1, OpKind.ROW_REDUCTION), ("col", 0, OpKind.COL_REDUCTION)):
        _nm = f"{_prefix}_{_r}"
        _tn._declare(_nm, (_tn.V2("tensor"),), _t_reduce(_nm, _axis, _r.startswith("arg")), _kind,
                     _tile_golden(_nm), f"tile.{_nm}", **_t_note(_nm))

# broadcasts the core tensor set lacks: the plain expansions and the max / min / expdif fused forms
for _prefix, _axis, _kind in (("row", 1, OpKind.ROW_BROADCAST), ("col", 0, OpKind.COL_BROADCAST)):
    for _suffix in ("", "_max", "_min", "_expdif"):
        _nm = f"{_prefix}_expand{_suffix}"
        _tn._declare(_nm, (_tn.V2("target"), _tn.V2("vector")), _tn._expand_infer(f"tensor.{_nm}", _axis), _kind,
                     _tile_golden(_nm), f"tile.{_nm}")

for _n in _PART:
    _tn._declare(f"part_{_n}", (Param("lhs", V, rank=2), Param("rhs", V, rank=2)), _infer_part(f"tensor.part_{_n}"),
                 OpKind.OTHER, _tile_golden(f"part_{_n}"), f"tile.part_{_n}", note=_PART_NOTE)


# PyPTO operand forms of the tile ops, read by the parser (``_pypto_operand_forms``):
# - ``tmp``: the workspace tile PyPTO's reductions and rsqrt take (the device instruction's scratch; its contents
#   afterwards are unspecified, so it carries no value and the op's semantics do not read it);
# - ``a_trans`` / ``b_trans`` of the cube ops: that operand is read through ``tile.transpose_view``.
from tilefold.ops.registry import get_op as _get_op  # noqa: E402

for _name in ("row_sum", "row_max", "row_min", "row_prod", "col_sum", "col_max", "col_min", "col_prod", "rsqrt"):
    _get_op(f"tile.{_name}").extra["scratch_operands"] = ("tmp",)
for _name in ("matmul", "matmul_acc", "matmul_bias", "gemv", "gemv_acc"):
    _get_op(f"tile.{_name}").extra["transpose_flags"] = {"a_trans": "lhs", "b_trans": "rhs"}
