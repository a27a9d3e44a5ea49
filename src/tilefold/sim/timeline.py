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
                 "end", "flows", "block_starts", "floating", "last_work", "origin")

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


def schedule(units: list[UnitTrace], gm_bytes_per_cycle: float, t0: float = 0.0) -> Schedule:
    """Start / end of every record of ``units`` (written to ``UnitTrace.start`` / ``end``), from ``t0``."""
    heap: list[tuple[float, int, int, int, int]] = []  # (time, tie, kind, unit, record); kind 0 end, 1 gm data
    tie = 0
    nxt = [[0] * NPIPES for _ in units]  # position of the next record in each pipe queue
    queues: list[list[list[int]]] = []
    busy = [[False] * NPIPES for _ in units]
    done: list[list[bool]] = []
    for u in units:
        q: list[list[int]] = [[] for _ in range(NPIPES)]
        for i, p in enumerate(u.pipe):
            if i not in u.floating:
                q[p].append(i)
        queues.append(q)
        done.append([False] * len(u.pipe))
        u.start = array("d", bytes(8 * len(u.pipe)))
        u.end = array("d", bytes(8 * len(u.pipe)))
    active: dict[tuple[int, int], float] = {}  # (unit, record) -> bytes left
    used_pipes = [tuple(p for p in range(NPIPES) if q[p]) for q in queues]
    pending_markers = []
    for u in units:
        per_pipe: list[deque] = [deque() for _ in range(NPIPES)]
        for r in sorted(u.floating):
            per_pipe[u.pipe[r]].append(r)
        pending_markers.append([mq for mq in per_pipe if mq])
    engine_busy: set[tuple[int, int]] = set()  # (unit, pipe) whose engine moves data now
    engine_wait: dict[tuple[int, int], tuple[int, int]] = {}  # (unit, pipe) -> transfer past its latency
    caps: dict[tuple[int, int], float] = {}
    rates: dict[tuple[int, int], float] = {}
    now = t0

    def try_start(ui: int) -> None:
        nonlocal tie
        u = units[ui]
        q, pos, b, d = queues[ui], nxt[ui], busy[ui], done[ui]
        markers = pending_markers[ui]
        deps = u.deps
        gm_bytes, latency, work, start, end = u.gm_bytes, u.latency, u.work, u.start, u.end
        pipes = used_pipes[ui]
        progress = True
        while progress:
            progress = False
            for mq in markers:  # per pipe, markers become ready in issue order: look at the oldest only
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
            for p in pipes:
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
                if not ready:
                    continue
                gb = gm_bytes[r]
                if (gb <= 0 and (latency[r] > 0 or work[r] > 0)
                        and ((ui, p) in engine_busy or (ui, p) in engine_wait)):
                    continue  # only a next transfer overlaps a transfer in flight; anything else waits for it
                pos[p] = i + 1
                b[p] = True
                start[r] = now
                tie += 1
                if gb > 0:
                    heapq.heappush(heap, (now + latency[r], tie, 1, ui, r))
                else:
                    dur = latency[r] + work[r]
                    if dur <= 0:
                        finish(ui, r)
                        progress = True
                    else:
                        heapq.heappush(heap, (now + dur, tie, 0, ui, r))

    def finish(ui: int, r: int) -> None:
        u = units[ui]
        u.end[r] = now
        done[ui][r] = True
        busy[ui][u.pipe[r]] = False

    def begin_data(ui: int, r: int) -> None:
        """Transfer ``r`` starts moving data: the engine is taken; the pipe may issue its next record."""
        k = (ui, r)
        u = units[ui]
        u.start[r] = now
        active[k] = u.gm_bytes[r]
        caps[k] = u.gm_cap[r]
        engine_busy.add((ui, u.pipe[r]))
        busy[ui][u.pipe[r]] = False

    def end_data(ui: int, r: int) -> None:
        u = units[ui]
        u.end[r] = now
        done[ui][r] = True
        engine = (ui, u.pipe[r])
        engine_busy.discard(engine)
        waiting = engine_wait.pop(engine, None)
        if waiting is not None:
            begin_data(*waiting)

    for ui in range(len(units)):
        try_start(ui)
    heappop = heapq.heappop
    while heap or active:
        if not active:  # no GM transfer moves data: the next event is the heap's (same steps as below)
            now, _, kind, ui, r = heappop(heap)
            if kind == 1:
                engine = (ui, units[ui].pipe[r])
                if engine in engine_busy:
                    engine_wait[engine] = (ui, r)
                    rates = _rates(active, caps, gm_bytes_per_cycle)
                    continue
                begin_data(ui, r)
                rates = _rates(active, caps, gm_bytes_per_cycle)
            else:
                finish(ui, r)
            try_start(ui)
            continue
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
        now = t
        touched: set[int] = set()
        if t_gm <= t_heap and first is not None:
            finished = [k for k, left in active.items() if left <= 1e-9 * max(1.0, units[k[0]].gm_bytes[k[1]])]
            if first not in finished:
                finished.append(first)
            for k in finished:
                del active[k]
                end_data(*k)
                touched.add(k[0])
            rates = _rates(active, caps, gm_bytes_per_cycle)
        else:
            _, _, kind, ui, r = heapq.heappop(heap)
            if kind == 1:  # latency over: move data now if the engine is free, else right after it
                engine = (ui, units[ui].pipe[r])
                if engine in engine_busy:
                    engine_wait[engine] = (ui, r)
                else:
                    begin_data(ui, r)
                    touched.add(ui)
                rates = _rates(active, caps, gm_bytes_per_cycle)
            else:
                finish(ui, r)
                touched.add(ui)
        for ui in touched:
            try_start(ui)
    for ui, u in enumerate(units):
        if not all(done[ui]):  # a record whose dependency never ends: cannot happen for recorded traces
            raise RuntimeError(f"timeline of {u.name} did not complete")
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
