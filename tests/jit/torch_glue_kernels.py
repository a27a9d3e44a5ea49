"""jit kernels of the torch glue tests (bare pl.Tensor parameters: specialised on each call's dtype)."""

import tilefold.language as pl


@pl.jit
def add_bare(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, b)
    return out


@pl.jit
def accumulate(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc[:] = pl.add(acc, a)
    return acc
