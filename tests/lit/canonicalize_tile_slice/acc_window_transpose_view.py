# A slice of a transpose_view is in transposed coordinates, not in the L0C layout of the root: the Acc rule
# stays silent (no false rejection) and says why. A slice of a same-shape reshape is placed on the root.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class TransposedAcc:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32]):
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.BF16, target_memory=pl.Mem.Left)
        b: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 32], dtype=pl.BF16, target_memory=pl.Mem.Right)
        b16: pl.Tile[[32, 16], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 16], dtype=pl.BF16, target_memory=pl.Mem.Right)
        tv = pl.tile.transpose_view(acc)
        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(tv, [16, 32], [16, 0])
        c = pl.tile.matmul_acc(w, a, b)
        r = pl.tile.reshape(acc, [32, 32])
        w2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(r, [16, 16], [16, 16])
        c2 = pl.tile.matmul_acc(w2, a, b16)

# CHECK-LABEL: def kernel
# CHECK: w: {{.*}} = pl.tile.slice(tv, [16, 32], [16, 0])
# CHECK: acc-window-unproven: tile.matmul_acc accumulator window [16, 32] at offset [16, 0] of 'tv': 'tv' is a tile.transpose_view of 'acc' that does not keep every element in place
# CHECK: acc-window-accepted: tile.matmul_acc accumulator window [16, 16] at offset [16, 16] of 'acc': columns [16, 32) lie inside 16-column block 1
