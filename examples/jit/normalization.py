"""RMSNorm and LayerNorm from row reductions (PyPTO's normalization example).
Run: python examples/jit/normalization.py"""

import numpy as np

import tilefold.language as pl

HIDDEN = 256
EPS = 1e-6


@pl.jit
def rms_norm(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mean_sq = pl.muls(pl.row_sum(pl.mul(x, x)), 1.0 / HIDDEN)
        inv = pl.rsqrt(pl.adds(mean_sq, EPS))
        out[:] = pl.col_expand_mul(pl.row_expand_mul(x, inv), gamma)
    return out


@pl.jit
def layer_norm(x: pl.Tensor, gamma: pl.Tensor, beta: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mean = pl.muls(pl.row_sum(x), 1.0 / HIDDEN)
        centred = pl.row_expand_sub(x, mean)
        var = pl.muls(pl.row_sum(pl.mul(centred, centred)), 1.0 / HIDDEN)
        normed = pl.row_expand_mul(centred, pl.rsqrt(pl.adds(var, EPS)))
        out[:] = pl.col_expand_add(pl.col_expand_mul(normed, gamma), beta)
    return out


def main() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((512, HIDDEN), np.float32)
    gamma, beta = rng.standard_normal((1, HIDDEN), np.float32), rng.standard_normal((1, HIDDEN), np.float32)
    out = np.zeros_like(x)
    rms_norm(x, gamma, out)
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + EPS) * gamma
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    layer_norm(x, gamma, beta, out)
    mu = x.mean(axis=1, keepdims=True)
    ref = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + EPS) * gamma + beta
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    print("rms_norm and layer_norm match numpy")


if __name__ == "__main__":
    main()
