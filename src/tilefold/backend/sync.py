"""Explicit pipe synchronisation: ``set_flag`` / ``wait_flag`` pairs for every cross-pipe hazard.

An Ascend core runs its instructions on independent pipes (``tilefold.targets.Pipe``); within a pipe they
run in order, across pipes only explicit events order them. ``insert_syncs`` adds, for every pair of
instructions on different pipes that touch overlapping bytes of one buffer with at least one write
(read-after-write, write-after-read, write-after-write), a ``set_flag src -> dst, eN`` right after the
earlier element and a ``wait_flag src -> dst, eN`` right before the later one. The simulator honours
exactly these events and reports an unordered conflicting pair as ``MissingSync``.

Algorithm (one walk per body, linear in the body times the distinct buffer intervals it touches):

- every handle gets a conservative static byte interval (its buffer; a view with a constant offset its
  exact window, a view with a runtime offset its source's interval; an alias the hull of what it can
  name). GM tensors are tracked per tensor (the whole tensor);
- a body is a list of elements (a leaf instruction, or a loop / branch summarised by the union of its
  accesses). Walking it, each element's accesses are checked against the pending accesses of the other
  pipes not yet ordered before its pipe; a conflict with the latest element ``j`` on pipe A puts one
  event pair after ``j`` / before this element, and marks every pending access of A up to ``j`` ordered.
  A pair is always placed at one nesting level, so set and wait counts balance on every path;
- a loop body is walked a second time against the accesses left pending at its end: a conflict there is
  loop-carried (iteration i+1 against iteration i). Its pair sits in the body, plus one ``set_flag``
  before the loop (consumed by the first iteration's wait) and one ``wait_flag`` after it (consuming the
  last iteration's set). Ordering already given by a pair of the first walk is reused.

Transitive ordering (A before B before C) is not used to drop pairs: a few more events, never fewer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from tilefold.ir.types import MemorySpace
from tilefold.ops import Unit, get_op
from tilefold.targets import Pipe, Target

from .pto import (
    Alias,
    Buffer,
    For,
    If,
    Instr,
    SConst,
    SetFlag,
    TCustom,
    TExtract,
    TGatherRow,
    TIndirect,
    TLoad,
    TMatmul,
    TStore,
    TSubview,
    TVector,
    WaitFlag,
    While,
    tile_accesses,
)

Mem = MemorySpace
_UNIT_PIPES = {Unit.VECTOR: Pipe.VECTOR, Unit.CUBE: Pipe.CUBE, Unit.SCALAR: Pipe.S, Unit.DMA: Pipe.MTE2}
_GM_END = 1 << 62


def instruction_pipe(ins: Instr, space_of: Callable[[str], MemorySpace], target: Target) -> Pipe:
    """The pipe ``ins`` runs on: data moves by their path (``Target.path_pipe``), compute by its registry
    unit, events by their pipe, everything else (scalars, views, control) on the scalar pipe."""
    t = type(ins)
    if t is TLoad:
        return target.path_pipe(Mem.DDR, space_of(ins.dst))
    if t is TStore:
        return target.path_pipe(space_of(ins.src), Mem.DDR)
    if t is TExtract:
        return target.path_pipe(space_of(ins.src), space_of(ins.dst))
    if t is TGatherRow:
        return target.path_pipe(Mem.DDR, space_of(ins.dst))
    if t is TIndirect:  # an indirect load / store runs on the DMA engine of its direction
        if ins.gathers:
            return target.path_pipe(Mem.DDR, space_of(ins.tile))
        return target.path_pipe(space_of(ins.tile), Mem.DDR)
    if t is TVector or t is TMatmul:
        return _UNIT_PIPES.get(get_op(ins.op).unit, Pipe.VECTOR)
    if t is TCustom and ins.pipe:  # the pipe its cost declaration names (a scalar loop: S)
        return Pipe(ins.pipe)
    if t is TCustom:  # a custom kernel runs where its results live: the cube for Acc, else the vector unit
        return Pipe.CUBE if any(space_of(o) is Mem.Acc for o in ins.outs) else Pipe.VECTOR
    if t is SetFlag:
        return Pipe(ins.src)
    if t is WaitFlag:
        return Pipe(ins.dst)
    own = getattr(ins, "pipe_on", None)  # instructions declared beside their lowering (backend/cross_core.py)
    return own(space_of, target) if own is not None else Pipe.S


def buffer_extent(b: Buffer) -> int:
    """Bytes from a buffer's base to one past the last byte any element of it can occupy."""
    rows, cols = b.shape
    isz = b.dtype.itemsize
    if b.dtype.packed:  # 4-bit types: ND rows of whole bytes
        return b.dtype.nbytes(rows * max(b.pitch, cols))
    if b.layout == "NZ":
        return -(-cols // 16) * max(b.pitch, rows) * 16 * isz
    if b.layout == "DN":
        return cols * max(b.pitch, rows) * isz
    return rows * max(b.pitch, cols) * isz


@dataclass
class _Intervals:
    """Conservative static (space, lo, hi) of every handle name of a kernel."""

    buffers: dict[str, Buffer]
    span: dict[str, tuple[MemorySpace, int, int]] = field(default_factory=dict)

    def build(self, body: tuple[Instr, ...]) -> None:
        for name, b in self.buffers.items():
            self.span[name] = (b.space, b.address, b.address + buffer_extent(b))
        defs: list[Instr] = []
        _collect_defs(body, defs)
        for _ in range(len(defs) + 1):  # fixpoint: an alias may name a handle defined later in a loop
            changed = False
            for d in defs:
                changed |= self._define(d)
            if not changed:
                break

    def _define(self, d: Instr) -> bool:
        src = self.span.get(d.src)
        if src is None:
            return False
        space, lo, hi = src
        if isinstance(d, TSubview) and isinstance(d.row, SConst) and isinstance(d.col, SConst):
            b = self.buffers.get(d.src)
            if b is not None and b.layout == "ND" and d.layout is None and d.dtype is None:
                pitch = d.pitch if d.pitch is not None else b.pitch
                start = b.address + b.dtype.nbytes(int(d.row.value) * b.pitch + int(d.col.value))
                lo, hi = start, start + b.dtype.nbytes(d.shape[0] * max(pitch, d.shape[1]))
        old = self.span.get(d.dst)
        new = (space, lo, hi) if old is None else (space, min(old[1], lo), max(old[2], hi))
        if new != old:
            self.span[d.dst] = new
            return True
        return False

    def space(self, name: str) -> MemorySpace:
        s = self.span.get(name)
        return s[0] if s is not None else Mem.Vec


def _collect_defs(body, out: list[Instr]) -> None:
    for ins in body:
        if isinstance(ins, (TSubview, Alias)):
            out.append(ins)
        elif isinstance(ins, (For, While)):
            _collect_defs(ins.body, out)
        elif isinstance(ins, If):
            _collect_defs(ins.then_body, out)
            _collect_defs(ins.else_body, out)


Access = tuple[Pipe, object, int, int, bool]  # pipe, buffer key (space or GM tensor), lo, hi, is write


class _SyncInserter:
    def __init__(self, intervals: _Intervals, target: Target) -> None:
        self.iv = intervals
        self.target = target
        self.events = 0

    # accesses -------------------------------------------------------------------------------------

    def leaf_accesses(self, ins: Instr) -> list[Access]:
        reads, writes, gm_reads, gm_writes = tile_accesses(ins)
        if not (reads or writes or gm_reads or gm_writes):
            return []
        pipe = instruction_pipe(ins, self.iv.space, self.target)
        out: list[Access] = []
        for names, w in ((reads, False), (writes, True)):
            for n in names:
                s = self.iv.span.get(n)
                if s is not None:
                    out.append((pipe, s[0], s[1], s[2], w))
        for names, w in ((gm_reads, False), (gm_writes, True)):
            for t in names:
                out.append((pipe, ("GM", t), 0, _GM_END, w))
        return out

    # bodies ---------------------------------------------------------------------------------------

    def body(self, elems: tuple[Instr, ...], loop: bool) -> tuple[list[Instr], list[Instr], list[Instr]]:
        """(new body, sets to put before the loop, waits to put after it) of a body (``loop``: a loop body)."""
        new_elems: list[Instr] = []
        summaries: list[list[Access]] = []
        for e in elems:
            e2, acc = self.element(e)
            new_elems.append(e2)
            summaries.append(acc)
        n = len(new_elems)
        waits_before: list[list[Instr]] = [[] for _ in range(n)]
        sets_after: list[list[Instr]] = [[] for _ in range(n)]
        pre: list[Instr] = []
        post: list[Instr] = []
        first_walk_pairs: list[list[tuple[Pipe, Pipe]]] = [[] for _ in range(n)]

        pending: dict[Access, list] = {}  # access -> [anchor element, pipes it is ordered before]
        for k in range(n):
            for a, b, j in self.conflicts(summaries[k], pending):
                e = self.event()
                sets_after[j].append(SetFlag(a.value, b.value, e))
                waits_before[k].append(WaitFlag(a.value, b.value, e))
                first_walk_pairs[k].append((a, b))
                self.mark(pending, a, b, j)
            for acc in summaries[k]:
                pending[acc] = [k, set()]
        if loop and n:
            carried = {acc: [anchor, set(ordered)] for acc, (anchor, ordered) in pending.items()}
            for k in range(n):
                for a, b in first_walk_pairs[k]:  # this iteration's pair also orders the previous one's work
                    self.mark(carried, a, b, n)
                for a, b, j in self.conflicts(summaries[k], carried):
                    e = self.event()
                    sets_after[j].append(SetFlag(a.value, b.value, e))
                    waits_before[k].append(WaitFlag(a.value, b.value, e))
                    pre.append(SetFlag(a.value, b.value, e))
                    post.append(WaitFlag(a.value, b.value, e))
                    self.mark(carried, a, b, j)
        out: list[Instr] = []
        for k in range(n):
            out.extend(waits_before[k])
            out.append(new_elems[k])
            out.extend(sets_after[k])
        return out, pre, post

    def element(self, e: Instr) -> tuple[list[Instr] | Instr, list[Access]]:
        if isinstance(e, (For, While)):
            body, pre, post = self.body(e.body, loop=True)
            acc = self.union(body)
            loop = dataclasses.replace(e, body=tuple(body))
            return _Group(pre, loop, post), acc
        if isinstance(e, If):
            then, _, _ = self.body(e.then_body, loop=False)
            other, _, _ = self.body(e.else_body, loop=False)
            new = dataclasses.replace(e, then_body=tuple(then), else_body=tuple(other))
            return new, self.union(then) + [a for a in self.union(other)]
        return e, self.leaf_accesses(e)

    def union(self, body) -> list[Access]:
        seen: dict[Access, None] = {}
        stack = list(body)
        while stack:
            ins = stack.pop()
            if isinstance(ins, _Group):
                stack.append(ins.loop)
            elif isinstance(ins, (For, While)):
                stack.extend(ins.body)
            elif isinstance(ins, If):
                stack.extend(ins.then_body)
                stack.extend(ins.else_body)
            else:
                for a in self.leaf_accesses(ins):
                    seen[a] = None
        return list(seen)

    @staticmethod
    def conflicts(accs: list[Access], pending: dict[Access, list]) -> list[tuple[Pipe, Pipe, int]]:
        """(src pipe, dst pipe, latest conflicting anchor) for each pipe pair ``accs`` must wait on."""
        latest: dict[tuple[Pipe, Pipe], int] = {}
        for b, key, lo, hi, w in accs:
            for (a, key2, lo2, hi2, w2), (anchor, ordered) in pending.items():
                if a is b or key2 != key or b in ordered or not (w or w2) or lo >= hi2 or lo2 >= hi:
                    continue
                pair = (a, b)
                if latest.get(pair, -1) < anchor:
                    latest[pair] = anchor
        return [(a, b, j) for (a, b), j in latest.items()]

    @staticmethod
    def mark(pending: dict[Access, list], a: Pipe, b: Pipe, upto: int) -> None:
        for acc, entry in pending.items():
            if acc[0] is a and entry[0] <= upto:
                entry[1].add(b)

    def event(self) -> int:
        self.events += 1
        return self.events - 1


@dataclass
class _Group:
    """A loop with the event pairs its carried dependencies need around it (flattened on output)."""

    pre: list[Instr]
    loop: Instr
    post: list[Instr]


def _flatten(body) -> tuple[Instr, ...]:
    out: list[Instr] = []
    for ins in body:
        if isinstance(ins, _Group):
            out.extend(ins.pre)
            out.append(_flatten_inner(ins.loop))
            out.extend(ins.post)
        else:
            out.append(_flatten_inner(ins))
    return tuple(out)


def _flatten_inner(ins: Instr) -> Instr:
    if isinstance(ins, (For, While)):
        return dataclasses.replace(ins, body=_flatten(ins.body))
    if isinstance(ins, If):
        return dataclasses.replace(ins, then_body=_flatten(ins.then_body), else_body=_flatten(ins.else_body))
    return ins


def insert_syncs(body: tuple[Instr, ...], buffers: dict[str, Buffer], target: Target) -> tuple[Instr, ...]:
    """``body`` with a set_flag / wait_flag pair for every cross-pipe hazard (see the module docstring)."""
    iv = _Intervals(buffers)
    iv.build(body)
    inserter = _SyncInserter(iv, target)
    new, pre, post = inserter.body(body, loop=False)
    assert not pre and not post
    return _flatten(new)


__all__ = ["buffer_extent", "insert_syncs", "instruction_pipe"]
