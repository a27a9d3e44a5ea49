# Softmax over the last axis as a user custom op ([parallel, reduction]).
# TileAndBindSubBlock keeps the reduced axis (dim 1) whole and splits dim 0: each vector sub-block
# computes a [64, 64] tile. Kernel semantics (register before running):
#   tilefold.register_custom_op("example.softmax_last",
#       lambda x: np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True))
import tilefold.language as pl


@pl.program
class SoftmaxReduceLast:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([128, 64], dtype=pl.FP32,
                                                                       target_memory=pl.Mem.Vec)
        y = pl.tile.custom("example.softmax_last", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out
