"""Fused linear layer (PyPTO's fused_linear example): relu(x @ w + bias) in one scope, the matmul on the cube and
the bias-add + relu epilogue on the vector units. Run: python examples/jit/fused_linear.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

M, K, N = 64, 128, 128


@pl.jit
def fused_linear(x: pl.Tensor[[M, K], pl.FP16], w: pl.Tensor[[K, N], pl.FP16], bias: pl.Tensor[[1, N], pl.FP32],
                 out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        out[:] = pl.relu(pl.col_expand_add(acc, bias))
    return out


def main() -> None:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((M, K)) * 0.5).astype(np.float16)
    w = (rng.standard_normal((K, N)) * 0.1).astype(np.float16)
    bias = (rng.standard_normal((1, N)) * 0.1).astype(np.float32)
    out = np.zeros((M, N), np.float32)
    fused_linear(x, w, bias, out, config=RunConfig(platform="a2a3sim"))
    ref = np.maximum(x.astype(np.float32) @ w.astype(np.float32) + bias, 0)
    np.testing.assert_allclose(out, ref, rtol=1e-2, atol=1e-2)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias)
        tout = torch.zeros(M, N)
        fused_linear(tx, tw, tb, tout)
        torch.testing.assert_close(tout, torch.relu(tx.float() @ tw.float() + tb), rtol=1e-2, atol=1e-2)
    print("fused_linear: relu(x @ w + b) matches numpy")


if __name__ == "__main__":
    main()
