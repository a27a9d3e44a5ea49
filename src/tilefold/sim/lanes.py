"""The simulator side of a mixed kernel's ``pl.split_aiv`` regions and cross-core pipes (``backend/cross_core.py``).

- ``LaneRegion``: both AIV lanes of the cluster run the body, each as its own unit (``core<c>.aiv<k>``): its own
  Vec (sub-block ``k``'s), its own pipes and timeline, ``get_subblock_idx`` = ``k``, and GM accesses recorded
  under its own name, so the race detector (``sim/races.py``) reports lanes (or a lane and the cube) touching the
  same GM bytes with no order between them. A lane reaches only what an AIV reaches (Vec and GM): a cube
  memory inside a region is an ``IllegalUnit`` trap.
- ``TPush`` / ``TPop`` / ``TFree``: a FIFO of slots per pipe (and lane). A push copies the tile (each lane's part
  for c2v); a pop takes the oldest entry, checks it fits its tile, and writes it (the cube's v2c pop joins the
  two lanes' parts; with no split the lanes must agree, else ``UndefinedResult``). A pop with nothing pushed, a
  push whose slot (``slots`` pushes back) was never freed, a free with no pop, and an entry still in a pipe when
  the launch ends are faults (the device would wait forever, or lose the tile), never a hang.
- Timing: a push occupies the pipe of its transfer's first leg, a pop the second (``transfer_legs``: through GM
  where the chip has no direct path); a pop waits for its push's record on the other unit, a push for the free of
  the slot it reuses (the ring depth ``slots``), through ``UnitTrace.cross``.
- A pipe with a set-up (``ops/pipe_setup.py``): its depth is the set-up's ``slot_num`` (in the push), and a pop
  needs one of the consumer's ``local_slots`` not held by a popped, unfreed tile (a ``Deadlock`` otherwise: the
  consumer would wait for itself). ``RingSetup`` costs one scalar-pipe instruction (the target's table).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from tilefold.backend.cross_core import C2V, LaneRegion, RingSetup, TFree, TPop, TPush, transfer_legs
from tilefold.ir.types import MemorySpace
from tilefold.ops.cross_core_ops import LANES, MODE_OF_SPLIT, join_lanes, lanes_disagree, shard_value

from .faults import Deadlock, DeviceFault
from .memory import read, write
from .timeline import UnitTrace


class UndefinedResult(DeviceFault):
    """The two AIV lanes pushed different tiles into one no-split slot: the cube receives an unspecified one."""

    kind = "undefined result"


class _Entry:
    __slots__ = ("value", "trace", "record", "freed", "popped")

    def __init__(self, value: np.ndarray, trace: UnitTrace, record: int) -> None:
        self.value = value
        self.trace = trace
        self.record = record
        self.freed: tuple[UnitTrace, int] | None = None
        self.popped = False


class PipeState:
    """The cross-core pipes of one launch: per (block, pipe id, direction, lane) the entries pushed, popped and
    freed, in order."""

    def __init__(self) -> None:
        self.queued: dict[tuple, deque[_Entry]] = {}
        self.popped: dict[tuple, deque[_Entry]] = {}
        self.history: dict[tuple, list[_Entry]] = {}  # every push, for the ring depth

    def push(self, run: Any, key: tuple, value: np.ndarray, slots: int, ins: Any) -> None:
        hist = self.history.setdefault(key, [])
        record = len(run.trace) - 1
        if len(hist) >= slots:
            reused = hist[len(hist) - slots]
            if reused.freed is None:
                why = "was popped but never freed" if reused.popped else "holds a tile that was never popped"
                raise Deadlock(f"{ins.text()}: all {slots} slots of pipe {key[1]} are taken and the one this push "
                               f"needs {why}: the producer would wait forever",
                               instruction=ins.text(), hint="match every pop with a tfree (pl.tfree_to_aic / "
                                                            "pl.tfree_to_aiv) once the popped tile is consumed")
            run.trace.cross.setdefault(record, []).append(reused.freed)
        entry = _Entry(value, run.trace, record)
        hist.append(entry)
        self.queued.setdefault(key, deque()).append(entry)

    def pop(self, key: tuple, ins: Any) -> _Entry:
        q = self.queued.get(key)
        if not q:
            raise Deadlock(f"{ins.text()}: nothing was pushed to pipe {key[1]} (lane {key[3]}): the consumer would "
                           "wait forever", instruction=ins.text(),
                           hint="every pop needs a matching push from the peer core, in the same order")
        held = len(self.popped.get(key, ()))
        if ins.local_slots and held >= ins.local_slots:
            raise Deadlock(f"{ins.text()}: the consumer holds all {ins.local_slots} local slots of pipe {key[1]} "
                           f"(lane {key[3]}) in popped tiles it has not freed: this pop would wait forever",
                           instruction=ins.text(), hint="free a popped slot (pl.tfree_*) before the next pop, or "
                                                        "raise local_slot_num= (and the reserved buffer)")
        entry = q.popleft()
        entry.popped = True
        self.popped.setdefault(key, deque()).append(entry)
        return entry

    def free(self, run: Any, key: tuple, ins: Any) -> None:
        q = self.popped.get(key)
        if not q:
            raise Deadlock(f"{ins.text()}: no popped slot of pipe {key[1]} to free", instruction=ins.text(),
                           hint="free a slot once, after its pop")
        q.popleft().freed = (run.trace, len(run.trace) - 1)

    def check_drained(self, kernel: str) -> None:
        for key, q in self.queued.items():
            if q:
                raise Deadlock(f"kernel @{kernel}: {len(q)} tile(s) pushed to pipe {key[1]} (lane {key[3]}) were "
                               "never popped", hint="every push must be paired with a pop on the peer core")


def _state(run: Any) -> PipeState:
    st = getattr(run.m, "cross_core_pipes", None)
    if st is None:
        st = run.m.cross_core_pipes = PipeState()
    return st


def _lane(run: Any) -> int:
    lane = getattr(run, "lane", None)
    if lane is None:
        raise DeviceFault("a vector-lane pipe operation outside a pl.split_aiv region")
    return lane


def lane_trace_name(run: Any, lane: int) -> str:
    """The timeline name of AIV lane ``lane`` of ``run``'s core (its block's core in the round-robin placement)."""
    return f"core{core_index(run)}.aiv{lane}"


def lane_race_unit(run: Any, lane: int) -> str:
    """The race-log unit name of AIV lane ``lane`` of ``run``'s block (``sim/races.py``, ``sim/barrier.py``)."""
    return f"{lane_trace_name(run, lane)} (block {run.block_idx})"


def _lane_trace(run: Any, lane: int) -> tuple[UnitTrace, Any]:
    name = lane_trace_name(run, lane)
    traces, units = run.m.launch_traces, run.m.launch_units
    trace = traces.get(name)
    if trace is None:
        trace = traces[name] = UnitTrace(name)
    stats = units.get(name)
    if stats is None:
        stats = units[name] = type(run.stats)()
    return trace, stats


def x_LaneRegion(run: Any, ins: LaneRegion) -> None:
    """Run the region's body on both lanes (see the module docstring)."""
    core = run.mem.core
    for lane in range(LANES):
        trace, stats = _lane_trace(run, lane)
        child = type(run)(run.m, run.kernel, core, lane, run.block_idx, run.block_num, run.gm, run.regs, stats,
                          trace)
        child.mem = type(run.mem)(core, lane, "AIV")
        child.handles = dict(run.handles)
        child.lane = lane
        child.__dict__["_race_unit"] = lane_race_unit(run, lane)
        child.regs[ins.lane] = lane
        try:
            child.run(ins.body)
            child.finish()  # a region's events are its lane's: a set must be waited for inside it
        except DeviceFault as f:
            raise f.with_unit(f"{trace.name} (AIV lane {lane} of a pl.split_aiv region)") from None
    run.scalar(ins, run.costs.scalar_op)


def core_index(run: Any) -> int:
    return run.target.core_of_block(run.block_idx)


def _charge_leg(run: Any, ins: Any, leg: tuple[MemorySpace, MemorySpace] | None, nbytes: int) -> None:
    if leg is None:  # the data is already where the consumer reads it: a flag handshake on the scalar pipe
        run.scalar(ins, run.costs.scalar_op)
        return
    run._dma(ins, leg[0], leg[1], nbytes)


def x_TPush(run: Any, ins: TPush) -> None:
    src = run.h(ins.src)
    value = np.array(read(run._mem(src, ins), src, ins.text()), copy=True)
    legs = transfer_legs(run.target, src.space, ins.peer_space)
    _charge_leg(run, ins, legs[0], src.nbytes)
    st = _state(run)
    slots = ins.slots
    if ins.direction == C2V:
        for lane in range(LANES):
            st.push(run, (run.block_idx, ins.pipe_id, C2V, lane), shard_value(value, ins.split, lane), slots, ins)
    else:
        st.push(run, (run.block_idx, ins.pipe_id, ins.direction, _lane(run)), value, slots, ins)


def x_TPop(run: Any, ins: TPop) -> None:
    dst = run.h(ins.dst)
    mem = run._mem(dst, ins)  # a lane reaches only Vec and GM (IllegalUnit otherwise)
    st = _state(run)
    if ins.direction == C2V:
        entries = [st.pop((run.block_idx, ins.pipe_id, C2V, _lane(run)), ins)]
        value = entries[0].value
    else:
        entries = [st.pop((run.block_idx, ins.pipe_id, ins.direction, lane), ins) for lane in range(LANES)]
        parts = [e.value for e in entries]
        if MODE_OF_SPLIT[ins.split] == "NONE":
            where = lanes_disagree(parts) if parts[0].shape == parts[1].shape else (0, 0)
            if where is not None:
                raise UndefinedResult(
                    f"the two AIV lanes pushed different tiles to the no-split pipe {ins.pipe_id} (first at "
                    f"element {list(where)}): the cube receives an unspecified one of them", instruction=ins.text(),
                    hint="gather only a lane-uniform value out of a mode=NONE region, or use a data-parallel "
                         "(UP_DOWN / LEFT_RIGHT) region")
        value = join_lanes(parts, ins.split)
    if tuple(value.shape) != (dst.rows, dst.cols):
        raise DeviceFault(f"{ins.text()}: the slot holds a {list(value.shape)} tile, the destination is "
                          f"[{dst.rows}, {dst.cols}]", instruction=ins.text(),
                          hint="push and pop tiles of the same shape (a split halves it on the vector side)")
    write(mem, dst, value, ins.text())
    _, leg = transfer_legs(run.target, ins.peer_space, dst.space)
    _charge_leg(run, ins, leg, dst.nbytes)
    record = len(run.trace) - 1
    run.trace.cross.setdefault(record, []).extend((e.trace, e.record) for e in entries)


def x_TFree(run: Any, ins: TFree) -> None:
    run.scalar(ins, run.costs.scalar_op)
    st = _state(run)
    lanes = [_lane(run)] if ins.direction == C2V else list(range(LANES))
    for lane in lanes:
        st.free(run, (run.block_idx, ins.pipe_id, ins.direction, lane), ins)


def x_RingSetup(run: Any, ins: RingSetup) -> None:
    """A set-up instruction: its price on the scalar pipe (the ring it sets is in the pipes' instructions)."""
    run.scalar(ins, run.costs.table.scalar_instruction("pipe_setup").cycles)


def finish_launch(machine: Any, kernel: Any) -> None:
    """After a launch: every pushed tile was popped."""
    st = getattr(machine, "cross_core_pipes", None)
    machine.cross_core_pipes = None
    if st is not None:
        st.check_drained(kernel.name)


DISPATCH = {LaneRegion: x_LaneRegion, TPush: x_TPush, TPop: x_TPop, TFree: x_TFree, RingSetup: x_RingSetup}

__all__ = ["DISPATCH", "PipeState", "UndefinedResult", "finish_launch", "lane_race_unit", "lane_trace_name"]
