# A batch matmul over 4 pages. FlattenTileNdTo2D unrolls the batch into per-page Mat slices
# (page offset = batch_index * page_rows); CanonicalizeTileSlice folds them into the L0 extracts.
import tilefold.language as pl


@pl.program
class BatchPages4:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 16, 32], pl.BF16], w: pl.Tensor[[4, 32, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[4, 16, 32], pl.FP32]]) -> pl.Tensor[[4, 16, 32], pl.FP32]:
        xm: pl.Tile[[4, 16, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [4, 16, 32], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[4, 32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [4, 32, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xm, wm)
        out = pl.store(c, [0, 0, 0], out)
        return out
