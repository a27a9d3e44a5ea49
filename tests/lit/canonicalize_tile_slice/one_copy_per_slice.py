# One copy per slice: both consumers of the chained slice s3 read a single extract; copies needed in
# both branches of an if become one extract before the if. Every slice gets a remark.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class OneCopy:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 256], pl.FP32], g: pl.Tensor[[1, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
        t: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 256], target_memory=pl.Mem.Vec)
        gt: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        s1: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 128], [16, 64])
        s2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s1, [16, 64], [8, 32])
        s3: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s2, [4, 16], [2, 3])
        y = pl.tile.muls(s3, 2.0)
        pl.tile.col_expand_mul(s3, gt)
        h: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 16], [0, 2])
        if n > 0:
            e = pl.tile.exp(h)
            r = pl.yield_(e)
        else:
            r = pl.yield_(h)
        s4: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s2, [4, 16], [0, 8])
        y2 = pl.tile.add(y, s4)
        y3 = pl.tile.add(y2, r)
        out = pl.store(y3, [0, 0], out)
        return out

# CHECK-LABEL: def kernel
# CHECK: s3_ext: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 26, 99, shape=[4, 16], target_memory=pl.Mem.Vec)
# CHECK-NEXT: y: {{.*}} = pl.tile.muls(s3_ext, 2.0)
# CHECK-NEXT: pl.tile.col_expand_mul(s3_ext, gt)
# CHECK-NEXT: h_ext: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 2, shape=[4, 16], target_memory=pl.Mem.Vec)
# CHECK-NEXT: if n > 0:
# CHECK-NEXT: e: {{.*}} = pl.tile.exp(h_ext)
# CHECK: else:
# CHECK-NEXT: r = pl.yield_(h_ext)
# CHECK-NOT: _ext_1
# CHECK: materialized: slice 's3' read by tile.muls
# CHECK: materialized: slice 's3' read by tile.col_expand_mul is materialized (reusing 's3_ext'
# CHECK: kept: slice 's1' is kept: it is the source of chained slice(s) 's2'
# CHECK: peeled: slice 's2' of slice 's1'
# CHECK: kept: slice 's2' is kept: it is the source of chained slice(s) 's4'
# CHECK: peeled: slice 's3' of slice 's2' is peeled to its base: it reads 't' at [26, 99]
# CHECK: dropped: slice 's3'
# CHECK: dropped: slice 'h'
# CHECK: peeled: slice 's4' of slice 's2'
