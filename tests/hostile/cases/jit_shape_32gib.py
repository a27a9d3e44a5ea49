# exit: 2
# expect: 17,179,869,184 bytes, above the 256 MiB limit for run inputs
# argv: run {file} --kernel square --shape a=65536x65536 --shape out=65536x65536
import tilefold.language as pl


@pl.jit
def square(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(a, a)
    return out
