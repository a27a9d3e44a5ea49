# exit: 2
# expect: modulo by zero
# expect: mod_zero_runtime.py:
# argv: run {file} --set off=0
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], off: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        k: pl.Scalar[pl.INDEX] = 5 % off
        w: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [k, 0])
        out = pl.store(t, [0, 0], out)
        return out
