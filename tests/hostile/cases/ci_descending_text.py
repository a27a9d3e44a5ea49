# exit: 2
# expect: descending='no' is not True or False
# expect: ci_descending_text.py:13:
# argv: opt {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        t = pl.tile.ci(0, [16, 64], dtype=pl.INT32, descending='no')
        out = pl.store(t, [0, 0], out)
        return out
