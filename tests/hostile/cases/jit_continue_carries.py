# exit: 0
# expect: MATCH
# argv: run {file}
# a continue at the end of an if branch in a loop that carries a tile: was refused as "cannot rebind 'acc' inside
# an if branch" (the continue was lowered after the loop's rebound names were carried). Values: tests/jit/differential.
import tilefold.language as pl


@pl.jit
def k(x: pl.Tensor[[80, 40], pl.FP32], out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 40], dtype=pl.FP32, value=0.0)
        for i in pl.range(5):
            if i == 2:
                continue
            acc = pl.maximum(pl.muls(acc, 1.5), x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out
