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


@pl.jit
def iota_times_two(output: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(32):
            pl.write(output, [0, i], pl.cast(i * 2, pl.INT32))
    return output


def test_scalar_cast_of_an_index_feeds_an_element_write():
    out = np.zeros((1, 32), np.int32)
    iota_times_two(out)
    np.testing.assert_array_equal(out[0], np.arange(32) * 2)


def test_scalar_cast_from_float_to_int_is_refused():
    import pytest

    from tilefold.errors import NotSupportedError

    src = ("import tilefold.language as pl\n\n@pl.jit\ndef k(x: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        pl.write(out, [0, 0], pl.cast(x, pl.INT32))\n"
           "    return out\n")
    with pytest.raises(NotSupportedError, match="float scalar to an integer") as info:
        pl.parse(src, "k.py")
    assert info.value.span.line == 6
