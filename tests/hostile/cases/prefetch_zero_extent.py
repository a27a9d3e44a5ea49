# exit: 2
# expect: prefetch window extent 0 is not positive
# expect: prefetch_zero_extent.py:13:
# argv: opt {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.tile.prefetch(x, [0, 0], [0, 64])
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
