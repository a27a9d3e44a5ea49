# A 64 x 512 x 32 INT8 matmul accumulating in INT32: L0-sized, so AutoTileMatmulL0 leaves it alone and
# InferTileMemorySpace moves the whole L1 operands to L0A / L0B.
import tilefold.language as pl


@pl.program
class MatmulInt8:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 512], pl.INT8], b: pl.Tensor[[512, 32], pl.INT8],
               out: pl.Out[pl.Tensor[[64, 32], pl.INT32]]) -> pl.Tensor[[64, 32], pl.INT32]:
        ta: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 32], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 32], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
