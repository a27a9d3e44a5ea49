# E2E (issue 9, "Done when"): a GM read-after-write across the halves. The kernel stores rows [0, 64) of o
# and then loads rows [16, 80) of o. Split on dim 0, sub-block 0 would read rows [16, 48) of o while
# sub-block 1 writes rows [32, 64) of it: a race (the simulator reports it) and 1024 wrong elements on
# the device. TileAndBindSubBlock must not split it (or split only what it proves disjoint); the result
# must be y = o_new[16:80] + 1 with the pass on and off.
import tilefold.language as pl


@pl.program
class E2ERawAcrossHalves:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[128, 64], pl.FP32]],
               y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        o = pl.store(t, [0, 0], o)
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [16, 0], [64, 64], target_memory=pl.Mem.Vec)
        v: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(u, 1.0)
        y = pl.store(v, [0, 0], y)
        return y
