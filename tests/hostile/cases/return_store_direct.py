# exit: 0
# expect: MATCH
# argv: run {file}
import tilefold.language as pl


@pl.program
class ReturnStore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        return pl.store(pl.tile.exp(t), [0, 0], out)  # the store lived only in the return (was dropped)
