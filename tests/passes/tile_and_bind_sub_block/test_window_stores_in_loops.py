"""Issue 20: a stored window ``[off, off + n)`` of a split vector inside a loop. The halves of one iteration write
disjoint bytes by construction; across iterations the store is split only when it is provable that the two
sub-blocks never write the same GM bytes: a loop-invariant displacement ``g - off`` (each sub-block always writes
its own fixed part of GM), or windows ``[g, g + n)`` of distinct iterations that are disjoint. Anything else is
refused with the reason. Each case runs with the pass on and off, and the pass's own output, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.testing import run_and_compare
from tilefold.testing.sub_block_evidence import sub_block_evidence


def _loop_program(trips: int, off: str, gm: str, width: int, n: int = 16, outer: int = 0):
    """Iteration k (and i, with ``outer`` trips of an outer loop) stores exp(a) + k (+ 10 i), window
    ``[off, off + n)`` of the 64-element vector, at GM offset ``gm`` of a ``[1, width]`` output."""
    head = f"for k, (o,) in pl.range(0, {trips}, 1, init_values=(out,)):"
    body = f'''
            y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, k{" + i * 10" if outer else ""})
            s: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, {n}], [0, {off}])
            o2 = pl.store(s, [0, {gm}], o)
            o3 = pl.yield_(o2)'''
    if outer:
        loop = f'''
        for i, (p,) in pl.range(0, {outer}, 1, init_values=(out,)):
            {head.replace("out,", "p,")}{body.replace(chr(10) + "            ", chr(10) + "                ")}
            p2 = pl.yield_(o3)
        return p2'''
    else:
        loop = f'''
        {head}{body}
        return o3'''
    text = f'''
import tilefold.language as pl


@pl.program
class LoopWindow:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, {width}], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        x1: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x){loop.replace("pl.tile.adds(x,", "pl.tile.adds(x1,")}
'''
    return pl.parse(text, "loop_window.py")


def _expected(a: np.ndarray, trips: int, off, gm, width: int, n: int = 16, outer: int = 1) -> np.ndarray:
    want = np.zeros((1, width), np.float32)
    for i in range(outer):
        for k in range(trips):
            o, g = off(i, k), gm(i, k)
            want[:, g:g + n] = np.exp(a[:, o:o + n]) + np.float32(k + 10 * i)
    return want


def _check_all_runs(program, want: np.ndarray, a: np.ndarray) -> None:
    split, _ = run_pass(program)
    for subject, options in ((program, {}), (program, {"enable_auto_bind_sub_block": False}), (split, {})):
        report = run_and_compare(subject, {"a": a.copy(), "out": np.zeros(want.shape, np.float32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=2e-6, atol=1e-6)


# (trips, off, GM offset, output width, outer trips): each splits
SPLIT = {
    # windows side by side, g = off: each sub-block always writes its own half of the output
    "disjoint-same-place": (4, "k * 16", "k * 16", 64, 0),
    # overlapping windows at g = off: still a fixed part of GM per sub-block; the last iteration wins in each
    "overlapping-same-place": (6, "k * 8", "k * 8", 64, 0),
    # a constant displacement g - off = 32 into a wider output
    "shifted": (3, "k * 16 + 8", "k * 16 + 40", 128, 0),
    # g - off = 16 k changes, but the GM windows [32 k, +16) never meet
    "spread": (4, "k * 16", "k * 32", 128, 0),
    # nested loops: one step of k moves 32, one of i 64 >= 16 + the 32 k spans
    "nested": (2, "k * 16", "i * 64 + k * 32", 128, 2),
}


@pytest.mark.parametrize("case", sorted(SPLIT))
def test_window_store_in_a_loop_splits_when_the_halves_cannot_meet(case):
    trips, off, gm, width, outer = SPLIT[case]
    program = _loop_program(trips, off, gm, width, outer=outer)
    after, _ = run_pass(program)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) == 1, fn.attr(REVERTED)
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems
    a = np.random.default_rng(len(case)).standard_normal((1, 64)).astype(np.float32)
    offs = {"k * 16": lambda i, k: 16 * k, "k * 8": lambda i, k: 8 * k, "k * 16 + 8": lambda i, k: 16 * k + 8}
    gms = {"k * 16": lambda i, k: 16 * k, "k * 8": lambda i, k: 8 * k, "k * 16 + 40": lambda i, k: 16 * k + 40,
           "k * 32": lambda i, k: 32 * k, "i * 64 + k * 32": lambda i, k: 64 * i + 32 * k}
    _check_all_runs(program, _expected(a, trips, offs[off], gms[gm], width, outer=max(outer, 1)), a)


# (trips, off, GM offset, width, outer, the reason's words): each is refused, and still right with the fallback
REFUSED = {
    # g - off = -8 k changes and the GM windows [8 k, +16) overlap: sub-block 1's part of iteration k and
    # sub-block 0's part of iteration k + 1 name the same bytes
    "overlapping-spread": (4, "k * 16", "k * 8", 64, 0, "windows of different iterations overlap"),
    # every iteration stores a different window of the vector into the same GM window
    "same-gm-window": (3, "k * 16", "0", 16, 0, "every iteration of loop k stores the same GM window"),
    # nested: one step of i moves the window 40, less than 16 + the 32 that k spans ([40, 56) meets [32, 48))
    "nested-overlap": (2, "k * 16", "i * 40 + k * 32", 128, 2, "one step of loop i moves"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_window_store_in_a_loop_is_refused_with_the_reason_when_halves_may_meet(case):
    trips, off, gm, width, outer, words = REFUSED[case]
    program = _loop_program(trips, off, gm, width, outer=outer)
    after, _ = run_pass(program)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) is None
    reason = str(fn.attr(REVERTED))
    assert "gm_read_after_write" in reason and "a stored window in a loop" in reason and words in reason, reason
    a = np.random.default_rng(len(case)).standard_normal((1, 64)).astype(np.float32)
    offs = {"k * 16": lambda i, k: 16 * k}
    gms = {"k * 8": lambda i, k: 8 * k, "0": lambda i, k: 0, "i * 40 + k * 32": lambda i, k: 40 * i + 32 * k}
    _check_all_runs(program, _expected(a, trips, offs[off], gms[gm], width, outer=max(outer, 1)), a)


@pl.program
class TwoWindowsOneGmWindow:
    """Two stored windows of different vectors, at different offsets, into the same GM window: sub-block 0 writes
    all of the first ([8, 24) lies in its half) while sub-block 1 writes part of the second ([32, 40) of [24, 40)),
    and those parts share GM bytes [8, 16) with no order between the sub-blocks."""

    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        z: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x, 1.0)
        s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, 8])
        t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(z, [1, 16], [0, 24])
        out1 = pl.store(s, [0, 0], out)
        out2 = pl.store(t, [0, 0], out1)
        return out2


def test_two_window_stores_into_one_gm_window_are_compared_with_each_other():
    """Their displacements differ (-8 and -24), so their per-sub-block GM parts overlap: refused, and the
    fallback gives the second store's values everywhere."""
    after, _ = run_pass(TwoWindowsOneGmWindow)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) is None, "split although the halves race on GM [8, 16)"
    assert "gm_read_after_write" in str(fn.attr(REVERTED))
    a = np.random.default_rng(5).standard_normal((1, 64)).astype(np.float32)
    want = a[:, 24:40] + np.float32(1.0)
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(TwoWindowsOneGmWindow, {"a": a.copy(), "out": np.zeros((1, 16), np.float32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6)


@pl.program
class NonAffineOffset:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        x: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
        s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, r // 2])
        out = pl.store(s, [0, r // 2], out)
        return out


@pytest.mark.parametrize("r", [0, 20, 63, 96])
def test_a_window_at_a_non_affine_offset_outside_loops_still_splits(r):
    """Outside loops the store runs once, so its halves are disjoint whatever the offset's form (r // 2 is not
    affine): split as before, and exact against numpy."""
    after, _ = run_pass(NonAffineOffset)
    assert after.functions[0].attr(AXIS_ATTR) == 1, after.functions[0].attr(REVERTED)
    a = np.random.default_rng(r).standard_normal((1, 64)).astype(np.float32)
    o = r // 2
    want = np.zeros((1, 64), np.float32)
    want[:, o:o + 16] = np.exp(a[:, o:o + 16])
    for subject, options in ((NonAffineOffset, {}), (after, {})):
        report = run_and_compare(subject, {"a": a.copy(), "r": r, "out": np.zeros((1, 64), np.float32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6, atol=0)
