"""Seed 2: a 16x16 FP16 custom op with identity maps on [parallel, parallel]. Split on dim 0 the two
sub-blocks each process an [8, 16] tile at offsets [0, 0] and [8, 0]."""
import tilefold.language as pl


@pl.program
class CustomOpIdentity:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        x_t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create(shape=[16, 16], dtype=pl.FP16,
                                                                      target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.custom(
            "identity_kernel", ins=[x_t], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, pipe="PIPE_V")
        out = pl.store(y, [0, 0], out)
        return out
