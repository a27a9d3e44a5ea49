"""Handing the L0 tiling to the compiler (PyPTO's auto_tile_matmul example): tensor-level pl.matmul on operands
far larger than the cube's L0 buffers (Left / Right 64 KiB, Acc 128 KiB); AutoTileMatmulL0 chooses the M / N / K
blocking. The shapes below are the cases where the obvious choice does not fit: a long K, a wide N and a tall,
skinny product. Run: python examples/jit/auto_tile_matmul.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

CASES = [(128, 1024, 64), (64, 256, 512), (256, 128, 32)]  # (M, K, N)


@pl.jit
def matmul(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return c


def main() -> None:
    cfg = RunConfig(platform="a2a3sim")
    rng = np.random.default_rng(3)
    for m, k, n in CASES:
        a = (rng.standard_normal((m, k)) * 0.2).astype(np.float16)
        b = (rng.standard_normal((k, n)) * 0.2).astype(np.float16)
        c = np.zeros((m, n), np.float32)
        matmul(a, b, c, config=cfg)
        ref = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_allclose(c, ref, rtol=1e-2, atol=1e-2, err_msg=f"M, K, N = {m}, {k}, {n}")
        if k > 128:  # the post-pass program shows the blocking: L0 windows of K accumulated by matmul_acc
            lowered = matmul.lower(a, b, c, config=cfg).as_python()
            assert "pl.tile.matmul_acc(" in lowered and "target_memory=pl.Mem.Left" in lowered
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        ta = torch.randn(128, 1024, dtype=torch.float16) * 0.2
        tb = torch.randn(1024, 64, dtype=torch.float16) * 0.2
        tc = torch.zeros(128, 64)
        matmul(ta, tb, tc, config=cfg)
        torch.testing.assert_close(tc, ta.float() @ tb.float(), rtol=1e-2, atol=1e-2)
    print("auto_tile_matmul: every blocked product matches numpy")


if __name__ == "__main__":
    main()
