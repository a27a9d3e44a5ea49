# exit: 2
# expect: a tile cannot live in DDR
# expect: ddr_tile.py:
# argv: compile {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        d: pl.Tile[[16, 64], pl.FP32, pl.Mem.DDR] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.DDR)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.DDR] = pl.tile.adds(d, 1.0)
        out = pl.store(t, [0, 0], out)
        return out
