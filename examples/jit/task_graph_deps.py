"""Declaring an edge yourself (PyPTO's task_graph example, step 2): `as first` binds a scope's TaskId and
`deps=[first]` makes the next scope wait on it, on top of the edge the shared buffer already gives.
Run: python examples/jit/task_graph_deps.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

N = 128


@pl.jit
def declared(x: pl.Tensor[[N, N], pl.FP32], scratch: pl.Out[pl.Tensor[[N, N], pl.FP32]],
             out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage1") as first:
        scratch[:] = pl.add(x, x)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage2", deps=[first]):
        out[:] = pl.add(scratch, scratch)
    return scratch, out


def main() -> None:
    x = np.random.default_rng(9).standard_normal((N, N)).astype(np.float32)
    scratch, out = np.zeros_like(x), np.zeros_like(x)
    declared(x, scratch, out, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(out, 4 * x, rtol=1e-6)
    print("task_graph_deps: the declared edge gives results that match numpy")


if __name__ == "__main__":
    main()
