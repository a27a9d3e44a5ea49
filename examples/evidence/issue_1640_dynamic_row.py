# Issue #1640: a dynamic-offset Vec slice of a local tile feeding tile.col_expand_mul.
#
# Every row of `local` is scaled by row `row_off` of the same tile. col_expand_mul cannot read a subview,
# so codegen materializes `ref` into the slice's own buffer. With a dynamic offset, AllocateMemoryAddr
# falls back to the bare base address of `local`: the extracted row lands on row 0 of the still-live
# source, and row 0 of the result is computed from the wrong data. CanonicalizeTileSlice rewrites the
# operand to a tile.extract into a fresh buffer.
import tilefold.language as pl


@pl.program
class DynamicRowScale:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 256], pl.FP32], row_off: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[8, 256], pl.FP32]]) -> pl.Tensor[[8, 256], pl.FP32]:
        local: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 256], target_memory=pl.Mem.Vec)
        ref: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
        y: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(local, ref)
        out = pl.store(y, [0, 0], out)
        return out
