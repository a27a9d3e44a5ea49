# Issue #2010: t[:, 64:128] of a [16, 128] FP32 tile feeding tile.col_expand_mul.
#
# The window is constant but not contiguous (16 rows, 64 of 128 columns). Without CanonicalizeTileSlice
# codegen materializes it lazily: a textract repacks the strided window densely into the slice's own
# buffer, which memory planning placed at t + 256 B -- inside t, which is still live. The copy runs row
# by row. Row 0's dense destination equals its source, so row 0 survives; each later window row lands
# on the bytes just past the previous one, overwriting the source rows the dense buffer reaches (rows
# 1-8 of t: the buffer spans elements 64 .. 64 + 16 * 64 of t). The kernel stores t itself after the
# col_expand (`t_after`), so the destruction is visible directly; `out` adds t's low half, read after the
# repack, to the scaled window, so its rows 1-8 are wrong too.
#
# The evidence runs with enable_auto_bind_sub_block=False (EVIDENCE_KERNELS): the whole [16, 128] tile
# lives in one Vec, exactly as in the seed. (With the sub-block split each sub-block repacks its own
# [8, 128] half and each half loses its rows 1-4.)
import tilefold.language as pl


@pl.program
class ColumnWindowScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               t_after: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        g: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, g)
        lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(scaled, lo)
        t_after = pl.store(t, [0, 0], t_after)
        out = pl.store(y, [0, 0], out)
        return out
