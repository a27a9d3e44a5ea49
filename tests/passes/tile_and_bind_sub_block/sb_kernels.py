"""Numpy kernels of the custom ops used by the sub-block tests (the analog of compiled kernels).

Each kernel is tile-local: it sees only the window its sub-block computes, so a split kernel gives the
same result as the whole one exactly when the pass projected the windows correctly.
"""

from __future__ import annotations

import numpy as np

from tilefold.custom import register_custom_op


def _f32(x):
    return np.asarray(x, dtype=np.float32)


def softmax(x, axis):
    x = _f32(x)
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def _like(x, value):
    """Return ``value`` in the dtype of ``x`` (a kernel's result has its output init's dtype)."""
    return np.asarray(value, dtype=np.float32).astype(np.asarray(x).dtype)


KERNELS = {
    "sb.scale2": lambda x: _like(x, _f32(x) * 2.0 + 1.0),
    "sb.add_row": lambda x, b: _like(x, _f32(x) + _f32(b)[:, :1]),  # b broadcast along columns ([M, 1])
    "sb.add_col": lambda x, b: _like(x, _f32(x) + _f32(b)),  # b broadcast along rows ([1, N])
    "sb.row_sum": lambda x: _f32(x).sum(axis=1).astype(np.float32),  # [M, N] FP16 -> [M] FP32
    "sb.row_sum2d": lambda x: _like(x, _f32(x).sum(axis=1, keepdims=True)),  # [M, N] -> [M, 1]
    "sb.scale_by": lambda x, s: _like(x, _f32(x) * np.float32(s)),
    "sb.two": lambda x: (_like(x, _f32(x) * 2.0), _like(x, _f32(x) - 1.0)),
    "sb.copy_and_sum": lambda x: (_like(x, _f32(x)), _like(x, _f32(x).sum(axis=1, keepdims=True))),
    "sb.softmax_last": lambda x: _like(x, softmax(x, 1)),
    "sb.softmax_first": lambda x: _like(x, softmax(x, 0)),
    "sb.max_exp": lambda x: (_like(x, _f32(x).max(axis=1, keepdims=True)),
                             _like(x, np.exp(_f32(x) - _f32(x).max(axis=1, keepdims=True)))),
    "sb.two_vec": lambda x, b, c: _like(x, _f32(x) + _f32(b) * 0.5 + np.transpose(_f32(c))),
    "sb.mix4": lambda x, b, c, s: _like(x, _f32(x) + _f32(b) + np.transpose(_f32(c)) + _f32(s)),
    "sb.colmax": lambda x: _like(x, _f32(x).max(axis=0, keepdims=True)),  # [M, N] -> [1, N]
}


def register_kernels() -> None:
    for symbol, fn in KERNELS.items():
        register_custom_op(symbol, fn, replace=True)
