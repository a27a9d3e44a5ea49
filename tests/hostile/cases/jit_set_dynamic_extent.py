# exit: 2
# expect: 'M' is a pl.dynamic extent
# argv: run {file} --kernel rows --shape x=32x64 --set M=7
import tilefold.language as pl

M = pl.dynamic("M")


@pl.jit
def rows(x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(x)
    return out
