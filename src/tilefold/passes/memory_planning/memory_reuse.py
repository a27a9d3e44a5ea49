"""MemoryReuse: lifetime-based sharing of storage inside one memory space (PyPTO's ``passes.memory_reuse()``).

Variables that share a base (views and write-through results are an aliasing chain: the group is live as long
as any member is) form a group; a group takes over the storage of groups of the same memory space whose
lifetimes (``analysis.liveness``) have ended. A group may start on the very statement where the previous
owner dies only when that statement is an in-place-safe same-shape vector op reading the previous owner's
root (the registry decides); a ``not_inplace_safe`` result never lands on one of its inputs' buffers.
See docs/passes/memory_reuse.md.
"""

import heapq
from dataclasses import dataclass, field

from tilefold.analysis.liveness import compute_liveness
from tilefold.ir.expr import (
    Call,
    ConstInt,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    Function,
    Stmt,
)
from tilefold.ir.types import MemorySpace, MemRef
from tilefold.ops import OpKind, op_of
from tilefold.passes.base import Pass, function_pass
from tilefold.passes.memory_planning.memref_common import fast_replace, memref_of, retype, tile_vars

_INPLACE_KINDS = (OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY)


@dataclass
class _Group:
    base: str
    space: MemorySpace
    start: int
    end: int
    size: int
    members: list[Var]
    root: Var | None = None
    member_set: set[Var] = field(default_factory=set)


def memory_reuse_function(fn: Function) -> Function:
    live = compute_liveness(fn)
    groups: dict[str, _Group] = {}
    defs: dict[Var, Stmt | None] = {}
    for var, stmt in tile_vars(fn):
        mr = memref_of(var)
        if mr is None:
            continue
        defs[var] = stmt
        a, b = live.interval(var)
        g = groups.get(mr.base)
        if g is None:
            groups[mr.base] = _Group(mr.base, mr.memory_space, a, b, mr.size, [var], member_set={var})
        else:
            g.start, g.end = min(g.start, a), max(g.end, b)
            g.members.append(var)
            g.member_set.add(var)
            if isinstance(mr.byte_offset, ConstInt):
                g.size = max(g.size, mr.byte_offset.value + mr.size)
        if isinstance(mr.byte_offset, ConstInt) and mr.byte_offset.value == 0 and groups[mr.base].root is None:
            groups[mr.base].root = var

    new_base = _place_groups(sorted(groups.values(), key=lambda g: g.start), defs, live)
    memrefs: dict[Var, MemRef] = {}
    for g in groups.values():
        host = new_base[g.base]
        if host == g.base:
            continue
        for v in g.members:
            mr = memref_of(v)
            memrefs[v] = fast_replace(mr, base=host)  # type: ignore[arg-type]
    return retype(fn, memrefs)


@dataclass
class _Storage:
    host: str  # the base of the first group placed in it: every later group is renamed to it
    busy_until: int  # the largest end of its groups (the last placed group's end)
    tail: list[_Group]  # its groups that end at busy_until


def _place_groups(ordered: list[_Group], defs: dict[Var, Stmt | None], live) -> dict[str, str]:
    """First fit in creation order: each group (by start position) goes to the earliest-created storage of its
    space whose groups have all died before it starts (or die on its defining statement, see _can_follow).

    A storage's groups never overlap in time and each starts no earlier than the previous one ends, so the
    storage is free for ``g`` when its last end is before ``g.start``; since starts only grow, a freed storage
    stays free until it is taken. Per space, freed storages wait in a heap by creation index and busy ones in a
    heap by end: every storage moves between them once per group placed, so the pass is O(n log n).
    """
    storages: list[_Storage] = []
    new_base: dict[str, str] = {}
    free: dict[MemorySpace, list[int]] = {}  # space -> heap of storage indices
    busy: dict[MemorySpace, list[tuple[int, int]]] = {}  # space -> heap of (busy_until, storage index)

    def open_storage(g: _Group) -> None:
        storages.append(_Storage(g.base, g.end, [g]))
        heapq.heappush(busy.setdefault(g.space, []), (g.end, len(storages) - 1))
        new_base[g.base] = g.base

    for g in ordered:
        if g.root is None or defs.get(g.root) is None or g.start < 0:
            open_storage(g)
            continue
        busy_heap, free_heap = busy.setdefault(g.space, []), free.setdefault(g.space, [])
        while busy_heap and busy_heap[0][0] < g.start:
            heapq.heappush(free_heap, heapq.heappop(busy_heap)[1])
        # storages whose last groups die on the statement defining g: usable only if every such group may be
        # overwritten in place by g's op
        ending_here = []
        while busy_heap and busy_heap[0][0] == g.start:
            ending_here.append(heapq.heappop(busy_heap))
        chosen = free_heap[0] if free_heap else None
        for _, idx in ending_here:
            if (chosen is None or idx < chosen) and all(_can_follow(p, g, defs, live) for p in storages[idx].tail):
                chosen = idx
        for entry in ending_here:
            if entry[1] != chosen:
                heapq.heappush(busy_heap, entry)
        if chosen is None:
            open_storage(g)
            continue
        if free_heap and free_heap[0] == chosen:
            heapq.heappop(free_heap)
        st = storages[chosen]
        st.tail = st.tail + [g] if st.busy_until == g.end else [g]
        st.busy_until = g.end
        heapq.heappush(busy_heap, (g.end, chosen))
        new_base[g.base] = st.host
    return new_base


def _can_follow(prev: _Group, g: _Group, defs: dict[Var, Stmt | None], live) -> bool:
    """May group ``g`` occupy storage that group ``prev`` used before it?"""
    if prev.end < g.start:
        return True
    if prev.end > g.start or prev.start >= g.start:
        return False
    # prev dies on the statement that defines g: only an in-place-safe same-shape vector op may write its
    # result over one of its own operands.
    stmt = defs.get(g.root)  # type: ignore[arg-type]
    if not isinstance(stmt, AssignStmt) or not isinstance(stmt.value, Call):
        return False
    op = op_of(stmt.value)
    if op is None or op.not_inplace_safe or op.kind not in _INPLACE_KINDS:
        return False
    if prev.size != g.size:
        return False
    reads_prev_root = False
    for a in stmt.value.args:
        if isinstance(a, Var) and a in prev.member_set:
            mr = memref_of(a)
            if a is not prev.root or mr is None or mr.size != g.size:
                return False  # a view operand: the write would not line up with the read
            reads_prev_root = True
    return reads_prev_root


def memory_reuse() -> Pass:
    """MemoryReuse: lifetime-based sharing of storage inside one memory space."""
    return function_pass("MemoryReuse", lambda fn, program: memory_reuse_function(fn))


__all__ = ["memory_reuse", "memory_reuse_function"]
