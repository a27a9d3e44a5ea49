"""Writing sub-regions: two results written into disjoint column ranges of one output (concat), with
``out[r0:r1, c0:c1] = ...`` and ``pl.assemble``, and a tile-level version with pl.store at column offsets.
Run: python examples/jit/concat_assemble.py"""

import numpy as np

import tilefold.language as pl

ROWS, HALF = 64, 64


@pl.jit
def concat(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.concat(pl.exp(a), pl.neg(b))
    return out


@pl.jit
def assemble_halves(a: pl.Tensor[[ROWS, 2 * HALF], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 2 * HALF], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = a[:, 0:HALF]
        right = a[:, HALF:2 * HALF]
        out[:, 0:HALF] = pl.maximum(left, right)
        out = pl.assemble(out, pl.minimum(left, right), [0, HALF])
    return out


@pl.jit
def concat_tiles(a: pl.Tensor[[ROWS, HALF], pl.FP32], b: pl.Tensor[[ROWS, HALF], pl.FP32],
                 out: pl.Out[pl.Tensor[[ROWS, 2 * HALF], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [ROWS, HALF])
        tb = pl.load(b, [0, 0], [ROWS, HALF])
        pl.store(ta, [0, 0], out)
        pl.store(tb, [0, HALF], out)
    return out


def main() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((ROWS, HALF), np.float32), rng.standard_normal((ROWS, HALF), np.float32)
    out = np.zeros((ROWS, 2 * HALF), np.float32)
    concat(a, b, out)
    np.testing.assert_allclose(out, np.concatenate([np.exp(a), -b], axis=1), rtol=1e-5)
    concat_tiles(a, b, out)
    np.testing.assert_array_equal(out, np.concatenate([a, b], axis=1))
    x = rng.standard_normal((ROWS, 2 * HALF), np.float32)
    assemble_halves(x, out)
    left, right = x[:, :HALF], x[:, HALF:]
    np.testing.assert_array_equal(out, np.concatenate([np.maximum(left, right), np.minimum(left, right)], axis=1))
    print("concat, assemble and tile-level column writes match numpy")


if __name__ == "__main__":
    main()
