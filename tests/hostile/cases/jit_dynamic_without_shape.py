# exit: 2
# expect: the pl.dynamic extent 'N' of cols has no value
# expect: --shape x=
# argv: run {file} --kernel cols
import tilefold.language as pl

N = pl.dynamic("N")


@pl.jit
def cols(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(x)
    return out
