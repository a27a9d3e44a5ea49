# A 4-operand slice (valid_shape) is not a plain window: it is left alone, with a "skipped" remark that
# names the workarounds.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class Skipped:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        hi = pl.tile.slice(t, [16, 64], [0, 64], [8, 64])
        y = pl.tile.col_expand_mul(hi, gt)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: hi: {{.*}} = pl.tile.slice(t, [16, 64], [0, 64], [8, 64])
# CHECK-NEXT: y: {{.*}} = pl.tile.col_expand_mul(hi, gt)
# CHECK: skipped: slice 'hi' has 4 operands {{.*}}3-operand slice or an explicit tile.extract
