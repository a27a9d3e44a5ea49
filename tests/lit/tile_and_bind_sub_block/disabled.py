# --no-enable-auto-bind-sub-block splits nothing but still limits every store to sub-block 0 (both
# sub-blocks run the function; upstream's enable-tile=false).
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --no-enable-auto-bind-sub-block | filecheck %s
import tilefold.language as pl


@pl.program
class Plain:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        return out

# CHECK: @pl.function(type=pl.FunctionType.InCore)
# CHECK-NOT: tiled_op
# CHECK: [[SB:[a-z_]+]]: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
# CHECK: pl.tile.load(x, {{.}}0, 0], {{.}}16, 64]
# CHECK: if pl.cond([[SB]] == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.store(y, {{.}}0, 0], out)
# CHECK-NOT: tiled_op
# CHECK-NOT: sub_block_axis
