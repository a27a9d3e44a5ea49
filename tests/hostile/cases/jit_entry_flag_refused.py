# exit: 1
# expect: --entry double: a @pl.jit file picks its kernel with --kernel NAME
# argv: run {file} --kernel double --entry double
import tilefold.language as pl


@pl.jit
def double(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, a)
    return out
