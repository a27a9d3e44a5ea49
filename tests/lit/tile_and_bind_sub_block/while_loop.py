# A while loop carrying a tile splits like a for loop: init, iter arg, yield and result carry the half.
# RUN: tilefold opt %s --passes tile-and-bind-sub-block | filecheck %s
import tilefold.language as pl


@pl.program
class While:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        for (i, acc) in pl.while_(init_values=(0, t)):
            pl.cond(i < n)
            acc2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
            i_out, acc_out = pl.yield_(i + 1, acc2)
        out = pl.store(acc_out, [0, 0], out)
        return out

# CHECK: attrs={"sub_block_axis": 0}
# CHECK: t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, {{.}}subblock_idx * 16, 0], {{.}}16, 64]
# CHECK: pl.while_(init_values=(0, t))
# CHECK-NEXT: pl.cond(i < n)
# CHECK-NEXT: acc2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
# CHECK: pl.store(acc_out, {{.}}subblock_idx * 16, 0], out, tiled_op=True)
# CHECK-NOT: limit_sub_block_id0
