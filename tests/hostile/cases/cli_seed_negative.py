# exit: 1
# expect: --seed -1 is negative
# argv: run {file} --seed -1
# a negative seed: was numpy's "expected non-negative integer" with no hint (exit 2).
import tilefold.language as pl


@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
