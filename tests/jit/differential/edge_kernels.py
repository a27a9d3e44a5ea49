"""A second differential corpus of @pl.jit programs: dtype edges (integer wrap-around, signed remainders and
shifts, NaN / infinity through maxima and arg-extrema, saturating casts), odd and tall shapes, loops with negative
steps and zero trips, carried values that trade places, element reads / writes and views at the call boundary. The
numpy references are written by hand in test_jit_differential_edge.py. A real module: @pl.jit reads sources."""

import tilefold.language as pl

# ------------------------------------------------------------------------------------------------ integer edges


@pl.jit
def i8_wrap(a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(a, b), a)
    return out


@pl.jit
def i16_wrap(a: pl.Tensor[[16, 64], pl.INT16], b: pl.Tensor[[16, 64], pl.INT16],
             out: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(pl.mul(a, b), b)
    return out


@pl.jit
def u8_sub(a: pl.Tensor[[16, 64], pl.UINT8], b: pl.Tensor[[16, 64], pl.UINT8],
           out: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(a, b)
    return out


@pl.jit
def i32_rem_signs(a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
                  o1: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o2: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.rem(a, b)
        o2[:] = pl.rems(a, -3)
    return o1, o2


@pl.jit
def i32_shifts(a: pl.Tensor[[16, 64], pl.INT32], s: pl.Tensor[[16, 64], pl.INT32],
               o1: pl.Out[pl.Tensor[[16, 64], pl.INT32]], o2: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.shr(a, s)
        o2[:] = pl.shls(a, 3)
    return o1, o2


@pl.jit
def i32_abs_neg_min(a: pl.Tensor[[16, 64], pl.INT32], o1: pl.Out[pl.Tensor[[16, 64], pl.INT32]],
                    o2: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.abs(a)
        o2[:] = pl.neg(a)
    return o1, o2


@pl.jit
def i8_row_sum_wraps(a: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 1], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.row_sum(a)
    return out


@pl.jit
def i32_to_i8_wraps(a: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(a, target_type=pl.INT8)
    return out


# ------------------------------------------------------------------------------------------------ float edges


@pl.jit
def nan_reductions(a: pl.Tensor[[16, 64], pl.FP32], mx: pl.Out[pl.Tensor[[16, 1], pl.FP32]],
                   mn: pl.Out[pl.Tensor[[1, 64], pl.FP32]], s: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mx[:] = pl.row_max(a)
        mn[:] = pl.col_min(a)
        s[:] = pl.row_sum(a)
    return mx, mn, s


@pl.jit
def nan_maximum(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.minimum(pl.maximum(a, b), pl.maxs(a, 0.5))
    return out


@pl.jit
def div_by_zero(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.div(a, b)
    return out


@pl.jit
def argmax_nan_ties(a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 1], pl.INT32]],
                    o2: pl.Out[pl.Tensor[[1, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.row_argmax(a)
        o2[:] = pl.col_argmin(a)
    return o1, o2


@pl.jit
def cast_saturate_i8(a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.INT8]],
                     o2: pl.Out[pl.Tensor[[16, 64], pl.INT16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.cast(a, target_type=pl.INT8, mode="trunc")
        o2[:] = pl.cast(a, target_type=pl.INT16, mode="rint")
    return o1, o2


@pl.jit
def cast_fp16_overflow(a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
                       o2: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o1[:] = pl.cast(a, target_type=pl.FP16)
        o2[:] = pl.cast(a, target_type=pl.BF16)
    return o1, o2


@pl.jit
def cmp_nan_modes(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                  eq: pl.Out[pl.Tensor[[16, 64], pl.FP32]], ne: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                  le: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        eq[:] = pl.cmp(a, b, cmp_type=0)
        ne[:] = pl.cmp(a, b, cmp_type=1)
        le[:] = pl.cmp(a, b, cmp_type=3)
    return eq, ne, le


# ------------------------------------------------------------------------------------------------ shapes


@pl.jit
def softmax_any(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(pl.row_expand_sub(a, pl.row_max(a)))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def col_sum_any(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_sum(a)
    return out


@pl.jit
def col_argmax_any(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_argmax(a)
    return out


@pl.jit
def col_prod_any(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_prod(a)
    return out


@pl.jit
def matmul_any(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return out


@pl.jit
def transpose_any(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.transpose(a, 0, 1)
    return out


@pl.jit
def add_one(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(x, 1.0)
    return out


# ------------------------------------------------------------------------------------------------ loops and control flow


@pl.jit
def horner_down(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(3, -1, -1):
            acc = pl.add(pl.mul(acc, 2.0), x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def horner_from(x: pl.Tensor[[64, 64], pl.FP32], a: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(a, -1, -1):
            acc = pl.add(pl.mul(acc, 2.0), x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def blocks_between(x: pl.Tensor[[64, 64], pl.FP32], a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=1.0)
        for i in pl.range(a, b):
            acc = pl.add(acc, x[i * 16:i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def if_elif_chain(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            t = x[i * 16:i * 16 + 16, :]
            if i == 0:
                y = pl.exp(t)
            elif i == 1:
                y = pl.neg(t)
            else:
                if i % 2 == 0:
                    y = pl.mul(t, 3.0)
                else:
                    y = pl.adds(t, 10.0)
            out[i * 16:i * 16 + 16, :] = y
    return out


@pl.jit
def nested_max_carry(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            for j in pl.range(2):
                acc = pl.maximum(acc, x[i * 16:i * 16 + 16, j * 64:j * 64 + 64])
            acc = pl.muls(acc, 0.5)
        out[:] = acc
    return out


@pl.jit
def unroll_reversed(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.unroll(4):
            out[i * 16:i * 16 + 16, :] = pl.muls(x[(3 - i) * 16:(4 - i) * 16, :], i + 1.0)
    return out


@pl.jit
def tiles_trade_places(x: pl.Tensor[[64, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                       o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # the yielded b is a's storage: the back edge used to copy a_2 over it first (both outputs came out equal)
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
        b = pl.tile.full([16, 64], dtype=pl.FP32, value=2.0)
        for i in pl.range(3):
            t = pl.load(x, [i * 16, 0], [16, 64])
            a, b = pl.tile.add(b, t), a
        pl.store(a, [0, 0], o1)
        pl.store(b, [0, 0], o2)
    return o1, o2


@pl.jit
def tiles_rotate(x: pl.Tensor[[64, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                 o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.load(x, [0, 0], [16, 64])
        b = pl.load(x, [16, 0], [16, 64])
        c = pl.load(x, [32, 0], [16, 64])
        for _i in pl.range(4):
            a, b, c = b, c, a
        pl.store(a, [0, 0], o1)
        pl.store(b, [0, 0], o2)
        pl.store(c, [0, 0], o3)
    return o1, o2, o3


@pl.jit
def swap_under_if(x: pl.Tensor[[64, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                  o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.load(x, [0, 0], [16, 64])
        b = pl.load(x, [16, 0], [16, 64])
        for i in pl.range(5):
            if i % 2 == 0:
                a, b = b, a
            else:
                a, b = pl.tile.exp(b), a
        pl.store(a, [0, 0], o1)
        pl.store(b, [0, 0], o2)
    return o1, o2


@pl.jit
def scalar_offsets_swap(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        p = 0
        q = 3
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for _i in pl.range(3):
            acc = pl.add(pl.muls(acc, 2.0), x[p * 16:p * 16 + 16, :])
            p, q = q, p
        out[:] = acc
    return out


@pl.jit
def offset_from_if(x: pl.Tensor[[64, 64], pl.FP32], f: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        if f > 1:
            r = 32
        else:
            r = 8
        out[:] = x[r:r + 16, :]
    return out


@pl.jit
def param_then_computed(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
                        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = x
        for _i in pl.range(3):
            acc = pl.add(acc, y)
        out[:] = acc
    return out


@pl.jit
def read_row_offset(x: pl.Tensor[[64, 64], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
                    out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        r = pl.read(idx, [0, 3])
        out[:] = pl.neg(x[r:r + 16, :])
    return out


@pl.jit
def write_anti_diagonal(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            v = pl.read(x, [i * 3, i + 5])
            pl.write(out, [i, 7 - i], v * 2.0)
    return out


@pl.jit
def inout_shift_rows(x: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x[0:16, :] = pl.adds(x[16:32, :], 1.0)
        x[16:32, :] = pl.muls(x[0:16, :], 2.0)
    return x


@pl.jit
def reverse_blocks(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            out[i * 16:i * 16 + 16, :] = pl.adds(x[(3 - i) * 16:(4 - i) * 16, :], 1.0)
    return out


@pl.jit
def floor_mod_offset(x: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.INDEX],
                     out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # r0 is not affine in s (// and % of a negative divisor), but x[r0 : r0 + 16] has the extent 16 whatever r0 is
    with pl.at(level=pl.Level.CORE_GROUP):
        r0 = (s // -3) * 16 + (s % -3) * 16 + 32
        out[:] = pl.exp(x[r0:r0 + 16, :])
    return out


@pl.jit
def scalar_products_wrap(a: pl.Tensor[[16, 64], pl.INT32], s: pl.Scalar[pl.INT32],
                         out: pl.Out[pl.Tensor[[16, 64], pl.INT32]], e: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
    # s * 3 past 2**31: the INT32 register wraps (was an OverflowError inside the simulator)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(a, s * 3)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.write(e, [0, 0], s * 3)
        pl.write(e, [1, 1], s + s)
    return out, e


@pl.jit
def scalar_compare_fill_wrap(a: pl.Tensor[[16, 64], pl.INT32], s: pl.Scalar[pl.INT32],
                             lt: pl.Out[pl.Tensor[[16, 64], pl.INT32]], fill: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    # the INT32 s * 3 is -1294967296 for s = 10**9: a < s * 3 holds nowhere (it compared with 3e9, true everywhere)
    with pl.at(level=pl.Level.CORE_GROUP):
        lt[:] = pl.cmps(a, s * 3, cmp_type=2)
        fill[:] = pl.expands(a, s * 3)
    return lt, fill
