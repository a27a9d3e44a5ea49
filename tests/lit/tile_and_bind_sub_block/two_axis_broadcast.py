# A vector broadcast into rows and (reshaped) into columns: strict mode is disabled for this function only,
# with upstream's remark, and the function splits (the vector stays whole, a half window feeds the row broadcast).
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Diamond:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, r)
        c: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r, [1, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(a, c)
        out = pl.store(b, [0, 0], out)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK: r_sb: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(r, {{.}}8, 1], {{.}}subblock_idx * 8, 0])
# CHECK: pl.store(b, {{.}}subblock_idx * 8, 0], out, tiled_op=True)
# CHECK: strict-off: selected split axis may be broadcast along two different axes; strict mode disabled for this function
