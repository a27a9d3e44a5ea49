"""A @pl.jit kernel that reads a module constant (test_jit_const_cache.py changes it between calls); a real module:
@pl.jit reads sources."""

import tilefold.language as pl

GAIN = 2.0
BIAS = 0.5


@pl.jit
def scale(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(pl.muls(a, GAIN), BIAS)
    return out
