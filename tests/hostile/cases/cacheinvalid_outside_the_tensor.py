# exit: 2
# expect: outside the tensor's extent 48
# expect: cacheinvalid_outside_the_tensor.py:15:
# argv: run {file}
# cacheinvalid(t, offsets) of an element outside the tensor was accepted (the line of some other GM bytes).
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[48, 64], pl.FP32], out: pl.Out[pl.Tensor[[48, 64], pl.FP32]]) -> pl.Tensor[[48, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.load(a, [b, 0], [1, 64])
        pl.system.cacheinvalid(a, [100, 0])
        out = pl.store(t, [b, 0], out)
        return out
