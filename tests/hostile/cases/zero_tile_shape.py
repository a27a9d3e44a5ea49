# exit: 2
# expect: positive
# expect: zero_tile_shape.py:
# argv: opt {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        n: pl.Tile[[0, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [0, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [0, 0], out)
        return out
