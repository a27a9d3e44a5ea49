# exit: 2
# expect: 'SHAPE' is not a compile-time constant
# expect: repeat_huge.py:16:
# argv: opt {file}
import tilefold.language as pl

SHAPE = [16] * 1000000000


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[SHAPE, pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        out = pl.store(t, [0, 0], out)
        return out
