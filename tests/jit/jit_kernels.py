"""jit kernels used by the tests (a real module: @pl.jit reads function sources from their file)."""

import tilefold.language as pl

ROWS, COLS = 64, 128
HALF = COLS // 2
M_DYN = pl.dynamic("M")


@pl.jit
def add_tensor(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, b)
    return out


@pl.jit
def chain(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(a, b)
        d = pl.sub(s, b)
        m = pl.mul(d, a)
        q = pl.div(m, pl.adds(b, 2.0))
        hi = pl.maximum(q, a)
        out[:] = pl.minimum(hi, pl.muls(a, 3.0))
    return out


@pl.jit
def unary(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(pl.neg(a))
        r = pl.sqrt(pl.abs(a))
        out[:] = pl.add(pl.relu(pl.sub(e, 0.5)), pl.recip(pl.adds(r, 1.0)))
    return out


@pl.jit
def scalar_forms(a: pl.Tensor, s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.mul(a, s)
        y = pl.sub(x, 1.0)
        z = pl.div(y, 4.0)
        out[:] = pl.maximum(z, 0.0)
    return out


@pl.jit
def softmax_tensor(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mx = pl.row_max(a)
        e = pl.exp(pl.row_expand_sub(a, mx))
        out[:] = pl.row_expand_div(e, pl.row_sum(e))
    return out


@pl.jit
def col_scale(a: pl.Tensor, g: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_expand_mul(a, g)
    return out


@pl.jit
def col_reduce(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_sum(a)
    return out


@pl.jit
def matmul_tensor(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b)
    return out


@pl.jit
def cast_tensor(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cast(pl.muls(a, 2.0), target_type=pl.FP16)
    return out


@pl.jit
def halves(a: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = a[:, 0:HALF]
        right = a[:, HALF:COLS]
        out[:, 0:HALF] = pl.add(left, right)
        out[:, HALF:COLS] = pl.sub(left, right)
    return out


@pl.jit
def concat_tensor(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.concat(a, b)
    return out


@pl.jit
def tile_level(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            ta = pl.load(a, [i * 32, 0], [32, 128])
            tb = pl.load(b, [i * 32, 0], [32, 128])
            tmp = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            mx = pl.row_max(ta, tmp)
            t = pl.row_expand_sub(pl.add(ta, tb), mx)
            pl.store(pl.mul(t, 2.0), [i * 32, 0], out)
    return out


@pl.jit.incore
def add_kernel(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = pl.add(a, b)
    return out


@pl.jit.inline
def scaled(x, factor):
    y = pl.mul(x, factor)
    return pl.adds(y, 1.0)


@pl.jit
def with_incore(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    return add_kernel(a, b, out)


@pl.jit
def with_inline(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        rows = a[0:pl.tensor.dim(a, 0), 0:pl.dim(a, 1)]
        out[:] = scaled(rows, 2.0)
    return out


@pl.jit
def two_scopes(a: pl.Tensor, tmp: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tmp[:] = pl.muls(a, 3.0)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(tmp, a)
    return out


@pl.jit
def dynamic_rows(a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.Out[pl.Tensor[[M_DYN, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out


@pl.jit
def inout_acc(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc[:] = pl.add(acc, a)
    return acc


def make_closure_kernel(n):
    cols = n

    @pl.jit
    def closure_kernel(a: pl.Tensor[[16, cols], pl.FP32], out: pl.Out[pl.Tensor[[16, cols], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.muls(a, 0.5)
        return out

    return closure_kernel


@pl.jit
def tile_dispatch(a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [32, 64])
        u = pl.add(t, t)
        v = pl.mul(u, 0.5)
        w = pl.maximum(pl.exp(v), pl.sub(v, 1.0))
        s = pl.row_sum(w)
        pl.store(pl.row_expand_div(w, s), [0, 0], out)
    return out


@pl.jit
def tile_matmul(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [32, 64], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
        pl.store(pl.matmul(ta, tb), [0, 0], out)
    return out


@pl.jit
def write_then_read(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.muls(a, 2.0)
        out[:] = pl.add(out, a)
    return out


@pl.jit
def accumulate_tiles(a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.load(a, [0, 0], [32, 64])
        for i in pl.range(1, 4):
            t = pl.load(a, [i * 32, 0], [32, 64])
            acc = pl.add(acc, t)  # carried across iterations by plain reassignment (PyPTO's loop form)
        pl.store(acc, [0, 0], out)
    return out


@pl.jit
def store_in_loop_rebinding(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t = pl.load(a, [i * 32, 0], [32, 64])
            out = pl.store(pl.exp(t), [i * 32, 0], out)
    return out


@pl.jit
def explicit_slice(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.muls(pl.slice(a, [32, 64], [16, 32]), 2.0)
    return out


@pl.jit
def accumulate(a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(a, a)
        for _i in pl.range(3):
            t = pl.add(t, a)  # a tensor carried across iterations (PyPTO's quickstart loop)
        out[:] = pl.mul(t, t)
    return out


@pl.jit
def write_in_loop(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = a
        for _i in pl.range(2):
            out[:] = pl.muls(out, 2.0)
    return out


@pl.jit.incore
def scale_rows(a: pl.Tensor, j: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor]):
    t = pl.load(a, [j * 16, 0], [16, 64])
    pl.store(pl.muls(t, 2.0), [j * 16, 0], out)
    return out


@pl.jit
def launches_in_a_loop(a: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]):
    for j in pl.range(4):
        out = scale_rows(a, j, out)
    return out
