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


@pl.jit
def syncs_in_a_region(q: pl.Tensor[[64, 32], pl.FP16], k: pl.Tensor[[64, 32], pl.FP16],
                      out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mm = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        pl.system.bar_m()  # the cube's pipe, at the kernel level
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(mm)
            e = pl.exp(h)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
            out = pl.assemble(out, e, [aiv_id * 32, 0])
    return out


@pl.jit
def cube_barrier_in_a_region(q: pl.Tensor[[64, 32], pl.FP16], k: pl.Tensor[[64, 32], pl.FP16],
                             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mm = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(mm)
            pl.system.bar_m()  # refused: a lane is a vector core
            out = pl.assemble(out, pl.exp(h), [aiv_id * 32, 0])
    return out
