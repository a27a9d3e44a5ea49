"""Scalar operands and activations: a number or a pl.Scalar as the second operand selects the scalar form
(adds / muls ...); ReLU and SiLU built from tensor operators. Run: python examples/jit/scalar_ops.py"""

import numpy as np

import tilefold.language as pl


@pl.jit
def affine(x: pl.Tensor, scale: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(x, scale), 1.0)
    return out


@pl.jit
def relu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.relu(x)
    return out


@pl.jit
def silu(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        sig_den = pl.adds(pl.exp(pl.neg(x)), 1.0)   # 1 + exp(-x)
        out[:] = pl.div(x, sig_den)                 # x * sigmoid(x)
    return out


def main() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 256), np.float32)
    out = np.zeros_like(x)
    affine(x, 0.5, out)
    np.testing.assert_allclose(out, x * 0.5 + 1.0, rtol=1e-6)
    relu(x, out)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    silu(x, out)
    np.testing.assert_allclose(out, x / (1.0 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    print("scalar ops and activations: all kernels match numpy")


if __name__ == "__main__":
    main()
