# exit: 1
# expect: --inputs
# expect: a @pl.jit file runs on random inputs of the --shape shapes
# argv: run {file} --kernel double --inputs {data}/good.npz
import tilefold.language as pl


@pl.jit
def double(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # --inputs was silently ignored for jit files: the run used random values and reported MATCH
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, a)
    return out
