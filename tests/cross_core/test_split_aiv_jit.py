"""pl.split_aiv regions inside ``pl.at`` scopes of ``@pl.jit`` kernels (PyPTO's language/04-scopes and dev/10
examples): tensor-level ``pl.aiv_shard`` / ``pl.aic_gather``, lowered 1:1 to their tile forms, run on the simulator
and compared with numpy; golden and the device agree through ``run_and_compare``."""

from __future__ import annotations

import numpy as np
import pytest
import xc_jit_kernels

import tilefold.language as pl
from tilefold.testing import run_and_compare

HEAD = "import tilefold.language as pl\n\n"

# the text of xc_jit_kernels.gather_<mode>, for the golden comparison of the parsed program
GATHER = HEAD + '''
@pl.jit
def gather(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed"):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for _ in pl.split_aiv(2, mode=pl.SplitMode.MODE):
            v = pl.exp(pl.aiv_shard(mm))
            kv = pl.aic_gather(v)
        out[:] = pl.matmul(kv, w, out_dtype=pl.FP32)
    return out
'''


def _inputs(seed: int):
    rng = np.random.default_rng(seed)
    q = (rng.standard_normal((64, 64)) / 4).astype(np.float16)
    k = (rng.standard_normal((64, 64)) / 4).astype(np.float16)
    w = (rng.standard_normal((64, 64)) / 8).astype(np.float32)
    return q, k, w


def test_shard_up_down_in_a_jit_scope():
    q, k, _ = _inputs(0)
    out = np.zeros((64, 64), np.float32)
    xc_jit_kernels.shard(q, k, out)
    want = np.exp(q.astype(np.float32) @ k.astype(np.float32))
    np.testing.assert_allclose(out, want, rtol=2e-6 * 64, atol=1e-5)


@pytest.mark.parametrize("mode", ["NONE", "UP_DOWN", "LEFT_RIGHT"])
def test_gather_back_to_the_cube_in_a_jit_scope(mode):
    src = GATHER.replace("MODE", mode)
    q, k, w = _inputs(1)
    out = np.zeros((64, 64), np.float32)
    getattr(xc_jit_kernels, f"gather_{mode.lower()}")(q, k, w, out)
    want = np.exp(q.astype(np.float32) @ k.astype(np.float32)) @ w
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    report = run_and_compare(pl.parse(src, f"gather_{mode}.py"), {"q": q, "k": k, "w": w,
                                                                 "out": np.zeros((64, 64), np.float32)})
    assert report.matches, report.details


def test_two_regions_around_a_cube_phase():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((64, 64)) / 4).astype(np.float32)
    w = (rng.standard_normal((64, 64)) / 4).astype(np.float32)
    out = np.zeros((64, 64), np.float32)
    xc_jit_kernels.phases(x, w, out)
    np.testing.assert_allclose(out, (2 * x) @ w + 1.0, rtol=1e-5, atol=1e-5)
