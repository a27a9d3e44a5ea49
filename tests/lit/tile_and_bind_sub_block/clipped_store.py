# A store of a dynamic valid-shape tile at a dynamic offset splits; each half's valid rows are clipped.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block | filecheck %s
import tilefold.language as pl


@pl.program
class Clip:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], r: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        yv = pl.tile.set_validshape(y, [v, 64])
        out = pl.store(yv, [r, 0], out)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK: [[SB:[a-z_]+]]: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
# CHECK: pl.tile.load(x, {{.}}[[SB]] * 32, 0], {{.}}32, 64]
# CHECK: pl.tile.set_validshape(y, {{.}}pl.min(pl.max(v - [[SB]] * 32, 0), 32), 64])
# CHECK: pl.store(yv, {{.}}r + [[SB]] * 32, 0], out, tiled_op=True)
# CHECK-NOT: limit_sub_block_id0
