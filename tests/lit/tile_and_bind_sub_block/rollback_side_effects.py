# A custom op without no_side_effect cannot run on both sub-blocks: the function is rolled back and
# LimitUniqueSubBlockIdToStoreCopy puts the custom op and the store under `if sb == 0`, yielding the
# output inits on the other branch.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks | filecheck %s
import tilefold.language as pl


@pl.program
class SideEffects:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.logger", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel])
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: @pl.program(attrs={"tile_and_bind_subblock_reverted": True})
# CHECK: @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "window stuck on un-split custom op user.logger: safe_to_duplicate
# CHECK: subblock_idx: pl.Scalar{{.}}pl.INDEX] = pl.tile.get_subblock_idx()
# CHECK: t: pl.Tile{{.}}{{.}}16, 16], {{.*}} = pl.tile.load(x, {{.}}0, 0], {{.}}16, 16]
# CHECK: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.tile.custom("user.logger"
# CHECK-NOT: tiled_op
# CHECK: pl.yield_(
# CHECK-NEXT: else:
# CHECK-NEXT: pl.yield_(init)
# CHECK: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.store(y, {{.}}0, 0], out)
# CHECK: else:
# CHECK-NEXT: pl.yield_(out)
# CHECK: remark: [TileAndBindSubBlock] kernel: refused: refused to split custom op user.logger: safe_to_duplicate
# CHECK: remark: [TileAndBindSubBlock] kernel: reverted: sub-block split rolled back
