"""The ``@pl.jit`` family of the Functions page: an entry calling ``@pl.jit.opaque`` (orchestration loop with
``pl.at`` scopes), ``@pl.jit.inline`` and ``@pl.jit.incore`` helpers by name; and jit kernels built inside a
``get_kernel(shape, dtype)`` function from closure values, as system tests build them."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, PL, rand, tol

import tilefold.language as pl
from tilefold.runtime import RunConfig

CFG = RunConfig(platform="a2a3sim")


@pl.jit.opaque
def exp_stages(a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    for i in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i * 64, 0], [64, 64])
            out = pl.store(pl.exp(t), [i * 64, 0], out)
    return out


@pl.jit.inline
def twice(x):
    return pl.mul(x, 2.0)


@pl.jit.incore
def add_one(a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    out[:] = pl.add(twice(a), 1.0)
    return out


@pl.jit
def entry(a: pl.Tensor[[128, 64], pl.FP32], e: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
          o: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    e = exp_stages(a, e)
    o = add_one(a, o)
    return e, o


def _close(got, want, dtype="fp32"):
    rtol, atol = tol(dtype)
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.all(np.abs(got - want) <= atol + rtol * np.abs(want))


def test_entry_with_opaque_inline_and_incore_helpers():
    a = rand((128, 64), "fp32", 1)
    e, o = np.zeros_like(a), np.zeros_like(a)
    entry(a, e, o, config=CFG)
    _close(e, np.exp(a.astype(np.float64)))
    _close(o, 2.0 * a.astype(np.float64) + 1.0)


def get_kernel(m: int, n: int, dtype: str):
    dt = PL[dtype]

    @pl.jit
    def kernel(a: pl.Tensor[[m, n], dt], b: pl.Tensor[[m, n], dt], out: pl.Out[pl.Tensor[[m, n], dt]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(m // 16):
                ta = pl.load(a, [i * 16, 0], [16, n])
                tb = pl.load(b, [i * 16, 0], [16, n])
                pl.store(pl.maximum(ta, tb) - tb * 0.5, [i * 16, 0], out)
        return out

    return kernel


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,n", [(64, 64), (32, 128)])
def test_closure_built_jit_kernel(dtype, m, n):
    a, b = rand((m, n), dtype, 2), rand((m, n), dtype, 3)
    out = np.zeros((m, n), NP[dtype])
    get_kernel(m, n, dtype)(a, b, out, config=CFG)
    x, y = a.astype(np.float64), b.astype(np.float64)
    _close(out, np.maximum(x, y) - 0.5 * y, dtype)
