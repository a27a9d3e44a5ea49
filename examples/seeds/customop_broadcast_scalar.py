"""Seed 2: a broadcast input (constant-0 map) and a scalar input passed through unchanged."""
import tilefold.language as pl


@pl.program
class CustomOpBroadcastScalar:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
               scale: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x_t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        b_t: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 32], dtype=pl.FP32,
                                                                      target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.custom(
            "scale_bias_kernel", ins=[x_t, b_t, scale], outs=[init],
            indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (0, d1)"),
                           pl.affine_map("(d0, d1) -> ()"), pl.affine_map("(d0, d1) -> (d0, d1)")],
            iterator_types=[pl.parallel, pl.parallel], no_side_effect=True, attrs={"mode": "affine"})
        out = pl.store(y, [0, 0], out)
        return out
