# pl.system pipe syncs: the IR keeps them as statements with their pl.PipeType attributes, PTO lowers them to the
# kernel's own set_flag / wait_flag events (EVENT_IDn, apart from codegen's eN) and pipe_barrier instructions, and
# a run gives the values of the kernel without them.
# RUN: tilefold compile %s --emit ir | filecheck %s --check-prefix=IR
# RUN: tilefold compile %s --emit pto | filecheck %s --check-prefix=PTO
# RUN: tilefold run %s --inputs random | filecheck %s --check-prefix=SIM

# IR: pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=5)
# IR: pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=5)
# IR: pl.system.bar_v()
# IR: pl.system.bar_all()
# PTO: tload %ta
# PTO: set_flag MTE2 -> VECTOR, EVENT_ID5
# PTO-NEXT: wait_flag MTE2 -> VECTOR, EVENT_ID5
# PTO: texp %e, %tb
# PTO-NEXT: pipe_barrier VECTOR
# PTO: tadd
# PTO: pipe_barrier ALL
# PTO: tstore
# SIM: result MATCH

import tilefold.language as pl


@pl.program
class PipeSync:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        tb = pl.load(b, [0, 0], [16, 64])
        ta = pl.load(a, [0, 0], [16, 64])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=5)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=5)
        e = pl.exp(tb)
        pl.system.bar_v()
        s = pl.add(e, ta)
        pl.system.bar_all()
        out = pl.store(s, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.kernel(a, b, out)
        return out
