# Tile ops in a function that is not a kernel (no type = Opaque) violate IncoreTileOps.
# RUN: not tilefold opt %s --verify 2>&1 | filecheck %s
# RUN: not tilefold opt %s --verify-properties IncoreTileOps 2>&1 | filecheck %s

import tilefold.language as pl


@pl.program
class NotAKernel:
    @pl.function
    def helper(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

# CHECK: incore_tile_ops.py:13:9
# CHECK: error: input program: IncoreTileOps violated in function 'helper': tile op tile.load is used in the Opaque function
# CHECK-NEXT: at: t: {{.*}}pl.tile.load(x, [0, 0], [16, 64]
# CHECK: IncoreTileOps in 'helper': tile op tile.store is used in the Opaque function
# CHECK: hint: move tile ops into a kernel declared with @pl.function(type=pl.FunctionType.InCore)
