# A batch matmul whose batch dim is 1: FlattenTileNdTo2D still produces a (full-window, offset 0) Mat
# slice per page. The page is too large for L0 (64 x 1024 BF16 = 128 KiB > 64 KiB of Left), so
# AutoTileMatmulL0 splits it along K into tile.extract calls that read the page slice. Without
# CanonicalizeTileSlice each extract first materializes the Mat subview (an L1 -> L1 textract: a trap on
# Ascend910C); the pass folds the slice into the extracts.
import tilefold.language as pl


@pl.program
class BatchPages1:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 64, 1024], pl.BF16], w: pl.Tensor[[1, 1024, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[1, 64, 64], pl.FP32]]) -> pl.Tensor[[1, 64, 64], pl.FP32]:
        xm: pl.Tile[[1, 64, 1024], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [1, 64, 1024], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[1, 1024, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [1, 1024, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[1, 64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xm, wm)
        out = pl.store(c, [0, 0, 0], out)
        return out
