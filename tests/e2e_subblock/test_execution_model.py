"""The AIV execution model end to end (issue 9, section 1 and "Done when"): an AIV function without
get_subblock_idx is one execution, the device runs both sub-blocks, so the compiler must split the work or
limit it to sub-block 0 (also with the pass off); units that touch the same GM bytes race and the
simulator says so; stores honour the tile's valid shape."""

from __future__ import annotations

import numpy as np
import pytest
from e2e_sb_helpers import TARGETS, check_on_and_off, guard_count, load, run

import tilefold.language as pl
from tilefold.passes.remarks import collect_remarks
from tilefold.sim import RaceDetected
from tilefold.testing import run_and_compare, sub_block_evidence

RNG = np.random.default_rng(99)


@pytest.mark.parametrize("target", TARGETS)
def test_read_modify_write_kernel_adds_one_with_the_pass_on_and_off(target):
    acc = RNG.uniform(-1, 1, (128, 64)).astype(np.float32)
    base, tiled = check_on_and_off("acc_plus_one", load("e2e_acc_plus_one"), target, {"kernel": 0},
                                   inputs={"acc": acc})
    for rep in (base, tiled):
        np.testing.assert_array_equal(rep.outputs["acc"], acc + np.float32(1))  # +1, never +2
        np.testing.assert_array_equal(rep.golden_outputs["acc"], acc + np.float32(1))


def _raw_inputs():
    return {"x": RNG.uniform(-1, 1, (64, 64)).astype(np.float32),
            "o": RNG.uniform(-1, 1, (128, 64)).astype(np.float32)}


def _raw_expected(inputs):
    o = inputs["o"].copy()
    o[:64] = inputs["x"]
    return o, o[16:80] + np.float32(1)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("on", [True, False])
def test_read_after_write_across_halves_is_correct(target, on):
    # Split on dim 0, sub-block 0 would read rows [32, 48) of o that sub-block 1 writes. TileAndBindSubBlock
    # must not do that: it may split the columns (each sub-block then reads only the column half it writes
    # itself) or limit the stores to sub-block 0. Either way: correct, and no race for the simulator.
    inputs = _raw_inputs()
    rep = run(load("e2e_raw_across_halves"), target, on, inputs)
    assert rep.result == "correct", rep.summary()
    o, y = _raw_expected(inputs)
    np.testing.assert_array_equal(rep.outputs["o"], o)
    np.testing.assert_array_equal(rep.outputs["y"], y)
    evidence = sub_block_evidence(rep.compiled.ir)
    if on and evidence.split:
        assert evidence.axis == {"kernel": 1}
    else:
        assert guard_count(rep.compiled.ir) >= 1


HAND_SPLIT_RAW = '''import tilefold.language as pl

@pl.program
class UnsafeSplit:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[128, 64], pl.FP32]],
               y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        o = pl.store(t, [sb * 32, 0], o)
        u = pl.tile.load(o, [16 + sb * 32, 0], [32, 64], target_memory=pl.Mem.Vec)
        v = pl.tile.adds(u, 1.0)
        y = pl.store(v, [sb * 32, 0], y)
        return y
'''


@pytest.mark.parametrize("target", TARGETS)
def test_the_unsafe_split_of_the_read_after_write_kernel_is_a_race(target):
    # The split the pass must not make, written by hand: sub-block 0 reads rows [16, 48) of o while
    # sub-block 1 writes rows [32, 64). Golden (sub-block-bound: once per sub-block, in order) and the
    # simulator's sequential order would agree on a result; the detector reports the race instead.
    rep = run_and_compare(pl.parse(HAND_SPLIT_RAW), _raw_inputs(), target=target)
    assert rep.result == "trap" and isinstance(rep.fault, RaceDetected), rep.summary()
    fault = rep.fault
    assert fault.tensor == "o" and fault.elements == (32 * 64, 48 * 64)
    assert fault.first.write and fault.first.unit.startswith("core0.aiv1")
    assert fault.first.instruction.startswith("tstore @o")
    assert not fault.second.write and fault.second.unit.startswith("core0.aiv0")
    assert fault.second.instruction.startswith("tload")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("on", [True, False])
def test_blocks_of_an_unindexed_read_modify_write_kernel_race(target, on):
    # Two blocks both add 1 to the whole of acc: not one execution, a race between the blocks.
    rep = run_and_compare(load("e2e_acc_plus_one"), "random", target=target, block_dim=2,
                          options={"enable_auto_bind_sub_block": on})
    assert isinstance(rep.fault, RaceDetected), rep.summary()
    assert "(block 0)" in rep.fault.first.unit and "(block 1)" in rep.fault.second.unit


VALID = '''import tilefold.language as pl

@pl.program
class ValidStore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        v = pl.tile.set_validshape(u, [n, 40])
        out = pl.store(v, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("on", [True, False])
@pytest.mark.parametrize("n", [0, 5, 20, 32])  # empty, inside sub-block 0's half, across the halves, all
def test_store_writes_the_valid_region_only(target, on, n):
    x = RNG.uniform(-1, 1, (32, 64)).astype(np.float32)
    old = np.full((32, 64), -7.0, np.float32)
    rep = run(pl.parse(VALID), target, on, {"x": x, "n": n, "out": old})
    assert rep.result == "correct", rep.summary()
    want = old.copy()
    want[:n, :40] = x[:n, :40] + np.float32(1)
    np.testing.assert_array_equal(rep.outputs["out"], want)
    np.testing.assert_array_equal(rep.golden_outputs["out"], want)
    assert "valid" in rep.compiled.pto.text()  # the tstore carries the valid extents


def _shifted_expected(o_old: np.ndarray, first: int, shift: int) -> np.ndarray:
    """The row-block loop run once, in program order: iteration k loads rows [16k + shift, +16) of the current
    o, adds 1, and stores them at rows [16k, 16k + 16)."""
    o = o_old.copy()
    for k in range(first, first + 4):
        o[16 * k:16 * k + 16] = o[16 * k + shift:16 * k + shift + 16] + np.float32(1)
    return o


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shift,first", [(-8, 1), (8, 0)])  # reads rows stored by k - 1 / overwritten by k + 1
def test_row_block_loop_reading_rows_shifted_by_8_is_correct_on_and_off(target, shift, first):
    # Rows split in halves of 8: sub-block 1 would read rows sub-block 0 writes in the same iteration (and,
    # for shift -8, rows sub-block 0 wrote one iteration before), with nothing ordering the two sub-blocks.
    # The GM hazard rule refuses the rows (gm_read_after_write); the columns are provably disjoint per
    # sub-block, so the pass splits them. Pass off: nothing split, the store guarded to sub-block 0.
    program = load("e2e_row_block_shift", SHIFT=shift, FIRST=first)
    o = RNG.uniform(-1, 1, (80, 64)).astype(np.float32)
    want = _shifted_expected(o, first, shift)
    if shift < 0:  # a true read-after-write: reading the old rows instead would give a different o
        stale = o.copy()
        for k in range(first, first + 4):
            stale[16 * k:16 * k + 16] = o[16 * k + shift:16 * k + shift + 16] + np.float32(1)
        assert not np.array_equal(want, stale)
    with collect_remarks() as remarks:
        base, tiled = check_on_and_off(f"row_block_shift{shift:+d}", program, target, {"kernel": 1},
                                       inputs={"o": o})
    for rep in (base, tiled):
        np.testing.assert_array_equal(rep.outputs["o"], want)
        np.testing.assert_array_equal(rep.golden_outputs["o"], want)
    assert any(r.kind == "axis-refused" and r.details["axis"] == 0
               and "gm_read_after_write" in r.details["reason"] for r in remarks), remarks


MIDDLE_REFUSED = "middle axis 1 of the window not split after FlattenTileNdTo2D"


@pytest.mark.parametrize("target", TARGETS)
def test_3d_tile_through_the_default_pipeline_splits_columns_not_the_middle_axis(target):
    x = RNG.uniform(-1, 1, (3, 16, 64)).astype(np.float32)
    with collect_remarks() as remarks:
        base, tiled = check_on_and_off("middle_axis_3x16x64", load("e2e_middle_axis"), target, {"kernel": 1},
                                       inputs={"x": x})
    for rep in (base, tiled):
        np.testing.assert_allclose(rep.outputs["out"], np.exp(x) * np.float32(0.5), rtol=1e-6)
    assert any(r.kind == "axis" and MIDDLE_REFUSED in r.message for r in remarks)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("on", [True, False])
def test_3d_tile_with_unaligned_columns_falls_back_to_sub_block_0(target, on):
    x = RNG.uniform(-1, 1, (3, 16, 20)).astype(np.float32)
    rep = run(load("e2e_middle_axis", COLS=20), target, on, {"x": x})
    assert rep.result == "correct", rep.summary()
    np.testing.assert_allclose(rep.outputs["out"], np.exp(x) * np.float32(0.5), rtol=1e-6)
    assert not sub_block_evidence(rep.compiled.ir).split
    assert guard_count(rep.compiled.ir) >= 1
    if on:
        reason = rep.compiled.ir.function("kernel").attr("tile_and_bind_subblock_reverted")
        assert MIDDLE_REFUSED in reason and "half row of 40 B" in reason
