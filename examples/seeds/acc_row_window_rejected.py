"""Seed 1, Acc accumulator windows: a row window of an Acc tile that spans several 16-column blocks is
not contiguous in NZ layout, so using it as a matmul accumulator is rejected (pto-isa#253). The window is
hoisted out of the K loop and reaches matmul_acc through the loop's IterArg."""
import tilefold.language as pl


@pl.program
class AccRowWindowRejected:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        a_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32,
                                                                     target_memory=pl.Mem.Acc)
        page: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
        for ko, (page_iter,) in pl.range(0, 256, 128, init_values=(page,)):
            a_l: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(
                a_mat, 0, ko, shape=[16, 128], target_memory=pl.Mem.Left)
            b_r: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(
                b_mat, ko, 0, shape=[128, 64], target_memory=pl.Mem.Right)
            page_next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(page_iter, a_l, b_r)
            page_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(page_next)
        out = pl.store(page_out, [16, 0], out)
        return out
