# Softmax over the first axis as a user custom op ([reduction, parallel]).
# TileAndBindSubBlock keeps dim 0 whole and splits dim 1: each vector sub-block computes a [64, 64] tile.
# Kernel semantics: softmax along axis 0 of the tile-local array (see softmax_reduce_last.py).
import tilefold.language as pl


@pl.program
class SoftmaxReduceFirst:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        init: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 128], dtype=pl.FP32,
                                                                       target_memory=pl.Mem.Vec)
        y = pl.tile.custom("example.softmax_first", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out
