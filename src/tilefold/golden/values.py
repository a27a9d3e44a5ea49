"""Value helpers of the golden interpreter: scalar normalisation and zero-copy window views derived from an
op's own golden semantics; dtype conversion (``to_dtype``, shared with the simulator) is
``tilefold.ops.conversions`` (re-exported here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.ir.types import DataType
from tilefold.ops.conversions import int_range, is_float_dtype, is_int_dtype, to_dtype

__all__ = ["byte_offsets", "int_range", "is_float_dtype", "is_int_dtype", "scalar_value", "strided_view", "to_dtype"]


def scalar_value(value: Any, dtype: DataType) -> int | float | bool:
    """A Python scalar of ``dtype``: ints wrap to the type's range, floats round to its precision."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise ValueError(f"expected a scalar, got an array of shape {value.shape}")
        value = value.reshape(()).item() if not is_float_dtype(value.dtype) else float(value.astype(np.float64))
    elif isinstance(value, np.generic):
        value = float(np.float64(value)) if is_float_dtype(value.dtype) else value.item()
    if dtype.is_bool:
        return bool(value)
    if dtype.is_int:
        if isinstance(value, float):
            if value != value:  # NaN
                return 0
            value = int(value)
        v = int(value)
        lo, hi = int_range(dtype.np_dtype) if dtype is not DataType.INDEX else (-(2**63), 2**63 - 1)
        if not lo <= v <= hi:
            v = (v - lo) % (hi - lo + 1) + lo
        return v
    with np.errstate(over="ignore"):
        return float(np.asarray(float(value), dtype=np.float64).astype(dtype.np_dtype).astype(np.float64))


def byte_offsets(src: np.ndarray) -> np.ndarray:
    """For every element of ``src``, its byte offset from ``src``'s first element (int64)."""
    offs = np.zeros(src.shape, dtype=np.int64)
    for axis, (extent, stride) in enumerate(zip(src.shape, src.strides, strict=False)):
        shape = [1] * src.ndim
        shape[axis] = extent
        offs = offs + (np.arange(extent, dtype=np.int64) * stride).reshape(shape)
    return offs


def strided_view(src: np.ndarray, mapped: np.ndarray, offsets: np.ndarray | None = None) -> np.ndarray | None:
    """A numpy view of ``src`` whose element ``i`` is the element of ``src`` at byte offset
    ``mapped[i]`` — provided the offsets form a strided (affine) pattern; else None.

    ``mapped`` is obtained by running a view op's golden on ``byte_offsets(src)``, so views follow the
    registry's own window semantics instead of a per-op list in the interpreter.
    """
    if mapped.size == 0 or src.size == 0 or mapped.dtype != np.int64:
        return None
    base = int(mapped.reshape(-1)[0])
    strides = []
    expected = np.full(mapped.shape, base, dtype=np.int64)
    for axis, extent in enumerate(mapped.shape):
        if extent > 1:
            index = [0] * mapped.ndim
            index[axis] = 1
            stride = int(mapped[tuple(index)]) - base
        else:
            stride = 0
        strides.append(stride)
        shape = [1] * mapped.ndim
        shape[axis] = extent
        expected = expected + (np.arange(extent, dtype=np.int64) * stride).reshape(shape)
    if not np.array_equal(mapped, expected):
        return None
    hits = np.argwhere((byte_offsets(src) if offsets is None else offsets) == base)
    if len(hits) == 0:
        return None
    anchor = src[tuple(slice(int(p), int(p) + 1) for p in hits[0])] if src.ndim else src
    return np.lib.stride_tricks.as_strided(anchor, shape=mapped.shape, strides=tuple(strides))
