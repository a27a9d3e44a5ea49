# Seed example (#1640): a dynamic-offset Vec slice read by col_expand_mul is materialized.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class Rms:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 256], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        local: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 256])
        gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256])
        row_off: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
        scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
        out = pl.store(scaled, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK-NOT: pl.tile.slice
# CHECK: row_ext: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(local, row_off, 0, shape=[1, 256], target_memory=pl.Mem.Vec)
# CHECK-NEXT: scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row_ext, gamma_t)
# CHECK-NOT: pl.tile.slice
# CHECK: remark: [CanonicalizeTileSlice] kernel: materialized: slice 'row' read by tile.col_expand_mul {{.*}}dynamic{{.*}}#1640
# CHECK: remark: [CanonicalizeTileSlice] kernel: dropped: slice 'row'
