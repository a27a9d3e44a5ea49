# exit: 0
# expect: MATCH
# argv: run {file} --kernel colwin --skip-pass CanonicalizeTileSlice --codegen faithful
# --codegen was silently ignored for jit files: the run used strict codegen, which refuses this window (#2010)
import tilefold.language as pl


@pl.jit
def colwin(x: pl.Tensor[[16, 64], pl.FP32], v: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64])
        r = pl.load(v, [0, 0], [1, 16])
        pl.store(pl.tile.col_expand_mul(pl.tile.slice(t, [16, 16], [0, 16]), r), [0, 0], out)
    return out
