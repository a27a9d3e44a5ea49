"""Cross-pipe hazards inside one unit: the simulator's check that every conflicting pair is synced.

Pipes run independently, so two accesses of overlapping bytes from different pipes (at least one a
write) have a defined order only if a ``set_flag`` / ``wait_flag`` chain orders them. The tracker keeps
a vector clock per pipe: ``known[B][A]`` is the last A instruction (A's own sequence number) that is
certain to have finished before B's next instruction starts. A ``set_flag A -> B`` snapshots A's clock
(with A's own position); the matching ``wait_flag`` on B merges the snapshot into B's clock, so orderings
compose transitively. An access by pipe B conflicting with an earlier access by A whose sequence number
is above ``known[B][A]`` raises ``MissingSync`` naming both instructions.

Bookkeeping is per buffer interval, not per byte: each memory keeps, per (lo, hi, pipe), the last write
and the last read; a new access compares against the intervals of that memory only. Intervals every
other pipe is already ordered after are dropped once a memory holds many, so the table stays small.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .faults import Deadlock, MissingSync
from .timeline import NPIPES, PIPES

_PRUNE_AT = 64


class HazardTracker:
    __slots__ = ("known", "seq", "table", "newest", "flags")

    def __init__(self) -> None:
        self.known = [[-1] * NPIPES for _ in range(NPIPES)]
        self.seq = [-1] * NPIPES
        self.table: dict[Any, dict[tuple[int, int, int], list]] = {}
        # per memory key, per pipe: the newest sequence number of any access recorded there (an upper
        # bound of the entries' numbers, pruned ones included)
        self.newest: dict[Any, dict[int, int]] = {}
        self.flags: dict[tuple[int, int, int], deque] = {}

    def tick(self, pipe: int) -> int:
        self.seq[pipe] += 1
        return self.seq[pipe]

    def access(self, pipe: int, key: Any, lo: int, hi: int, write: bool, ins: Any, where: str) -> None:
        """Record an access by the current instruction ``ins`` of ``pipe``; raise ``MissingSync`` if an
        unordered access of another pipe conflicts with it."""
        entries = self.table.get(key)
        if entries is None:
            entries = self.table[key] = {}
            newest = self.newest[key] = {}
        else:
            newest = self.newest[key]
        kb = self.known[pipe]
        # An entry of pipe p2 conflicts only if its sequence number is above kb[p2]; the newest access of
        # p2 to this memory bounds every such number, so when no other pipe has one above its bound the
        # scan cannot fault and is skipped.
        for p2, n in newest.items():
            if n > kb[p2] and p2 != pipe:
                self._scan(entries, pipe, kb, lo, hi, write, ins, key, where)
                break
        newest[pipe] = self.seq[pipe]
        k = (lo, hi, pipe)
        e = entries.get(k)
        if e is None:
            if len(entries) >= _PRUNE_AT:
                self._prune(entries)
            e = entries[k] = [-1, None, -1, None]
        if write:
            e[0], e[1] = self.seq[pipe], ins
        else:
            e[2], e[3] = self.seq[pipe], ins

    def _scan(self, entries: dict, pipe: int, kb: list[int], lo: int, hi: int, write: bool, ins: Any, key: Any,
              where: str) -> None:
        for (lo2, hi2, p2), e in entries.items():
            if p2 == pipe or lo >= hi2 or lo2 >= hi:
                continue
            if e[0] > kb[p2]:
                self._fault(p2, e[1], pipe, ins, "write" if write else "read", "write", key, max(lo, lo2),
                            min(hi, hi2), where)
            if write and e[2] > kb[p2]:
                self._fault(p2, e[3], pipe, ins, "write", "read", key, max(lo, lo2), min(hi, hi2), where)

    def _prune(self, entries: dict) -> None:
        known = self.known
        for k in [k for k, e in entries.items()
                  if all(max(e[0], e[2]) <= known[q][k[2]] for q in range(NPIPES) if q != k[2])]:
            del entries[k]

    def _fault(self, first_pipe: int, first_ins: Any, second_pipe: int, second_ins: Any, second_kind: str,
               first_kind: str, key: Any, lo: int, hi: int, where: str) -> None:
        a, b = PIPES[first_pipe].value, PIPES[second_pipe].value
        first, second = first_ins.text(), second_ins.text()
        space = key[1] if isinstance(key, tuple) else key
        kind = {("read", "write"): "read-after-write", ("write", "read"): "write-after-read",
                ("write", "write"): "write-after-write"}[(second_kind, first_kind)]
        raise MissingSync(
            f"{kind} hazard on {where}bytes [0x{lo:x}, 0x{hi:x}) of {space}: `{first}` ({a}) then `{second}` "
            f"({b}) with no set_flag {a} -> {b} / wait_flag between them",
            first=first, second=second, instruction=second, address=lo,
            space=space,
            hint=f"the pipes {a} and {b} run independently; order the pair with `set_flag {a} -> {b}, eN` after "
                 f"the first and `wait_flag {a} -> {b}, eN` before the second (codegen inserts these)")

    # events ---------------------------------------------------------------------------------------

    def set_flag(self, src: int, dst: int, event: int, record: int, user: bool = False, ins: Any = None) -> None:
        """A ``set_flag`` (``user``: one the kernel wrote, pl.system.sync_src: its events are apart from
        codegen's); ``ins`` is kept to name a set no wait consumes (``dangling``)."""
        snap = list(self.known[src])
        snap[src] = self.seq[src]
        q = self.flags.get((src, dst, event, user))
        if q is None:
            q = self.flags[(src, dst, event, user)] = deque()
        q.append((record, snap, ins))

    def wait_flag(self, src: int, dst: int, event: int, ins: Any, user: bool = False) -> int:
        """Consume the oldest matching ``set_flag`` for the ``wait_flag`` instruction ``ins`` (its text is
        built only for a ``Deadlock``); returns that set_flag's record."""
        q = self.flags.get((src, dst, event, user))
        if not q:
            text = ins.text() if hasattr(ins, "text") else str(ins)
            hint = ("every wait_flag needs an earlier set_flag of the same pipes and event on every "
                    "path (a loop-carried pair needs one set before the loop)")
            if user:
                hint = (f"call pl.system.sync_src(set_pipe=..., wait_pipe=..., event_id={event}) with the same "
                        "pipes before this pl.system.sync_dst, on every path to it")
            raise Deadlock(f"`{text}` waits for an event no set_flag raised: pipe {PIPES[dst].value} would wait "
                           "forever", instruction=text, hint=hint)
        record, snap, _set = q.popleft()
        kb = self.known[dst]
        for i in range(NPIPES):
            if snap[i] > kb[i]:
                kb[i] = snap[i]
        return record

    def barrier_all(self) -> None:
        """``pipe_barrier(PIPE_ALL)``: every pipe's later work is ordered after every pipe's earlier work."""
        for kb in self.known:
            for i in range(NPIPES):
                if self.seq[i] > kb[i]:
                    kb[i] = self.seq[i]

    def dangling(self) -> Any:
        """The first kernel-written ``set_flag`` no ``wait_flag`` consumed (None: every one was), at the end of a
        kernel body: its event would stay raised for the next kernel on the core."""
        for (_src, _dst, _event, user), q in self.flags.items():
            if user and q:
                return q[0][2]
        return None


__all__ = ["HazardTracker"]
