# A Mat-resident slice consumed by tile.extract (a materializing consumer).
#
# Without CanonicalizeTileSlice, codegen materializes the Mat subview with a Mat -> Mat (L1 -> L1)
# textract before extracting to L0A; Ascend910C has no such data path and traps. The pass folds the slice
# offset into the extract, which then reads the loaded Mat tile directly.
import tilefold.language as pl


@pl.program
class MatSliceMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 128], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        xm: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 128], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        xs: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(xm, [32, 64], [0, 64])
        a: pl.Tile[[32, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(xs, 0, 0, shape=[32, 64], target_memory=pl.Mem.Left)
        b: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[64, 64], target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        out = pl.store(c, [0, 0], out)
        return out
