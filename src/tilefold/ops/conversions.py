"""Converting a value to a dtype with well-defined overflow behaviour: the one rule golden and the simulator share.

- float -> float (incl. ml_dtypes BF16 / FP8): IEEE round-to-nearest-even; overflow gives +-inf.
- float -> int: NaN becomes 0, values saturate to the integer range, then truncate toward zero
  (ops that need another rounding, e.g. ``tile.cast`` with ``mode="round"``, round in their golden).
- int -> int: two's-complement wrap (the device's integer overflow behaviour).
- anything -> bool: non-zero is true.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from tilefold.ir.types import DataType

_ML_FLOATS = {np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2),
              np.dtype(ml_dtypes.float8_e8m0fnu), np.dtype(ml_dtypes.float4_e2m1fn)}
_ML_INTS = {np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)}


def is_float_dtype(dtype: np.dtype) -> bool:
    """True for numpy floats and the ml_dtypes float types (whose numpy kind is 'V')."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype in _ML_FLOATS


def is_int_dtype(dtype: np.dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind in "iu" or dtype in _ML_INTS


def int_range(dtype: np.dtype) -> tuple[int, int]:
    dtype = np.dtype(dtype)
    info = ml_dtypes.iinfo(dtype) if dtype in _ML_INTS else np.iinfo(dtype)
    return int(info.min), int(info.max)


def to_dtype(value: Any, dtype: DataType) -> np.ndarray:
    """``value`` as an ndarray of ``dtype``'s numpy type, converted per the module rules."""
    target = dtype.np_dtype
    arr = np.asarray(value)
    if arr.dtype == target:
        return arr
    with np.errstate(over="ignore", invalid="ignore"):
        if target == np.bool_:
            return arr.astype(np.float64) != 0 if arr.dtype in _ML_FLOATS else arr.astype(np.bool_)
        if is_int_dtype(target):
            lo, hi = int_range(target)
            if is_float_dtype(arr.dtype):
                wide = arr.astype(np.float64)
                wide = np.trunc(np.clip(np.nan_to_num(wide, nan=0.0), lo, hi))
                return wide.astype(np.int64).astype(target)
            wide = arr.astype(np.int64)
            if target in _ML_INTS or target.itemsize < 8:
                span = hi - lo + 1
                wide = (wide - lo) % span + lo
            return wide.astype(target)
        # float target
        if not is_float_dtype(arr.dtype):
            arr = arr.astype(np.float64)
        return arr.astype(target)


def element_value(value: Any, dtype: np.dtype) -> Any:
    """A scalar register's value written into one element of ``dtype`` (``pl.write``): the register is 64-bit (a
    Python int wraps to int64 first), then converted per the module rules (an int wraps into a narrower integer
    type: ``3 * 10**9`` into INT32 is ``-1294967296``, never an overflow error)."""
    from tilefold.ir.types import dtype_from_numpy

    dt = dtype_from_numpy(np.dtype(dtype))
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = (int(value) + 2**63) % 2**64 - 2**63
    if dt is None:
        return value
    return to_dtype(value, dt)[()]


__all__ = ["element_value", "int_range", "is_float_dtype", "is_int_dtype", "to_dtype"]
