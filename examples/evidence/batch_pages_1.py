# A batch matmul whose batch dim is 1: FlattenTileNdTo2D still produces a (full-window, offset 0) Mat
# slice per page; CanonicalizeTileSlice folds it into the L0 extracts.
import tilefold.language as pl


@pl.program
class BatchPages1:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 32, 64], pl.BF16], w: pl.Tensor[[1, 64, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[1, 32, 32], pl.FP32]]) -> pl.Tensor[[1, 32, 32], pl.FP32]:
        xm: pl.Tile[[1, 32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [1, 32, 64], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[1, 64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [1, 64, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[1, 32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xm, wm)
        out = pl.store(c, [0, 0, 0], out)
        return out
