"""Seed 1, #1640: a dynamic-offset Vec slice of a local tile feeds col_expand_mul -- Before."""
import tilefold.language as pl


@pl.program
class ColExpandDynamicRowBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 256], pl.FP32], gamma: pl.Tensor[[1, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        local: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 256],
                                                                       target_memory=pl.Mem.Vec)
        block_idx: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        row_off: pl.Scalar[pl.INDEX] = block_idx % 16
        row:    pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
        scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
        out = pl.store(scaled, [row_off, 0], out)
        return out
