"""Per-pipe timelines: when each simulated instruction runs.

Execution (``machine.py``) runs every unit's instructions for their values and records, per unit, one
*record* per instruction: its pipe, its cost, and the records it depends on. ``schedule`` then gives
every record a start and an end:

- each unit (a core, or one AIV sub-block of it) has one in-order queue per pipe (``targets.Pipe``);
- a record starts when the previous record of its queue has ended and every record it depends on has
  ended: the scalar record that issued it (instructions are issued in program order by the scalar pipe)
  and, for a ``wait_flag``, the ``set_flag`` it consumes. A ``set_flag`` is a zero-cost marker on its
  source pipe's lane that ends when everything issued to that pipe before it has ended; it does not hold
  the pipe (the next transfer may already be in flight);
- a record costs ``latency + work`` cycles. A GM transfer is issued, waits its ``latency`` (the request
  in flight), then moves its bytes at a rate shared with every other GM transfer in flight on the chip at
  the same moment: each gets an equal share of ``Target.gm_bytes_per_cycle`` capped by its own engine's
  bytes per cycle (water filling), recomputed whenever a transfer starts or ends (a fluid model, exact
  for piecewise-constant rates). A pipe's DMA engine moves one transfer's data at a time, in order, but
  the next transfer is issued as soon as the previous one moves data, so its latency hides under the
  previous transfer's data (outstanding requests); its slice in a trace is its data phase;
- blocks that share a unit run one after another: a block's first record waits for every record of the
  previous block on that unit.

The scheduler is an event loop over record completions (a heap); GM rate changes touch only the
transfers in flight. Cost: O(records x log records + records x transfers in flight).
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tilefold.targets import PIPE_ORDER, Pipe

PIPES: tuple[Pipe, ...] = PIPE_ORDER
PIPE_INDEX: dict[Pipe, int] = {p: i for i, p in enumerate(PIPES)}
S = PIPE_INDEX[Pipe.S]
NPIPES = len(PIPES)

#: where a record's cost comes from (``targets.costs.ORIGINS``), stored as a small code per record; 0 = the
#: record costs nothing of its own (an event, a block boundary). Scalar-pipe work is "assumed".
ORIGIN_NAMES: tuple[str, ...] = ("", "measured", "extrapolated", "declared", "assumed")
ORIGIN_CODE: dict[str, int] = {name: i for i, name in enumerate(ORIGIN_NAMES) if name}
_ASSUMED = ORIGIN_CODE["assumed"]


class UnitTrace:
    """The records of one unit, in issue order (plain lists: the hot path appends to them)."""

    __slots__ = ("name", "pipe", "deps", "latency", "work", "gm_bytes", "gm_cap", "instr", "last", "start",
                 "end", "flows", "block_starts", "floating", "last_work", "origin", "cross")

    def __init__(self, name: str) -> None:
        self.name = name
        # compact typed arrays: a long run records millions of instructions
        self.pipe = array("b")
        self.deps: list[tuple[int, ...]] = []
        self.latency = array("d")
        self.work = array("d")
        self.gm_bytes = array("d")
        self.gm_cap = array("d")
        self.origin = array("b")  # ORIGIN_NAMES index per record
        self.instr: list[Any] = []
        self.last = [-1] * NPIPES  # last record of each pipe
        self.start = array("d")
        self.end = array("d")
        self.flows: list[tuple[int, int]] = []  # (set_flag record, wait_flag record)
        self.block_starts: list[int] = []
        self.floating: set[int] = set()  # set_flag records: on a pipe's lane, outside its queue
        self.last_work = [-1] * NPIPES  # last record of each pipe that costs something
        # record -> records of OTHER units it waits for (a cross-core pipe's pop waits for its push, sim/lanes.py)
        self.cross: dict[int, list[tuple[UnitTrace, int]]] = {}

    def add_marker(self, pipe: int, instr: Any) -> int:
        """A ``set_flag`` on ``pipe``: a zero-cost record that ends once everything issued to the pipe before
        it has ended, without holding the pipe (later records of the pipe do not wait for it)."""
        idx = len(self.pipe)
        deps = tuple(d for d in (self.last[S], self.last[pipe], self.last_work[pipe]) if d >= 0)
        self.pipe.append(pipe)
        self.deps.append(deps)
        for lst in (self.latency, self.work, self.gm_bytes, self.gm_cap):
            lst.append(0.0)
        self.origin.append(0)
        self.instr.append(instr)
        self.floating.add(idx)
        return idx

    def __len__(self) -> int:
        return len(self.pipe)

    def add(self, pipe: int, instr: Any, latency: float = 0.0, work: float = 0.0, gm_bytes: float = 0.0,
            gm_cap: float = 0.0, extra_dep: int = -1, origin: int = 0) -> int:
        idx = len(self.pipe)
        issuer = self.last[S]
        if extra_dep >= 0:
            deps: tuple[int, ...] = (issuer, extra_dep) if issuer >= 0 else (extra_dep,)
        else:
            deps = (issuer,) if issuer >= 0 and pipe != S else ()
        self.pipe.append(pipe)
        self.deps.append(deps)
        self.latency.append(latency)
        self.work.append(work)
        self.gm_bytes.append(gm_bytes)
        self.gm_cap.append(gm_cap)
        self.origin.append(origin if origin or pipe != S or latency <= 0 else _ASSUMED)
        self.instr.append(instr)
        self.last[pipe] = idx
        if latency > 0 or work > 0 or gm_bytes > 0:
            self.last_work[pipe] = idx
        return idx

    def begin_block(self, label: Any) -> None:
        """A new block on this unit: it starts after every record of the previous one."""
        if self.pipe:
            prev = tuple(sorted({r for r in (*self.last, *self.last_work, *self.floating) if r >= 0}))
            idx = len(self.pipe)
            self.pipe.append(S)
            self.deps.append(prev)
            for lst in (self.latency, self.work, self.gm_bytes, self.gm_cap):
                lst.append(0.0)
            self.origin.append(0)
            self.instr.append(label)
            self.last[S] = idx
        self.block_starts.append(len(self.pipe))


@dataclass
class Schedule:
    """The result of ``schedule``: the kernel's makespan, per-unit end time and per-pipe busy cycles."""

    makespan: float
    unit_end: dict[str, float]
    busy: dict[str, dict[Pipe, float]] = field(default_factory=dict)


def _rates(active: dict, caps: dict, total: float) -> dict:
    """Water-filling: an equal share of ``total`` for every transfer, capped by its own limit."""
    rates = {}
    left = total
    items = sorted(active, key=lambda k: caps[k])
    n = len(items)
    for i, k in enumerate(items):
        share = left / (n - i)
        r = min(caps[k], share)
        rates[k] = r
        left -= r
    return rates


class _Scheduler:
    """The event loop of ``schedule`` (see the module docstring): per unit, its pipe queues and its set_flag
    markers; a heap of events (a record's end, kind 0; a GM transfer's latency over, kind 1); the GM transfers
    moving data, with their bytes left, their caps and their shared rates."""

    def __init__(self, units: list[UnitTrace], gm_bytes_per_cycle: float, t0: float) -> None:
        self.units = units
        self.gm_bytes_per_cycle = gm_bytes_per_cycle
        self.now = t0
        self.heap: list[tuple[float, int, int, int, int]] = []  # (time, tie, kind, unit, record)
        self.tie = 0
        self.nxt = [[0] * NPIPES for _ in units]  # position of the next record in each pipe queue
        self.busy = [[False] * NPIPES for _ in units]
        self.queues: list[list[list[int]]] = []
        self.done: list[list[bool]] = []
        self.pending_markers: list[list[deque]] = []
        for u in units:
            self._add_unit(u)
        self.used_pipes = [tuple(p for p in range(NPIPES) if q[p]) for q in self.queues]
        self.unit_index = {id(u): i for i, u in enumerate(units)}
        self.cross_units = [i for i, u in enumerate(units) if u.cross]  # retried after every event
        self.active: dict[tuple[int, int], float] = {}  # (unit, record) -> bytes left
        self.engine_busy: set[tuple[int, int]] = set()  # (unit, pipe) whose engine moves data now
        self.engine_wait: dict[tuple[int, int], tuple[int, int]] = {}  # (unit, pipe) -> transfer past latency
        self.caps: dict[tuple[int, int], float] = {}
        self.rates: dict[tuple[int, int], float] = {}

    def _add_unit(self, u: UnitTrace) -> None:
        """The pipe queues (markers left out), the per-pipe marker queues and the zeroed times of ``u``."""
        q: list[list[int]] = [[] for _ in range(NPIPES)]
        for i, p in enumerate(u.pipe):
            if i not in u.floating:
                q[p].append(i)
        self.queues.append(q)
        self.done.append([False] * len(u.pipe))
        u.start = array("d", bytes(8 * len(u.pipe)))
        u.end = array("d", bytes(8 * len(u.pipe)))
        per_pipe: list[deque] = [deque() for _ in range(NPIPES)]
        for r in sorted(u.floating):
            per_pipe[u.pipe[r]].append(r)
        self.pending_markers.append([mq for mq in per_pipe if mq])

    # ------------------------------------------------------------------------------------ starting records
    def try_start(self, ui: int) -> None:
        """Start every record of unit ``ui`` that can start now (until nothing changes)."""
        progress = True
        while progress:
            progress = self._end_ready_markers(ui)
            progress = self._start_ready_heads(ui) or progress

    def _end_ready_markers(self, ui: int) -> bool:
        """End the set_flag markers whose dependencies have ended; per pipe, markers become ready in issue
        order, so only the oldest is looked at."""
        u, d, now = self.units[ui], self.done[ui], self.now
        deps, start, end = u.deps, u.start, u.end
        progress = False
        for mq in self.pending_markers[ui]:
            while mq:
                r = mq[0]
                ready = True
                for x in deps[r]:
                    if not d[x]:
                        ready = False
                        break
                if not ready:
                    break
                mq.popleft()
                start[r] = end[r] = now
                d[r] = True
                progress = True
        return progress

    def _start_ready_heads(self, ui: int) -> bool:
        """Start the head record of every free pipe queue whose dependencies have ended; True when a record
        of no cost ended on the spot (its successors may start now)."""
        u, now = self.units[ui], self.now
        q, pos, b, d = self.queues[ui], self.nxt[ui], self.busy[ui], self.done[ui]
        deps, gm_bytes, latency, work, start = u.deps, u.gm_bytes, u.latency, u.work, u.start
        engine_busy, engine_wait, heap = self.engine_busy, self.engine_wait, self.heap
        progress = False
        for p in self.used_pipes[ui]:
            if b[p]:
                continue
            qp = q[p]
            i = pos[p]
            if i >= len(qp):
                continue
            r = qp[i]
            ready = True
            for x in deps[r]:
                if not d[x]:
                    ready = False
                    break
            if ready and u.cross and r in u.cross:
                ready = self._cross_ready(u.cross[r])
            if not ready:
                continue
            gb = gm_bytes[r]
            if (gb <= 0 and (latency[r] > 0 or work[r] > 0)
                    and ((ui, p) in engine_busy or (ui, p) in engine_wait)):
                continue  # only a next transfer overlaps a transfer in flight; anything else waits for it
            pos[p] = i + 1
            b[p] = True
            start[r] = now
            self.tie += 1
            if gb > 0:
                heapq.heappush(heap, (now + latency[r], self.tie, 1, ui, r))
            else:
                dur = latency[r] + work[r]
                if dur <= 0:
                    self.finish(ui, r)
                    progress = True
                else:
                    heapq.heappush(heap, (now + dur, self.tie, 0, ui, r))
        return progress

    def _cross_ready(self, waits: list[tuple[UnitTrace, int]]) -> bool:
        for other, rec in waits:
            oi = self.unit_index.get(id(other))
            if oi is None:
                raise RuntimeError(f"a record waits for unit {other.name}, which is not scheduled with it")
            if not self.done[oi][rec]:
                return False
        return True

    # ------------------------------------------------------------------------------------ ending records
    def finish(self, ui: int, r: int) -> None:
        u = self.units[ui]
        u.end[r] = self.now
        self.done[ui][r] = True
        self.busy[ui][u.pipe[r]] = False

    def begin_data(self, ui: int, r: int) -> None:
        """Transfer ``r`` starts moving data: the engine is taken; the pipe may issue its next record."""
        k = (ui, r)
        u = self.units[ui]
        u.start[r] = self.now
        self.active[k] = u.gm_bytes[r]
        self.caps[k] = u.gm_cap[r]
        self.engine_busy.add((ui, u.pipe[r]))
        self.busy[ui][u.pipe[r]] = False

    def end_data(self, ui: int, r: int) -> None:
        u = self.units[ui]
        u.end[r] = self.now
        self.done[ui][r] = True
        engine = (ui, u.pipe[r])
        self.engine_busy.discard(engine)
        waiting = self.engine_wait.pop(engine, None)
        if waiting is not None:
            self.begin_data(*waiting)

    def _new_rates(self) -> None:
        self.rates = _rates(self.active, self.caps, self.gm_bytes_per_cycle)

    # ------------------------------------------------------------------------------------ the event loop
    def pop_event(self) -> int | None:
        """Handle the heap's next event (``now`` is its time); the unit whose records may start now, if any."""
        _, _, kind, ui, r = heapq.heappop(self.heap)
        if kind == 0:
            self.finish(ui, r)
            return ui
        # latency over: move data now if the engine is free, else right after it
        engine = (ui, self.units[ui].pipe[r])
        if engine in self.engine_busy:
            self.engine_wait[engine] = (ui, r)
            self._new_rates()
            return None
        self.begin_data(ui, r)
        self._new_rates()
        return ui

    def step(self) -> set[int]:
        """Advance to the next event, a heap event or the end of a GM transfer's data; the units touched."""
        heap, active, rates, now = self.heap, self.active, self.rates, self.now
        t_heap = heap[0][0] if heap else math.inf
        t_gm, first = math.inf, None
        for k, left in active.items():
            t = now + left / rates[k]
            if t < t_gm:
                t_gm, first = t, k
        t = min(t_heap, t_gm)
        if active and t > now:
            for k in active:
                active[k] -= rates[k] * (t - now)
        self.now = t
        if not (t_gm <= t_heap and first is not None):
            ui = self.pop_event()
            return set() if ui is None else {ui}
        units = self.units
        finished = [k for k, left in active.items() if left <= 1e-9 * max(1.0, units[k[0]].gm_bytes[k[1]])]
        if first not in finished:
            finished.append(first)
        touched: set[int] = set()
        for k in finished:
            del active[k]
            self.end_data(*k)
            touched.add(k[0])
        self._new_rates()
        return touched

    def run(self) -> None:
        for ui in range(len(self.units)):
            self.try_start(ui)
        heap, active, cross = self.heap, self.active, self.cross_units
        while heap or active:
            if not active:  # no GM transfer moves data: the next event is the heap's
                self.now = heap[0][0]
                touched = self.pop_event()
                if touched is not None:
                    self.try_start(touched)
            else:
                for ui in self.step():
                    self.try_start(ui)
            for ui in cross:  # a record another unit just ended may release a cross-unit wait
                self.try_start(ui)
        for ui, u in enumerate(self.units):
            if not all(self.done[ui]):  # a record whose dependency never ends: cannot happen for recorded traces
                raise RuntimeError(f"timeline of {u.name} did not complete")


def schedule(units: list[UnitTrace], gm_bytes_per_cycle: float, t0: float = 0.0) -> Schedule:
    """Start / end of every record of ``units`` (written to ``UnitTrace.start`` / ``end``), from ``t0``."""
    _Scheduler(units, gm_bytes_per_cycle, t0).run()
    unit_end = {u.name: (max(u.end) if u.end else t0) for u in units}
    busy_map: dict[str, dict[Pipe, float]] = {}
    for u in units:
        per_index = [0.0] * NPIPES  # by pipe index: no enum hashing per record
        for p, s, e in zip(u.pipe, u.start, u.end, strict=True):
            per_index[p] += e - s
        busy_map[u.name] = dict(zip(PIPES, per_index, strict=True))
    makespan = max(unit_end.values(), default=t0)
    return Schedule(makespan, unit_end, busy_map)


__all__ = ["NPIPES", "ORIGIN_CODE", "ORIGIN_NAMES", "PIPES", "PIPE_INDEX", "Schedule", "UnitTrace", "schedule"]
