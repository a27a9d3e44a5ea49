# The boundary case of issue #1789: FP32 column 8 lies exactly 32 bytes past the source base, so the
# zero-copy subview is aligned and runs correctly with or without CanonicalizeTileSlice.
import tilefold.language as pl


@pl.program
class AlignedColumn:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        local: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        col: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 8])
        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(col, 0.5)
        out = pl.store(scaled, [0, 0], out)
        return out
