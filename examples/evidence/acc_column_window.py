# The idiom CanonicalizeTileSlice's Acc-window error recommends: allocate the accumulator as
# [rows, N * tiles] and slice columns. A column window covers the parent's full row range, so it is
# contiguous in NZ and the MAD's dense destination write lands exactly on it.
import tilefold.language as pl


@pl.program
class AccColumnWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.BF16], x2: pl.Tensor[[16, 32], pl.BF16],
               w: pl.Tensor[[32, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        xm: pl.Tile[[16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        x2m: pl.Tile[[16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x2, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
        b: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[32, 64], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        a2: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(x2m, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
        b2: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 32, shape=[32, 32], target_memory=pl.Mem.Right)
        right: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(c, [16, 32], [0, 32])
        right2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(right, a2, b2)
        out = pl.store(right2, [0, 0], out)
        return out
