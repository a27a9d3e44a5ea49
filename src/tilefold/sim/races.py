"""GM race detection between the units of one kernel launch.

The simulator runs the units of a launch (the two vector sub-blocks of an AIV kernel, the blocks of a
``block_dim > 1`` launch) one after another, so a program whose units touch the same GM bytes without an
order between them would silently get the result of that one order. The device gives no such order: two
units of one launch are unordered, while the launches of an orchestration run one after another. This
module records every GM access of a launch and, when the launch ends, reports the first conflict as a
``RaceDetected`` fault:

- two different units write overlapping bytes (even the same values: DESIGN.md section 1), or
- a unit reads bytes another unit writes, and the reading unit writes GM after that read.

An atomic add (``tstore ... atomic=add``) is a write that commutes with the atomic adds of other units: two
units adding into the same bytes do not race (the sum does not depend on their order), but an atomic add
against a plain write, or against a live read, of another unit does.

The second rule leaves out *dead* reads, whose value cannot reach any result: sub-block 1 of a kernel whose
stores are limited to sub-block 0 loads the tensor sub-block 0 rewrites, but what it loaded flows into no
GM write sub-block 1 performs. Which reads reach which writes is tracked dynamically per unit (``DataFlow``:
a shadow of every on-chip byte holding a bit per load instruction, OR-ed from sources to destinations by
every data instruction; scalars never depend on GM data, so there is no control dependence to track).
The tracking over-approximates (a 64-bit set, whole byte spans, no clearing on overwrite): a read may be
taken as live when it is not, never the reverse. Every live read of bytes another unit writes is
reported, even when the value happens not to matter: a race is detected, never reproduced.

Accesses are recorded as element intervals: a GM window (a numpy view of a C-contiguous tensor) is cut
into its contiguous runs (one per outer index; trailing full axes fold into the run), computed with numpy,
and the check sorts and merges intervals per tensor (n log n in the number of runs, never per byte).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tilefold.backend.cross_core import TPush
from tilefold.backend.pto import (
    SRead,
    SWrite,
    TCustom,
    TExtract,
    TGatherRow,
    TIndirect,
    TLoad,
    TMatmul,
    TStore,
    TVector,
)

from .faults import RaceDetected
from .memory import FR


@dataclass(slots=True)
class Access:
    """One recorded GM access: which unit, which instruction, read or write, and its contiguous runs."""

    unit: str
    seq: int  # position in the unit's access order
    write: bool
    tensor: str
    ins: Any  # the PTO instruction (``instruction`` gives its text)
    starts: np.ndarray  # element offsets of the runs from the tensor's base
    length: int  # elements per run
    bit: int = 0  # a read: the data-flow bit of its load instruction
    atomic: bool = False  # a write that adds into GM (commutes with other units' atomic adds)
    epoch: int = 0  # barriers (pl.system.syncall) of the launch released before it: accesses of two epochs are ordered

    @property
    def instruction(self) -> str:
        return self.ins.text()

    @property
    def span(self) -> Any:
        return getattr(self.ins, "span", None)


def window_runs(base: np.ndarray, view: np.ndarray, base_address: int | None = None) -> tuple[np.ndarray, int]:
    """The contiguous element runs of ``view`` (a view of the C-contiguous ``base``): their start offsets
    from ``base``'s first element, and the (common) run length."""
    isz = base.itemsize
    if view.size == 0:
        return np.zeros(0, np.int64), 0
    if base_address is None:
        base_address = base.__array_interface__["data"][0]
    offset = (view.__array_interface__["data"][0] - base_address) // isz
    if view.ndim == 2 and view.strides[1] == isz:  # the common case: rows of a 2-D tensor
        n, stride = view.shape[0], view.strides[0] // isz
        if n == 1 or stride == view.shape[1]:
            return np.array([offset], np.int64), view.size
        return offset + np.arange(n, dtype=np.int64) * stride, view.shape[1]
    dims = [(int(n), int(s) // isz) for n, s in zip(view.shape, view.strides, strict=True) if n != 1]
    run = 1
    while dims and dims[-1][1] == run:  # trailing axes that continue the run
        run *= dims.pop()[0]
    starts = np.array([offset], np.int64)
    for n, stride in dims:
        starts = (starts[:, None] + np.arange(n, dtype=np.int64)[None, :] * stride).ravel()
    return starts, run


def _merge(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Union of intervals [starts, ends) as sorted, disjoint intervals."""
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), bool)
    new[1:] = s[1:] > reach[:-1]
    idx = np.flatnonzero(new)
    return s[idx], np.maximum.reduceat(e, idx)


def _gm_tensors(body, loaded: set[str], stored: set[str]) -> None:
    for ins in body:
        t = type(ins)
        if t is TLoad or t is SRead or t is TGatherRow or (t is TIndirect and ins.gathers):
            loaded.add(ins.tensor)
        elif t is TStore or t is SWrite or t is TIndirect:
            stored.add(ins.tensor)
        for sub in (getattr(ins, "body", None), getattr(ins, "then_body", None), getattr(ins, "else_body", None)):
            if sub:
                _gm_tensors(sub, loaded, stored)


class LaunchAccesses:
    """The GM accesses of one launch of ``kernel`` (a ``PTOKernel``) on the GM tensors ``gm`` (parameter
    name -> array), by unit. ``check()`` raises ``RaceDetected`` on a conflict. Reads are recorded (and
    their data followed) only for tensors the kernel also stores to: other reads cannot race."""

    def __init__(self, kernel: Any, gm: dict[str, np.ndarray]) -> None:
        cached = kernel.__dict__.get("_race_tensors")
        if cached is None:
            loaded: set[str] = set()
            stored: set[str] = set()
            _gm_tensors(kernel.body, loaded, stored)
            cached = kernel.__dict__["_race_tensors"] = (frozenset(loaded), frozenset(stored))
        written = {id(gm[n]) for n in cached[1] if n in gm}
        self.read_keys = {id(gm[n]) for n in cached[0] if n in gm} & written  # reads that may race
        self.kernel = kernel.name
        self.accesses: dict[int, list[Access]] = {}  # id(tensor array) -> accesses
        self.names: dict[int, str] = {}
        self.shapes: dict[int, tuple[int, ...]] = {}
        self.itemsizes: dict[int, int] = {}
        self._seq = 0
        self.flows: dict[str, DataFlow] = {}  # unit -> its data flow
        self._load_bits: dict[int, int] = {}  # id(TLoad) -> its data-flow bit
        self._bases: dict[int, int] = {}  # id(tensor array) -> address of its first byte
        self.epoch = 0  # barriers released so far (sim/barrier.py)
        self.handoff_check: Any = None  # sim/barrier.check_handoffs, set by a launch with barriers
        # unit -> its fences and cache invalidations: (seq, epoch, kind, id(tensor) or None, first, end element)
        self.syncs: dict[str, list[tuple[int, int, str, int | None, int, int]]] = {}

    def sync_event(self, run: Any, kind: str, base: np.ndarray | None = None, lo: int = 0, hi: int = 0,
                   also: tuple[str, ...] = ()) -> None:
        """Record a ``fence`` / ``inval`` of ``run`` (for an invalidation of one region: the elements [lo, hi) of
        GM tensor ``base``), ordered with the unit's accesses, and for the units named in ``also`` (the AIV lanes
        of a mixed kernel: a kernel-level op runs on both lanes too); sim/barrier.py checks the handoffs."""
        self._seq += 1
        key = None if base is None else id(base)
        for unit in (self.unit(run), *also):
            self.syncs.setdefault(unit, []).append((self._seq, self.epoch, kind, key, lo, hi))

    def load_bit(self, ins: Any) -> int:
        bit = self._load_bits.get(id(ins))
        if bit is None:
            bit = self._load_bits[id(ins)] = 1 << (len(self._load_bits) % 64)
        return bit

    @staticmethod
    def unit(run: Any) -> str:
        """The name of the unit ``run`` (a ``KernelRun``) executes on: ``core3.aiv1 (block 7)``."""
        name = run.__dict__.get("_race_unit")
        if name is None:
            core = run.target.core_of_block(run.block_idx)
            ft = run.kernel.func_type
            where = f"aiv{run.subblock}" if ft == "AIV" else "aic" if ft == "AIC" else ""
            name = run.__dict__["_race_unit"] = f"core{core}{'.' + where if where else ''} (block {run.block_idx})"
        return name

    def step(self, run: Any, ins: Any) -> None:
        """Follow the data of one executed instruction of ``run`` (a ``KernelRun``)."""
        if not self.read_keys:
            return
        unit = self.unit(run)
        flow = self.flows.get(unit)
        if flow is None:
            flow = self.flows[unit] = DataFlow(self)
        flow.step(run, ins)

    def record(self, run: Any, write: bool, tensor: str, base: np.ndarray, view: np.ndarray, ins: Any,
               atomic: bool = False) -> None:
        """Record that ``run`` (a ``KernelRun``) reads (or writes; ``atomic``: adds into) the window ``view``
        of GM tensor ``base`` at ``ins``."""
        key = id(base)
        if not write and key not in self.read_keys:
            return
        accesses = self.accesses.get(key)
        if accesses is None:
            accesses = self.accesses[key] = []
            self.names[key], self.shapes[key], self.itemsizes[key] = tensor, base.shape, base.itemsize
            self._bases[key] = base.__array_interface__["data"][0]
        starts, length = window_runs(base, view, self._bases[key])
        if length == 0:
            return
        unit = self.unit(run)
        self._seq += 1
        bit = 0 if write else self.load_bit(ins)
        accesses.append(Access(unit, self._seq, write, tensor, ins, starts, length, bit, atomic, self.epoch))
        if write:
            flow = self.flows.get(unit)
            if flow is None:
                flow = self.flows[unit] = DataFlow(self)
            flow.pending_write = self._seq

    # ------------------------------------------------------------------------------------------

    def live(self, a: Access) -> bool:
        """Can the data read by ``a`` reach a GM write its unit performs after it? A scalar element read
        always may: a register can steer any later write (an offset, a multiplier), and registers are not
        followed."""
        if type(a.ins) is SRead:
            return True
        flow = self.flows.get(a.unit)
        return flow is not None and flow.reaches_later_write(a.seq, a.bit)

    def check(self) -> None:
        if self.epoch:  # a launch with barriers: accesses race only within one epoch; across, the handoff rules
            for key, accesses in self.accesses.items():
                for epoch in sorted({a.epoch for a in accesses}):
                    self._check_accesses(key, [a for a in accesses if a.epoch == epoch])
                if self.handoff_check is not None:
                    self.handoff_check(self, key, accesses)
            return
        for key, accesses in self.accesses.items():
            self._check_accesses(key, accesses)

    def _check_accesses(self, key: int, accesses: list[Access]) -> None:
        if len({a.unit for a in accesses}) > 1 and any(a.write for a in accesses):
            if _disjoint_writes_only(accesses):
                return  # no access overlaps any other: nothing to report (see the helper)
            atomics = [a for a in accesses if a.atomic]
            if atomics:  # plain accesses among themselves, then every atomic add against them
                self._check_tensor(key, [a for a in accesses if not a.atomic])
                self._check_atomics(key, accesses, atomics)
            else:
                self._check_tensor(key, accesses)

    def _check_atomics(self, key: int, accesses: list[Access], atomics: list[Access]) -> None:
        """An atomic add of one unit against the plain writes and live reads of the other units (atomic adds
        of different units commute: they never conflict with each other). Per unit, the merged intervals of
        its atomic adds are compared with the merged plain accesses of all other units (sorted search)."""
        units = sorted({a.unit for a in atomics})
        plain = [a for a in accesses if not a.atomic and (a.write or self.live(a))]
        for u in units:
            others = [a for a in plain if a.unit != u]
            if not others:
                continue
            mine = [a for a in atomics if a.unit == u]
            s, e = _merge(*_intervals(mine))
            os_, oe = _merge(*_intervals(others))
            lo = np.searchsorted(oe, s, side="right")  # first other interval ending after the add starts
            hit = (lo < len(os_)) & (os_[np.minimum(lo, len(os_) - 1)] < e)
            if hit.any():
                i = int(np.flatnonzero(hit)[0])
                a_lo, a_hi = max(int(s[i]), int(os_[lo[i]])), min(int(e[i]), int(oe[lo[i]]))
                other = _culprit_any(others, a_lo, a_hi)
                self._raise(key, mine + others, u, True, other.unit, a_lo, a_hi,
                            reader=None if other.write else self.live)

    def _check_tensor(self, key: int, accesses: list[Access]) -> None:
        by_unit: dict[str, tuple[list[Access], list[Access]]] = {}  # unit -> (writes, reads)
        for a in accesses:
            by_unit.setdefault(a.unit, ([], []))[0 if a.write else 1].append(a)
        units = sorted(by_unit)
        unit_no = {u: i for i, u in enumerate(units)}
        ws, we, wu = [], [], []
        for u in units:
            mine = by_unit[u][0]
            if mine:
                s, e = _merge(*_intervals(mine))
                ws.append(s)
                we.append(e)
                wu.append(np.full(len(s), unit_no[u]))
        if not ws:
            return
        s, e, owner = np.concatenate(ws), np.concatenate(we), np.concatenate(wu)
        order = np.argsort(s, kind="stable")
        s, e, owner = s[order], e[order], owner[order]
        if len(s) > 1:  # write / write: per-unit unions are disjoint, so any overlap is across units
            reach = np.maximum.accumulate(e)
            bad = np.flatnonzero(s[1:] < reach[:-1])
            if len(bad):
                i = int(bad[0]) + 1
                j = int(np.flatnonzero((e[:i] > s[i]) & (owner[:i] != owner[i]))[0])
                lo, hi = int(s[i]), int(min(e[i], e[j]))
                self._raise(key, accesses, units[owner[j]], True, units[owner[i]], lo, hi)
        # read / write: the writes are now disjoint with one owner each
        changes = np.concatenate(([0], np.cumsum(owner[1:] != owner[:-1])))
        for u in units:
            live = [a for a in by_unit[u][1] if self.live(a)]
            if not live:
                continue
            rs, re_ = _merge(*_intervals(live))
            lo = np.searchsorted(e, rs, side="right")  # first write ending after the read starts
            hi = np.searchsorted(s, re_, side="left")  # writes starting before the read ends: [lo, hi)
            has = hi > lo
            if not has.any():
                continue
            lo_c, hi_c = np.where(has, lo, 0), np.where(has, hi - 1, 0)
            foreign = has & ((owner[lo_c] != unit_no[u]) | (changes[hi_c] != changes[lo_c]))
            if foreign.any():
                r = int(np.flatnonzero(foreign)[0])
                k = next(k for k in range(int(lo[r]), int(hi[r])) if owner[k] != unit_no[u])
                a, b = max(int(rs[r]), int(s[k])), min(int(re_[r]), int(e[k]))
                self._raise(key, accesses, units[owner[k]], True, u, a, b, reader=self.live)

    def _raise(self, key: int, accesses: list[Access], unit_a: str, write_a: bool, unit_b: str, lo: int,
               hi: int, reader=None) -> None:
        first = _culprit(accesses, unit_a, write_a, lo, hi)
        second = _culprit(accesses, unit_b, reader is None, first[1], first[2], reader)
        lo, hi = second[1], second[2]
        a, b = first[0], second[0]
        name, shape, isz = self.names[key], self.shapes[key], self.itemsizes[key]
        first_idx = list(np.unravel_index(lo, shape)) if shape else []
        last_idx = list(np.unravel_index(hi - 1, shape)) if shape else []
        kind = "write / write" if b.write else "write / read"
        message = (f"{kind} race on @{name} in kernel @{self.kernel}: elements [{lo}, {hi}) of the flattened "
                   f"tensor (from {[int(x) for x in first_idx]} to {[int(x) for x in last_idx]}, bytes "
                   f"[{lo * isz}, {hi * isz})) are written by {a.unit} at `{a.instruction}`{_where(a.span)}"
                   + f" and {'written' if b.write else 'read'} by {b.unit} at `{b.instruction}`{_where(b.span)}"
                   + ", with no order between the two units")
        raise RaceDetected(message, first=a, second=b, tensor=name, elements=(lo, hi),
                           hint="units of one launch (the two vector sub-blocks, the blocks of a block_dim launch) "
                                "run unordered: give each unit its own GM window (split by get_subblock_idx / "
                                "get_block_idx), or limit the store to one unit")


def _disjoint_writes_only(accesses: list[Access]) -> bool:
    """True when ``accesses`` are all writes and no two of them share an element: then neither rule can
    fire (a write / write race needs two overlapping writes, a write / read race a read), so the full
    check is skipped. A cheap proof only: any overlap, or any read, sends the tensor to the full check."""
    runs = []
    for a in accesses:
        if not a.write:
            return False
        if len(a.starts) > 8:  # many runs: leave it to the vectorised check
            return False
        runs.extend((int(x), int(x) + a.length) for x in a.starts)
    runs.sort()
    reach = -1
    for lo, hi in runs:
        if lo < reach:
            return False
        reach = hi
    return True


def _culprit_any(accesses: list[Access], lo: int, hi: int) -> Access:
    """The first of ``accesses`` touching [lo, hi) (only called to report a race)."""
    for a in accesses:
        if (np.minimum(a.starts + a.length, hi) > np.maximum(a.starts, lo)).any():
            return a
    raise AssertionError("race culprit not found")  # pragma: no cover


def _where(span: Any) -> str:
    return f" ({span.filename}:{span.line})" if span is not None and getattr(span, "line", 0) else ""


def _intervals(accesses: list[Access]) -> tuple[np.ndarray, np.ndarray]:
    starts = np.concatenate([a.starts for a in accesses])
    ends = np.concatenate([a.starts + a.length for a in accesses])
    return starts, ends


def _culprit(accesses: list[Access], unit: str, write: bool, lo: int, hi: int,
             keep=None) -> tuple[Access, int, int]:
    """The first access of ``unit`` (writes, or the reads ``keep`` accepts) touching [lo, hi), and the part
    of [lo, hi) it covers. Only called to report a race."""
    for a in accesses:
        if a.unit != unit or a.write != write or (keep is not None and not keep(a)):
            continue
        s = np.maximum(a.starts, lo)
        e = np.minimum(a.starts + a.length, hi)
        hit = np.flatnonzero(e > s)
        if len(hit):
            return a, int(s[hit[0]]), int(e[hit[0]])
    raise AssertionError("race culprit not found")  # pragma: no cover  (the check found an overlap)


_GRAIN = 32  # bytes per shadow entry: the vector base alignment, so Vec tiles map onto whole grains


class DataFlow:
    """Which loads of one unit reach which of its GM writes: a uint64 shadow per on-chip memory space,
    one bit per load instruction, carried from every data instruction's source bytes to its destination
    bytes. A row-major (ND) tile is followed byte-exactly (its rows, not the gaps between them), and a
    destination it fully rewrites gets exactly its sources' bits (so a reused buffer forgets what it held);
    other layouts use their whole byte span and only ever gain bits."""

    def __init__(self, log: LaunchAccesses) -> None:
        self.log = log
        self.shadows: dict[Any, np.ndarray] = {}
        self.write_seqs: list[int] = []
        self.write_bits: list[int] = []
        self.pending_write: int | None = None
        self._suffix: np.ndarray | None = None
        self._seqs: np.ndarray | None = None
        self._views: dict[tuple, np.ndarray] = {}

    def _shadow(self, run: Any, space: Any) -> np.ndarray:
        sh = self.shadows.get(space)
        if sh is None:
            sh = self.shadows[space] = np.zeros(len(run.mem[space]) // _GRAIN + 1, np.uint64)
        return sh

    def _bytes(self, run: Any, h: Any) -> tuple[np.ndarray, bool]:
        """The shadow of ``h``'s bytes (in 32-byte grains), and whether it is exact: an ND tile whose rows
        are whole grains. Otherwise the grains of its whole byte span (an over-approximation)."""
        key = (h.space, h.lo, h.hi, h.rows, h.cols, h.pitch, h.isz, h.layout)
        got = self._views.get(key)
        if got is not None:
            return got
        sh = self._shadow(run, h.space)
        g = _GRAIN
        row, pitch = h.cols * h.isz, h.pitch * h.isz
        if (h.layout == "ND" and not h.packed and h.rows > 0 and row > 0 and h.pitch >= h.cols and h.lo >= 0
                and h.lo % g == 0
                and row % g == 0 and pitch % g == 0 and h.hi <= len(sh) * g):
            if h.rows == 1 or pitch == row:
                got = (sh[h.lo // g:h.hi // g], True)
            else:
                got = (np.lib.stride_tricks.as_strided(sh[h.lo // g:], shape=(h.rows, row // g),
                                                       strides=(pitch // g * sh.itemsize, sh.itemsize)), True)
        else:
            got = (sh[max(h.lo, 0) // g:-(-h.hi // g)], False)
        self._views[key] = got
        return got

    def _bits(self, run: Any, names) -> int:
        bits = 0
        for name in names:
            view, _ = self._bytes(run, run.h(name))
            if view.size:
                bits |= int(np.bitwise_or.reduce(view, axis=None))
        return bits

    def _taint(self, run: Any, name: str, bits: int, hi: int | None = None) -> None:
        h = run.h(name)
        if hi is not None:  # an accumulating write past the handle (the MAD's dense block): only gains bits
            if bits:
                self._shadow(run, h.space)[max(h.lo, 0) // _GRAIN:-(-max(h.hi, hi) // _GRAIN)] |= np.uint64(bits)
            return
        view, exact = self._bytes(run, h)
        if exact:
            view[...] = np.uint64(bits)  # the instruction rewrote these bytes: they hold its sources' data
        elif bits:
            view |= np.uint64(bits)

    def step(self, run: Any, ins: Any) -> None:
        t = type(ins)
        if t is TVector:
            self._taint(run, ins.dst, self._bits(run, [a for a in ins.args if type(a) is str]))
        elif t is TGatherRow:  # a region of the tile: its other bytes keep their data, so the tile only gains
            self._taint(run, ins.dst, self.log.load_bit(ins), hi=run.h(ins.dst).hi)
        elif t is TLoad or (t is TIndirect and ins.gathers):
            self._taint(run, ins.tile if t is TIndirect else ins.dst, self.log.load_bit(ins))
        elif t is TIndirect:  # an indirect store: its rows hold the data of the tile and of the index
            if self.pending_write is not None:
                self.write_seqs.append(self.pending_write)
                self.write_bits.append(self._bits(run, [ins.tile, ins.index]))
                self.pending_write, self._suffix, self._seqs = None, None, None
        elif t is TStore or t is SWrite:  # an element write stores a register: no load's data (bits 0)
            if self.pending_write is not None:
                self.write_seqs.append(self.pending_write)
                self.write_bits.append(self._bits(run, [ins.src]) if t is TStore else 0)
                self.pending_write, self._suffix, self._seqs = None, None, None
        elif t is TExtract:
            self._taint(run, ins.dst, self._bits(run, [ins.src]))
        elif t is TPush:  # the tile leaves for another unit, which may store it: count it as a write of this one
            self.log._seq += 1
            self.write_seqs.append(self.log._seq)
            self.write_bits.append(self._bits(run, [ins.src]))
            self._suffix, self._seqs = None, None
        elif t is TCustom:
            bits = self._bits(run, [a for a in ins.ins if isinstance(a, str)] + list(ins.tmps))
            for name in (*ins.outs, *ins.tmps):
                self._taint(run, name, bits)
        elif t is TMatmul:
            hs = [run.h(s) for s in ins.srcs]
            dst = run.h(ins.dst)
            m = max(h.rows for h in hs)
            n = max(h.cols for h in hs)
            dense = dst.address + -(-m // FR) * FR * -(-n // FR) * FR * dst.isz  # the MAD's dense NZ block
            self._taint(run, ins.dst, self._bits(run, ins.srcs), dense)

    def reaches_later_write(self, seq: int, bit: int) -> bool:
        if not self.write_seqs or not bit:
            return False
        if self._suffix is None or self._seqs is None:  # OR of the write bits from each write to the last
            self._suffix = np.bitwise_or.accumulate(np.array(self.write_bits[::-1], np.uint64))[::-1]
            self._seqs = np.array(self.write_seqs)
        i = int(np.searchsorted(self._seqs, seq, side="right"))
        return i < len(self.write_seqs) and bool(int(self._suffix[i]) & bit)


__all__ = ["Access", "DataFlow", "LaunchAccesses", "window_runs"]
