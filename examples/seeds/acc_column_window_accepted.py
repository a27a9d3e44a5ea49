"""Seed 1, Acc accumulator windows: the form the error message suggests -- allocate the accumulator as
[rows, N * tiles] and slice columns. A window covering every row of its parent is contiguous. The
accumulate is also written as a bare statement (`pl.tile.matmul_acc(...)`), which the check covers too."""
import tilefold.language as pl


@pl.program
class AccColumnWindowAccepted:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.BF16], b: pl.Tensor[[128, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        a_mat: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        a_l: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(
            a_mat, 0, 0, shape=[16, 128], target_memory=pl.Mem.Left)
        b_r: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(
            b_mat, 0, 0, shape=[128, 64], target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 128], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Acc)
        page0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [0, 0])
        page1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [0, 64])
        pl.tile.matmul_acc(page0, a_l, b_r)
        acc_page1 = pl.tile.matmul_acc(page1, a_l, b_r)  # noqa: F841  (bound form; the value aliases acc)
        out = pl.store(acc, [0, 0], out)
        return out
