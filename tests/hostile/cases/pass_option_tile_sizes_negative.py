# exit: 2
# expect: takes positive sizes, got [-16, 16, 16]
# argv: run {file} --pass-option tile-sizes=-16,16,16
import tilefold.language as pl


@pl.program
class MatmulGrid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[256, 256], pl.FP16], b: pl.Tensor[[256, 256], pl.FP16],
               out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        ta: pl.Tile[[256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
