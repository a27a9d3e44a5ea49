"""The simulator's fast paths skip work only where the skipped work cannot change the outcome: each is
checked here against the full computation on random inputs (same fault at the same step, or none)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tilefold.sim import MissingSync
from tilefold.sim.hazards import HazardTracker
from tilefold.sim.races import Access, _disjoint_writes_only
from tilefold.sim.timeline import NPIPES


class _Ins:
    def __init__(self, n: int) -> None:
        self.n = n

    def text(self) -> str:
        return f"ins{self.n}"


class _FullScanTracker(HazardTracker):
    """The tracker without the skip: every access scans every entry of its memory."""

    def access(self, pipe, key, lo, hi, write, ins, where):  # noqa: D401 - same contract as the parent
        entries = self.table.setdefault(key, {})
        self._scan(entries, pipe, self.known[pipe], lo, hi, write, ins, key, where)
        k = (lo, hi, pipe)
        e = entries.get(k)
        if e is None:
            if len(entries) >= 64:
                self._prune(entries)
            e = entries[k] = [-1, None, -1, None]
        if write:
            e[0], e[1] = self.seq[pipe], ins
        else:
            e[2], e[3] = self.seq[pipe], ins


def _replay(tracker: HazardTracker, ops: list[tuple]) -> tuple[int, str]:
    """Run ``ops`` on ``tracker``: (index of the op that faulted or -1, the fault's message)."""
    for i, op in enumerate(ops):
        try:
            if op[0] == "access":
                _, pipe, key, lo, hi, write, n = op
                tracker.tick(pipe)
                tracker.access(pipe, key, lo, hi, write, _Ins(n), "")
            elif op[0] == "set":
                _, src, dst, ev = op
                tracker.tick(src)
                tracker.set_flag(src, dst, ev, i)
            else:
                _, src, dst, ev = op
                tracker.tick(dst)
                tracker.wait_flag(src, dst, ev, _Ins(i))
        except MissingSync as f:
            return i, str(f)
    return -1, ""


@pytest.mark.parametrize("seed", range(40))
def test_hazard_skip_reports_what_a_full_scan_reports(seed):
    rnd = random.Random(seed)
    pipes = rnd.sample(range(NPIPES - 1), 3)  # three non-scalar pipes
    ops: list[tuple] = []
    pending: list[tuple[int, int, int]] = []
    for n in range(300):
        r = rnd.random()
        if r < 0.2:
            src, dst = rnd.sample(pipes, 2)
            ev = rnd.randrange(2)
            ops.append(("set", src, dst, ev))
            pending.append((src, dst, ev))
        elif r < 0.4 and pending:
            ops.append(("wait", *pending.pop(rnd.randrange(len(pending)))))
        else:
            lo = rnd.randrange(0, 512, 32)
            ops.append(("access", rnd.choice(pipes), rnd.choice(["Vec", "Mat"]), lo, lo + rnd.choice([32, 64, 128]),
                        rnd.random() < 0.3, n))
    # pending order per (src, dst, event) is FIFO on both sides, so both trackers see the same pairing
    assert _replay(HazardTracker(), ops) == _replay(_FullScanTracker(), ops)


def test_hazard_skip_still_reports_a_conflict_after_many_ordered_accesses():
    hz = HazardTracker()
    load, vec = 0, 3
    for i in range(100):  # load, sync, compute, sync back: every pair ordered, the scan is skipped
        hz.tick(load)
        hz.access(load, "Vec", 0, 64, True, _Ins(i), "")
        hz.tick(load)
        hz.set_flag(load, vec, 0, 0)
        hz.tick(vec)
        hz.wait_flag(load, vec, 0, _Ins(i))
        hz.access(vec, "Vec", 0, 64, False, _Ins(i), "")
        hz.tick(vec)
        hz.set_flag(vec, load, 1, 0)
        hz.tick(load)
        hz.wait_flag(vec, load, 1, _Ins(i))
    hz.tick(load)
    hz.access(load, "Vec", 0, 64, True, _Ins(1000), "")  # no set_flag -> vec after this write
    hz.tick(vec)
    with pytest.raises(MissingSync, match="read-after-write"):
        hz.access(vec, "Vec", 32, 96, False, _Ins(1001), "")


def _access(unit: str, write: bool, starts: list[int], length: int) -> Access:
    return Access(unit, 0, write, "t", None, np.array(starts, np.int64), length)


@pytest.mark.parametrize("seed", range(40))
def test_race_skip_only_when_no_element_is_shared_and_nothing_is_read(seed):
    rnd = random.Random(seed)
    accesses = []
    for _ in range(rnd.randrange(2, 6)):
        length = rnd.choice([1, 4, 8])
        starts = sorted(rnd.sample(range(0, 64, 4), rnd.randrange(1, 4)))
        accesses.append(_access(f"u{rnd.randrange(3)}", rnd.random() < 0.85, starts, length))
    runs = [range(s, s + a.length) for a in accesses for s in a.starts.tolist()]
    shared = sum(len(r) for r in runs) != len({e for r in runs for e in r})  # some element in two runs
    if _disjoint_writes_only(accesses):
        assert not shared and all(a.write for a in accesses)
    else:
        assert shared or not all(a.write for a in accesses) or any(len(a.starts) > 8 for a in accesses)


def test_recycled_memories_start_zero_filled():
    """Memories are recycled between simulations (machine._MemoryPool): what one simulation left in a
    memory must not be visible to the next, which must see zeros as on a fresh allocation."""
    from sim_helpers import Vec, buf, program
    from sim_helpers import tensor as gm_tensor

    from tilefold.backend.pto import SConst, TLoad, TStore
    from tilefold.sim import simulate

    z = SConst(0)
    fill = program([TLoad("t", "x", (z, z), (8, 16)), TStore("out", (z, z), "t", (8, 16))],
                   [buf("t", Vec, 0, 8, 16)], [gm_tensor("x", (8, 16)), gm_tensor("out", (8, 16), "Out")])
    leftover = program([TStore("out", (z, z), "u", (8, 16))], [buf("u", Vec, 0, 8, 16)],
                       [gm_tensor("out", (8, 16), "Out")])
    for _ in range(3):
        x = np.full((8, 16), 7.0, np.float32)
        np.testing.assert_array_equal(simulate(fill, {"x": x}).outputs["out"], x)
        np.testing.assert_array_equal(simulate(leftover, {}).outputs["out"], np.zeros((8, 16), np.float32))
