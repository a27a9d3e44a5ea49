"""Conversion and view helpers of the golden interpreter."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilefold.golden.values import byte_offsets, scalar_value, strided_view, to_dtype
from tilefold.ir import DataType


def test_to_dtype_rules():
    np.testing.assert_array_equal(to_dtype(np.array([300, -129], np.int64), DataType.INT8), [44, 127])
    np.testing.assert_array_equal(to_dtype(np.array([9, -9]), DataType.INT4).astype(np.int8), [-7, 7])
    np.testing.assert_array_equal(to_dtype(np.array([1e12, -1e12, np.nan, -2.7]), DataType.INT32),
                                  [2**31 - 1, -(2**31), 0, -2])
    np.testing.assert_array_equal(to_dtype(np.array([1e6]), DataType.FP16), [np.inf])
    x = np.array([1.0 + 2.0**-9, 3.14159], np.float64)
    assert to_dtype(x, DataType.BF16).dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(to_dtype(x, DataType.BF16), x.astype(np.float32).astype(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(to_dtype(np.array([0.0, 2.5]), DataType.BOOL), [False, True])
    same = np.zeros(3, np.float32)
    assert to_dtype(same, DataType.FP32) is same


def test_scalar_value_rules():
    assert scalar_value(2**31, DataType.INT32) == -(2**31)
    assert scalar_value(-7, DataType.INDEX) == -7
    assert scalar_value(np.float32(1.5), DataType.INT32) == 1
    assert scalar_value(0.1, DataType.FP32) == float(np.float32(0.1))
    assert scalar_value(1.0 + 2.0**-9, DataType.BF16) == 1.0
    assert scalar_value(np.array([[3]]), DataType.INDEX) == 3
    assert scalar_value(2, DataType.BOOL) is True


def test_strided_view_shares_storage_and_composes():
    src = np.arange(16 * 128, dtype=np.float32).reshape(16, 128)
    offs = byte_offsets(src)
    view = strided_view(src, offs[:, 64:])
    assert view is not None and np.shares_memory(view, src)
    np.testing.assert_array_equal(view, src[:, 64:])
    inner = strided_view(view, byte_offsets(view)[4:12, 16:48])
    np.testing.assert_array_equal(inner, src[4:12, 80:112])
    inner[...] = -1
    assert (src[4:12, 80:112] == -1).all() and (src[:4] >= 0).all()
    # a gather that is not strided gives no view
    assert strided_view(src, offs[[0, 3, 4], :]) is None
