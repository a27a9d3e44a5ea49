"""The GM race detector (tilefold.sim.races): units of one launch that touch the same GM bytes without an
order raise RaceDetected naming both instructions, both units and the elements; launches of an
orchestration are ordered; dead reads (no GM write after them in the reading unit) are not races."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.pto import SConst
from tilefold.compiler import compile
from tilefold.sim import RaceDetected, simulate
from tilefold.sim.races import window_runs
from tilefold.testing import run_and_compare

HEADER = "import tilefold.language as pl\n\n"
OFF = {"enable_auto_bind_sub_block": False}
RNG = np.random.default_rng(5)


def _sim(src: str, inputs: dict, *, block_dim: int = 1, options=None):
    compiled = compile(pl.parse(HEADER + src), target="Ascend910B", options=dict(options or OFF))
    return simulate(compiled.pto, inputs, compiled.target, block_dim=block_dim)


def test_window_runs_fold_full_trailing_axes_and_cut_strided_ones():
    base = np.zeros((4, 6, 8), np.float32)
    starts, length = window_runs(base, base[1:3])  # two whole planes: one run
    assert (starts.tolist(), length) == ([48], 96)
    starts, length = window_runs(base, base[1:3, 2:4, 0:8])  # rows of full width fold into 16-element runs
    assert (starts.tolist(), length) == ([64, 112], 16)
    starts, length = window_runs(base, base[0, :, 4:6])  # a column pair: one run per row
    assert (starts.tolist(), length) == ([4 + 8 * r for r in range(6)], 2)
    assert window_runs(base, base[:0])[1] == 0


UNSPLIT_AIV_STORE = '''
@pl.program
class Both:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [sb * 0, 0], out)
        return out
'''


def test_both_sub_blocks_storing_the_same_bytes_race_even_with_equal_values():
    with pytest.raises(RaceDetected) as info:
        _sim(UNSPLIT_AIV_STORE, {"x": RNG.uniform(size=(16, 64)).astype(np.float32)})
    fault = info.value
    assert fault.tensor == "out" and fault.elements == (0, 16 * 64)
    assert {fault.first.unit, fault.second.unit} == {"core0.aiv0 (block 0)", "core0.aiv1 (block 0)"}
    assert fault.first.write and fault.second.write
    assert fault.first.instruction.startswith("tstore @out") and fault.second.instruction.startswith("tstore @out")
    text = str(fault)
    assert "write / write race on @out" in text and "bytes [0, 4096)" in text and "[15, 63]" in text


CROSS_READ = '''
@pl.program
class CrossRead:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
               y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        o = pl.store(t, [sb * 8, 0], o)
        u = pl.tile.load(o, [{row}, 0], [8, 64], target_memory=pl.Mem.Vec)
        y = pl.store(u, [sb * 8, 0], y)
        return y
'''


def test_reading_rows_the_other_sub_block_writes_is_a_race():
    # sub-block sb writes rows [8 sb, 8 sb + 8) of o, then reads rows [8 (1 - sb) + 4, ...) of it
    src = CROSS_READ.replace("{row}", "(1 - sb) * 4 + 4")
    inputs = {"x": RNG.uniform(size=(16, 64)).astype(np.float32), "o": np.zeros((16, 64), np.float32)}
    with pytest.raises(RaceDetected) as info:
        _sim(src, inputs)
    fault = info.value
    assert fault.tensor == "o"
    assert fault.first.write and not fault.second.write
    assert fault.first.unit != fault.second.unit
    assert fault.first.instruction.startswith("tstore @o") and fault.second.instruction.startswith("tload")
    assert "write / read race" in str(fault)


def test_reads_of_own_rows_do_not_race():
    src = CROSS_READ.replace("{row}", "sb * 8")
    x = RNG.uniform(size=(16, 64)).astype(np.float32)
    res = _sim(src, {"x": x, "o": np.zeros((16, 64), np.float32)})
    np.testing.assert_array_equal(res.outputs["y"], x)


READ_WRITE_RACE = '''
@pl.program
class ReadWrite:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, o: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        u = pl.tile.load(o, [{row}, 0], [8, 64], target_memory=pl.Mem.Vec)
        y = pl.store(u, [sb * 8, 0], y)
        if sb == 0:
            t = pl.tile.adds(u, 1.0)
            o1 = pl.store(t, [0, 0], o)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(o)
        return y
'''


def test_read_racing_a_write_of_the_other_sub_block():
    # sub-block 1 reads rows [0, 8) of o (then stores y), sub-block 0 rewrites rows [0, 8) of o
    o = RNG.uniform(size=(16, 64)).astype(np.float32)
    with pytest.raises(RaceDetected) as info:
        _sim(READ_WRITE_RACE.replace("{row}", "0"), {"o": o})
    fault = info.value
    assert fault.tensor == "o" and fault.elements == (0, 8 * 64)
    assert (fault.first.unit, fault.first.write) == ("core0.aiv0 (block 0)", True)
    assert (fault.second.unit, fault.second.write) == ("core0.aiv1 (block 0)", False)


def test_disjoint_rows_do_not_race():
    o = RNG.uniform(size=(16, 64)).astype(np.float32)
    # sub-block 1 reads rows [8, 16), sub-block 0 reads and rewrites rows [0, 8): disjoint
    res = _sim(READ_WRITE_RACE.replace("{row}", "sb * 8"), {"o": o})
    np.testing.assert_array_equal(res.outputs["o"][:8], o[:8] + np.float32(1))


DEAD_READ = '''
@pl.program
class DeadRead:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(acc, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        if sb == 0:
            o1 = pl.store(u, [0, 0], acc)
            o2 = pl.yield_(o1)
        else:
            o2 = pl.yield_(acc)
        return o2
'''


def test_a_read_followed_by_no_write_of_its_unit_is_not_a_race():
    # sub-block 1 loads acc while sub-block 0 rewrites it, but sub-block 1 writes nothing: what it read
    # cannot reach any result (this is the shape of a store limited to sub-block 0).
    acc = RNG.uniform(size=(16, 64)).astype(np.float32)
    res = _sim(DEAD_READ, {"acc": acc})
    np.testing.assert_array_equal(res.outputs["acc"], acc + np.float32(1))


BLOCKS = '''
@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [{row}, 0], [8, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [{row}, 0], out)
        return out
'''


def test_blocks_that_do_not_index_by_block_race():
    x = RNG.uniform(size=(32, 64)).astype(np.float32)
    with pytest.raises(RaceDetected) as info:
        _sim(BLOCKS.replace("{row}", "b * 0"), {"x": x}, block_dim=3)
    fault = info.value
    assert {fault.first.unit, fault.second.unit} == {"core0 (block 0)", "core1 (block 1)"}
    assert fault.elements == (0, 8 * 64)


def test_blocks_indexed_by_block_do_not_race():
    x = RNG.uniform(size=(32, 64)).astype(np.float32)
    res = _sim(BLOCKS.replace("{row}", "b * 8"), {"x": x}, block_dim=4)
    np.testing.assert_array_equal(res.outputs["out"], x)


def test_overlap_of_one_row_between_blocks_is_reported_exactly():
    # block b writes rows [7 b, 7 b + 8): blocks 0 and 1 share row 7 only
    x = RNG.uniform(size=(32, 64)).astype(np.float32)
    with pytest.raises(RaceDetected) as info:
        _sim(BLOCKS.replace("{row}", "b * 7"), {"x": x}, block_dim=2)
    assert info.value.elements == (7 * 64, 8 * 64)


COLUMNS = '''
@pl.program
class Columns:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [0, sb * {step}], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(t, [0, sb * {step}], out)
        return out
'''


def test_interleaved_column_halves_do_not_race_and_overlapping_ones_do():
    x = RNG.uniform(size=(16, 128)).astype(np.float32)
    res = _sim(COLUMNS.replace("{step}", "64"), {"x": x})
    np.testing.assert_array_equal(res.outputs["out"], x)
    with pytest.raises(RaceDetected) as info:
        _sim(COLUMNS.replace("{step}", "56"), {"x": x})
    lo, hi = info.value.elements
    assert lo // 128 == 0 and lo % 128 == 56 and hi == lo + 8  # row 0, columns [56, 64)


ORCH = '''
@pl.program
class TwoLaunches:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(acc, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        acc = pl.store(u, [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc = self.bump(acc)
        acc = self.bump(acc)
        return acc
'''


def test_launches_of_an_orchestration_are_ordered():
    acc = RNG.uniform(size=(16, 64)).astype(np.float32)
    rep = run_and_compare(pl.parse(HEADER + ORCH), {"acc": acc}, options=OFF)
    assert rep.result == "correct", rep.summary()
    np.testing.assert_array_equal(rep.outputs["acc"], (acc + np.float32(1)) + np.float32(1))


def test_harness_reports_a_race_as_a_trap():
    rep = run_and_compare(pl.parse(HEADER + BLOCKS.replace("{row}", "b * 0")), "random", block_dim=2)
    assert rep.result == "trap" and isinstance(rep.fault, RaceDetected)


COUNTER = '''
@pl.program
class Counter:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], count: pl.InOut[pl.Tensor[[1, 8], pl.FP32]],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], seen: pl.Out[pl.Tensor[[2, 8], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        c = pl.tile.load(count, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        c1 = pl.tile.adds(c, 1.0)
        if sb == 0:
            k1 = pl.store(c1, [0, 0], count)
            k2 = pl.yield_(k1)
        else:
            k2 = pl.yield_(count)
        t = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.muls(t, 2.0)
        out = pl.store(u, [sb * 8, 0], out)
        {extra}
        return out
'''


def test_a_load_feeding_only_a_store_its_unit_skips_is_dead():
    # Both sub-blocks load the counter; only sub-block 0 stores it (+1). Sub-block 1 then writes its half
    # of out, but nothing it wrote depends on the counter it read: no race.
    inputs = {"x": RNG.uniform(size=(16, 64)).astype(np.float32), "count": np.zeros((1, 8), np.float32)}
    res = _sim(COUNTER.replace("{extra}", ""), inputs)
    np.testing.assert_array_equal(res.outputs["count"], np.ones((1, 8), np.float32))
    np.testing.assert_array_equal(res.outputs["out"], inputs["x"] * np.float32(2))


def test_a_load_whose_value_reaches_a_store_of_its_unit_races():
    # Now each sub-block also stores the counter value it read: sub-block 1's read is live and races with
    # sub-block 0's update of the counter.
    extra = "seen = pl.store(c, [sb, 0], seen)"
    inputs = {"x": RNG.uniform(size=(16, 64)).astype(np.float32), "count": np.zeros((1, 8), np.float32)}
    with pytest.raises(RaceDetected) as info:
        _sim(COUNTER.replace("{extra}", extra), inputs)
    fault = info.value
    assert fault.tensor == "count" and fault.elements == (0, 8)
    assert fault.first.unit.startswith("core0.aiv0") and fault.first.write
    assert fault.second.unit.startswith("core0.aiv1") and not fault.second.write


def _covers(access, lo, hi):
    """Does one contiguous run of ``access`` contain the element range [lo, hi)?"""
    return bool(((access.starts <= lo) & (access.starts + access.length >= hi)).any())


@pytest.mark.parametrize("seed", range(40))
def test_interval_check_agrees_with_a_per_element_oracle(seed, monkeypatch):
    # Random rectangular windows of a small 3-D tensor, read or written by 2-3 units (every read taken as
    # live): the interval check reports a race exactly when per-element masks overlap across units with a
    # write on one side, and the reported elements lie in both named accesses.
    from tilefold.sim.races import LaunchAccesses

    rng = np.random.default_rng(seed)
    base = np.zeros((3, 5, 7), np.float32)
    log = LaunchAccesses(_Kernel(), {"t": base})
    monkeypatch.setattr(LaunchAccesses, "live", lambda self, a: True)
    writes: dict[str, np.ndarray] = {}
    touches: dict[str, np.ndarray] = {}
    for n in range(int(rng.integers(2, 7))):
        unit = f"u{int(rng.integers(0, 3))}"
        write = bool(rng.integers(0, 2))
        lo = [int(rng.integers(0, e)) for e in base.shape]
        idx = tuple(slice(a, int(rng.integers(a + 1, e + 1))) for a, e in zip(lo, base.shape, strict=True))
        log.record(_Run(unit), write, "t", base, base[idx], _Ins(f"#{n}"))
        for masks, on in ((writes, write), (touches, True)):
            if on:
                masks.setdefault(unit, np.zeros(base.shape, bool))[idx] = True
    expect = any((writes[u] & touches[v]).any() for u in writes for v in touches if u != v)
    if not expect:
        log.check()
        return
    with pytest.raises(RaceDetected) as info:
        log.check()
    fault = info.value
    lo, hi = fault.elements
    assert lo < hi and fault.first.unit != fault.second.unit and fault.first.write
    assert _covers(fault.first, lo, hi) and _covers(fault.second, lo, hi)


class _Run:
    """Stands for a KernelRun whose unit name is known."""

    def __init__(self, unit):
        self._race_unit = unit


class _Ins:
    def __init__(self, text):
        self._text = text
        self.span = None

    def text(self):
        return self._text


class _Kernel:
    name = "k"

    def __init__(self):
        from tilefold.backend.pto import TLoad, TStore

        z = (SConst(0), SConst(0))
        self.body = (TLoad("a", "t", z), TStore("t", z, "a"))
