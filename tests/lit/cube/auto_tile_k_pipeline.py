# AutoTileMatmulL0: a 128x1024x128 FP16 matmul does not fit L0A; it becomes a stage-2 pipeline over K with
# per-iteration Mat -> Left / Mat -> Right extracts. The L0-sized matmul next to it is left alone.
# RUN: tilefold opt %s --passes auto-tile-matmul-l0 --target Ascend910B | filecheck %s
import tilefold.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 1024], pl.FP16], b: pl.Tensor[[1024, 128], pl.FP16],
               s: pl.Tensor[[16, 64], pl.FP16], t: pl.Tensor[[64, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        ts: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(s, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        tt: pl.Tile[[64, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(t, [0, 0], [64, 16], target_memory=pl.Mem.Mat)
        small: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ts, tt)
        o2 = pl.store(small, [0, 0], o2)
        return out

# CHECK-LABEL: def kernel
# CHECK: pl.tile.extract(ta, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
# CHECK: pl.tile.extract(tb, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
# CHECK: [[C0:[a-z_0-9]+]]: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(
# CHECK: for [[KO:[a-z_0-9]+]], ([[IT:[a-z_0-9]+]],) in pl.pipeline(128, 1024, 128, init_values=([[C0]],), stage=2):
# CHECK: pl.tile.extract(ta, 0, [[KO]], shape=[128, 128], target_memory=pl.Mem.Left)
# CHECK: pl.tile.extract(tb, [[KO]], 0, shape=[128, 128], target_memory=pl.Mem.Right)
# CHECK: pl.tile.matmul_acc([[IT]],
# CHECK: pl.yield_(
# CHECK: small: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ts, tt)
