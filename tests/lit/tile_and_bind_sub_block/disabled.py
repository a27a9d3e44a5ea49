# --no-enable-auto-bind-sub-block turns the pass into the identity.
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
# CHECK-NOT: get_subblock_idx
# CHECK: pl.tile.load(x, {{.}}0, 0], {{.}}16, 64]
# CHECK-NOT: tiled_op
