# Issue #1789: an FP32 column slice [:, 1:2] fed to an ordinary vector op.
#
# The zero-copy subview starts 4 bytes past the 32-byte aligned source; a vector instruction on an
# unaligned base hangs the device. CanonicalizeTileSlice copies the window into an aligned buffer.
import tilefold.language as pl


@pl.program
class UnalignedColumn:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        local: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
        out = pl.store(scaled, [0, 0], out)
        return out
