# Batch matmul 4 x [32, 128] x [128, 64] in BF16. FlattenTileNdTo2D pages the batch with Mat slices at
# batch * page_rows; the pages are L0-sized, so AutoTileMatmulL0 leaves them and CanonicalizeTileSlice turns
# every page slice into one Mat -> Left / Mat -> Right extract. Each page result is stored to its GM rows.
import tilefold.language as pl


@pl.program
class BatchMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 32, 128], pl.BF16], w: pl.Tensor[[4, 128, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[4, 32, 64], pl.FP32]]) -> pl.Tensor[[4, 32, 64], pl.FP32]:
        ta: pl.Tile[[4, 32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [4, 32, 128], target_memory=pl.Mem.Mat)
        tw: pl.Tile[[4, 128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [4, 128, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4, 32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tw)
        out = pl.store(c, [0, 0, 0], out)
        return out
