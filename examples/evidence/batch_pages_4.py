# A batch matmul over 4 pages. FlattenTileNdTo2D unrolls the batch into per-page Mat slices
# (page offset = batch_index * page_rows). Each page's lhs (48 x 768 BF16 = 72 KiB) does not fit Left
# (L0A, 64 KiB), so AutoTileMatmulL0 splits every page's matmul along K into tile.extract calls that read
# the page slices. Without CanonicalizeTileSlice codegen must materialize each Mat page subview before
# the extract (an L1 -> L1 textract, which Ascend910C does not have: the run traps); the pass folds the
# page offsets into the extract indices, so the extracts read the loaded tile directly.
import tilefold.language as pl


@pl.program
class BatchPages4:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 48, 768], pl.BF16], w: pl.Tensor[[4, 768, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[4, 48, 32], pl.FP32]]) -> pl.Tensor[[4, 48, 32], pl.FP32]:
        xm: pl.Tile[[4, 48, 768], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [4, 48, 768], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[4, 768, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [4, 768, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4, 48, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xm, wm)
        out = pl.store(c, [0, 0, 0], out)
        return out
