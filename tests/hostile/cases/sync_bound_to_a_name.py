# exit: 2
# expect: pl.system.sync_src is a statement: it gives no value
# expect: sync_bound_to_a_name.py:15:
# argv: run {file}
import tilefold.language as pl


@pl.program
class SyncValue:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        # a sync gives no value: this reached the simulator as a register never written (no location)
        e = pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        out = pl.store(pl.adds(t, e), [0, 0], out)
        return out
