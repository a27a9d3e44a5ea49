# E2E (seed: Softmax CustomOp, reduce-first): a numerically stable softmax (max, exp, sum, normalise) as a
# user custom op with iterators [pl.reduction, pl.parallel]. TileAndBindSubBlock keeps
# dim 0 (the reduced axis) whole and splits dim 1.
# FP16 in and out (FP32 inside the kernel), so that the whole un-split 128x128 tile with its output fits
# one Vec. The seed's shapes are obtained by changing ROWS / COLS (tests/e2e_subblock/test_softmax.py does).
# Kernel semantics (tilefold.custom.library): e2e.softmax_first(x) = softmax(x, axis=0).
import tilefold.language as pl

ROWS = 64
COLS = 128
SHAPE = [ROWS, COLS]


@pl.program
class E2ESoftmaxReduceFirst:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[ROWS, COLS], pl.FP16],
               out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP16]]) -> pl.Tensor[[ROWS, COLS], pl.FP16]:
        t: pl.Tile[[ROWS, COLS], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], SHAPE, target_memory=pl.Mem.Vec)
        init: pl.Tile[[ROWS, COLS], pl.FP16, pl.Mem.Vec] = pl.tile.create(SHAPE, dtype=pl.FP16,
                                                                          target_memory=pl.Mem.Vec)
        y = pl.tile.custom("e2e.softmax_first", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.reduction, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out
