"""A third differential corpus of @pl.jit (and @pl.program) kernels, the hostile5 round: casts between dtype pairs
with each rounding mode at ties and at the saturation edges, integer overflow in adds / muls / scalar forms,
partial (valid-shape) tiles through reductions and expands, loops that carry tiles through an if (and a
`continue`), prime and single row / column counts, mixed cube + vector work with K blocking, and multi-block
launches with disjoint writes. The numpy references are written by hand in test_jit_differential_round5.py.
A real module: @pl.jit reads sources."""

import tilefold.language as pl

# ------------------------------------------------------------------------------------------------ casts


@pl.jit
def f32_to_i32_modes(a: pl.Tensor[[16, 64], pl.FP32], o_round: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
                     o_rint: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o_floor: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
                     o_ceil: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o_trunc: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o_round[:] = pl.cast(a, target_type=pl.INT32, mode="round")
        o_rint[:] = pl.cast(a, target_type=pl.INT32, mode="rint")
        o_floor[:] = pl.cast(a, target_type=pl.INT32, mode="floor")
        o_ceil[:] = pl.cast(a, target_type=pl.INT32, mode="ceil")
        o_trunc[:] = pl.cast(a, target_type=pl.INT32, mode="trunc")
    return o_round, o_rint, o_floor, o_ceil, o_trunc


@pl.jit
def f32_to_i8_default(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(a, target_type=pl.INT8)  # the default mode: round, ties away from zero
    return out


@pl.jit
def f16_to_i16_floor(a: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(a, target_type=pl.INT16, mode="floor")
    return out


@pl.jit
def i32_to_f16_and_f32(a: pl.Tensor[[16, 64], pl.INT32], o16: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
                       o32: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o16[:] = pl.cast(a, target_type=pl.FP16)
        o32[:] = pl.cast(a, target_type=pl.FP32)
    return o16, o32


@pl.jit
def f32_to_bf16_to_f32(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.cast(a, target_type=pl.BF16), target_type=pl.FP32)
    return out


@pl.jit
def f32_to_f16_subnormal(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.cast(a, target_type=pl.FP16), target_type=pl.FP32)
    return out


@pl.jit
def i8_u8_widen(a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[16, 64], pl.UINT8],
                o1: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o2: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.add(pl.cast(a, target_type=pl.INT32), pl.cast(b, target_type=pl.INT32))
        o2[:] = pl.cast(b, target_type=pl.FP16)
    return o1, o2


@pl.jit
def bf16_to_i32_rint(a: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(a, target_type=pl.INT32, mode="rint")
    return out


# ------------------------------------------------------------------------------------------------ integer overflow


@pl.jit
def i32_mul_add_wrap(a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
                     o1: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o2: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.mul(a, b)
        o2[:] = pl.adds(pl.add(a, b), 2147483647)
    return o1, o2


@pl.jit
def i16_scalar_wrap(a: pl.Tensor[[16, 64], pl.INT16], out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(pl.muls(a, 300), 32767)
    return out


@pl.jit
def u8_add_mul_wrap(a: pl.Tensor[[16, 64], pl.UINT8], b: pl.Tensor[[16, 64], pl.UINT8],
                    out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(a, b), a)
    return out


@pl.jit
def i32_sum_wraps(a: pl.Tensor[[16, 64], pl.INT32], o1: pl.Out[pl.Tensor[[16, 1], pl.INT32]],
                  o2: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.row_sum(a)
        o2[:] = pl.col_sum(a)
    return o1, o2


# ------------------------------------------------------------------------------------------------ loops with ifs


@pl.jit
def carried_if_in_loop(x: pl.Tensor[[96, 48], pl.FP32], out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 48], dtype=pl.FP32, value=1.0)
        for i in pl.range(6):
            t = x[i * 16:i * 16 + 16, :]
            if i % 3 == 0:
                acc = pl.add(pl.muls(acc, 0.5), t)
            else:
                acc = pl.sub(acc, pl.abs(t))
        out[:] = acc
    return out


@pl.jit
def carried_continue(x: pl.Tensor[[80, 40], pl.FP32], out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 40], dtype=pl.FP32, value=0.0)
        for i in pl.range(5):
            if i == 2:
                continue
            acc = pl.maximum(pl.muls(acc, 1.5), x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def two_carries_nested(x: pl.Tensor[[48, 24], pl.FP32], o1: pl.Out[pl.Tensor[[16, 24], pl.FP32]],
                       o2: pl.Out[pl.Tensor[[16, 24], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.full([16, 24], dtype=pl.FP32, value=0.0)
        m = pl.full([16, 24], dtype=pl.FP32, value=-100.0)
        for i in pl.range(3):
            for j in pl.range(2):
                t = pl.muls(x[i * 16:i * 16 + 16, :], j + 1.0)
                s = pl.add(s, t)
                if j == 1:
                    m = pl.maximum(m, t)
        o1[:] = s
        o2[:] = m
    return o1, o2


@pl.jit
def stepped_scalar_carry(x: pl.Tensor[[112, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 16], dtype=pl.FP32, value=0.0)
        for i in pl.range(0, 7, 3):  # rows 0, 48, 96
            acc = pl.add(pl.muls(acc, -1.0), x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def fp16_running_sum(x: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = x[0:16, :]
        for i in pl.range(1, 4):
            acc = pl.add(acc, x[i * 16:i * 16 + 16, :])  # rounded to FP16 after every add
        out[:] = acc
    return out


# ------------------------------------------------------------------------------------------------ odd shapes


@pl.jit
def prime_rows_softmax(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(pl.row_expand_sub(a, pl.row_max(a)))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def one_row_reductions(a: pl.Tensor[[1, 13], pl.FP32], o1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
                       o2: pl.Out[pl.Tensor[[1, 13], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.row_max(a)
        o2[:] = pl.col_sum(a)
    return o1, o2


@pl.jit
def one_col_reductions(a: pl.Tensor[[37, 1], pl.FP32], o1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
                       o2: pl.Out[pl.Tensor[[37, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.col_sum(a)
        o2[:] = pl.row_sum(a)
    return o1, o2


@pl.jit
def col_expand_odd(a: pl.Tensor[[23, 19], pl.FP32], b: pl.Tensor[[1, 19], pl.FP32],
                   out: pl.Out[pl.Tensor[[23, 19], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_expand_mul(pl.col_expand_sub(a, pl.col_max(a)), b)
    return out


# ------------------------------------------------------------------------------------------------ partial tiles


@pl.jit
def partial_row_sum(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[11, 40])
        pl.store(pl.row_sum(pl.fillpad(t, pl.PadValue.zero)), [0, 0], out)
    return out


@pl.jit
def partial_col_max(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[7, 64])
        pl.store(pl.col_max(pl.fillpad(t, pl.PadValue.min)), [0, 0], out)
    return out


@pl.jit
def partial_row_expand(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[16, n])
        p = pl.fillpad(t, pl.PadValue.min)
        e = pl.exp(pl.row_expand_sub(p, pl.row_max(p)))
        pl.store(e, [0, 0], out)
    return out


@pl.jit
def partial_store_keeps(x: pl.Tensor[[16, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[5, 24])
        pl.store(pl.muls(t, 3.0), [0, 0], out)  # only the valid 5 x 24 corner is written
    return out


# ------------------------------------------------------------------------------------------------ cube + vector


@pl.jit
def k_blocked_relu_rowsum(a: pl.Tensor[[32, 96], pl.FP16], b: pl.Tensor[[96, 48], pl.FP16],
                          o1: pl.Out[pl.Tensor[[32, 48], pl.FP32]], o2: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:32], b[0:32, :], out_dtype=pl.FP32)
        for k in pl.range(1, 3):
            acc = pl.matmul_acc(acc, a[:, k * 32:k * 32 + 32], b[k * 32:k * 32 + 32, :])
        r = pl.relu(acc)
        o1[:] = r
        o2[:] = pl.row_sum(r)
    return o1, o2


@pl.jit
def matmul_b_trans(a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
                   out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.muls(pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True), 0.5)
    return out


@pl.jit
def matmul_prime_rows(a: pl.Tensor[[7, 32], pl.FP16], b: pl.Tensor[[32, 24], pl.FP16],
                      out: pl.Out[pl.Tensor[[7, 24], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(pl.muls(pl.matmul(a, b, out_dtype=pl.FP32), 0.1))
    return out


# ------------------------------------------------------------------------------------------------ multi-block


@pl.jit
def spmd_prime_blocks(x: pl.Tensor[[65, 24], pl.FP32], out: pl.Out[pl.Tensor[[65, 24], pl.FP32]]):
    for i in pl.spmd(5):
        r0 = i * 13
        out[r0:r0 + 13, :] = pl.adds(pl.exp(x[r0:r0 + 13, :]), 1.0)
    return out


@pl.jit
def spmd_matmul_cast(x: pl.Tensor[[96, 32], pl.FP16], w: pl.Tensor[[32, 32], pl.FP16],
                     out: pl.Out[pl.Tensor[[96, 32], pl.FP16]]):
    for i in pl.spmd(3):
        r0 = i * 32
        out[r0:r0 + 32, :] = pl.cast(pl.matmul(x[r0:r0 + 32, :], w, out_dtype=pl.FP32), target_type=pl.FP16)
    return out


@pl.jit
def spmd_column_blocks(x: pl.Tensor[[16, 96], pl.INT32], out: pl.Out[pl.Tensor[[16, 96], pl.INT32]]):
    for i in pl.spmd(4):
        c0 = i * 24
        out[:, c0:c0 + 24] = pl.muls(x[:, c0:c0 + 24], i + 2)
    return out


# ------------------------------------------------------------------------------------------------ program form


@pl.program
class ProgramCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 40], pl.FP32], out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]
               ) -> pl.Tensor[[16, 40], pl.FP32]:
        acc = pl.load(x, [0, 0], [16, 40])
        for i in pl.range(1, 4):
            t = pl.load(x, [i * 16, 0], [16, 40])
            if i == 2:
                acc = pl.mul(acc, t)
            else:
                acc = pl.add(acc, t)
        out = pl.store(acc, [0, 0], out)
        return out


@pl.program
class ProgramPartialCast:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.INT32]]
               ) -> pl.Tensor[[16, 1], pl.INT32]:
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[16, 33])
        s = pl.row_sum(pl.fillpad(t, pl.PadValue.zero))
        out = pl.store(pl.cast(s, target_type=pl.INT32, mode="floor"), [0, 0], out)
        return out
