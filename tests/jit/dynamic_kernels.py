"""jit kernels with pl.dynamic extents on any axis (windows in loops, whole element-wise regions) and pl.concat
inside loops / ifs / next to dynamic windows; a real module: @pl.jit reads sources."""

import tilefold.language as pl

S = pl.dynamic("S")  # a sequence length (the middle axis)
N = pl.dynamic("N")  # a column extent
M = pl.dynamic("M")  # a row count
P = pl.dynamic("P")  # rows of a paged KV pool (physical blocks * BLOCK)
NB = pl.dynamic("NB")  # blocks of one sequence
BLOCK = 32


@pl.jit
def seq_blocks_3d(k: pl.Tensor[[2, S, 64], pl.FP32], extra: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[2, S, 64], pl.FP32]]):
    # a dynamic middle axis: the trip count comes from pl.tensor.dim, each window is static
    with pl.at(level=pl.Level.CORE_GROUP):
        for b in pl.range(2):
            for j in pl.range(pl.tensor.dim(k, 1) // BLOCK + extra):
                out[b : b + 1, j * BLOCK : (j + 1) * BLOCK, :] = pl.exp(k[b : b + 1, j * BLOCK : (j + 1) * BLOCK, :])
    return out


@pl.jit
def column_windows(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    # a dynamic column extent walked in windows of 64 columns
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(pl.tensor.dim(x, 1) // 64):
            out[:, j * 64 : (j + 1) * 64] = pl.mul(x[:, j * 64 : (j + 1) * 64], 2.0)
    return out


@pl.jit
def whole_dynamic(x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[[M, N], pl.FP16],
                  out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    # whole tensors of dynamic rows and columns: a grid of blocks of dynamic valid shape
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.exp(x), pl.mul(pl.cast(y, target_type=pl.FP32), 3.0))
    return out


@pl.jit
def paged_attention(q: pl.Tensor[[16, 64], pl.FP16], key_cache: pl.Tensor[[P, 64], pl.FP16],
                    value_cache: pl.Tensor[[P, 64], pl.FP16], block_table: pl.Tensor[[NB], pl.INT32],
                    out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    # one query block over a sequence of NB KV blocks scattered in a pool (online softmax)
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.full([16, 1], dtype=pl.FP32, value=-1e30)
        l = pl.full([16, 1], dtype=pl.FP32, value=0.0)
        o = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for j in pl.range(pl.tensor.dim(block_table, 0)):
            phys = pl.read(block_table, [j])
            k0 = phys * BLOCK
            s = pl.matmul(q, key_cache[k0 : k0 + BLOCK, :], b_trans=True, out_dtype=pl.FP32)
            m_new = pl.maximum(m, pl.row_max(s))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, target_type=pl.FP16), value_cache[k0 : k0 + BLOCK, :], out_dtype=pl.FP32)
            o = pl.add(pl.row_expand_mul(o, alpha), pv)
            m = m_new
        out[:] = pl.row_expand_div(o, l)
    return out


@pl.jit
def concat_in_a_loop(x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[64, 16], pl.FP32],
                     out: pl.Out[pl.Tensor[[64, 80], pl.FP32]]):
    # nested concat of a computed tile and two windows, written block by block
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            r0 = i * 32
            left = pl.exp(x[r0 : r0 + 32, :])
            out[r0 : r0 + 32, :] = pl.concat(pl.concat(left, y[r0 : r0 + 32, :]), x[r0 : r0 + 32, :])
    return out


@pl.jit
def concat_in_an_if(x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
                    out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        if n > 2:
            out[:] = pl.concat(pl.neg(x), x)
        else:
            out[:] = pl.concat(x, pl.exp(x))
    return out


@pl.jit
def concat_at_dynamic_columns(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    # each 64-column window of out gets [2 * left half, right half] of the same window of x
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(pl.tensor.dim(x, 1) // 64):
            c0 = j * 64
            out[:, c0 : c0 + 64] = pl.concat(pl.mul(x[:, c0 : c0 + 32], 2.0), x[:, c0 + 32 : c0 + 64])
    return out


@pl.jit
def whole_dynamic_in_a_loop(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for _i in pl.range(2):
            out[:] = pl.exp(x)
    return out


@pl.jit
def softmax_of_dynamic_columns(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    # a row reduction feeding compute needs the whole row: refused (write the block loop)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.row_expand_div(x, pl.row_sum(x))
    return out


@pl.jit
def concat_fed_to_compute(x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            c = pl.concat(x[i * 32 : (i + 1) * 32, :], x[i * 32 : (i + 1) * 32, :])
            out[:] = pl.exp(c)
    return out


@pl.jit
def nested_concat_straight_line(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
                                out: pl.Out[pl.Tensor[[32, 80], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.concat(pl.concat(pl.exp(a), b), a)
    return out


@pl.jit
def concat_fed_to_compute_straight_line(a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(pl.concat(a, a))
    return out


@pl.jit
def elementwise_1d(x: pl.Tensor[[N], pl.FP32], out: pl.Out[pl.Tensor[[N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.adds(pl.exp(x), 1.0)
    return out


K = pl.dynamic("K")


@pl.jit
def matmul_dynamic_k(a: pl.Tensor[[16, K], pl.FP16], b: pl.Tensor[[K, 32], pl.FP16],
                     out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    # a dynamic reduction length walked in K blocks of 64 (PyPTO's matmul_acc loop)
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:64], b[0:64, :], out_dtype=pl.FP32)
        for kb in pl.range(1, pl.tensor.dim(a, 1) // 64):
            k0 = kb * 64
            acc = pl.matmul_acc(acc, a[:, k0 : k0 + 64], b[k0 : k0 + 64, :])
        out[:] = acc
    return out


@pl.jit
def matmul_whole_dynamic_k(a: pl.Tensor[[16, K], pl.FP16], b: pl.Tensor[[K, 32], pl.FP16],
                           out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return out


@pl.jit
def constant_window_of_dynamic_columns(x: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    # a window of static extent of a tensor with a dynamic column extent, in straight-line code (row-tiled path)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:, 0:64] = pl.exp(x[:, 0:64])
    return out


@pl.jit
def row_reductions_of_dynamic_columns(x: pl.Tensor[[M, N], pl.FP32], sums: pl.Out[pl.Tensor[[M, 1], pl.FP32]],
                                      maxes: pl.Out[pl.Tensor[[M, 1], pl.FP32]],
                                      out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    # row reductions over a dynamic width: each column block is padded with the identity, reduced and combined
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.mul(x, 2.0)
        sums[:] = pl.row_sum(pl.exp(e))
        maxes[:] = pl.row_max(e)
        out[:] = pl.neg(e)
    return sums, maxes, out
