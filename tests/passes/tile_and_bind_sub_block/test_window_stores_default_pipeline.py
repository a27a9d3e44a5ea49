"""Issue 20 §4 (u17 / u27) through the default pipeline: a window ``[off, off + n)`` of a computed vector stored at
a run-time offset. CanonicalizeTileSlice keeps a window whose address is provably 32-byte aligned zero-copy, and
TileAndBindSubBlock then clips each half's store, without any copy when the offset is proved (over the loop's
range) to keep the window inside the vector and inside one half. A window whose alignment cannot be proved is
still copied by CanonicalizeTileSlice first (its rule is not weakened). Every case is simulated with the pass on
and off, and the pass's own output, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.frontend.printer import python_print
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.testing import run_and_compare


def _loop(start: int, stop: int, step: int, n: int = 16):
    text = f'''
import tilefold.language as pl


@pl.program
class LoopWindow:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        for k, (o,) in pl.range({start}, {stop}, {step}, init_values=(out,)):
            y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, k)
            s: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, {n}], [0, k])
            o2 = pl.store(s, [0, k], o)
            o3 = pl.yield_(o2)
        return o3
'''
    return pl.parse(text, "loop_window.py")


def _want(a: np.ndarray, offsets, n: int = 16) -> np.ndarray:
    want = np.zeros((1, 64), np.float32)
    for k in offsets:
        want[:, k:k + n] = a[:, k:k + n] + np.float32(k)
    return want


def _compiled_text(program) -> str:
    return python_print(compile(program, target="Ascend910B").ir)


def _all_runs(program, a: np.ndarray, want: np.ndarray) -> None:
    split, _ = run_pass(program)
    for subject, options in ((program, {}), (program, {"enable_auto_bind_sub_block": False}), (split, {})):
        report = run_and_compare(subject, {"a": a.copy(), "out": np.zeros((1, 64), np.float32)}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6, atol=0)


@pytest.mark.parametrize("start,step", [(0, 16), (16, 32), (8, 32)])
def test_aligned_windows_inside_one_half_reach_the_clipped_store_without_a_copy(start, step):
    """k = start, start + step, ... < 64: every window [k, k + 16) lies inside one 32-element half, so each half
    stores a zero-copy view of itself; no tile.extract (CanonicalizeTileSlice proved the address aligned) and no
    padded copy of the half (tile.full + tile.assemble)."""
    program = _loop(start, 64 - 16 + 1, step)
    text = _compiled_text(program)
    assert '"sub_block_axis": 1' in text, text
    assert "pl.tile.adds(x, k)" in text and "pl.Tile[[1, 32]" in text  # the vector work is halved
    assert "tile.extract" not in text and "tile.assemble" not in text, text
    assert "tiled_op=True" in text
    a = np.random.default_rng(start + step).standard_normal((1, 64)).astype(np.float32)
    _all_runs(program, a, _want(a, range(start, 64 - 16 + 1, step)))


def test_a_window_that_may_cross_the_halves_is_viewed_in_a_padded_copy_of_the_half():
    """k = 0, 8, ..., 48: [24, 40) crosses the halves, so sub-block 0's part [24, 32) cannot be viewed with the
    window's extent inside its 32-element half: the half is copied into a 64-element tile first."""
    program = _loop(0, 49, 8)
    text = _compiled_text(program)
    assert '"sub_block_axis": 1' in text and "tile.assemble" in text and "tile.extract" not in text, text
    a = np.random.default_rng(8).standard_normal((1, 64)).astype(np.float32)
    _all_runs(program, a, _want(a, range(0, 49, 8)))


def test_a_window_that_may_leave_the_vector_keeps_the_fault():
    """k = 0, 16, ..., 64: the last window [64, 80) leaves the vector. No in-range proof, so the half is padded
    and the device model still faults on it, with the pass on and off."""
    program = _loop(0, 65, 16)
    after, _ = run_pass(program)
    assert after.functions[0].attr(AXIS_ATTR) == 1, after.functions[0].attr(REVERTED)
    assert "tile.assemble" in _compiled_text(program)
    a = np.random.default_rng(64).standard_normal((1, 64)).astype(np.float32)
    for subject, options in ((program, {}), (program, {"enable_auto_bind_sub_block": False}), (after, {})):
        report = run_and_compare(subject, {"a": a.copy(), "out": np.zeros((1, 64), np.float32)}, options=options)
        assert report.result == "trap", report.summary()
        assert "leaves the 1x" in report.summary(), report.summary()


@pl.program
class UnprovableOffset:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, r])
        out = pl.store(s, [0, r], out)
        return out


@pytest.mark.parametrize("r", [0, 5, 24, 48])
def test_a_window_of_unprovable_alignment_is_still_copied_by_canonicalize_tile_slice(r):
    """``r`` is any index: the zero-copy address y + 4 r is not provably 32-byte aligned, so the seed's rule copies
    the window (tile.extract) before the split; the result is still exact."""
    text = _compiled_text(UnprovableOffset)
    assert "tile.extract(y, 0, r" in text, text
    a = np.random.default_rng(r).standard_normal((1, 64)).astype(np.float32)
    want = np.zeros((1, 64), np.float32)
    want[:, r:r + 16] = np.exp(a[:, r:r + 16])
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(UnprovableOffset, {"a": a.copy(), "r": r, "out": np.zeros((1, 64), np.float32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6, atol=0)
