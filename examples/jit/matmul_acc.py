"""K-blocked matmul with an accumulator (PyPTO's matmul_acc example): the first K block creates the accumulator with
pl.matmul, the others add into it with pl.matmul_acc; the accumulator stays on chip and only the final result is
written. Run: python examples/jit/matmul_acc.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

M, K, N = 128, 512, 128
K_CHUNK = 128


@pl.jit
def matmul_k_blocked(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
                     c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:K_CHUNK], b[0:K_CHUNK, :], out_dtype=pl.FP32)
        for k in pl.range(1, K // K_CHUNK):
            k0 = k * K_CHUNK
            acc = pl.matmul_acc(acc, a[:, k0:k0 + K_CHUNK], b[k0:k0 + K_CHUNK, :])
        c[:] = acc
    return c


def main() -> None:
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((M, K)) * 0.3).astype(np.float16)
    b = (rng.standard_normal((K, N)) * 0.3).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    matmul_k_blocked(a, b, c, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        tc = torch.zeros(M, N)
        matmul_k_blocked(ta, tb, tc)
        torch.testing.assert_close(tc, ta.float() @ tb.float(), rtol=1e-2, atol=1e-2)
    print("matmul_acc: the K-blocked product matches numpy")


if __name__ == "__main__":
    main()
