# exit: 0
# expect: MATCH
# argv: run {file} --kernel cols --shape x=16x320
import tilefold.language as pl

N = pl.dynamic("N")


@pl.jit
def cols(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(pl.exp(x), 2.0)
    return out
