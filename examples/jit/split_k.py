"""Split-K (PyPTO's split_k example): each of SPLITS scopes multiplies its own slice of K and adds its partial
product into the whole output with an atomic assemble; the output is zeroed first (an atomic add has no first
writer). Run: python examples/jit/split_k.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

M, K, N, SPLITS = 64, 512, 64, 4
KS = K // SPLITS


@pl.jit
def split_k(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.full([M, N], dtype=pl.FP32, value=0.0)
    for ks in pl.parallel(SPLITS):
        with pl.at(level=pl.Level.CORE_GROUP):
            k0 = ks * KS
            partial = pl.matmul(a[:, k0:k0 + KS], b[k0:k0 + KS, :], out_dtype=pl.FP32)
            c = pl.assemble(c, partial, [0, 0], atomic=pl.AtomicType.Add)
    return c


def main() -> None:
    rng = np.random.default_rng(13)
    a = (rng.standard_normal((M, K)) * 0.2).astype(np.float16)
    b = (rng.standard_normal((K, N)) * 0.2).astype(np.float16)
    c = np.full((M, N), 5.0, np.float32)  # garbage: the kernel zeroes it first
    split_k(a, b, c, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)
    print("split_k: the atomically accumulated product matches numpy")


if __name__ == "__main__":
    main()
