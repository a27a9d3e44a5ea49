# FlattenTileNdTo2D: a batch-4 matmul becomes four page matmuls on Mat page slices at batch * page_rows,
# and the batched result is written back page by page to its GM rows.
# RUN: tilefold opt %s --passes flatten-tile-nd-to-2d --verify | filecheck %s
import tilefold.language as pl


@pl.program
class Bmm:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 32, 128], pl.BF16], w: pl.Tensor[[4, 128, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[4, 32, 64], pl.FP32]]) -> pl.Tensor[[4, 32, 64], pl.FP32]:
        ta: pl.Tile[[4, 32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [4, 32, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[4, 128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [4, 128, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4, 32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: ta: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [4, 32, 128], target_memory=pl.Mem.Mat, flatten=True)
# CHECK: tb: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [4, 128, 64], target_memory=pl.Mem.Mat, flatten=True)
# CHECK: [[A0:[a-z_0-9]+]]: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [0, 0])
# CHECK: [[B0:[a-z_0-9]+]]: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [0, 0])
# CHECK: [[C0:[a-z_0-9]+]]: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul([[A0]], [[B0]])
# CHECK: pl.tile.slice(ta, [32, 128], [96, 0])
# CHECK: pl.tile.slice(tb, [128, 64], [384, 0])
# CHECK: pl.store([[C0]], [0, 0, 0], out, shapes=[1, 32, 64])
# CHECK: pl.store({{.*}}, [3, 0, 0], {{.*}}, shapes=[1, 32, 64])
# CHECK-NOT: batch_matmul
