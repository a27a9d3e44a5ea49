# exit: 2
# expect: gives no value
# expect: fence_inside_an_expression.py:11:
# argv: run {file}
import tilefold.language as pl


@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.system.fence() + 1
        out[:] = pl.adds(pl.exp(a), x)
    return out
