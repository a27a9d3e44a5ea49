"""A vector DAG: values reused by several consumers, a row reduction feeding two branches, a column broadcast
and a scalar parameter, on a tensor larger than UB (tiled into row blocks and split across the two vector
sub-blocks). Run: python examples/jit/vector_dag.py"""

import numpy as np

import tilefold.language as pl


@pl.jit
def dag(x: pl.Tensor, y: pl.Tensor, g: pl.Tensor, t: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(x, y)
        d = pl.sub(x, y)
        mx = pl.row_max(s)
        left = pl.row_expand_sub(s, mx)
        right = pl.row_expand_mul(d, mx)
        both = pl.maximum(pl.exp(left), pl.mul(right, t))
        out[:] = pl.col_expand_mul(pl.add(both, s), g)
    return out


def main() -> None:
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((1024, 128), np.float32), rng.standard_normal((1024, 128), np.float32)
    g = rng.standard_normal((1, 128), np.float32)
    out = np.zeros_like(x)
    dag(x, y, g, 0.25, out)
    s, d = x + y, x - y
    mx = s.max(axis=1, keepdims=True)
    ref = (np.maximum(np.exp(s - mx), d * mx * 0.25) + s) * g
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    print("vector dag matches numpy")


if __name__ == "__main__":
    main()
