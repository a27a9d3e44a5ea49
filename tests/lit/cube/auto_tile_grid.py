# AutoTileMatmulL0: a [256, 256] FP32 result (256 KiB) does not fit the 128 KiB L0C of the 910B, so the
# matmul becomes an M/N grid that stores each block; the 950 (256 KiB L0C) needs no grid.
# RUN: tilefold opt %s --passes auto-tile-matmul-l0 --target Ascend910B | filecheck %s --check-prefix=GRID
# RUN: tilefold opt %s --passes auto-tile-matmul-l0 --target Ascend950 | filecheck %s --check-prefix=WHOLE
import tilefold.language as pl


@pl.program
class Grid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[256, 128], pl.FP16], b: pl.Tensor[[128, 256], pl.FP16],
               out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        ta: pl.Tile[[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out

# GRID-LABEL: def kernel
# GRID: for [[MI:[a-z_0-9]+]], ({{.*}}) in pl.range(0, 256, 128, init_values=(out,)):
# GRID: for [[NI:[a-z_0-9]+]], ([[O:[a-z_0-9]+]],) in pl.range(0, 256, 128, init_values=(
# GRID: pl.tile.extract(ta, [[MI]], 0, shape=[128, 128], target_memory=pl.Mem.Left)
# GRID: pl.tile.extract(tb, 0, [[NI]], shape=[128, 128], target_memory=pl.Mem.Right)
# GRID: pl.store({{.*}}, [[[MI]], [[NI]]], [[O]])
# WHOLE-LABEL: def kernel
# WHOLE-NOT: pl.range
# WHOLE: pl.tile.matmul(
