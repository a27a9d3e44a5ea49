"""A feed-forward block y = relu(x W1 + b1) W2 (PyPTO's FFN example): two cube kernels and a vector epilogue,
chained through GM tensors by the orchestration. Run: python examples/jit/ffn.py"""

import numpy as np

import tilefold.language as pl

TOKENS, HIDDEN, INNER = 64, 128, 256


@pl.jit
def ffn(x: pl.Tensor, w1: pl.Tensor, b1: pl.Tensor, w2: pl.Tensor, h: pl.Out[pl.Tensor],
        act: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        h[:] = pl.matmul(x, w1)
    with pl.at(level=pl.Level.CORE_GROUP):
        act[:] = pl.cast(pl.relu(pl.col_expand_add(h, b1)), target_type=pl.FP16)
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.matmul(act, w2)
    return y


def main() -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((TOKENS, HIDDEN)) * 0.5).astype(np.float16)
    w1 = (rng.standard_normal((HIDDEN, INNER)) * 0.1).astype(np.float16)
    w2 = (rng.standard_normal((INNER, HIDDEN)) * 0.1).astype(np.float16)
    b1 = (rng.standard_normal((1, INNER)) * 0.1).astype(np.float32)
    h = np.zeros((TOKENS, INNER), np.float32)
    act = np.zeros((TOKENS, INNER), np.float16)
    y = np.zeros((TOKENS, HIDDEN), np.float32)
    ffn(x, w1, b1, w2, h, act, y)
    hidden = np.maximum(x.astype(np.float32) @ w1.astype(np.float32) + b1, 0).astype(np.float16)
    ref = hidden.astype(np.float32) @ w2.astype(np.float32)
    np.testing.assert_allclose(y, ref, rtol=1e-2, atol=1e-2)
    print("ffn matches numpy")


if __name__ == "__main__":
    main()
