"""@pl.jit kernels of tests/sim/test_system_barrier.py (a module: @pl.jit reads its source file): a mixed kernel
whose AIV lanes publish rows to GM before a barrier and whose cube reads another block's rows after it."""

import tilefold.language as pl

N = 24  # Ascend910B's clusters: pl.system.available_cluster_count()


@pl.jit
def mixed(x: pl.Tensor[[N * 16, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
          mid: pl.InOut[pl.Tensor[[N * 16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[N * 16, 64], pl.FP32]]):
    for i in pl.spmd(pl.system.available_cluster_count()):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):  # phase 1, per lane: publish 2 * x
            t = pl.slice(x, [8, 64], [i * 16 + aiv_id * 8, 0])
            mid = pl.assemble(mid, pl.mul(t, 2.0), [i * 16 + aiv_id * 8, 0])
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="mix")  # barrier: outside the regions, runs on the cube and both lanes
        pl.system.cacheinvalid()
        nb = pl.slice(mid, [16, 64], [((i + 1) % N) * 16, 0])  # the next block's rows
        mm = pl.matmul(nb, w, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            out = pl.assemble(out, pl.aiv_shard(mm), [i * 16 + aiv_id * 8, 0])
    return out


@pl.jit
def mixed_without_barrier(x: pl.Tensor[[N * 16, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP32],
                          mid: pl.InOut[pl.Tensor[[N * 16, 64], pl.FP32]],
                          out: pl.Out[pl.Tensor[[N * 16, 64], pl.FP32]]):
    for i in pl.spmd(pl.system.available_cluster_count()):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.slice(x, [8, 64], [i * 16 + aiv_id * 8, 0])
            mid = pl.assemble(mid, pl.mul(t, 2.0), [i * 16 + aiv_id * 8, 0])
        nb = pl.slice(mid, [16, 64], [((i + 1) % N) * 16, 0])
        mm = pl.matmul(nb, w, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            out = pl.assemble(out, pl.aiv_shard(mm), [i * 16 + aiv_id * 8, 0])
    return out


@pl.jit
def barrier_inside_a_region(x: pl.Tensor[[N * 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[N * 16, 64], pl.FP32]]):
    for i in pl.spmd(pl.system.available_cluster_count()):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.slice(x, [8, 64], [i * 16 + aiv_id * 8, 0])
            pl.system.syncall(core_type="aiv_only")  # refused: barriers stay outside the regions
            out = pl.assemble(out, pl.mul(t, 2.0), [i * 16 + aiv_id * 8, 0])
    return out
