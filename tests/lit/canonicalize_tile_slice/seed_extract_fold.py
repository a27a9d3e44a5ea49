# Seed example: the offset-0, full-shape batch-page slice folds into the per-iteration extract,
# and a non-zero page offset folds into the extract indices.
# RUN: tilefold opt %s --passes canonicalize-tile-slice | filecheck %s
import tilefold.language as pl


@pl.program
class BatchPages:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 512], pl.INT8]):
        x_mat: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        for ko in pl.range(0, 512, 256):
            lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [0, 0])
            a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                lhs_slice, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
            page: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
            b: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
                page, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)

# CHECK-LABEL: def kernel
# CHECK-NOT: pl.tile.slice
# CHECK: for ko in pl.range(0, 512, 256):
# CHECK-NEXT: a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(x_mat, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
# CHECK-NEXT: b: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(x_mat, 32, ko, shape=[32, 256], target_memory=pl.Mem.Left)
# CHECK-NOT: pl.tile.slice
