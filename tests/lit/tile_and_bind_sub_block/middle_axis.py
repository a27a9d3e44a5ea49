# The middle axis of a 3-D tile splits when each half window's contiguous run is a multiple of 32 B
# ([3, 16, 64] FP32: 8 x 64 x 4 B); [3, 2, 20] FP16 (a 40 B run, a 20 B half row, an odd outer axis) rolls back.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Nd:
    @pl.function(type=pl.FunctionType.AIV)
    def middle(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        t: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def unaligned(self, x: pl.Tensor[[3, 2, 20], pl.FP16],
                  out: pl.Out[pl.Tensor[[3, 2, 20], pl.FP16]]) -> pl.Tensor[[3, 2, 20], pl.FP16]:
        t: pl.Tile[[3, 2, 20], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 2, 20], target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 2, 20], pl.FP16, pl.Mem.Vec] = pl.tile.abs(t)
        out = pl.store(y, [0, 0, 0], out)
        return out

# CHECK-LABEL: def middle
# CHECK: pl.tile.load(x, {{.}}0, subblock_idx * 8, 0], {{.}}3, 8, 64]
# CHECK: pl.store(y, {{.}}0, subblock_idx * 8, 0], out, tiled_op=True)
# CHECK-LABEL: def unaligned
# CHECK: limit_sub_block_id0
# CHECK: middle axis 1: the half window's contiguous run of 40 B (1 x 20 x 2 B) is not a multiple of 32 B
