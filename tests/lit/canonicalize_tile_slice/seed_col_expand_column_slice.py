# Seed example (#2010): a column slice of a multi-row Vec tile is not contiguous and is materialized;
# the single-row and full-width windows next to it stay zero-copy.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class Cols:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
        gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
        gamma_w: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 128])
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, gamma_t)
        bottom: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [8, 0])
        shifted: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(bottom, gamma_w)
        out = pl.store(scaled, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: hi_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 64, shape=[16, 64], target_memory=pl.Mem.Vec)
# CHECK-NEXT: scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi_ext, gamma_t)
# CHECK-NEXT: bottom: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [8, 0])
# CHECK-NEXT: shifted: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(bottom, gamma_w)
# CHECK: materialized: slice 'hi' {{.*}}#2010
# CHECK: kept-zero-copy: slice 'bottom' read by tile.col_expand_add
