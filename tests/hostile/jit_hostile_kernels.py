"""@pl.jit kernels of the hostile call-boundary tests (test_hostile_jit_inputs.py); a real module: @pl.jit reads
sources. Each comment says what the kernel provokes."""

import tilefold.language as pl


@pl.jit
def exp_bare(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out


@pl.jit
def huge_workspace(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # a 16 EiB GM tensor (2**31 x 2**31 FP32): refused where it is written, before anything is allocated
    tmp = pl.create_tensor([2**31, 2**31], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        tmp[0:16, 0:64] = a
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = tmp[0:16, 0:64]
    return out


@pl.jit
def workspace_2_40_rows(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    tmp = pl.create_tensor([2**40, 64], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        tmp[0:16, :] = a
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = tmp[0:16, :]
    return out


@pl.jit
def int8_add_300(a: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(a, 300)  # 300 is no INT8 value
    return out


@pl.jit
def int32_times_half(a: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(a, 0.5)  # was silently 7 * 0.5 -> 3
    return out


@pl.jit
def int8_fill_1000(a: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, pl.full([16, 64], dtype=pl.INT8, value=1000))  # was silently saturated to 127
    return out


@pl.jit
def int8_scalar_ops(a: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    # scalars an INT8 holds: the arithmetic wraps in the dtype, as numpy's int8 does
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.adds(pl.muls(a, 3), -100)
        out[:] = pl.maxs(pl.add(t, pl.full([16, 64], dtype=pl.INT8, value=127)), -128.0)
    return out


@pl.jit
def float_trip_count(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = a
        for _i in pl.range(2.5):  # was 3 iterations, silently
            acc = pl.add(acc, a)
        out[:] = acc
    return out


@pl.jit
def float_step(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = a
        for _i in pl.unroll(0, 4, 1.5):  # was 4 iterations, silently
            acc = pl.add(acc, a)
        out[:] = acc
    return out
