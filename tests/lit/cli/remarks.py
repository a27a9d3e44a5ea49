# --remarks prints the structured decisions passes report, after the IR.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
# RUN: tilefold opt %s --remarks | filecheck %s --check-prefix=NONE

import tilefold.language as pl


@pl.program
class Remarks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128])
        col = pl.tile.slice(t, [16, 1], [0, 1])
        y = pl.tile.muls(col, 0.5)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: class Remarks:
# CHECK: remark: [CanonicalizeTileSlice] kernel: {{.*}}col

# NONE: class Remarks:
# NONE: remark: (no remarks)
