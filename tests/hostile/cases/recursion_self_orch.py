# exit: 2
# expect: recurs
# expect: recursion_self_orch.py:
# argv: run {file}
import tilefold.language as pl


@pl.program
class Rec:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.main(x, out)
        return out
