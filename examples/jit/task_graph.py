"""Shaping the task graph (PyPTO's task_graph example): scopes become tasks; the edge between two tasks comes from
the buffer they share (a stage writes scratch, the next reads it), and independent tasks (no shared buffer) need
no order. A diamond: two branches read x, a join reads both. Run: python examples/jit/task_graph.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

N = 128


@pl.jit
def inferred(x: pl.Tensor[[N, N], pl.FP32], scratch: pl.Out[pl.Tensor[[N, N], pl.FP32]],
             out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        scratch[:] = pl.add(x, x)  # writes scratch
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(scratch, scratch)  # reads scratch: a read-after-write edge
    return scratch, out


@pl.jit
def diamond(x: pl.Tensor[[N, N], pl.FP32], left: pl.Out[pl.Tensor[[N, N], pl.FP32]],
            right: pl.Out[pl.Tensor[[N, N], pl.FP32]], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left[:] = pl.exp(x)
    with pl.at(level=pl.Level.CORE_GROUP):
        right[:] = pl.muls(x, 0.5)  # shares no buffer with the left branch
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(left, right)  # the join: waits on both branches
    return left, right, out


def main() -> None:
    cfg = RunConfig(platform="a2a3sim")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((N, N)).astype(np.float32)
    scratch, out = np.zeros_like(x), np.zeros_like(x)
    inferred(x, scratch, out, config=cfg)
    np.testing.assert_allclose(out, (x + x) + (x + x), rtol=1e-6)
    left, right = np.zeros_like(x), np.zeros_like(x)
    diamond(x, left, right, out, config=cfg)
    np.testing.assert_allclose(out, np.exp(x) - 0.5 * x, rtol=1e-5, atol=1e-6)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx = torch.from_numpy(x)
        ts, tout = torch.zeros(N, N), torch.zeros(N, N)
        inferred(tx, ts, tout, config=cfg)
        assert torch.allclose(tout, (tx + tx) + (tx + tx), rtol=1e-5, atol=1e-5)
    print("task_graph: the inferred edges give results that match numpy")


if __name__ == "__main__":
    main()
