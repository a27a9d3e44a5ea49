# #2010 through a shape-preserving view and a loop iter arg: the window lives in the rows of the [16, 128] root,
# so an 8x64 slice of a 16x64 column window is strided (row pitch 128) and is repacked with tile.extract.
# RUN: tilefold opt %s --passes canonicalize-tile-slice --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def view(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.set_validshape(w, [16, 64])
        inner: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [8, 64], [8, 0])
        r: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(inner, gt)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def loop(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        for i, (acc, o) in pl.range(0, 2, init_values=(w, out)):
            inner: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(acc, [8, 64], [8, 0])
            r: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(inner, gt)
            o2 = pl.store(r, [0, 0], o)
            acc_out, o_out = pl.yield_(acc, o2)
        return o_out

# CHECK-LABEL: def view
# CHECK: pl.tile.extract(v, 8, 0, shape=[8, 64], target_memory=pl.Mem.Vec)
# CHECK-LABEL: def loop
# CHECK: pl.tile.extract(acc, 8, 0, shape=[8, 64], target_memory=pl.Mem.Vec)
# CHECK: materialized: slice 'inner' read by tile.col_expand_mul is materialized: 8 rows x 64 of 128 columns is strided
# CHECK: materialized: slice 'inner' read by tile.col_expand_mul is materialized: 8 rows x 64 of 128 columns is strided
