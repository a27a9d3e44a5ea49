"""Numerically stable row softmax (PyPTO's reduction tutorial), at tensor level on a tensor larger than UB
(tilefold tiles it into row blocks) and at tile level with PyPTO's scratch tiles.
Run: python examples/jit/softmax.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig


@pl.jit
def softmax(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        row_max = pl.row_max(a)
        exp_shifted = pl.exp(pl.row_expand_sub(a, row_max))
        out[:] = pl.row_expand_div(exp_shifted, pl.row_sum(exp_shifted))
    return out


@pl.jit
def softmax_tile(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [64, 64])
        max_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_max: pl.Tile[[64, 1], pl.FP32] = pl.row_max(tile_a, max_tmp)
        shifted = pl.row_expand_sub(tile_a, row_max)
        exp_shifted = pl.exp(shifted)
        sum_tmp = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_sum: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(exp_shifted, sum_tmp)
        pl.store(pl.row_expand_div(exp_shifted, row_sum), [0, 0], out)
    return out


def reference(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main() -> None:
    rng = np.random.default_rng(2)
    big = rng.standard_normal((1024, 256), np.float32)  # 1 MiB: does not fit the 192 KiB UB
    out = np.zeros_like(big)
    softmax(big, out, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(out, reference(big), rtol=1e-5, atol=1e-6)
    small = rng.standard_normal((64, 64), np.float32)
    out = np.zeros_like(small)
    softmax_tile(small, out)
    np.testing.assert_allclose(out, reference(small), rtol=1e-5, atol=1e-6)
    print("softmax: tensor level (tiled) and tile level match numpy")


if __name__ == "__main__":
    main()
