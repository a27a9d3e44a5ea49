# A 128 x 1024 x 128 FP16 matmul: the lhs (256 KiB) does not fit L0A (64 KiB). AutoTileMatmulL0 picks
# (m, n, k) = (128, 128, 128) and emits a stage-2 pipeline over K with per-iteration extracts.
import tilefold.language as pl


@pl.program
class MatmulKPipeline:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 1024], pl.FP16], b: pl.Tensor[[1024, 128], pl.FP16],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
