"""Writing sub-regions back (PyPTO's assemble example): a result built from pieces, each computed in its own scope
and placed with pl.assemble at its offset (rows and columns), and the subscript spelling dst[r0:r1, c0:c1] = src.
Run: python examples/jit/assemble.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

ROWS, COLS, BLOCK = 64, 128, 32


@pl.jit
def quadrants(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    # four scopes, one per quadrant of the output, each writing only its own window
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.assemble(out, pl.exp(x[0:BLOCK, 0:COLS // 2]), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.assemble(out, pl.neg(x[0:BLOCK, COLS // 2:COLS]), [0, COLS // 2])
    with pl.at(level=pl.Level.CORE_GROUP):
        out[BLOCK:ROWS, 0:COLS // 2] = pl.muls(x[BLOCK:ROWS, 0:COLS // 2], 2.0)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[BLOCK:ROWS, COLS // 2:COLS] = pl.abs(x[BLOCK:ROWS, COLS // 2:COLS])
    return out


@pl.jit
def row_blocks(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    # an orchestration loop of launches: each block of rows is scaled by its index and assembled in place
    for i in pl.range(ROWS // BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.muls(x[i * BLOCK:(i + 1) * BLOCK, :], i + 1.0), [i * BLOCK, 0])
    return out


def main() -> None:
    cfg = RunConfig(platform="a2a3sim")
    rng = np.random.default_rng(6)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    out = np.zeros_like(x)
    quadrants(x, out, config=cfg)
    h = COLS // 2
    ref = np.block([[np.exp(x[:BLOCK, :h]), -x[:BLOCK, h:]], [2 * x[BLOCK:, :h], np.abs(x[BLOCK:, h:])]])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    out = np.full_like(x, 9.0)
    row_blocks(x, out, config=cfg)
    scale = np.repeat(np.arange(1, ROWS // BLOCK + 1, dtype=np.float32), BLOCK)[:, None]
    np.testing.assert_allclose(out, x * scale, rtol=1e-6)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx = torch.from_numpy(x)
        frame = torch.zeros(COLS, ROWS)
        quadrants(tx, frame.t(), config=cfg)  # a transposed view as the output: the frame changes
        torch.testing.assert_close(frame.t(), torch.from_numpy(ref), rtol=1e-5, atol=1e-6)
    print("assemble: every assembled window matches numpy")


if __name__ == "__main__":
    main()
