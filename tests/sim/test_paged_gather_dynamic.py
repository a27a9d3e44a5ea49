"""``pl.paged_gather`` with a run-time index count (issue 19): ``indices`` of a ``pl.dynamic`` length up to
``max_indices``. The loop runs over the run-time count (PyPTO's lowering); the rows past it, which PyPTO leaves
unwritten, are zero in tilefold (a Vec fill, through a GM workspace into L1), so a consumer reading the whole buffer
is defined. Checked against numpy written here, natural and transposed, L1 and UB, several counts through one
compiled kernel."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

RNG = np.random.default_rng(1919)
TABLE = np.array([2, 0, 3, 1], np.int32)

JIT = '''
import tilefold.language as pl

N = pl.dynamic("N")


@pl.jit
def scores(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 48], pl.FP16], table: pl.Tensor[[4], pl.INT32],
           idx: pl.Tensor[[N], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kv = pl.paged_gather(pool, idx, table, block_size=16, size=32, col_offset=8, max_indices=16)
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def scores_t(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 48], pl.FP16], table: pl.Tensor[[4], pl.INT32],
             idx: pl.Tensor[[N], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kt = pl.paged_gather(pool, idx, table, block_size=16, size=32, col_offset=8, max_indices=16, is_trans=True)
        out[:] = pl.matmul(q, kt, out_dtype=pl.FP32)
    return out


@pl.jit
def rows_ub(pool: pl.Tensor[[64, 48], pl.FP32], table: pl.Tensor[[4], pl.INT32], idx: pl.Tensor[[N], pl.INT32],
            out: pl.Out[pl.Tensor[[24, 48], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.paged_gather(pool, idx, table, block_size=16, max_indices=24, target_memory=pl.Mem.Vec)
    return out
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("paged_dynamic") / "paged_dynamic_kernels.py"
    path.write_text(JIT)
    spec = importlib.util.spec_from_file_location("paged_dynamic_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _gathered(pool: np.ndarray, idx: np.ndarray, capacity: int, cols: slice) -> np.ndarray:
    """Row i: pool row TABLE[idx[i] // 16] * 16 + idx[i] % 16 (columns ``cols``), zero past len(idx)."""
    width = pool[:, cols].shape[1]
    buf = np.zeros((capacity, width), np.float64)
    for i, t in enumerate(idx):
        buf[i] = pool[TABLE[t // 16] * 16 + t % 16, cols]
    return buf


@pytest.mark.parametrize("count", [1, 7, 10, 16])
@pytest.mark.parametrize("name", ["scores", "scores_t"])
def test_scores_over_a_runtime_count(kernels, name, count):
    q = RNG.integers(-3, 4, (16, 32)).astype(np.float16)
    pool = RNG.integers(-3, 4, (64, 48)).astype(np.float16)
    idx = RNG.choice(64, count, replace=False).astype(np.int32)
    out = np.full((16, 16), 99.0, np.float32)
    getattr(kernels, name)(q, pool, TABLE, idx, out)
    keys = _gathered(pool.astype(np.float64), idx, 16, slice(8, 40))
    want = q.astype(np.float64) @ keys.T
    np.testing.assert_array_equal(out, want)
    assert np.all(out[:, count:] == 0)  # the rows past the count read as zeros


@pytest.mark.parametrize("count", [3, 24])
def test_ub_buffer_rows_past_the_count_are_zero(kernels, count):
    pool = RNG.normal(size=(64, 48)).astype(np.float32)
    idx = RNG.choice(64, count, replace=False).astype(np.int32)
    out = np.full((24, 48), 5.0, np.float32)
    kernels.rows_ub(pool, TABLE, idx, out)
    np.testing.assert_array_equal(out, _gathered(pool, idx, 24, slice(0, 48)).astype(np.float32))


def test_a_count_past_max_indices_faults(kernels):
    from tilefold.sim.faults import OutOfBounds

    pool = RNG.normal(size=(64, 48)).astype(np.float32)
    with pytest.raises(OutOfBounds, match="written region at \\(24, 0\\) of 1x48 leaves the 24x48 tile"):
        kernels.rows_ub(pool, TABLE, np.arange(25, dtype=np.int32), np.zeros((24, 48), np.float32))
