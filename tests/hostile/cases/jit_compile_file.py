# exit: 0
# expect: orchestration @scale
# expect: kernel @scale_incore_0
# argv: compile {file} --kernel scale
import tilefold.language as pl


@pl.jit
def scale(a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(a, 3.0)
    return out
