# exit: 2
# expect: recurs
# expect: recursion_mutual.py:
# argv: run {file}
import tilefold.language as pl


@pl.program
class Mutual:
    @pl.function(type=pl.FunctionType.Orchestration)
    def ping(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.pong(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def pong(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.ping(x, out)
        return out
