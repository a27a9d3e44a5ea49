# exit: 2
# expect: valid extent 32 on axis 0 is outside [0, 16]
# expect: slice_valid_beyond.py:14:
# argv: run {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        s = pl.tile.slice(t, [16, 64], [0, 0], valid_shape=[32, 64])
        out = pl.store(s, [0, 0], out)
        return out
