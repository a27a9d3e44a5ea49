# Plain aliases are followed transitively: a non-contiguous window reached through two aliases is
# materialized for col_expand_mul, and the slice and both aliases die.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class AliasChain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        a = hi
        b = a
        y = pl.tile.col_expand_mul(b, gt)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: gt: pl.Tile
# CHECK-NEXT: hi_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 64, shape=[16, 64], target_memory=pl.Mem.Vec)
# CHECK-NEXT: y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi_ext, gt)
# CHECK-NOT: pl.tile.slice
# CHECK-NOT: = hi
# CHECK: materialized: slice 'hi' read by tile.col_expand_mul {{.*}}#2010
# CHECK: dropped: slice 'hi'
