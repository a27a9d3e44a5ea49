"""What the ops' type inference says about an operand: the shared wording of operand-check errors."""

from __future__ import annotations

from typing import Any

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstFloat, ConstInt, Expr
from tilefold.ir.types import DataType, ScalarType, TensorType, TileType


def shape_repr(shape) -> list:
    """A shape for a message: static extents as ints, dynamic ones as "?"."""
    return [e.value if isinstance(e, ConstInt) else "?" for e in shape]


def describe(t: Any) -> str:
    """``Tile[16, 32] FP32`` / ``Tensor[...] ...`` / ``Scalar INDEX``: an operand type in a message."""
    if isinstance(t, TileType):
        return f"Tile{list(shape_repr(t.shape))} {t.dtype.name}"
    if isinstance(t, TensorType):
        return f"Tensor{list(shape_repr(t.shape))} {t.dtype.name}"
    if isinstance(t, ScalarType):
        return f"Scalar {t.dtype.name}"
    return type(t).__name__


def check_fill_value(op: str, dtype: DataType, value: Any) -> None:
    """A fill (``pl.full``) takes a constant: a run-time scalar expression has no value when the tile is created
    (it reached the golden model / the simulator as an expression). Then ``check_integer_scalar``."""
    if isinstance(value, Expr) and not isinstance(value, (ConstInt, ConstFloat)):
        raise TypeInferenceError(f"{op}: the fill value must be a constant number, but it is a run-time expression",
                                 hint="fill with a run-time scalar through pl.expands(t, value) (every element of "
                                      "t's shape set to value)")
    check_integer_scalar(op, dtype, value)


def check_integer_scalar(op: str, dtype: DataType, scalar: Any) -> None:
    """A constant scalar combined element-wise with an integer operand (``adds``, ``muls`` ...) must be an integer
    that ``dtype`` holds (so must a fill value): a fraction would be truncated and an out-of-range value wrapped or
    saturated, silently. Refused with a hint instead; scalars known only at run time are not judged."""
    if isinstance(scalar, (ConstInt, ConstFloat)):
        scalar = scalar.value
    if not isinstance(dtype, DataType) or not dtype.is_int or isinstance(scalar, bool) \
            or not isinstance(scalar, (int, float)):
        return
    value = scalar
    if isinstance(value, float) and not value.is_integer():
        raise TypeInferenceError(f"{op}: the scalar {value!r} is not an integer, but the operand is {dtype.name}",
                                 hint="cast the operand to a float type first, e.g. pl.cast(x, target_type=pl.FP32), "
                                      "or pass an integer scalar")
    signed = dtype.value[2] == "i"
    lo, hi = (-(2 ** (dtype.bits - 1)), 2 ** (dtype.bits - 1) - 1) if signed else (0, 2 ** dtype.bits - 1)
    if not lo <= int(value) <= hi:
        raise TypeInferenceError(f"{op}: the scalar {value!r} does not fit the operand's dtype {dtype.name}",
                                 hint=f"pass a scalar in [{lo}, {hi}], or cast the operand to a wider type first")
