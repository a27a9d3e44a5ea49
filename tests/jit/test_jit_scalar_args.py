"""Scalar arguments of an ``@pl.jit.incore`` launch: float and int literals are passed by value."""

from __future__ import annotations

import numpy as np

import tilefold.language as pl


@pl.jit.incore
def scale_rows(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
               factor: pl.Scalar[pl.FP32]):
    t = pl.load(x, [0, 0], [32, 64])
    out = pl.store(pl.mul(t, factor), [0, 0], out)
    return out


@pl.jit
def twice_then_half(x: pl.Tensor[[32, 64], pl.FP32], mid: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
                    out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    mid = scale_rows(x, mid, 2.5)
    out = scale_rows(mid, out, -0.5)
    return out


def test_float_literals_reach_the_kernel_by_value():
    x = np.random.default_rng(3).standard_normal((32, 64)).astype(np.float32)
    mid, out = np.zeros_like(x), np.zeros_like(x)
    twice_then_half(x, mid, out)
    np.testing.assert_allclose(mid, 2.5 * x, rtol=1e-6)
    np.testing.assert_allclose(out, -1.25 * x, rtol=1e-6)
