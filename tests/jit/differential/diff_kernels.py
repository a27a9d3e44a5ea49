"""A differential corpus of @pl.jit programs written the way PyPTO users write them (tutorials, op catalog):
element-wise chains, reductions, normalisations, activations, matmuls, loops with carried state, ifs, windows at
loop offsets, partial tiles, casts, pl.dynamic extents and several outputs. Each one's numpy reference is written
by hand in test_jit_differential.py. A real module: @pl.jit reads sources."""

import tilefold.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")
HID = 128
EPS = 1e-5
BLOCK = 16
KB = 64  # K block of the blocked matmuls
SCALE = 0.125


# ------------------------------------------------------------------------------------------------ element-wise


@pl.jit
def ew_chain(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], c: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.mul(a, b), c)
        out[:] = pl.sub(pl.relu(t), pl.div(a, pl.adds(pl.abs(b), 1.0)))
    return out


@pl.jit
def ew_scalars(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.mul(pl.add(a, 1.5), 0.25)
        out[:] = pl.mins(pl.maxs(pl.sub(t, 0.5), -0.2), 0.3)
    return out


@pl.jit
def ew_unary(a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pos = pl.adds(pl.abs(a), 0.5)
        t = pl.add(pl.sqrt(pos), pl.exp(pl.neg(pl.abs(a))))
        u = pl.add(pl.log(pos), pl.recip(pos))
        out[:] = pl.sub(t, pl.mul(u, pl.rsqrt(pos)))
    return out


@pl.jit
def ew_operators(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = (a + b) * a - b / 4.0 + (-a)
    return out


@pl.jit
def ew_fp16(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
            out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(a, b), pl.maximum(a, b))
    return out


@pl.jit
def bf16_exp_roundtrip(a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        w = pl.cast(a, target_type=pl.FP32)
        out[:] = pl.cast(pl.mul(pl.exp(w), 0.5), target_type=pl.BF16)
    return out


@pl.jit
def fp16_to_fp32_mix(a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(b, pl.mul(pl.cast(a, target_type=pl.FP32), 2.0))
    return out


@pl.jit
def int32_arith(a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
                out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.maximum(pl.add(pl.mul(a, b), a), pl.sub(b, a))
    return out


@pl.jit
def float_to_int_round(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.mul(a, 4.0), target_type=pl.INT32)
    return out


@pl.jit
def float_to_int_floor(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.mul(a, 4.0), target_type=pl.INT32, mode="floor")
    return out


@pl.jit
def int_to_float_scale(a: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(pl.cast(a, target_type=pl.FP32), 0.5)
    return out


@pl.jit
def int_bitwise(a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
                out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.xor(pl.and_(a, b), pl.shls(pl.or_(a, b), 2))
    return out


@pl.jit
def compare_select(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # mask * a + (1 - mask) * b: where(a > b, a, b) through the dense comparison mask
    with pl.at(level=pl.Level.CORE_GROUP):
        mask = pl.cmp(a, b, cmp_type=4)
        out[:] = pl.add(pl.mul(mask, a), pl.mul(pl.sub(pl.full([16, 64], dtype=pl.FP32, value=1.0), mask), b))
    return out


# ------------------------------------------------------------------------------------------------ reductions


@pl.jit
def row_reductions(x: pl.Tensor[[32, 128], pl.FP32], s: pl.Out[pl.Tensor[[32, 1], pl.FP32]],
                   mx: pl.Out[pl.Tensor[[32, 1], pl.FP32]], mn: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s[:] = pl.row_sum(x)
        mx[:] = pl.row_max(x)
        mn[:] = pl.row_min(x)
    return s, mx, mn


@pl.jit
def col_reductions(x: pl.Tensor[[64, 64], pl.FP32], s: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
                   mx: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s[:] = pl.col_sum(x)
        mx[:] = pl.col_max(pl.abs(x))
    return s, mx


@pl.jit
def row_mean_centre(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mean = pl.muls(pl.row_sum(x), 1.0 / 64)
        out[:] = pl.row_expand_sub(x, mean)
    return out


@pl.jit
def row_argmax_kernel(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.row_argmax(x)
    return out


# ------------------------------------------------------------------------------------------------ normalisation


@pl.jit
def softmax_rows(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mx = pl.row_max(a)
        e = pl.exp(pl.row_expand_sub(a, mx))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def softmax_tiles(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    # the tutorial's tile-level softmax: scratch tiles for the reductions
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [64, 64])
        max_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_max: pl.Tile[[64, 1], pl.FP32] = pl.row_max(tile_a, max_tmp)
        exp_shifted = pl.row_expand_expdif(tile_a, row_max)
        sum_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_sum: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(exp_shifted, sum_tmp)
        pl.store(pl.row_expand_div(exp_shifted, row_sum), [0, 0], out)
    return out


@pl.jit
def softmax_fp16(a: pl.Tensor[[32, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        w = pl.cast(a, target_type=pl.FP32)
        e = pl.exp(pl.row_expand_sub(w, pl.row_max(w)))
        out[:] = pl.cast(pl.row_expand_div(e, pl.row_sum(e)), target_type=pl.FP16)
    return out


@pl.jit
def layer_norm(x: pl.Tensor[[64, HID], pl.FP32], gamma: pl.Tensor[[1, HID], pl.FP32],
               beta: pl.Tensor[[1, HID], pl.FP32], out: pl.Out[pl.Tensor[[64, HID], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mean = pl.muls(pl.row_sum(x), 1.0 / HID)
        centred = pl.row_expand_sub(x, mean)
        var = pl.muls(pl.row_sum(pl.mul(centred, centred)), 1.0 / HID)
        normed = pl.row_expand_mul(centred, pl.rsqrt(pl.adds(var, EPS)))
        out[:] = pl.col_expand_add(pl.col_expand_mul(normed, gamma), beta)
    return out


@pl.jit
def rms_norm_bf16(x: pl.Tensor[[32, HID], pl.BF16], gamma: pl.Tensor[[1, HID], pl.FP32],
                  out: pl.Out[pl.Tensor[[32, HID], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        w = pl.cast(x, target_type=pl.FP32)
        ms = pl.muls(pl.row_sum(pl.mul(w, w)), 1.0 / HID)
        y = pl.col_expand_mul(pl.row_expand_div(w, pl.sqrt(pl.adds(ms, EPS))), gamma)
        out[:] = pl.cast(y, target_type=pl.BF16)
    return out


@pl.jit
def rms_norm_blocks(x: pl.Tensor[[128, HID], pl.FP32], gamma: pl.Tensor[[1, HID], pl.FP32],
                    out: pl.Out[pl.Tensor[[128, HID], pl.FP32]]):
    # row blocks at loop offsets, each normalised on its own
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(128 // 32):
            xb = x[i * 32:(i + 1) * 32, :]
            inv = pl.rsqrt(pl.adds(pl.muls(pl.row_sum(pl.mul(xb, xb)), 1.0 / HID), EPS))
            out[i * 32:(i + 1) * 32, :] = pl.col_expand_mul(pl.row_expand_mul(xb, inv), gamma)
    return out


# ------------------------------------------------------------------------------------------------ activations


@pl.jit
def gelu_sigmoid(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    # x * sigmoid(1.702 x)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.div(x, pl.adds(pl.exp(pl.muls(x, -1.702)), 1.0))
    return out


@pl.jit
def gelu_tanh(x: pl.Tensor[[32, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
    # 0.5 x (1 + tanh(u)), tanh(u) = 1 - 2 / (exp(2u) + 1), u = 0.79788456 (x + 0.044715 x^3)
    with pl.at(level=pl.Level.CORE_GROUP):
        x3 = pl.mul(pl.mul(x, x), x)
        u = pl.muls(pl.add(x, pl.muls(x3, 0.044715)), 0.7978845608)
        th = pl.sub(pl.full([32, 128], dtype=pl.FP32, value=1.0), pl.div(pl.full([32, 128], dtype=pl.FP32, value=2.0),
                                                                          pl.adds(pl.exp(pl.muls(u, 2.0)), 1.0)))
        out[:] = pl.mul(pl.muls(x, 0.5), pl.adds(th, 1.0))
    return out


@pl.jit
def silu_fp16(x: pl.Tensor[[32, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        w = pl.cast(x, target_type=pl.FP32)
        out[:] = pl.cast(pl.div(w, pl.adds(pl.exp(pl.neg(w)), 1.0)), target_type=pl.FP16)
    return out


# ------------------------------------------------------------------------------------------------ matmul


@pl.jit
def matmul_fp16(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="matmul"):
        c[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return c


@pl.jit
def matmul_bias_relu(a: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 128], pl.FP16],
                     bias: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.matmul(a, w, out_dtype=pl.FP32)
        out[:] = pl.relu(pl.col_expand_add(y, bias))
    return out


@pl.jit
def matmul_bf16_gelu(a: pl.Tensor[[32, 64], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16],
                     out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.matmul(a, w, out_dtype=pl.FP32)
        out[:] = pl.div(y, pl.adds(pl.exp(pl.muls(y, -1.702)), 1.0))
    return out


@pl.jit
def matmul_k_blocked(a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
                     c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k_blocked"):
        acc = pl.matmul(a[:, 0:KB], b[0:KB, :], out_dtype=pl.FP32)
        for k in pl.range(1, 256 // KB):
            k0 = k * KB
            acc = pl.matmul_acc(acc, a[:, k0:k0 + KB], b[k0:k0 + KB, :])
        c[:] = acc
    return c


@pl.jit
def matmul_b_trans(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[48, 64], pl.FP16],
                   c: pl.Out[pl.Tensor[[32, 48], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.mul(pl.matmul(a, b, b_trans=True, out_dtype=pl.FP32), SCALE)
    return c


@pl.jit
def matmul_row_blocks(a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                      c: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    # output row blocks at loop offsets
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(128 // 32):
            c[i * 32:(i + 1) * 32, :] = pl.matmul(a[i * 32:(i + 1) * 32, :], b, out_dtype=pl.FP32)
    return c


@pl.jit
def split_k_atomic(a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16],
                   c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_init"):
        c[:] = pl.full([32, 32], dtype=pl.FP32, value=0.0)
    for ks in pl.parallel(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_k"):
            k0 = ks * 64
            partial = pl.matmul(a[:, k0:k0 + 64], b[k0:k0 + 64, :], out_dtype=pl.FP32)
            c = pl.assemble(c, partial, [0, 0], atomic=pl.AtomicType.Add)
    return c


@pl.jit
def flash_online_softmax(q: pl.Tensor[[32, 64], pl.FP16], k: pl.Tensor[[128, 64], pl.FP16],
                         v: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.full([32, 1], dtype=pl.FP32, value=-1e30)
        l = pl.full([32, 1], dtype=pl.FP32, value=0.0)
        o = pl.full([32, 64], dtype=pl.FP32, value=0.0)
        for j in pl.range(128 // 32):
            s = pl.mul(pl.matmul(q, k[j * 32:(j + 1) * 32, :], b_trans=True, out_dtype=pl.FP32), SCALE)
            m_new = pl.maximum(m, pl.row_max(s))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, target_type=pl.FP16), v[j * 32:(j + 1) * 32, :], out_dtype=pl.FP32)
            o = pl.add(pl.row_expand_mul(o, alpha), pv)
            m = m_new
        out[:] = pl.row_expand_div(o, l)
    return out


# ------------------------------------------------------------------------------------------------ loops and ifs


@pl.jit
def carried_column_sum(x: pl.Tensor[[16, 256], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # acc += x[:, 64 j : 64 (j + 1)] ** 2
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for j in pl.range(4):
            xj = x[:, j * 64:(j + 1) * 64]
            acc = pl.add(acc, pl.mul(xj, xj))
        out[:] = acc
    return out


@pl.jit
def carried_running_max(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        best = x[0:16, :]
        for i in pl.range(1, 128 // 16):
            best = pl.maximum(best, x[i * 16:(i + 1) * 16, :])
        out[:] = best
    return out


@pl.jit
def loop_step_windows(x: pl.Tensor[[96, 64], pl.FP32], out: pl.Out[pl.Tensor[[96, 64], pl.FP32]]):
    # a stepped range: every other 16-row block is doubled, the others negated
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(0, 96, 32):
            out[r:r + 16, :] = pl.muls(x[r:r + 16, :], 2.0)
            out[r + 16:r + 32, :] = pl.neg(x[r + 16:r + 32, :])
    return out


@pl.jit
def nested_tiles(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    # 2-D grid of 16 x 64 windows; each scaled by (i + 1) * (j + 2)
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            for j in pl.range(2):
                w = x[i * 16:(i + 1) * 16, j * 64:(j + 1) * 64]
                out[i * 16:(i + 1) * 16, j * 64:(j + 1) * 64] = pl.muls(w, (i + 1) * (j + 2))
    return out


@pl.jit
def if_on_flag(x: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        if flag > 0:
            y = pl.exp(x)
        else:
            y = pl.neg(x)
        out[:] = pl.adds(y, 1.0)
    return out


@pl.jit
def if_in_loop(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    # blocks with an even index are squared, odd ones halved
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            xb = x[i * 16:(i + 1) * 16, :]
            if i % 2 == 0:
                out[i * 16:(i + 1) * 16, :] = pl.mul(xb, xb)
            else:
                out[i * 16:(i + 1) * 16, :] = pl.muls(xb, 0.5)
    return out


@pl.jit
def if_yield_carried(x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    # acc starts at block 0 in the first iteration, later blocks add their exp
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            xb = x[i * 16:(i + 1) * 16, :]
            if i == 0:
                nxt = pl.yield_(xb)
            else:
                nxt = pl.yield_(pl.add(acc, pl.exp(xb)))
            acc = nxt
        out[:] = acc
    return out


@pl.jit
def scalar_trip_count(x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # the sum of the first n row blocks (n given at run time)
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(n):
            acc = pl.add(acc, x[i * 16:(i + 1) * 16, :])
        out[:] = acc
    return out


@pl.jit
def scalar_fp_params(x: pl.Tensor[[16, 64], pl.FP32], alpha: pl.Scalar[pl.FP32], beta: pl.Scalar[pl.FP32],
                     out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(pl.muls(x, alpha), beta)
    return out


@pl.jit
def scalar_offset_window(x: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
                         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [row, 0], [16, 64])
        pl.store(pl.exp(t), [0, 0], out)
    return out


# ------------------------------------------------------------------------------------------------ windows, assemble


@pl.jit
def assemble_transposed_blocks(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    # swap the two column halves through pl.assemble at computed offsets
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(2):
            blk = pl.adds(x[:, j * 32:(j + 1) * 32], 1.0)
            out = pl.assemble(out, blk, [0, (1 - j) * 32])
    return out


@pl.jit
def concat_cols(a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.concat(pl.exp(a), pl.neg(b))
    return out


@pl.jit
def transpose_kernel(a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.muls(pl.transpose(a, 0, 1), 3.0)
    return out


@pl.jit
def two_scopes_workspace(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    # the first scope writes an intermediate GM tensor, the second reads it
    tmp = pl.create_tensor([32, 64], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        tmp[:] = pl.exp(x)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        out[:] = pl.row_expand_div(tmp, pl.row_sum(tmp))
    return out


# ------------------------------------------------------------------------------------------------ partial tiles


@pl.jit
def partial_row_max(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                    out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[16, n])
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        pl.store(pl.row_max(p), [0, 0], out)
    return out


@pl.jit
def partial_static_sum(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 40])
        p = pl.fillpad(t, pl.PadValue.zero)
        pl.store(pl.row_sum(p), [0, 0], out)
    return out


@pl.jit
def partial_block_softmax(x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    # row blocks of BLOCK rows, the last one partial; each row's softmax is independent of the padding rows
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.tensor.dim(x, 0)
        for i in pl.range(0, (m + BLOCK - 1) // BLOCK):
            rows = pl.min(m - i * BLOCK, BLOCK)
            t = pl.load(x, [i * BLOCK, 0], [BLOCK, 64], valid_shapes=[rows, 64])
            e = pl.exp(pl.row_expand_sub(t, pl.row_max(pl.fillpad(t, pl.PadValue.min))))
            total = pl.row_sum(pl.fillpad(e, pl.PadValue.zero))
            pl.store(pl.row_expand_div(e, total), [i * BLOCK, 0], out)
    return out


# ------------------------------------------------------------------------------------------------ dynamic extents


@pl.jit
def dyn_rows_axpy(x: pl.Tensor[[M, 64], pl.FP32], y: pl.Tensor[[M, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.muls(x, 0.75), y)
    return out


@pl.jit
def dyn_cols_windows(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(pl.tensor.dim(x, 1) // 32):
            out[:, j * 32:(j + 1) * 32] = pl.sqrt(pl.abs(x[:, j * 32:(j + 1) * 32]))
    return out


@pl.jit
def dyn_rows_softmax(x: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(pl.row_expand_sub(x, pl.row_max(x)))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def dyn_matmul_k(a: pl.Tensor[[32, pl.dynamic("K")], pl.FP16], b: pl.Tensor[[pl.dynamic("K"), 32], pl.FP16],
                 c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:KB], b[0:KB, :], out_dtype=pl.FP32)
        for k in pl.range(1, pl.tensor.dim(a, 1) // KB):
            acc = pl.matmul_acc(acc, a[:, k * KB:(k + 1) * KB], b[k * KB:(k + 1) * KB, :])
        c[:] = acc
    return c


# ------------------------------------------------------------------------------------------------ multiple outputs


@pl.jit
def two_outputs(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
                s: pl.Out[pl.Tensor[[32, 64], pl.FP32]], p: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s[:] = pl.add(a, b)
        p[:] = pl.mul(a, b)
    return s, p


@pl.jit
def stats_and_normalised(x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
                         mean: pl.Out[pl.Tensor[[32, 1], pl.FP32]], amax: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mu = pl.muls(pl.row_sum(x), 1.0 / 64)
        c = pl.row_expand_sub(x, mu)
        am = pl.row_max(pl.abs(c))
        mean[:] = mu
        amax[:] = am
        y[:] = pl.row_expand_div(c, pl.adds(am, 1e-3))
    return y, mean, amax


@pl.jit
def inout_accumulate(x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc[:] = pl.add(acc, pl.mul(x, x))
    return acc


# ------------------------------------------------------------------------------------------------ helpers


@pl.jit.inline
def _sigmoid(t):
    return pl.recip(pl.adds(pl.exp(pl.neg(t)), 1.0))


@pl.jit
def inline_swiglu(g: pl.Tensor[[32, 64], pl.FP32], u: pl.Tensor[[32, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(pl.mul(g, _sigmoid(g)), u)
    return out


@pl.jit.incore
def _scale_rows(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [32, 64])
    pl.store(pl.row_expand_mul(t, pl.row_max(t)), [0, 0], out)
    return out


@pl.jit
def incore_call(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    out = _scale_rows(x, out)
    return out


@pl.jit
def matmul_result_windows(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                          rows: pl.Out[pl.Tensor[[16, 64], pl.FP32]], cols: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
                          inner: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    # windows of an accumulator the NZ layout can address: any row offset, a column offset on a 16-column
    # block, or a window inside the 16-column block it starts in
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.matmul(a, b, out_dtype=pl.FP32)
        rows[:] = y[8:24, :]
        cols[:] = pl.exp(pl.muls(y[:, 16:48], 0.125))
        inner[:] = y[3:4, 36:44]
    return rows, cols, inner
