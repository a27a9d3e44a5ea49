"""@pl.jit kernels of tests/sim/test_pipe_sync.py (a module: @pl.jit reads its source file): PyPTO's in-kernel pipe
syncs inside a pl.at scope."""

import tilefold.language as pl


@pl.jit
def exp_then_add(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tb = pl.load(b, [0, 0], [16, 64])
        ta = pl.load(a, [0, 0], [16, 64])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        e = pl.exp(tb)
        pl.system.bar_v()
        s = pl.add(e, ta)
        pl.system.bar_all()
        out = pl.store(s, [0, 0], out)
    return out


@pl.jit
def wait_without_set(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [16, 64])
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        out = pl.store(pl.exp(ta), [0, 0], out)
    return out


@pl.jit
def event_id_out_of_range(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [16, 64])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=8)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=8)
        out = pl.store(pl.exp(ta), [0, 0], out)
    return out
