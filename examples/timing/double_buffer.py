# Double buffering: a load -> exp -> store loop with pl.pipeline(stage=2). Codegen gives the second copy of
# the body its own buffers, so the MTE2 load of iteration i+1 overlaps the vector work of iteration i.
#   tilefold run examples/timing/double_buffer.py --trace out.json     (open in https://ui.perfetto.dev)
#   tilefold run examples/timing/double_buffer.py --timeline out.png   (needs tilefold[plot])
import tilefold.language as pl


@pl.program
class DoubleBuffer:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[512, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[512, 256], pl.FP32]]) -> pl.Tensor[[512, 256], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        for i, (o,) in pl.pipeline(8, init_values=(out,), stage=2):
            t: pl.Tile[[32, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64 + sb * 32, 0], [32, 256],
                                                                     target_memory=pl.Mem.Vec)
            e = pl.tile.exp(t)
            y = pl.tile.muls(e, 0.5)
            z = pl.tile.adds(y, 1.0)
            o2 = pl.store(z, [i * 64 + sb * 32, 0], o)
            r = pl.yield_(o2)
        return r
