# E2E (issue 9 §3.7 through the default pipeline): a [3, 16, COLS] FP32 tile. FlattenTileNdTo2D runs first and
# makes it the 2-D tile [48, COLS]; a middle-axis split would be 3 interleaved groups of 8 rows of that tile,
# which TileAndBindSubBlock does not prove consistent across the function, so it refuses the middle axis.
# COLS = 64: the columns split instead (32 x 4 B = 128 B half rows). COLS = 20: the 40 B half row is refused
# too, and the store falls back to sub-block 0.
import tilefold.language as pl

COLS = 64


@pl.program
class E2EMiddleAxis:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[3, 16, COLS], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, COLS], pl.FP32]]) -> pl.Tensor[[3, 16, COLS], pl.FP32]:
        t: pl.Tile[[3, 16, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, COLS],
                                                                      target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 16, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        z: pl.Tile[[3, 16, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.muls(y, 0.5)
        out = pl.store(z, [0, 0, 0], out)
        return out
