# Issue #2010: t[:, 64:128] of a [16, 128] FP32 tile feeding tile.col_expand_mul.
#
# The window is constant but not contiguous (16 rows, 64 of 128 columns). Its lazy materialization
# repacks the strided window densely into the slice's own buffer at t + 256 B -- inside t, which is still
# live. Row 0's dense destination equals its source, so row 0 survives; every later row of t that the
# dense buffer reaches is overwritten. The later read of t's low half (`lo`) sees the repacked data, so
# row 0 of the result is right and the following rows are wrong.
import tilefold.language as pl


@pl.program
class ColumnWindowScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, g)
        lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(scaled, lo)
        out = pl.store(y, [0, 0], out)
        return out
