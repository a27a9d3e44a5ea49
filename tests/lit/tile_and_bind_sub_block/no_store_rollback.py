# An AIV function without any store: "no store could be split", so it is rolled back and its custom op
# (which writes the GM tensor `out` through its output init) is fenced to sub-block 0.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class NoStore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.write_gm", ins=[t], outs=[out],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel])
        return y

# CHECK: @pl.program(attrs={"tile_and_bind_subblock_reverted": True})
# CHECK: subblock_idx: pl.Scalar{{.}}pl.INDEX] = pl.tile.get_subblock_idx()
# CHECK: if pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True}):
# CHECK-NEXT: pl.tile.custom("user.write_gm", ins={{.}}t], outs={{.}}out]
# CHECK: else:
# CHECK-NEXT: pl.yield_(out)
# CHECK: reverted{{.*}}no store could be split: the function has no store
