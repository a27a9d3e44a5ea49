# exit: 2
# expect: golden interpreter stopped after 20,000 steps
# expect: unroll_1e6.py:14:
# argv: run {file} --max-steps 20000
import tilefold.language as pl


@pl.program
class Deep:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for i in pl.unroll(1000000):
            y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        out = pl.store(t, [0, 0], out)
        return out
