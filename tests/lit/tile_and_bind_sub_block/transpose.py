# The window bubbles through tile.transpose with the axes swapped: result rows are source columns.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block | filecheck %s
import tilefold.language as pl


@pl.program
class Tr:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 32], target_memory=pl.Mem.Vec)
        u: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        tt: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(u, 0, 1)
        out = pl.store(tt, [0, 0], out)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK: t: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, {{.}}0, subblock_idx * 16], {{.}}64, 16]
# CHECK: tt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(u)
# CHECK: pl.store(tt, {{.}}subblock_idx * 16, 0], out, tiled_op=True)
