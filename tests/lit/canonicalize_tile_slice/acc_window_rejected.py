# The Acc window rule: a row window of a multi-block accumulator is rejected with the column idiom.
# RUN: not tilefold opt %s --passes canonicalize-tile-slice 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class AccRows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.BF16, target_memory=pl.Mem.Left)
        b: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 64], dtype=pl.BF16, target_memory=pl.Mem.Right)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
        for k, (c_iter,) in pl.range(0, n, 1, init_values=(w,)):
            c_next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
            c_out = pl.yield_(c_next)

# CHECK: acc_window_rejected.py:15:{{[0-9]+}}
# CHECK: error: tile.matmul_acc accumulates into a window [16, 64] at offset [16, 0] of the Acc tile 'acc' [32, 64]
# CHECK-SAME: not contiguous in L0C's block layout
# CHECK: hint: allocate the accumulator as [rows, N * tiles]
# CHECK-SAME: slice columns
