"""Activations (PyPTO's activation example): relu and SiLU. SiLU(x) = x * sigmoid(x) is composite, written from
neg / exp / adds / recip / mul as PyPTO's example does; relu is one operator, shown at tensor level and at tile
level inside the same kind of scope; a leaky relu on tiles closes the set. Run: python examples/jit/activation.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

ROWS, COLS = 128, 128


@pl.jit
def relu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.relu(x)
    return out


@pl.jit
def silu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        sigmoid = pl.recip(pl.adds(pl.exp(pl.neg(x)), 1.0))
        out[:] = pl.mul(x, sigmoid)
    return out


@pl.jit
def relu_and_leaky_tiles(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
                         leaky: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        pl.store(pl.relu(t), [0, 0], out)
        pl.store(pl.tile.lrelu(t, 0.01), [0, 0], leaky)
    return out, leaky


def reference_silu(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return x64 / (1.0 + np.exp(-x64))


def main() -> None:
    cfg = RunConfig(platform="a2a3sim")
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((ROWS, COLS)) * 3).astype(np.float32)
    out = np.zeros_like(x)
    relu(x, out, config=cfg)
    np.testing.assert_array_equal(out, np.where(x > 0, x, 0))
    silu(x, out, config=cfg)
    np.testing.assert_allclose(out, reference_silu(x), rtol=1e-5, atol=1e-6)
    leaky = np.zeros_like(x)
    relu_and_leaky_tiles(x, out, leaky, config=cfg)
    np.testing.assert_array_equal(out, np.where(x > 0, x, 0))
    np.testing.assert_allclose(leaky, np.where(x > 0, x, 0.01 * x), rtol=1e-6)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx = torch.from_numpy(x).to(torch.float16)
        tout = torch.zeros_like(tx)
        silu(tx, tout, config=cfg)
        torch.testing.assert_close(tout.float(), torch.nn.functional.silu(tx.float()), rtol=1e-2, atol=1e-2)
    print("activation: relu, SiLU and leaky relu match numpy")


if __name__ == "__main__":
    main()
