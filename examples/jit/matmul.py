"""Matrix multiply on the cube: tensor level (the compiler places operands in L1 and tiles for L0), tile level
with explicit L1 loads, and a fused linear layer (matmul, bias, ReLU). Run: python examples/jit/matmul.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

M, K, N = 64, 256, 128


@pl.jit
def matmul(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.matmul(a, b)
    return c


@pl.jit
def matmul_tile(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [K, N], target_memory=pl.MemorySpace.Mat)
        pl.store(pl.matmul(ta, tb), [0, 0], c)
    return c


@pl.jit
def linear_relu(x: pl.Tensor, w: pl.Tensor, bias: pl.Tensor, y: pl.Out[pl.Tensor]):
    """One scope: on Ascend950 the accumulator moves to UB on chip; on Ascend910B it crosses through GM."""
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.relu(pl.col_expand_add(pl.matmul(x, w), bias))
    return y


@pl.jit
def linear_relu_two_stage(x: pl.Tensor, w: pl.Tensor, bias: pl.Tensor, h: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor]):
    """The same as two scopes chained through a GM tensor the caller owns (two launches)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        h[:] = pl.matmul(x, w)
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.relu(pl.col_expand_add(h, bias))
    return y


def main() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    for kernel in (matmul, matmul_tile):
        c = np.zeros((M, N), np.float32)
        kernel(a, b, c)
        np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-2)
    bias = rng.standard_normal((1, N)).astype(np.float32)
    want = np.maximum(ref + bias, 0)
    for platform in ("Ascend950", "a2a3sim"):
        y = np.zeros((M, N), np.float32)
        linear_relu(a, b, bias, y, config=RunConfig(platform=platform))
        np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-2)
    h, y = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
    linear_relu_two_stage(a, b, bias, h, y, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-2)
    print("matmul, tile-level matmul and fused linear match numpy")


if __name__ == "__main__":
    main()
