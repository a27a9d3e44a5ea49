"""A @pl.jit entry calling a @pl.inline helper (PyPTO's program-form decorator): the one splice mechanism."""

import tilefold.language as pl


@pl.inline
def softplus_like(x, bias):
    e = pl.exp(x)
    return pl.add(e, bias)


@pl.jit
def entry(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = softplus_like(a, 2.0)
    return out
