# A [reduction, parallel] column max [1, 64] is consumed WHOLE by col_expand_mul while the store splits
# dim 0: no consumer wants a half of it, but split work reads it, so both sub-blocks compute it whole
# (unguarded, marked sub_block_replicated) instead of fencing it to sub-block 0, which would leave
# sub-block 1 with the uninitialised output init.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Colmax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        v = pl.tile.custom("p.colmax", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(u, v)
        out = pl.store(w, [0, 0], out)
        return out

# CHECK: @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
# CHECK: t: pl.Tile{{.}}{{.}}32, 64]{{.*}} = pl.tile.load(x, {{.}}0, 0], {{.}}32, 64]
# CHECK: u: pl.Tile{{.}}{{.}}8, 64]{{.*}} = pl.tile.load(y, {{.}}subblock_idx * 8, 0], {{.}}8, 64]
# CHECK-NOT: limit_sub_block_id0
# CHECK: v: pl.Tile{{.}}{{.}}1, 64]{{.*}} = pl.tile.custom("p.colmax"{{.*}}ir_attrs={"sub_block_replicated": True})
# CHECK-NEXT: w: pl.Tile{{.}}{{.}}8, 64]{{.*}} = pl.tile.col_expand_mul(u, v)
# CHECK-NEXT: pl.store(w, {{.}}subblock_idx * 8, 0], out, tiled_op=True)
# CHECK: replicated{{.*}}custom op p.colmax is not split: split work needs its result v whole
