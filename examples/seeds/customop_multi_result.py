"""Seed 2: a multi-result custom op -- ONE op holds both results (the external kernel runs once)."""
import tilefold.language as pl


@pl.program
class CustomOpMultiResult:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out_a: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               out_b: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                      pl.Tensor[[16, 64], pl.FP32]]:
        x_t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        init_a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32,
                                                                        target_memory=pl.Mem.Vec)
        init_b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32,
                                                                        target_memory=pl.Mem.Vec)
        ya, yb = pl.tile.custom(
            "split_kernel", ins=[x_t], outs=[init_a, init_b],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)"),
                           pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out_a = pl.store(ya, [0, 0], out_a)
        out_b = pl.store(yb, [0, 0], out_b)
        return out_a, out_b
