# A reshape is split when the split axis survives it as a contiguous block ([32, 64] -> [64, 32]: result rows
# [0, 32) are source rows [0, 16)); [4, 96] -> [3, 128] has no such axis and rolls back.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Rs:
    @pl.function(type=pl.FunctionType.AIV)
    def rows(self, x: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        r: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [64, 32])
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def refused(self, x: pl.Tensor[[4, 96], pl.FP32],
                out: pl.Out[pl.Tensor[[3, 128], pl.FP32]]) -> pl.Tensor[[3, 128], pl.FP32]:
        t: pl.Tile[[4, 96], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 96], target_memory=pl.Mem.Vec)
        r: pl.Tile[[3, 128], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [3, 128])
        out = pl.store(r, [0, 0], out)
        return out

# CHECK-LABEL: def rows
# CHECK: t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, {{.}}subblock_idx * 16, 0], {{.}}16, 64]
# CHECK: r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, {{.}}32, 32])
# CHECK: pl.store(r, {{.}}subblock_idx * 32, 0], out, tiled_op=True)
# CHECK-LABEL: def refused
# CHECK: limit_sub_block_id0
# CHECK: reshape_window: axis 1 of the result [3, 128] is not one contiguous block of an axis of the source [4, 96]
