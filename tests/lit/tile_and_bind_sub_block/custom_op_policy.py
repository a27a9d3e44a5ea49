# --custom-op-policy limit-module (upstream master): a module with a custom op has no AIV function split; the
# default policy (split) splits the same kernel.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --custom-op-policy limit-module | filecheck %s --check-prefix=LIMIT
# RUN: tilefold opt %s --passes tile-and-bind-sub-block | filecheck %s --check-prefix=SPLIT
import tilefold.language as pl

ID = pl.affine_map("(d0, d1) -> (d0, d1)")


@pl.program
class Policy:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.scale", ins=[t], outs=[init], indexing_maps=[ID, ID],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out

# LIMIT: tile_and_bind_subblock_reverted": "custom_op_policy=limit-module
# LIMIT: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# LIMIT-NEXT: pl.tile.custom("user.scale"
# LIMIT-NOT: tiled_op
# SPLIT: attrs={"sub_block_axis": 0}
# SPLIT: pl.tile.custom("user.scale"{{.*}}tiled_op=True)
