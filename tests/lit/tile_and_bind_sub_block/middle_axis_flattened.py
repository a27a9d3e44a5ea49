# Through FlattenTileNdTo2D first (as in the default pipeline) a [3, 16, W] tile is [48, W]: its middle axis's
# halves are 3 interleaved groups of 8 rows, which the pass does not prove every row-halved tile shares, so the
# middle axis is refused with that reason. W = 64: the columns split; W = 20 (40 B half rows): rollback.
# RUN: tilefold opt %s --passes flatten-tile-nd-to-2d,tile-and-bind-sub-block | filecheck %s
# RUN: tilefold opt %s --passes flatten-tile-nd-to-2d,tile-and-bind-sub-block --remarks 2>&1 | filecheck %s --check-prefix=REMARK
import tilefold.language as pl


@pl.program
class NdFlat:
    @pl.function(type=pl.FunctionType.AIV)
    def columns(self, x: pl.Tensor[[3, 16, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) -> pl.Tensor[[3, 16, 64], pl.FP32]:
        t: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def refused(self, x: pl.Tensor[[3, 16, 20], pl.FP32],
                out: pl.Out[pl.Tensor[[3, 16, 20], pl.FP32]]) -> pl.Tensor[[3, 16, 20], pl.FP32]:
        t: pl.Tile[[3, 16, 20], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [3, 16, 20], target_memory=pl.Mem.Vec)
        y: pl.Tile[[3, 16, 20], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0], out)
        return out

# REMARK: columns: axis: split axis 1: {{.*}}middle axis 1 of the window not split after FlattenTileNdTo2D: its halves are 3 interleaved groups of 8 row(s)
# REMARK: refused: reverted: {{.*}}middle axis 1 of the window not split after FlattenTileNdTo2D{{.*}}column split: half row of 40 B
# CHECK-LABEL: def columns
# CHECK: pl.tile.load(x, {{.}}0, 0, subblock_idx * 32], {{.}}3, 16, 32], target_memory=pl.Mem.Vec, flatten=True)
# CHECK: pl.store(y, {{.}}0, 0, subblock_idx * 32], out, tiled_op=True, shapes={{.}}3, 16, 32])
# CHECK: middle axis 1 of the window not split after FlattenTileNdTo2D{{.*}}column split: half row of 40 B
# CHECK-NEXT: def refused
# CHECK: limit_sub_block_id0
