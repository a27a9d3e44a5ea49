# A row window of a [32, 32] FP32 accumulator used as the matmul_acc destination.
#
# L0C stores the accumulator in NZ fractals; rows 0..15 of a 32-column tile are two fractals 2 KiB apart.
# The MAD writes its destination densely from the window's base pointer with no destination stride, so
# its second column block lands on the parent's second *row* block: silently, only the first 16 columns
# of the row tile come out right. CanonicalizeTileSlice rejects this shape with a ValueError.
import tilefold.language as pl


@pl.program
class AccRowWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 32], pl.BF16], x2: pl.Tensor[[16, 32], pl.BF16],
               w: pl.Tensor[[32, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        xm: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        x2m: pl.Tile[[16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x2, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[32, 32], target_memory=pl.Mem.Left)
        b: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[32, 32], target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        a2: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(x2m, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
        top: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(c, [16, 32], [0, 0])
        top2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(top, a2, b)
        out = pl.store(top2, [0, 0], out)
        return out
