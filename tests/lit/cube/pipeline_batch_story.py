# The seed's story: batch pages -> L0 tiling -> CanonicalizeTileSlice leaves no Mat slice -> memory spaces.
# RUN: tilefold opt %s --target Ascend910C --passes flatten-tile-nd-to-2d,auto-tile-matmul-l0,canonicalize-tile-slice,infer-tile-memory-space --verify | filecheck %s
import tilefold.language as pl


@pl.program
class Story:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 64, 1024], pl.FP16], w: pl.Tensor[[2, 1024, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[2, 64, 64], pl.FP32]]) -> pl.Tensor[[2, 64, 64], pl.FP32]:
        ta: pl.Tile[[2, 64, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 64, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [2, 1024, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[2, 64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK-NOT: pl.Mem.Mat] = pl.tile.slice
# CHECK: pl.pipeline(
# CHECK: pl.tile.extract(ta, 64, {{[a-z_0-9]+}}, shape=[64, 256], target_memory=pl.Mem.Left)
# CHECK-NOT: pl.Mem.Mat] = pl.tile.slice
