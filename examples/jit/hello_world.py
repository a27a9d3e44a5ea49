"""The smallest complete program (PyPTO's hello world): one @pl.jit kernel, one scope, one operator, called with
arrays and checked against the host. Run: python examples/jit/hello_world.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig


@pl.jit
def hello(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.add(x, 1.0)
    return y


def main() -> None:
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64) / 64
    y = np.zeros_like(x)
    hello(x, y, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(y, x + 1.0, rtol=0, atol=0)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:  # the same kernel on torch tensors, as PyPTO's examples call it
        tx = torch.arange(16 * 64, dtype=torch.float32).reshape(16, 64) / 64
        ty = torch.zeros(16, 64)
        hello(tx, ty, config=RunConfig(platform="a2a3sim"))
        assert torch.equal(ty, tx + 1.0)
    print("hello world: y = x + 1 matches the host")


if __name__ == "__main__":
    main()
