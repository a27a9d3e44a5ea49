# Seed example: an L0-sized matmul's Mat-slice operands become extracts into Left / Right.
# RUN: tilefold opt %s --passes canonicalize-tile-slice | filecheck %s
import tilefold.language as pl


@pl.program
class Mm:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        lhs_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        rhs_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        lhs_slice: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [16, 256], [0, 0])
        rhs_slice: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(rhs_mat, [256, 64], [0, 0])
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice, rhs_slice)
        out = pl.store(c, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK-NOT: pl.tile.slice
# CHECK: lhs_left: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(lhs_mat, 0, 0, shape=[16, 256], target_memory=pl.Mem.Left)
# CHECK-NEXT: rhs_right: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(rhs_mat, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
# CHECK-NEXT: c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_left, rhs_right)
# CHECK-NOT: pl.tile.slice
