"""Differential cases against the session's new features (hostile4): each kernel runs through the default
pipeline and its outputs are compared element by element with numpy written here, never with tilefold's golden
alone. Each case once gave a wrong or racy program."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.testing import run_and_compare

WRAPPED_SCATTER = '''import tilefold.language as pl

@pl.program
class Wrapped:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
               cache: pl.InOut[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        j0: pl.Tile[[32, 1], pl.DT, pl.Mem.Vec] = pl.tile.ci(START, [32, 1], dtype=pl.DT)
        j: pl.Tile[[32, 1], pl.DT, pl.Mem.Vec] = pl.tile.adds(j0, SHIFT)
        cache = pl.tile.mscatter(e, j, cache)
        r: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(cache, [READ, 0], [32, 64], target_memory=pl.Mem.Vec)
        y = pl.store(r, [0, 0], y)
        return y
'''


@pytest.mark.parametrize(("dt", "start", "shift"), [("INT8", -128, -17), ("UINT8", 250, 0)])
def test_a_scatter_index_that_wraps_its_dtype_is_not_split_on_wrong_rows(dt, start, shift):
    """ci + adds in a narrow dtype wraps: INT8 -145..-114 names rows 111..127 (row 127 from the second half),
    UINT8 250.. names rows 250..255 then 0..25. The split used the unwrapped rows as the written box, missed the
    read of those rows by the other sub-block, and the simulator trapped on the race it made."""
    text = WRAPPED_SCATTER.replace("START", str(start)).replace("SHIFT", str(shift)).replace("pl.DT", f"pl.{dt}")
    read = 96 if dt == "INT8" else 0
    text = text.replace("READ", str(read))
    rows_in_cache = 128 if dt == "INT8" else 256
    text = text.replace("[[128, 64]", f"[[{rows_in_cache}, 64]")
    program = pl.parse(text, "wrapped_scatter.py")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    cache = rng.standard_normal((rows_in_cache, 64)).astype(np.float32)
    bits_dtype = np.dtype(dt.lower())
    rows = (np.arange(32, dtype=np.int64) + start + shift).astype(bits_dtype).astype(np.int64)
    want = cache.copy()
    for k, row in enumerate(rows):
        if row >= 0:
            want[row] = x[k] * np.float32(3.0)
    rep = run_and_compare(program, {"x": x, "y": np.zeros_like(x), "cache": cache},
                          options={"enable_auto_bind_sub_block": True})
    assert rep.fault is None and rep.result == "correct", rep.summary()
    np.testing.assert_array_equal(rep.outputs["cache"], want)
    np.testing.assert_array_equal(rep.outputs["y"], want[read:read + 32])


FP4_AT_A_NIBBLE = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 5], pl.FP4], b: pl.Out[pl.Tensor[[1, 4], pl.FP16]],
          c: pl.InOut[pl.Tensor[[4, 5], pl.FP4]]) -> tuple[pl.Tensor[[1, 4], pl.FP16], pl.Tensor[[4, 5], pl.FP4]]:
        t = pl.load(a, [1, 1], [1, 4])
        h = pl.add(pl.cast(t, pl.FP16), pl.cast(t, pl.FP16))
        b = pl.store(h, [0, 0], b)
        c = pl.store(pl.cast(h, pl.FP4), [1, 1], c)
        return b, c
'''


def test_fp4_window_starting_in_a_high_nibble():
    """A [4, 5] FP4 tensor: row 1 column 1 is element 6, the low nibble of byte 3, and the window's end shares
    byte 4 with row 2's first element: the store must keep that neighbour."""
    import ml_dtypes

    f4 = ml_dtypes.float4_e2m1fn
    rng = np.random.default_rng(2)
    a, c = rng.normal(0, 1, (4, 5)).astype(f4), rng.normal(0, 1, (4, 5)).astype(f4)
    rep = run_and_compare(pl.parse(FP4_AT_A_NIBBLE), {"a": a, "b": np.zeros((1, 4), np.float16), "c": c.copy()})
    assert rep.fault is None and rep.result == "correct", rep.summary()
    doubled = 2 * a[1, 1:5].astype(np.float32)
    np.testing.assert_array_equal(rep.outputs["b"].astype(np.float32)[0], doubled)
    want = c.copy()
    want[1, 1:5] = doubled.astype(f4)
    np.testing.assert_array_equal(rep.outputs["c"].view(np.uint8), want.view(np.uint8))
