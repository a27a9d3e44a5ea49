# A kernel calling another function, and an orchestration function using tile ops, violate
# SplitIncoreOrch.
# RUN: not tilefold opt %s --verify-properties SplitIncoreOrch 2>&1 | filecheck %s
# The default --verify set reports IncoreTileOps first for the orchestration's tile op.
# RUN: not tilefold opt %s --verify 2>&1 | filecheck %s --check-prefix=ALL

import tilefold.language as pl


@pl.program
class Calls:
    @pl.function(type=pl.FunctionType.InCore)
    def helper(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.helper(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])  # noqa: F841 (the tile op under test)
        out = self.kernel(x, out)
        return out

# CHECK: split_incore_orch.py:22:9
# CHECK: error: input program: SplitIncoreOrch violated in function 'kernel': the InCore kernel calls function @helper; kernels may not call other functions
# CHECK-NEXT: at: {{.*}}self.helper(x, out)
# CHECK: SplitIncoreOrch in 'main': the orchestration function uses tile op tile.load
# CHECK: hint: orchestration functions only call kernels

# ALL: split_incore_orch.py:28:9
# ALL: error: input program: IncoreTileOps violated in function 'main': tile op tile.load is used in the Orchestration function
# ALL: SplitIncoreOrch in 'kernel'
