# A kernel that stores rows [0, 64) of o and loads rows [16, 80) back: the row split is refused (sub-block 0
# would read rows sub-block 1 writes), the column split is kept (each sub-block reads only its own columns).
# RUN: tilefold opt %s --passes tile-and-bind-sub-block --remarks 2>&1 | filecheck %s
import tilefold.language as pl


@pl.program
class Raw:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[80, 64], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        o1 = pl.store(y, [0, 0], o)
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(o1, [16, 0], [64, 64], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(u, 2.0)
        out = pl.store(v, [0, 0], out)
        return out

# CHECK: attrs={"sub_block_axis": 1}
# CHECK: pl.store(y, {{.}}0, subblock_idx * 32], o, tiled_op=True)
# CHECK: pl.tile.load(o1, {{.}}16, subblock_idx * 32], {{.}}64, 32]
# CHECK: split axis 0 refused (gm_read_after_write: sub-block 0 reads bytes of o that sub-block 1 writes
