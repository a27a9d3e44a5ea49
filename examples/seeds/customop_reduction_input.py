"""Seed 2, section 2.4: iterators [parallel, reduction], result map (d0, d1) -> (d0), input map
(d0, d1) -> (d0, d1) on a [16, 32] input. A result window offset [8] size [8] projects to input offsets
[8, 0] sizes [8, 32]."""
import tilefold.language as pl


@pl.program
class CustomOpReductionInput:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16], pl.FP16]]) -> pl.Tensor[[16], pl.FP16]:
        x_t: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16], pl.FP16, pl.Mem.Vec] = pl.tile.create(shape=[16], dtype=pl.FP16,
                                                                  target_memory=pl.Mem.Vec)
        s: pl.Tile[[16], pl.FP16, pl.Mem.Vec] = pl.tile.custom(
            "row_reduce_kernel", ins=[x_t], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0)")],
            iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out = pl.store(s, [0], out)
        return out
