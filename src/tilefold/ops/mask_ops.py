"""Triangular mask tiles (issue 19): ``tile.tri`` (``pl.tri`` / ``pl.tile.tri``) and its tensor form.

PyPTO's catalog: "Lower- or upper-triangular mask tile; ``upper=`` picks the side, ``diagonal=`` shifts it, and
only the valid region is written". tilefold's reading of it, stated in ``extra["note"]`` (``docs/ops.md``):

- element ``(i, j)`` is 1 when ``j - i <= diagonal`` (lower, the default: numpy's ``tril(ones, k=diagonal)``) or
  ``j - i >= diagonal`` (``upper=True``: ``triu(ones, k=diagonal)``), else 0, in the result dtype;
- ``valid_shape=`` (keyword, static or run-time extents) makes a partial tile: the mask is written in
  ``[0, valid_rows) x [0, valid_cols)`` only. Outside it the tile holds no data (a store writes the valid region
  only, a reduction or matmul refuses a partial operand), so nothing can observe those elements; tilefold's value
  model holds 0 there.

It is one vector instruction (``ttri``), priced like ``tci`` (one pass writing the result).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, TensorType, TileView, Type
from tilefold.ops import tensor_ops as _tn
from tilefold.ops import tile_ops as _tl
from tilefold.ops.registry import OpDef, OpKind, Param, ParamKind, Unit, register_op

A = ParamKind.ATTR

_TRI_NOTE = ("element (i, j) is 1 where j - i <= diagonal (lower, default) or j - i >= diagonal (upper=True), else "
             "0; with valid_shape= only [0, valid_rows) x [0, valid_cols) is written (the tile is partial there: "
             "stores write that region, reductions refuse the tile; tilefold holds 0 outside it)")


def _fail(op: str, msg: str, hint: str) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _infer_tri(name: str):
    def infer(args, attrs) -> Type:
        shape = _tl._int_attr_list(name, attrs.get("shape"), "shape")
        if len(shape) != 2 or min(shape) <= 0:
            raise _fail(name, f"shape {list(shape)} is not two positive extents", "e.g. pl.tri([16, 16], pl.FP32)")
        dtype = attrs.get("dtype")
        if not isinstance(dtype, DataType) or dtype is DataType.INDEX:
            raise _fail(name, f"dtype={dtype!r} is not an element dtype", "e.g. dtype=pl.FP32 or pl.INT32")
        for key, kind in (("upper", bool), ("diagonal", int)):
            value = attrs.get(key)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise _fail(name, f"{key}={value!r} must be {'True or False' if kind is bool else 'an integer'}",
                            "upper=True picks the upper triangle; diagonal=k shifts the boundary k columns right")
        view = None
        if len(args) > 0:
            valid = _tl._tuple(name, args, 0, "valid_shape")
            if len(valid) != 2:
                raise _fail(name, f"valid_shape needs 2 entries, got {len(valid)}", "e.g. valid_shape=[12, 16]")
            for axis, (v, n) in enumerate(zip(valid, shape, strict=True)):
                if isinstance(v, ConstInt) and not 0 <= v.value <= n:
                    raise _fail(name, f"valid extent {v.value} on axis {axis} is outside [0, {n}]",
                                "each valid extent lies between 0 and the tile's extent")
            view = TileView(valid_shape=tuple(valid))
        if name.startswith("tensor."):
            if view is not None:
                raise _fail(name, "valid_shape= is a tile-level option", "use pl.tile.tri(..., valid_shape=[r, c])")
            return TensorType(make_shape(shape), dtype)
        return _tl._vec_tile(make_shape(shape), dtype, view)
    return infer


def tri_mask(shape: tuple[int, int], upper: bool, diagonal: int) -> np.ndarray:
    """The 0 / 1 mask of a triangle (int64): ``j - i <= diagonal`` below, ``>= diagonal`` above."""
    rows, cols = shape
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return (offset >= diagonal if upper else offset <= diagonal).astype(np.int64)


def _golden_tri(a: list[Any], k: dict[str, Any]) -> np.ndarray:
    out = tri_mask(tuple(k["shape"]), bool(k.get("upper")), int(k.get("diagonal") or 0))
    if a and a[0] is not None:
        rows, cols = (max(0, int(v)) for v in a[0])
        keep = np.zeros(out.shape, bool)
        keep[:rows, :cols] = True
        out = np.where(keep, out, 0)
    return out


#: PyPTO's order: pl.tri(shape, dtype, upper=, diagonal=); valid_shape is keyword-only (an operand: its extents
#: may be run-time values)
_TRI_ATTRS = (Param("shape", A), Param("dtype", A, DataType.FP32), Param("upper", A, False), Param("diagonal", A, 0))
_TRI_PARAMS = (*_TRI_ATTRS, Param("valid_shape", ParamKind.TUPLE, required=False))
register_op(OpDef("tile.tri", _TRI_PARAMS, _infer_tri("tile.tri"), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=_golden_tri, pto="ttri", cost="vector", min_args=0,
                  extra={"note": _TRI_NOTE, "keyword_only": ("valid_shape",)}))
_tn._declare("tri", _TRI_ATTRS, _infer_tri("tensor.tri"), OpKind.OTHER, _golden_tri, "tile.tri", note=_TRI_NOTE)

__all__ = ["tri_mask"]
