# tile.mscatter by a loaded index tile: its values may repeat a row across the two halves (the later one must win,
# and the sub-blocks are not ordered), so nothing is split: rolled back, the scatter guarded to sub-block 0, the
# reason naming the index's producer.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Mscatter:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], idx: pl.Tensor[[16, 1], pl.INT32],
               out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        out = pl.tile.mscatter(s, j, out)
        return out

# CHECK: @pl.program(attrs={"tile_and_bind_subblock_reverted": True})
# CHECK: pl.tile.load(a, {{.}}0, 0], [16, 32]
# CHECK: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.tile.mscatter(s, j, out)
# CHECK-NOT: tiled_op
# CHECK: reverted{{.*}}tile.mscatter of s: tile.mscatter writes the GM rows its index tile names: the index tile j comes from tile.load, whose values are not known to be distinct
