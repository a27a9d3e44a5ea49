# A well-formed program passes every verifier and is printed unchanged.
# RUN: tilefold opt %s --verify | filecheck %s
# RUN: tilefold opt %s --verify-properties SSAForm,TypeChecked,UseAfterDef,NormalizedStmtStructure,TileOps2D,IncoreTileOps,SplitIncoreOrch | filecheck %s
# RUN: tilefold opt %s --round-trip | filecheck %s

import tilefold.language as pl


@pl.program
class Good:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0 = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=0.0)
        for _i, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            t = pl.tile.load(x, [0, 0], [16, 64])
            nxt = pl.tile.add(acc, t)
            acc_out = pl.yield_(nxt)
        out = pl.store(acc_out, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.kernel(x, out)
        return out

# CHECK: @pl.program
# CHECK: class Good:
# CHECK: def kernel(
# CHECK: for _i, {{.*}} in pl.range(
# CHECK: pl.tile.add(
# CHECK: pl.yield_(
# CHECK: def main(
# CHECK: self.kernel(x, out)
