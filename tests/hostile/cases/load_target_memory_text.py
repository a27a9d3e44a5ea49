# exit: 2
# expect: target_memory='Vec' is not a memory space
# expect: load_target_memory_text.py:13:
# argv: run {file}
import tilefold.language as pl


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], target_memory='Vec')
        out = pl.store(t, [0, 0], out)
        return out
