"""jit kernels with tensor-level code in loops and ifs, at loop-variable offsets (tests/jit/test_jit_loops.py)."""

import tilefold.language as pl

K_CHUNK = 128
ROWS = 64


@pl.jit
def matmul_k_blocked(a: pl.Tensor[[128, 512], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16],
                     c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:K_CHUNK], b[0:K_CHUNK, :], out_dtype=pl.FP32)
        for k in pl.range(1, 512 // K_CHUNK):
            k0 = k * K_CHUNK
            acc = pl.matmul_acc(acc, a[:, k0 : k0 + K_CHUNK], b[k0 : k0 + K_CHUNK, :])
        c[:] = acc
    return c


@pl.jit
def row_blocks_slice_assemble(x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            t = pl.slice(x, [ROWS, 64], [i * ROWS, 0])
            y = pl.add(pl.exp(t), 1.0)
            out = pl.assemble(out, y, [i * ROWS, 0])
    return out


@pl.jit
def row_blocks_subscripts(x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.parallel(0, 256, ROWS):
            out[i : i + ROWS, :] = pl.mul(x[i : i + ROWS, :], 2.0)
    return out


@pl.jit
def column_window_strided(x: pl.Tensor[[32, 256], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
    # two column windows per step: x[:, 2j*32 ...] and x[:, (2j+1)*32 ...], summed into out[:, j*32 ...]
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(4):
            c0 = 2 * j * 32
            s = pl.add(x[:, c0 : c0 + 32], x[:, c0 + 32 : c0 + 64])
            out[:, j * 32 : j * 32 + 32] = s
    return out


@pl.jit
def carried_block_sum(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(8):
            acc = pl.add(acc, x[i * 16 : i * 16 + 16, :])
        out[:] = acc
    return out


@pl.jit
def nested_loops(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            for j in pl.range(4):
                r0 = i * 32
                c0 = j * 32
                t = pl.slice(x, [32, 32], [r0, c0])
                out = pl.assemble(out, pl.add(t, pl.mul(t, t)), [r0, c0])
    return out


@pl.jit
def if_in_loop_running_max(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        first = x[0:32, :]
        for i, (prev,) in pl.range(4, init_values=(first,)):
            blk = x[i * 32 : i * 32 + 32, :]
            if i == 0:
                cur = pl.yield_(blk)
            else:
                cur = pl.yield_(pl.maximum(prev, blk))
            nxt = pl.yield_(cur)
        out[:] = nxt
    return out


@pl.jit
def if_on_scalar(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.exp(a)
        if n > 0:
            u = pl.neg(t)
            t2 = pl.yield_(u)
        else:
            t2 = pl.yield_(t)
        out[:] = t2
    return out


@pl.jit
def scalar_offset(x: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(x[row : row + 16, :], 1.0)
    return out


@pl.jit
def orchestration_parallel(x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
    for ks in pl.parallel(4):
        with pl.at(level=pl.Level.CORE_GROUP):
            k0 = ks * 64
            out = pl.assemble(out, pl.exp(x[k0 : k0 + 64, :]), [k0, 0])
    return out


@pl.jit
def zero_init(c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.full([64, 64], dtype=pl.FP32, value=0.0)
    return c


@pl.jit
def fill_large(c: pl.Out[pl.Tensor[[1024, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.full([1024, 256], dtype=pl.FP32, value=1.5)
    return c


BLOCK = 32


@pl.jit
def online_softmax_attention(q: pl.Tensor[[16, 64], pl.FP16], kt: pl.Tensor[[64, 128], pl.FP16],
                             v: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # flash attention's loop-carried state: running row max m, running row sum l, unnormalised output o
    with pl.at(level=pl.Level.CORE_GROUP):
        s0 = pl.matmul(q, kt[:, 0:BLOCK], out_dtype=pl.FP32)
        m = pl.row_max(s0)
        p = pl.exp(pl.row_expand_sub(s0, m))
        l = pl.row_sum(p)
        o = pl.matmul(pl.cast(p, target_type=pl.FP16), v[0:BLOCK, :], out_dtype=pl.FP32)
        for j in pl.range(1, 128 // BLOCK):
            c0 = j * BLOCK
            s = pl.matmul(q, kt[:, c0 : c0 + BLOCK], out_dtype=pl.FP32)
            m_new = pl.maximum(m, pl.row_max(s))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, target_type=pl.FP16), v[c0 : c0 + BLOCK, :], out_dtype=pl.FP32)
            o = pl.add(pl.row_expand_mul(o, alpha), pv)
            m = m_new
        out[:] = pl.row_expand_div(o, l)
    return out


@pl.jit
def col_reductions_large(a: pl.Tensor[[2048, 128], pl.FP32], e: pl.Out[pl.Tensor[[2048, 128], pl.FP32]],
                         s: pl.Out[pl.Tensor[[1, 128], pl.FP32]], mx: pl.Out[pl.Tensor[[1, 128], pl.FP32]],
                         mn: pl.Out[pl.Tensor[[2, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.mul(a, 0.5)
        e[:] = pl.exp(t)
        s[:] = pl.col_sum(pl.exp(t))
        mx[:] = pl.col_max(a)
        mn[1:2, :] = pl.col_min(a)
    return e, s, mx, mn


N_DYN = pl.dynamic("N_DYN")


@pl.jit
def col_sum_dynamic_rows(a: pl.Tensor[[N_DYN, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_sum(a)
    return out


@pl.jit
def if_param_or_computed(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # one branch yields the parameter itself, the other a computed value: the merge is a tile
    with pl.at(level=pl.Level.CORE_GROUP):
        if n == 1:
            t = pl.yield_(a)
        else:
            t = pl.yield_(pl.add(a, 10.0))
        out[:] = pl.mul(t, 2.0)
    return out


@pl.jit
def swap_halves_large(x: pl.Tensor[[4096, 128], pl.FP32], out: pl.Out[pl.Tensor[[4096, 128], pl.FP32]]):
    # windows and writes at row offsets of tensors 2 MiB large (Vec is 192 KiB): tiled over row blocks
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0:2048, :] = pl.exp(x[2048:4096, :])
        out[2048:4096, :] = pl.neg(x[0:2048, :])
    return out


@pl.jit
def window_of_large_to_small(x: pl.Tensor[[4096, 128], pl.FP32], out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(x[1000:2024, :], x[3072:4096, :])
    return out


@pl.jit
def paged_gather(pool: pl.Tensor[[512, 64], pl.FP32], table: pl.Tensor[[4], pl.INT32],
                 out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    # paged attention's block table: the window's offset is an element read, bounded only at run time
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            page = pl.read(table, [i])
            p0 = page * 32
            out[i * 32 : i * 32 + 32, :] = pl.mul(pool[p0 : p0 + 32, :], 3.0)
    return out


@pl.jit
def carried_from_parameter(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = x
        for _ in pl.range(3):
            t = pl.add(pl.mul(t, 0.5), x)
        out[:] = t
    return out


@pl.jit
def if_rebinds_like_python(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    # no pl.yield_: a name bound before the if and rebound in a branch holds that branch's value after it
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([32, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            t = x[i * 32 : i * 32 + 32, :]
            if i % 2 == 0:
                out[i * 32 : i * 32 + 32, :] = pl.exp(t)
                acc = pl.add(acc, t)
            else:
                if i == 3:
                    acc = pl.maximum(acc, t)
                out[i * 32 : i * 32 + 32, :] = pl.neg(t)
        out[0:32, :] = acc
    return out


@pl.jit
def scalar_between_tensor_ops(x: pl.Tensor[[64, 64], pl.FP32], sc: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX],
                              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.exp(x)
        s = pl.read(sc, [n])
        out[:] = pl.mul(y, s)
    return out


@pl.jit
def flash_attention_full_init(q: pl.Tensor[[16, 64], pl.FP16], kt: pl.Tensor[[64, 128], pl.FP16],
                              v: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # the state starts from pl.full; the first block takes the row max as it is (an if in the loop)
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.full([16, 1], dtype=pl.FP32, value=-1e30)
        l = pl.full([16, 1], dtype=pl.FP32, value=0.0)
        o = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for j in pl.range(128 // BLOCK):
            c0 = j * BLOCK
            s = pl.matmul(q, kt[:, c0 : c0 + BLOCK], out_dtype=pl.FP32)
            cur = pl.row_max(s)
            if j == 0:
                m_new = pl.yield_(cur)
            else:
                m_new = pl.yield_(pl.maximum(m, cur))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, target_type=pl.FP16), v[c0 : c0 + BLOCK, :], out_dtype=pl.FP32)
            o = pl.add(pl.row_expand_mul(o, alpha), pv)
            m = m_new
        out[:] = pl.row_expand_div(o, l)
    return out


@pl.jit
def if_writes_a_window(x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                       out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    # the if's merged tensor crosses the scope edge as the written output
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(x)
        if n > 2:
            out[0:32, :] = pl.neg(x[0:32, :])
    return out


M_DYN = pl.dynamic("M_DYN")


@pl.jit
def dynamic_rows_block_loop(x: pl.Tensor[[M_DYN, 64], pl.FP32], extra: pl.Scalar[pl.INDEX],
                            out: pl.Out[pl.Tensor[[M_DYN, 64], pl.FP32]]):
    # a pl.dynamic row count: the trip count comes from the extent, the windows are checked at run time
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(pl.tensor.dim(x, 0) // 32 + extra):
            r0 = i * 32
            out[r0 : r0 + 32, :] = pl.exp(x[r0 : r0 + 32, :])
        out[0:16, :] = pl.neg(x[0:16, :])
    return out


@pl.jit
def matmul_acc_row_tiled(a: pl.Tensor[[512, 512], pl.FP16], b: pl.Tensor[[512, 32], pl.FP16],
                         a2: pl.Tensor[[512, 512], pl.FP16], b2: pl.Tensor[[512, 32], pl.FP16],
                         c: pl.Out[pl.Tensor[[512, 32], pl.FP32]]):
    # the lhs operands (1 MiB) exceed Mat: row blocks; both right-hand sides stay whole (b2 has M rows too)
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)
        c[:] = pl.matmul_acc(acc, a2, b2)
    return c


@pl.jit
def windows_of_a_computed_tensor(x: pl.Tensor[[64, 128], pl.FP32], halves: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                                 odd: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
    # straight-line windows of a computed value (one of them at an unaligned column)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.exp(x)
        halves[:] = pl.add(t[:, 0:64], t[:, 64:128])
        odd[:] = pl.neg(t[:, 3:19])
    return halves, odd


@pl.jit
def loop_windows_of_a_computed_tensor(x: pl.Tensor[[64, 128], pl.FP32], rows: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
                                      cols: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
    # windows of a computed value at loop offsets (rows of 16, then columns at an unaligned offset j * 3)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.exp(x)
        for i in pl.range(4):
            rows[i * 16 : i * 16 + 16, :] = pl.mul(t[i * 16 : i * 16 + 16, :], 2.0)
        for j in pl.range(1, 3):
            c0 = j * 3
            cols = pl.assemble(cols, pl.neg(t[:, c0 : c0 + 16]), [0, 0])
    return rows, cols


@pl.jit
def while_loop_accumulates(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc0 = pl.full([32, 64], dtype=pl.FP32, value=0.0)
        for (i, acc) in pl.while_(init_values=(0, acc0)):
            pl.cond(i < 4)
            blk = x[i * 32 : i * 32 + 32, :]
            i2, acc2 = pl.yield_(i + 1, pl.add(acc, blk))
        out[:] = acc2
    return out


@pl.jit
def scalar_and_tensor_carried(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    # a scalar row offset carried next to a tensor accumulator
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = x[0:32, :]
        r0 = 32
        for _ in pl.range(3):
            acc = pl.maximum(acc, x[r0 : r0 + 32, :])
            r0 = r0 + 32
        out[:] = acc
    return out


@pl.jit
def store_between_reads(x: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # a tile-level store into x between two tensor-level reads of x: the second read sees the stored data
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.exp(x)
        t = pl.load(x, [0, 0], [16, 64])
        pl.store(pl.add(t, 1.0), [0, 0], x)
        out[:] = pl.add(x, y)
    return out
