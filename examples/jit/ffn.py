"""A feed-forward block y = relu(x W1 + b1) W2 (PyPTO's FFN example) in one pl.at scope: cube, then vector,
then cube again. On Ascend910B the hidden activation crosses from the cube to the vector unit and back through
a GM workspace (no L0C -> UB or UB -> L1 path); on Ascend950 the accumulator moves on chip.
Run: python examples/jit/ffn.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

TOKENS, HIDDEN, INNER = 64, 128, 256


@pl.jit
def ffn(x: pl.Tensor, w1: pl.Tensor, b1: pl.Tensor, w2: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ffn"):
        h = pl.matmul(x, w1, out_dtype=pl.FP32)                 # cube
        act = pl.cast(pl.relu(pl.col_expand_add(h, b1)), pl.FP16)  # vector
        y[:] = pl.matmul(act, w2, out_dtype=pl.FP32)            # cube
    return y


def main() -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((TOKENS, HIDDEN)) * 0.5).astype(np.float16)
    w1 = (rng.standard_normal((HIDDEN, INNER)) * 0.1).astype(np.float16)
    w2 = (rng.standard_normal((INNER, HIDDEN)) * 0.1).astype(np.float16)
    b1 = (rng.standard_normal((1, INNER)) * 0.1).astype(np.float32)
    hidden = np.maximum(x.astype(np.float32) @ w1.astype(np.float32) + b1, 0).astype(np.float16)
    ref = hidden.astype(np.float32) @ w2.astype(np.float32)
    for platform in ("a2a3sim", "a5sim"):
        y = np.zeros((TOKENS, HIDDEN), np.float32)
        ffn(x, w1, b1, w2, y, config=RunConfig(platform=platform))
        np.testing.assert_allclose(y, ref, rtol=1e-2, atol=1e-2)
    print("ffn matches numpy on Ascend910B and Ascend950")


if __name__ == "__main__":
    main()
