# The seed's example: a 16x16 FP16 custom op split on dim 0; each sub-block loads, computes and stores
# an [8, 16] tile at row offset 8 * sb (offsets [0, 0] and [8, 0]).
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class Identity:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.scale", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
# CHECK-NEXT: def kernel
# CHECK-NEXT: subblock_idx: pl.Scalar{{.}}pl.INDEX] = pl.tile.get_subblock_idx()
# CHECK-NEXT: t: pl.Tile{{.}}{{.}}8, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, {{.}}subblock_idx * 8, 0], {{.}}8, 16]
# CHECK-NEXT: init: pl.Tile{{.}}{{.}}8, 16], {{.*}} = pl.tile.create(shape={{.}}8, 16]
# CHECK-NEXT: y: pl.Tile{{.}}{{.}}8, 16], {{.*}} = pl.tile.custom("user.scale", ins={{.}}t], outs={{.}}init]
# CHECK-SAME: tiled_op=True
# CHECK-NEXT: pl.store(y, {{.}}subblock_idx * 8, 0], out, tiled_op=True)
# CHECK-NOT: subblock_idx == 0
# CHECK-NOT: tile_and_bind_subblock_reverted
# CHECK: remark: [TileAndBindSubBlock] kernel: axis: split axis 0
# CHECK: remark: [TileAndBindSubBlock] kernel: split: split custom op user.scale on iteration dim d0 (half 8)
