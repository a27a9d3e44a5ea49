"""Seed 1, #1640 -- After: the operand is materialized into a fresh, non-aliasing tile."""
import tilefold.language as pl


@pl.program
class ColExpandDynamicRowAfter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 256], pl.FP32], gamma: pl.Tensor[[1, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        local: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 256],
                                                                       target_memory=pl.Mem.Vec)
        block_idx: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row_off: pl.Scalar[pl.INDEX] = block_idx % 16
        row_ext: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
            local, row_off, 0, shape=[1, 256], target_memory=pl.Mem.Vec)
        scaled:  pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row_ext, gamma_t)
        out = pl.store(scaled, [row_off, 0], out)
        return out
