# InferTileMemorySpace: whole Mat tiles fed to a matmul are moved to Left / Right; the Acc result is stored.
# RUN: tilefold opt %s --passes infer-tile-memory-space --verify-properties TileMemoryInferred | filecheck %s
import tilefold.language as pl


@pl.program
class Moves:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: [[L:[a-z_0-9]+]]: {{.*}}pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
# CHECK-NEXT: {{[a-z_0-9]+}}: {{.*}}pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
# CHECK-NEXT: c: {{.*}} = pl.tile.matmul([[L]], {{[a-z_0-9]+}})
