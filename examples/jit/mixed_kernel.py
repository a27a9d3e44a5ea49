"""A mixed kernel (PyPTO's mixed_kernel example): a @ b + bias in one scope marked split, the cube doing the matmul
and the two vector sub-blocks the add, each on half of the rows (UP_DOWN) or columns (LEFT_RIGHT).
Run: python examples/jit/mixed_kernel.py [--mode left_right]"""

import sys

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

M, K, N = 128, 256, 128


@pl.jit
def mixed(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[M, N], pl.FP32],
          out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="mixed"):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)  # cube (AIC)
        out[:] = pl.add(acc, bias)  # vector (AIV)
    return out


@pl.jit
def mixed_left_right(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
                     bias: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)], name_hint="mixed"):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)
        out[:] = pl.add(acc, bias)
    return out


def main() -> None:
    kernel = mixed_left_right if "--mode" in sys.argv and "left_right" in sys.argv else mixed
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((M, N), np.float32)
    kernel(a, b, bias, out, config=RunConfig(platform="a2a3sim"))
    ref = a.astype(np.float32) @ b.astype(np.float32) + bias
    np.testing.assert_allclose(out, ref, rtol=1e-2, atol=1e-2)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        ta, tb, tbias = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(bias)
        tout = torch.zeros(M, N)
        kernel(ta, tb, tbias, tout)
        assert torch.allclose(tout, ta.float() @ tb.float() + tbias, rtol=1e-2, atol=1e-2)
    print("mixed_kernel: a @ b + bias matches numpy")


if __name__ == "__main__":
    main()
