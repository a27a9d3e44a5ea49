"""Element-wise add four ways (PyPTO's "your first operator" tutorial): tensor level, tile level, chunked over a
tensor larger than one tile, and checked against numpy. Run: python examples/jit/elementwise.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

ROWS, COLS, TILE_ROWS = 512, 128, 128


@pl.jit
def add(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, b)
    return out


@pl.jit
def add_then_square(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(a, b)
        out[:] = pl.mul(s, s)
    return out


@pl.jit
def add_tile(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [128, 128])
        tile_b = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(tile_a, tile_b), [0, 0], out)
    return out


@pl.jit
def add_chunked(a: pl.Tensor[[ROWS, COLS], pl.FP32], b: pl.Tensor[[ROWS, COLS], pl.FP32],
                out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(ROWS // TILE_ROWS):
            tile_a = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            tile_b = pl.load(b, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.add(tile_a, tile_b), [i * TILE_ROWS, 0], out)
    return out


def main() -> None:
    cfg = RunConfig(platform="a2a3sim")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((128, 128), np.float32), rng.standard_normal((128, 128), np.float32)
    for kernel, ref in ((add, a + b), (add_tile, a + b), (add_then_square, (a + b) * (a + b))):
        out = np.zeros((128, 128), np.float32)
        kernel(a, b, out, config=cfg)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    a, b = rng.standard_normal((ROWS, COLS), np.float32), rng.standard_normal((ROWS, COLS), np.float32)
    out = np.zeros((ROWS, COLS), np.float32)
    add_chunked(a, b, out, config=cfg)
    np.testing.assert_allclose(out, a + b, rtol=1e-5, atol=1e-5)
    print("elementwise: all kernels match numpy")


if __name__ == "__main__":
    main()
