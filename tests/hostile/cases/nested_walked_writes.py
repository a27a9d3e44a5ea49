# exit: 0
# argv: run {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        d = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i in pl.range(8):
            for j in pl.range(32):
                d = pl.tile.write(d, [i, j], 2.0)
        out = pl.tile.store(d, [0, 0], out)
        return out
