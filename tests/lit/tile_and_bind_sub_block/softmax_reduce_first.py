# Reduce-first softmax ([reduction, parallel]): the reduction axis (dim 0) stays whole, the split is on
# dim 1: every tile is [128, 64] at column offset 64 * sb.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class SoftmaxFirst:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 128], target_memory=pl.Mem.Vec)
        init: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.softmax_first", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
# CHECK: t: pl.Tile{{.}}{{.}}128, 64], {{.*}} = pl.tile.load(x, {{.}}0, subblock_idx * 64], {{.}}128, 64]
# CHECK: init: pl.Tile{{.}}{{.}}128, 64]
# CHECK: pl.tile.custom("user.softmax_first", ins={{.}}t], outs={{.}}init]
# CHECK-SAME: iterator_types={{.}}pl.reduction, pl.parallel]
# CHECK-SAME: tiled_op=True
# CHECK: pl.store(y, {{.}}0, subblock_idx * 64], out, tiled_op=True)
# CHECK: remark: [TileAndBindSubBlock] kernel: axis: split axis 1
# CHECK-SAME: rejected: axis 0 is a reduction axis
