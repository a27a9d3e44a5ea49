# exit: 2
# expect: unsupported statement IfStmt
# expect: orchestration_if_located.py:20:
# argv: run {file}
import tilefold.language as pl


@pl.program
class OrchIf:
    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[16, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.neg(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Graph)
    def g(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        if n > 1:
            out = self.neg(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range(3):
            out = self.g(x, out, i)
        return out
