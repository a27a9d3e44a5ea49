"""Issue 20 §4 (u17, u27, u21): a stored window ``[off, off + n)`` of a split vector, at a static or a run-time
offset, splits the vector work 32 + 32 and clips each half's store to the part of the window inside it (one half
may store nothing). Each case is simulated with the pass on and off and compared with numpy element by element."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.testing import run_and_compare
from tilefold.testing.sub_block_evidence import sub_block_evidence

ON_OFF = ({}, {"enable_auto_bind_sub_block": False})


def _static_window(off: int, n: int):
    text = f'''
import tilefold.language as pl


@pl.program
class Window:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        s: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, {n}], [0, {off}])
        out = pl.store(s, [0, {off}], out)
        return out
'''
    return pl.parse(text, f"window_{off}_{n}.py")


def _simulate(program, inputs: dict, window: tuple[int, int]) -> None:
    """The default pipeline with the pass on and off, and the pass's own output (``run_pass``) compiled as it is:
    in the default pipeline CanonicalizeTileSlice turns an unaligned window into a copy first (then split by the
    copy strategy), so the clipped-window rewrite itself is simulated through the third run."""
    a = inputs["a"]
    lo, hi = window
    expected = np.zeros((1, 64), np.float32)
    expected[:, lo:hi] = np.exp(a[:, lo:hi])
    split, _ = run_pass(program)
    for subject, options in ((program, ON_OFF[0]), (program, ON_OFF[1]), (split, {})):
        report = run_and_compare(subject, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                           for k, v in inputs.items()}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], expected, rtol=1e-6, atol=0)
        assert np.all(report.outputs["out"][:, :lo] == 0) and np.all(report.outputs["out"][:, hi:] == 0)


# (off, n): inside half 0, sub-block 1 empty; ending at the half's end; crossing the halves; inside half 1 (sub-
# block 0 empty); the last element; a window whose sub-block 1 part is longer than sub-block 0's (padded half);
# exactly half 1
STATIC = [(8, 16), (16, 16), (24, 16), (48, 16), (63, 1), (28, 30), (32, 32), (1, 62)]


@pytest.mark.parametrize("off,n", STATIC)
def test_static_window_splits_and_matches_numpy_on_and_off(off, n):
    program = _static_window(off, n)
    after, _ = run_pass(program)
    assert after.functions[0].attr(AXIS_ATTR) == 1, after.functions[0].attr(REVERTED)
    a = np.random.default_rng(off * 97 + n).standard_normal((1, 64)).astype(np.float32)
    _simulate(program, {"a": a, "out": np.zeros((1, 64), np.float32)}, (off, off + n))
    if off:  # a prefix (off 0) is a clipped store of the whole source, a window a clipped window store
        ev = sub_block_evidence(after)
        assert ev.split, ev.problems


@pl.program
class InnerWindowExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        x: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, sb * 32], [1, 32], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        s = pl.tile.slice(y, [1, 16], [0, pl.min(pl.min(pl.max(8 - sb * 32, 0), 32), 16)],
                          [1, pl.min(pl.max(24 - sb * 32, 0), 32) - pl.min(pl.max(8 - sb * 32, 0), 32)])
        out_1 = pl.store(s, [0, 8 + pl.min(pl.max(sb * 32 - 8, 0), 16)], out, tiled_op=True)
        return out_1


def test_static_window_clip_arithmetic():
    """Hand-written expected IR: sub-block 0 stores [8, 24) from offset 8 of its half; sub-block 1's count is
    min(max(24 - 32, 0), 32) - min(max(8 - 32, 0), 32) = 0, at GM offset 8 + 16 (inside the window's end)."""
    after, _ = run_pass(_static_window(8, 16))
    ir.assert_structural_equal(after, InnerWindowExpected)


def test_crossing_window_with_longer_second_part_copies_the_half():
    after, _ = run_pass(_static_window(28, 30))  # parts: [28, 32) on sub-block 0 (4), [32, 58) on 1 (26)
    text = str(after)
    assert "tile.assemble" in text and "tile.full" in text


@pl.program
class RunTimeWindow:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, r])
        out = pl.store(s, [0, r], out)
        return out


def test_run_time_window_splits_with_a_padded_half():
    after, _ = run_pass(RunTimeWindow)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) == 1, fn.attr(REVERTED)
    text = str(after)
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems  # a half load, and a store of each half's clipped part
    assert "tile.load(%a, MakeTuple(elements=(0, (%subblock_idx * 32))), MakeTuple(elements=(1, 32)))" in text
    assert "tile.assemble" in text  # the half is copied into 32 + 16 so any window origin stays inside it


@pytest.mark.parametrize("r", [0, 1, 15, 16, 17, 31, 32, 40, 47, 48])
def test_run_time_window_matches_numpy_on_and_off(r):
    a = np.random.default_rng(r).standard_normal((1, 64)).astype(np.float32)
    _simulate(RunTimeWindow, {"a": a, "r": r, "out": np.zeros((1, 64), np.float32)}, (r, r + 16))


@pl.program
class WindowAlsoUsed:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [1, 16], [0, 8])
        t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        out = pl.store(t, [0, 0], out)
        return out


def test_a_window_used_by_compute_is_not_a_stored_window():
    """Only a slice whose one use is a store is clipped: a computed-on window keeps the slice refusal."""
    after, _ = run_pass(WindowAlsoUsed)
    assert after.functions[0].attr(AXIS_ATTR) is None


@pl.program
class OverlappingWindowsInALoop:
    """Iteration k stores [8k, 8k + 16): consecutive windows overlap by 8, but each is stored where it was cut
    (GM offset = window offset), so element e of the vector always lands at GM e: sub-block 0 only ever writes GM
    [0, 32), sub-block 1 only [32, 64), each in iteration order (test_window_stores_in_loops has the refusals)."""

    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        for k, (o,) in pl.range(0, 6, 1, init_values=(out,)):
            y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, k)
            s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, k * 8])
            o2 = pl.store(s, [0, k * 8], o)
            o3 = pl.yield_(o2)
        return o3


def test_overlapping_windows_stored_in_place_split_and_stay_right():
    after, _ = run_pass(OverlappingWindowsInALoop)
    assert after.functions[0].attr(AXIS_ATTR) == 1, after.functions[0].attr(REVERTED)
    a = np.random.default_rng(3).standard_normal((1, 64)).astype(np.float32)
    want = np.zeros((1, 64), np.float32)
    for k in range(6):
        want[:, 8 * k:8 * k + 16] = a[:, 8 * k:8 * k + 16] + k
    for subject, options in ((OverlappingWindowsInALoop, ON_OFF[0]), (OverlappingWindowsInALoop, ON_OFF[1]),
                             (after, {})):
        report = run_and_compare(subject, {"a": a.copy(), "out": np.zeros((1, 64), np.float32)}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6)


@pytest.mark.parametrize("r", [49, 60])
def test_out_of_range_run_time_window_still_faults_on_and_off(r):
    """[r, r + 16) leaves the 64-element vector: the original slice faults on the device model, and so must the
    split program (sub-block 0 views its copy of the vector at r itself), never a silently short store."""
    a = np.random.default_rng(r).standard_normal((1, 64)).astype(np.float32)
    split, _ = run_pass(RunTimeWindow)
    for subject, options in ((RunTimeWindow, ON_OFF[0]), (RunTimeWindow, ON_OFF[1]), (split, {})):
        report = run_and_compare(subject, {"a": a.copy(), "r": r, "out": np.zeros((1, 64), np.float32)},
                                 options=options)
        assert report.result == "trap", report.summary()
        assert "leaves the 1x64" in report.summary()
