# exit: 2
# expect: integers only
# argv: run {file} --set off=inf
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], off: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        w: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [off, 0])
        out = pl.store(t, [0, 0], out)
        return out
