"""The simulator side of PyPTO's in-kernel barrier, GM fence and cache maintenance (``backend/system_sync.py``).

- **Phases.** A launch whose kernel holds a ``syncall`` runs its participants (every block; both sub-blocks of an
  AIV kernel's block) phase by phase (``util/phases.PhasedRun``): each runs up to its next barrier, and only once all
  have arrived do they go on. So work after the barrier on any block sees what every block stored before it. Each
  participant gets memories of its own (two blocks sharing a core in the round-robin placement would otherwise
  overwrite each other's tiles across the barrier). A participant that finishes while others wait at a barrier is a
  ``Deadlock``.
- **Occupancy.** A launch size the device cannot complete a barrier at (a hard barrier under a partial or over
  launch, a soft one whose ``used_cores`` is not the participant count) is a ``Deadlock`` before anything runs
  (codegen already refuses it when the size is the kernel's own ``pl.spmd`` count).
- **Time.** A barrier is two scalar records per participant: its arrival, then its release, which waits for every
  participant's arrival (``UnitTrace.cross``) and costs the barrier's price (``targets/system.py``, assumed).
  A fence waits for everything its unit issued before it (the stores have landed); cache maintenance costs its price.
- **Handoffs.** Accesses of different epochs (separated by a barrier) are ordered, so they do not race; but
  PyPTO's documents make the handoff sequence a requirement (the barrier only aligns arrival): the producer
  publishes its cache lines (``cacheinvalid``) and fences after its write, the consumer invalidates after the
  barrier before it reads. A cross-unit read (or overwrite) of data written in an earlier epoch without it is a
  ``StaleData`` fault naming the missing step. ``cacheinvalid(tensor)`` covers only the cache line holding the
  view's base element.
- **Pipe barriers.** ``pipe_barrier(PIPE_V / PIPE_M / PIPE_ALL)`` (``pl.system.bar_v`` / ``bar_m`` / ``bar_all``),
  priced by ``targets/system.py`` (``PipeSyncCosts``, assumed). The kernel's own ``set_flag`` / ``wait_flag`` events
  (``pl.system.sync_src`` / ``sync_dst``) run as codegen's do (``machine.py``), in an event space of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.backend.cross_core import kernel_lanes
from tilefold.backend.system_sync import CacheInvalid, GmFence, PipeBarrier, SyncAll, barriers, occupancy_problem
from tilefold.budget import BARRIER_ARRIVAL_STEPS
from tilefold.ops.cross_core_ops import LANES
from tilefold.targets import Pipe
from tilefold.targets.system import barrier_costs, participants, pipe_sync_costs, soft_barrier_cycles
from tilefold.util.phases import PhasedRun, barrier_slot

from .faults import Deadlock, DeviceFault
from .lanes import lane_race_unit, lane_trace_name
from .races import Access, _merge
from .timeline import ORIGIN_CODE, PIPE_INDEX, S

_ASSUMED = ORIGIN_CODE["assumed"]


class StaleData(DeviceFault):
    """A unit read (or overwrote) GM data another unit wrote before a barrier, without the publish / fence /
    invalidate sequence: on the device it may see the old bytes."""

    kind = "stale data"


def has_barriers(kernel: Any) -> bool:
    """Does ``kernel`` (a PTOKernel) hold a ``syncall``? (cached on the kernel)"""
    got = kernel.__dict__.get("_has_barriers")
    if got is None:
        got = kernel.__dict__["_has_barriers"] = next(barriers(kernel.body), None) is not None
    return got


def check_launch(kernel: Any, block_dim: int, target: Any) -> None:
    """A ``Deadlock`` when a launch of ``block_dim`` blocks cannot complete one of ``kernel``'s barriers."""
    for ins in barriers(kernel.body):
        why = occupancy_problem(ins, block_dim, target)
        if why is not None:
            raise Deadlock(f"{why}: the device deadlocks (error 507018)", instruction=ins.text(), span=ins.span,
                           hint="size the launch with pl.spmd(pl.system.available_aiv_count()) / "
                                "available_cluster_count(), or use a soft barrier with used_cores= the participants")


class LaunchPhases:
    """The barrier state of one launch: each participant's latest arrival record, the arrivals of the last release."""

    def __init__(self, machine: Any, kernel: Any) -> None:
        self.machine = machine
        self.kernel = kernel
        self.arrivals: dict[int, list[tuple[Any, int]]] = {}
        self.released: list[tuple[Any, int]] = []
        self.labels: list[str] = []
        self.waiting_at: dict[int, Any] = {}  # participant -> the SyncAll it last arrived at (for a deadlock's span)

    def run(self, runs: list[tuple[Any, str]]) -> None:
        """Run every ``(KernelRun, unit label)`` of the launch phase by phase."""
        self.labels = [label for _r, label in runs]
        bodies = [(lambda r=r, label=label: self._body(r, label)) for r, label in runs]
        PhasedRun(bodies, self._release, self._deadlock).run()

    def _body(self, run: Any, label: str) -> None:
        run.trace.begin_block(f"block {run.block_idx} of @{self.kernel.name}")
        with np.errstate(all="ignore"):
            try:
                run.run(run.kernel.body)
                run.finish()
            except DeviceFault as f:
                raise f.with_unit(f"{f.unit or label}") from None

    def _release(self, waiting: list[int]) -> None:
        self.released = [a for i in waiting for a in self.arrivals[i]]
        races = self.machine.races
        if races is not None:
            races.epoch += 1

    def _deadlock(self, waiting: list[int], finished: list[int]) -> BaseException:
        done = ", ".join(self.labels[i] for i in finished[:4]) + (" ..." if len(finished) > 4 else "")
        wait = ", ".join(self.labels[i] for i in waiting[:4]) + (" ..." if len(waiting) > 4 else "")
        at = next((self.waiting_at[i] for i in waiting if i in self.waiting_at), None)
        return Deadlock(f"kernel @{self.kernel.name}: {wait} wait at a pl.system.syncall that {done} finished "
                        "without reaching: the barrier never releases",
                        instruction=at.text() if at is not None else "",
                        span=getattr(at, "span", None) if at is not None else None,
                        hint="every participant of the launch must pass the same number of barriers: do not put a "
                             "syncall under a condition on the block or sub-block index")


def _lane_traces(run: Any) -> list[Any]:
    """The AIV lane timelines of ``run``'s core that its ``pl.split_aiv`` regions recorded so far
    (``lanes.lane_trace_name``): in a mixed kernel they take part in the barrier too."""
    if run.kernel.func_type != "InCore":
        return []
    traces = run.m.launch_traces
    return [traces[n] for n in (lane_trace_name(run, k) for k in range(LANES)) if n in traces]


def x_sync_all(run: Any, ins: SyncAll) -> None:
    slot = barrier_slot()
    phases = getattr(run.m, "phases", None)
    if slot is None or phases is None or getattr(run, "lane", None) is not None:
        raise DeviceFault(f"`{ins.text()}` inside a pl.split_aiv region: a barrier runs at the kernel level",
                          instruction=ins.text(), hint="put the barrier outside every region (PyPTO's language/04: "
                                                       "'Cube ops and barriers stay outside')")
    runner, index = slot
    run.stats.instructions += 1
    traces = [run.trace] + _lane_traces(run)
    mine = [(t, t.add(S, ins, 0.0)) for t in traces]  # arrival: when each core's scalar unit issues the barrier
    phases.arrivals[index] = mine
    phases.waiting_at[index] = ins
    run.budget.spend(BARRIER_ARRIVAL_STEPS, ins.span, f"`{ins.text()}`")
    runner.arrive(index)
    if ins.mode == "hard":
        cost = barrier_costs(run.target).hard
    else:
        used = ins.used_cores or participants(run.block_num, ins.core_type, run.target)
        cost = soft_barrier_cycles(run.target, used)
    for t, arrival in mine:  # release: once every participant arrived, after the barrier's own time
        release = t.add(S, ins, cost, origin=_ASSUMED)
        t.cross[release] = [a for a in phases.released if a != (t, arrival)]


def _lane_units(run: Any) -> tuple[str, ...]:
    """The race-log names of the AIV lanes of ``run``'s block when its kernel has ``pl.split_aiv`` regions (their
    names as sim/lanes.py gives them): a kernel-level fence or invalidation runs on them too."""
    kernel = run.kernel
    lanes = kernel.__dict__.get("_has_lanes")
    if lanes is None:
        lanes = kernel.__dict__["_has_lanes"] = kernel.func_type == "InCore" and kernel_lanes(kernel.body)
    if not lanes or getattr(run, "lane", None) is not None:
        return ()
    return tuple(lane_race_unit(run, k) for k in range(LANES))


def x_fence(run: Any, ins: GmFence) -> None:
    run.stats.instructions += 1
    for t in [run.trace] + _lane_traces(run):  # in a mixed kernel the lanes' stores are waited for too
        idx = t.add(S, ins, barrier_costs(run.target).fence, origin=_ASSUMED)
        t.deps[idx] = tuple(sorted({r for r in (*t.last, *t.last_work) if 0 <= r < idx}))  # every issued record
    if run.races is not None:
        run.races.sync_event(run, "fence", also=_lane_units(run))


def x_cache_invalid(run: Any, ins: CacheInvalid) -> None:
    run.stats.instructions += 1
    costs = barrier_costs(run.target)
    run.trace.add(S, ins, costs.invalidate_all if ins.tensor is None else costs.invalidate_line, origin=_ASSUMED)
    if run.races is None:
        return
    if ins.tensor is None:
        run.races.sync_event(run, "inval", also=_lane_units(run))
        return
    arr = run.gm[ins.tensor]
    flat = 0  # the element at the offsets, row-major from the base: past the tensor it covers none of it
    for o, n in zip(ins.offsets, arr.shape, strict=False):
        flat = flat * n + run.ev_int(o)
    per_line = max(costs.cache_line_bytes // arr.itemsize, 1)
    lo = flat // per_line * per_line
    run.races.sync_event(run, "inval", arr, lo, lo + per_line, also=_lane_units(run))


def x_pipe_barrier(run: Any, ins: PipeBarrier) -> None:
    """``pipe_barrier``: a record on its pipe (queues run in order, so it starts once the pipe's earlier work has
    ended, and the pipe's later work after it); PIPE_ALL a scalar record that waits for every record issued so far
    (every later instruction is issued after it) and orders every pipe after every pipe for the hazard check."""
    run.stats.instructions += 1
    costs = pipe_sync_costs(run.target)
    t = run.trace
    if ins.pipe == "ALL":
        run.hazards.tick(S)
        idx = t.add(S, ins, costs.barrier_all, origin=_ASSUMED)
        t.deps[idx] = tuple(sorted({r for r in (*t.last, *t.last_work, *t.floating) if 0 <= r < idx}))
        run.hazards.barrier_all()
        return
    pipe = PIPE_INDEX[Pipe(ins.pipe)]
    run.hazards.tick(pipe)
    t.add(pipe, ins, costs.pipe_barrier, origin=_ASSUMED)


DISPATCH = {SyncAll: x_sync_all, GmFence: x_fence, CacheInvalid: x_cache_invalid, PipeBarrier: x_pipe_barrier}


# ------------------------------------------------------------------------------------------------ handoffs
def _covered(log: Any, unit: str, epoch: int, key: int, after: int, before: int, a: Access) -> int | None:
    """The seq of the first invalidation by ``unit`` in ``epoch`` between ``after`` and ``before`` covering every
    element ``a`` touches (whole GM, or the cache lines of ``a``'s tensor invalidated in that stretch)."""
    regions: list[tuple[int, int]] = []
    for seq, ep, kind, k, lo, hi in log.syncs.get(unit, ()):
        if kind != "inval" or ep != epoch or not after < seq < before:
            continue
        if k is None:
            return seq
        if k == key:
            regions.append((lo, hi))
            s, e = _merge(np.array([r[0] for r in regions]), np.array([r[1] for r in regions]))
            i = np.searchsorted(e, a.starts, side="right")
            ok = (i < len(s)) & (s[np.minimum(i, len(s) - 1)] <= a.starts) \
                & (e[np.minimum(i, len(s) - 1)] >= a.starts + a.length)
            if ok.all():
                return seq
    return None


def _published(log: Any, key: int, w: Access) -> str | None:
    """What the producer of write ``w`` left out before the barrier (None: it invalidated and fenced)."""
    inval = _covered(log, w.unit, w.epoch, key, w.seq, 1 << 62, w)
    if inval is None:
        return "publish its cache lines (pl.system.cacheinvalid()) after the write"
    for seq, ep, kind, _k, _lo, _hi in log.syncs.get(w.unit, ()):
        if kind == "fence" and ep == w.epoch and seq > inval:
            return None
    return "fence (pl.system.fence()) after publishing the write"


def _overlap(a: Access, b: Access) -> tuple[int, int] | None:
    s1, e1 = _merge(a.starts, a.starts + a.length)
    s2, e2 = _merge(b.starts, b.starts + b.length)
    i = np.searchsorted(e2, s1, side="right")
    j = np.minimum(i, len(s2) - 1)
    hit = (i < len(s2)) & (s2[j] < e1)
    if not hit.any():
        return None
    k = int(np.flatnonzero(hit)[0])
    return max(int(s1[k]), int(s2[j[k]])), min(int(e1[k]), int(e2[j[k]]))


def check_handoffs(log: Any, key: int, accesses: list[Access]) -> None:
    """Report the first cross-epoch handoff of tensor ``key`` that skips the publish / fence / invalidate sequence."""
    if len({a.epoch for a in accesses}) < 2 or len({a.unit for a in accesses}) < 2:
        return
    writes = [a for a in accesses if a.write]
    later = [a for a in accesses if a.write or log.live(a)]
    for w in writes:
        missing_w = _published(log, key, w)
        for b in later:
            if b.unit == w.unit or b.epoch <= w.epoch:
                continue
            missing = missing_w
            if missing is None and not b.write and _covered(log, b.unit, b.epoch, key, -1, b.seq, b) is None:
                missing = "invalidate its cache (pl.system.cacheinvalid()) after the barrier, before the read"
            if missing is None:
                continue
            hit = _overlap(w, b)
            if hit is not None:
                _report(log, key, w, b, hit, missing)


def _report(log: Any, key: int, w: Access, b: Access, hit: tuple[int, int], missing: str) -> None:
    name, isz = log.names[key], log.itemsizes[key]
    who = w.unit if missing.startswith(("publish", "fence")) else b.unit
    raise StaleData(
        f"@{name} in kernel @{log.kernel}: elements [{hit[0]}, {hit[1]}) (bytes [{hit[0] * isz}, {hit[1] * isz})) "
        f"are written by {w.unit} at `{w.instruction}` before a barrier and {'written' if b.write else 'read'} by "
        f"{b.unit} at `{b.instruction}` after it; {who} does not {missing}: a barrier only aligns arrival, so "
        "the device may see the old bytes", space="GM", span=b.span,
        hint="around the barrier: pl.system.cacheinvalid(); pl.system.fence(); pl.system.syncall(...); "
             "pl.system.cacheinvalid() (PyPTO's language/04, 'Cross-lane ordering is yours too')")


__all__ = ["DISPATCH", "LaunchPhases", "StaleData", "check_handoffs", "check_launch", "has_barriers"]
