"""jit kernels for tests/jit/test_call_boundary.py (a real module: @pl.jit reads sources)."""

import tilefold.language as pl

M = pl.dynamic("M")
ROWS = 16


@pl.jit
def axpy(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], alpha: pl.Scalar[pl.FP32],
         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(x, alpha), y)
    return out


@pl.jit
def first_blocks(x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    # the trip count n is a run-time scalar: n blocks of 16 rows are written, the rest of out keeps its values
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(n):
            out[i * ROWS : i * ROWS + ROWS, :] = pl.exp(x[i * ROWS : i * ROWS + ROWS, :])
    return out


@pl.jit
def rows_dynamic(x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(x, 2.0)
    return out


@pl.jit
def bare_exp(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out


@pl.jit
def halves(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0:16, :] = a
        out[16:32, :] = pl.exp(a)
    return out


@pl.jit
def window_at(x: pl.Tensor[[64, 64], pl.FP32], off: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(x[off : off + 16, :])
    return out


@pl.jit
def gelu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x3 = pl.mul(pl.mul(x, x), x)
        inner = pl.mul(pl.add(x, pl.mul(x3, 0.044715)), 0.7978845608)
        t = pl.sub(pl.mul(pl.recip(pl.add(pl.exp(pl.mul(inner, -2.0)), 1.0)), 2.0), 1.0)
        out[:] = pl.mul(pl.mul(x, 0.5), pl.add(t, 1.0))
    return out


@pl.jit
def col_sums(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.col_sum(pl.exp(x))
    return out


@pl.jit
def big_rhs(a: pl.Tensor[[64, 1024], pl.FP16], b: pl.Tensor[[1024, 512], pl.FP16],
            out: pl.Out[pl.Tensor[[64, 512], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return out
