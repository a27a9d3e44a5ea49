# AutoTileMatmulL0 with tail pieces: K = 1000 is covered by 128-wide steps (the first peeled, the rest in a stage-2
# pipeline) and one 104-wide tail step; a matmul_bias adds its bias in the first K step only.
# RUN: tilefold opt %s --passes auto-tile-matmul-l0 --target Ascend910B | filecheck %s
import tilefold.language as pl


@pl.program
class Tail:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 1000], pl.FP16], b: pl.Tensor[[1000, 128], pl.FP16],
               bias: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
               o2: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 1000], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1000], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1000, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1000, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        tc: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        d: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(ta, tb, tc)
        o2 = pl.store(d, [0, 0], o2)
        return out

# CHECK-LABEL: def kernel
# CHECK: [[C0:[a-z_0-9]+]]: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(
# CHECK: for [[KO:[a-z_0-9]+]], ([[IT:[a-z_0-9]+]],) in pl.pipeline(128, 896, 128, init_values=([[C0]],), stage=2):
# CHECK: pl.tile.extract(ta, 0, [[KO]], shape=[128, 128], target_memory=pl.Mem.Left)
# CHECK: [[FULL:[a-z_0-9]+]]: {{.*}} = pl.yield_(
# CHECK-NEXT: {{[a-z_0-9]+}}: {{.*}} = pl.tile.extract(ta, 0, 896, shape=[128, 104], target_memory=pl.Mem.Left)
# CHECK-NEXT: {{[a-z_0-9]+}}: {{.*}} = pl.tile.extract(tb, 896, 0, shape=[104, 128], target_memory=pl.Mem.Right)
# CHECK-NEXT: c: {{.*}} = pl.tile.matmul_acc([[FULL]], {{[a-z_0-9]+}}, {{[a-z_0-9]+}})
# CHECK: pl.store(c, [0, 0], out)
# CHECK: pl.tile.matmul_bias({{[a-z_0-9]+}}, {{[a-z_0-9]+}}, tc)
# CHECK: pl.pipeline(128, 896, 128,
# CHECK-NOT: matmul_bias
# CHECK: d: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(
