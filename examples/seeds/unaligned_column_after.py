"""Seed 1, #1789 -- After: the vector op reads an aligned, separately allocated tile."""
import tilefold.language as pl


@pl.program
class UnalignedColumnAfter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        local: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
            local, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
        scaled:   pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head_ext, 0.5)
        out = pl.store(scaled, [0, 0], out)
        return out
