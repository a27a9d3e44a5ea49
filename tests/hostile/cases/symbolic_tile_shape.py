# exit: 2
# expect: symbolic
# expect: symbolic_tile_shape.py:
# argv: compile {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[n, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [n, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[n, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(s, 1.0)
        out = pl.store(t, [0, 0], out)
        return out
