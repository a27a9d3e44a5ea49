# exit: 2
# expect: the operands' valid regions [16, 4] and [4, 16] are not nested
# expect: part_valid_not_nested.py
# argv: run {file}
import tilefold.language as pl


@pl.program
class Part:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 16], valid_shapes=[16, 4], target_memory=pl.Mem.Vec)
        b = pl.tile.load(y, [0, 0], [16, 16], valid_shapes=[4, 16], target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.part_max(a, b), [0, 0], out)
        return out
