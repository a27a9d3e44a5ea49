# tile.mscatter by a tile.ci index (distinct values, moved by a scalar): split on the source rows, each sub-block
# scatters its 8 rows of source and index; the scatter is marked tiled_op and is not guarded.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Mscatter:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        c: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3, [16, 1], dtype=pl.INT32)
        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.adds(c, 10)
        out = pl.tile.mscatter(e, j, out)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK-NOT: tile_and_bind_subblock_reverted
# CHECK: pl.tile.load(a, {{.}}subblock_idx * 8, 0], [8, 32]
# CHECK: c: pl.Tile{{.}}[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3 + subblock_idx * 8, shape=[8, 1]
# CHECK: pl.tile.mscatter(e, j, out, ir_attrs={"tiled_op": True, "sub_block_half": [0, 8]})
# CHECK-NOT: limit_sub_block_id0
# CHECK: split tile.mscatter of e on axis 0 (half 8): the index values are distinct
