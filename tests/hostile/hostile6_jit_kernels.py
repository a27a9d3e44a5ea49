"""@pl.jit kernels of test_round6_inputs.py (a module: @pl.jit reads its source file)."""

import tilefold.language as pl

AIV = 48


@pl.jit
def spin(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.exp(a)
        for _i in pl.range(10**12):
            acc = pl.add(acc, a)
        out[:] = acc
    return out


@pl.jit
def barrier_for_ever(a: pl.Tensor[[AIV, 64], pl.FP32], out: pl.Out[pl.Tensor[[AIV, 64], pl.FP32]]):
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        for _j in pl.range(10**9):
            pl.system.syncall(core_type="aiv_only")
        out = pl.store(t, [i, 0], out)
    return out


@pl.jit
def barrier_on_block_zero(a: pl.Tensor[[AIV, 64], pl.FP32], out: pl.Out[pl.Tensor[[AIV, 64], pl.FP32]]):
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        if i == 0:
            pl.system.syncall(core_type="aiv_only")
        out = pl.store(t, [i, 0], out)
    return out


@pl.jit
def barrier_in_orchestration(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    pl.system.bar_all()
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
