"""MemoryReuse: lifetime-based sharing of storage inside one memory space (PyPTO's ``passes.memory_reuse()``).

Variables that share a base (views and write-through results are an aliasing chain: the group is live as long
as any member is) form a group; a group takes over the storage of groups of the same memory space whose
lifetimes (``analysis.liveness``) have ended. A group may start on the very statement where the previous
owner dies only when that statement is an in-place-safe same-shape vector op reading the previous owner's
root (the registry decides); a ``not_inplace_safe`` result never lands on one of its inputs' buffers.
See docs/passes/memory_reuse.md.
"""

import dataclasses
from dataclasses import dataclass

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
from tilefold.passes.memref_common import memref_of, retype, tile_vars

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
            groups[mr.base] = _Group(mr.base, mr.memory_space, a, b, mr.size, [var])
        else:
            g.start, g.end = min(g.start, a), max(g.end, b)
            g.members.append(var)
            if isinstance(mr.byte_offset, ConstInt):
                g.size = max(g.size, mr.byte_offset.value + mr.size)
        if isinstance(mr.byte_offset, ConstInt) and mr.byte_offset.value == 0 and groups[mr.base].root is None:
            groups[mr.base].root = var

    # storages: host base -> list of groups placed in it
    storages: list[tuple[str, MemorySpace, list[_Group]]] = []
    new_base: dict[str, str] = {}
    for g in sorted(groups.values(), key=lambda g: g.start):
        if g.root is None or defs.get(g.root) is None or g.start < 0:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
            continue
        chosen = None
        for host, space, placed in storages:
            if space is not g.space:
                continue
            if all(_can_follow(p, g, defs, live) for p in placed):
                chosen = (host, placed)
                break
        if chosen is None:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
        else:
            chosen[1].append(g)
            new_base[g.base] = chosen[0]

    memrefs: dict[Var, MemRef] = {}
    for g in groups.values():
        host = new_base[g.base]
        if host == g.base:
            continue
        for v in g.members:
            mr = memref_of(v)
            memrefs[v] = dataclasses.replace(mr, base=host)  # type: ignore[arg-type]
    return retype(fn, memrefs)


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
        if isinstance(a, Var) and a in prev.members:
            mr = memref_of(a)
            if a is not prev.root or mr is None or mr.size != g.size:
                return False  # a view operand: the write would not line up with the read
            reads_prev_root = True
    return reads_prev_root


def memory_reuse() -> Pass:
    """MemoryReuse: lifetime-based sharing of storage inside one memory space."""
    return function_pass("MemoryReuse", lambda fn, program: memory_reuse_function(fn))



__all__ = ["memory_reuse", "memory_reuse_function"]
