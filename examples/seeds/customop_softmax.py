"""Seed 2, Softmax performance cases: reduce-last ([parallel, reduction], split on dim 0 only) and
reduce-first ([reduction, parallel], split on dim 1 only). Shapes come from module constants."""
import tilefold.language as pl

ROWS = 128
COLS = 64
SHAPE = [ROWS, COLS]


@pl.program
class CustomOpSoftmax:
    @pl.function(type=pl.FunctionType.AIV)
    def softmax_last(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
                     out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        x_t: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], SHAPE, target_memory=pl.Mem.Vec)
        init: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=SHAPE, dtype=pl.FP32,
                                                                          target_memory=pl.Mem.Vec)
        y: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.custom(
            "softmax_reduce_last", ins=[x_t], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, attrs={"axis": 1})
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def softmax_first(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
                      out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        x_t: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], SHAPE, target_memory=pl.Mem.Vec)
        init: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=SHAPE, dtype=pl.FP32,
                                                                          target_memory=pl.Mem.Vec)
        y: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.custom(
            "softmax_reduce_first", ins=[x_t], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.reduction, pl.parallel], no_side_effect=True, attrs={"axis": 0})
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        out = self.softmax_last(x, out)
        return out
