# FlattenTileNdTo2D: an opaque batched accumulator is allocated column-packed [M, B * N]; every page is a
# whole-row window [M, N] at column i * N (contiguous in L0C's NZ layout).
# RUN: tilefold opt %s --passes flatten-tile-nd-to-2d,canonicalize-tile-slice | filecheck %s
import tilefold.language as pl


@pl.program
class Packed:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[3, 16, 32], pl.FP16], w: pl.Tensor[[3, 32, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[3, 16, 32], pl.FP32]]) -> pl.Tensor[[3, 16, 32], pl.FP32]:
        ta: pl.Tile[[3, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [3, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[3, 32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [3, 32, 32], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[3, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([3, 16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[3, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: acc: pl.Tile[[16, 96], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 96]
# CHECK: pl.tile.slice(acc, [16, 32], [0, 0])
# CHECK: pl.tile.slice(acc, [16, 32], [0, 32])
# CHECK: pl.tile.slice(acc, [16, 32], [0, 64])
# CHECK: pl.tile.matmul_acc(
# CHECK-NOT: pl.Mem.Mat] = pl.tile.slice
