"""jit kernels that add into GM: pl.assemble(..., atomic=pl.AtomicType.Add) (PyPTO's split-K) and
pl.store(..., atomic=...); a real module: @pl.jit reads sources."""

import tilefold.language as pl

M, N, K = 32, 64, 256
SPLITS = 4
KS = K // SPLITS


@pl.jit
def split_k(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32], c: pl.InOut[pl.Tensor[[M, N], pl.FP32]]):
    """c += a @ b, each split of K accumulating its partial product into c with an atomic add."""
    for ks in pl.range(SPLITS):  # PyPTO writes pl.parallel; the orchestration unrolls pl.range here
        with pl.at(level=pl.Level.CORE_GROUP):
            partial = pl.matmul(a[:, ks * KS:(ks + 1) * KS], b[ks * KS:(ks + 1) * KS, :], out_dtype=pl.FP32)
            c = pl.assemble(c, partial, [0, 0], atomic=pl.AtomicType.Add)
    return c


@pl.jit
def add_into(x: pl.Tensor[[16, 64], pl.INT32], out: pl.InOut[pl.Tensor[[16, 64], pl.INT32]]):
    """out += x twice (two atomic stores of one tile, the second one a window of the first rows)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64])
        pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
        h = pl.load(x, [0, 0], [8, 64])
        pl.store(h, [8, 0], out, atomic=pl.AtomicType.Add)
    return out
