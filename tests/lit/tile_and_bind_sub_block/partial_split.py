# Partial split: the [64, 64] store splits, the unsplittable 1x1 flag store is the only guarded op.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block | filecheck %s
import tilefold.language as pl


@pl.program
class Flag:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
               flag: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        one: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 1], dtype=pl.FP32, value=1.0,
                                                                 target_memory=pl.Mem.Vec)
        flag = pl.store(one, [0, 0], flag)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK-NOT: tile_and_bind_subblock_reverted
# CHECK: pl.store(y, {{.}}subblock_idx * 32, 0], out, tiled_op=True)
# CHECK: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.store(one, {{.}}0, 0], flag)
# CHECK-NOT: limit_sub_block_id0
