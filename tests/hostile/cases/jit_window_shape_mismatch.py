# exit: 2
# expect: has extent 32 on axis 0, but the value written into it is [16, 64]
# expect: jit_window_shape_mismatch.py:11
# argv: run {file} --kernel corner
import tilefold.language as pl


@pl.jit
def corner(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)  # would write only the top 16 rows of out
    return out
