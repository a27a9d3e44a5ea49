"""Software pipelining of ``pl.pipeline(..., stage=N)`` loops: one buffer set per stage.

Codegen lowers a pipelined loop as ``N`` copies of its body per iteration of a loop stepping ``N * step``
(``lower_pipelined``); when ``N`` may not divide the trip count, copies ``1 .. N-1`` are guarded by an
``if``, so the last partial iteration is the tail, in the same loop and on the same stage buffers (a tail
loop after the main one would start only once every copy's events at the loop exit fired: a single-buffered
tail, and stage 3 slower than stage 2 on two iterations). A constant trip count below ``N`` uses that many
copies. Copy ``k`` gets its own *stage buffers*:
every storage root used only inside the loop body is moved, for copy ``k > 0``, to a fresh region above
everything memory planning placed in that space (the region of copy ``k`` is ``k - 1`` regions above the
high-water mark). Copies then touch disjoint bytes, so the sync pass (``sync.py``) puts no event between
copy ``k``'s load and copy ``k - 1``'s compute: the load of iteration ``i + 1`` overlaps the compute of
iteration ``i``.

A root shared with a tile that is live in or after the loop (a loop-carried accumulator, a tile read
after the loop or by a later iteration of an enclosing loop) keeps its one buffer; a root memory reuse
shared with a tile dead before the loop is the body's own. When ``N`` regions do not fit in the space's
capacity, the depth drops to what fits (down to 1: no pipelining) -- PyPTO's "you asked for 4, you got 2".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilefold.ir.expr import Var
from tilefold.ir.stmt import AssignStmt, ForStmt, Function, IfStmt, SeqStmts, Stmt, WhileStmt
from tilefold.ir.types import MemorySpace, TileType
from tilefold.ir.visitor import collect_uses
from tilefold.targets import Target


@dataclass(frozen=True)
class StagePlan:
    stages: int  # the depth that fits (1: not pipelined)
    deltas: tuple[dict[str, int], ...]  # per copy k: storage root -> byte shift (copy 0: empty)


def _defined(stmt: Stmt | None, out: list[Var]) -> None:
    """Every tile variable a statement defines (assignments, loop iter args and results), recursively."""
    if stmt is None:
        return
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            _defined(s, out)
    elif isinstance(stmt, AssignStmt):
        out.append(stmt.var)
    elif isinstance(stmt, (ForStmt, WhileStmt)):
        out.extend(stmt.iter_args)
        out.extend(stmt.return_vars)
        _defined(stmt.body, out)
    elif isinstance(stmt, IfStmt):
        out.extend(stmt.return_vars)
        _defined(stmt.then_body, out)
        _defined(stmt.else_body, out)


def _roots(vars_: list[Var]) -> dict[str, tuple[MemorySpace, int, int]]:
    """Storage root -> (space, first byte, one past the last byte) over the tiles in ``vars_``."""
    out: dict[str, tuple[MemorySpace, int, int]] = {}
    for v in vars_:
        t = v.type
        if not isinstance(t, TileType) or t.memref is None or t.memref.address is None:
            continue
        mr = t.memref
        lo, hi = mr.address, mr.address + mr.size
        old = out.get(mr.base)
        out[mr.base] = (mr.memory_space, lo, hi) if old is None else (old[0], min(old[1], lo), max(old[2], hi))
    return out


def _live_in_or_after(body: Stmt | None, loop: ForStmt) -> set[Var] | None:
    """Variables used by ``loop`` or by anything that can run after it starts: the statements after it
    in every enclosing sequence and the whole body of every enclosing loop. None if it is not found."""
    chain: list[tuple[Stmt, int]] = []  # (enclosing statement, index of the child on the path)

    def search(stmt: Stmt | None) -> bool:
        if stmt is None:
            return False
        if stmt is loop:
            return True
        if isinstance(stmt, SeqStmts):
            for i, s in enumerate(stmt.stmts):
                chain.append((stmt, i))
                if search(s):
                    return True
                chain.pop()
            return False
        children = [stmt.body] if isinstance(stmt, (ForStmt, WhileStmt)) else (
            [stmt.then_body, stmt.else_body] if isinstance(stmt, IfStmt) else [])
        for child in children:
            chain.append((stmt, 0))
            if search(child):
                return True
            chain.pop()
        return False

    if not search(body):
        return None
    used: set[Var] = set(collect_uses(loop))
    for stmt, i in chain:
        if isinstance(stmt, SeqStmts):
            for later in stmt.stmts[i + 1:]:
                used |= set(collect_uses(later))
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            used |= set(collect_uses(stmt))
    return used


def plan_stages(fn: Function, loop: ForStmt, stages: int, target: Target) -> StagePlan:
    """How many stage buffer sets of ``loop``'s body fit, and the address shift of each copy."""
    inside: list[Var] = []
    _defined(loop.body, inside)
    inside_ids = {id(v) for v in inside}
    everything: list[Var] = list(fn.params)
    _defined(fn.body, everything)
    live = _live_in_or_after(fn.body, loop)
    outside = [v for v in everything if id(v) not in inside_ids and (live is None or v in live)]
    in_roots = _roots(inside)
    out_roots = _roots(outside)
    all_roots = _roots(everything)
    own = {b: r for b, r in in_roots.items() if b not in out_roots}
    if not own:
        return StagePlan(1, ({},))
    high: dict[MemorySpace, int] = {}
    for space, _, hi in all_roots.values():
        high[space] = max(high.get(space, 0), hi)
    region: dict[MemorySpace, tuple[int, int]] = {}
    for space, lo, hi in own.values():
        r = region.get(space)
        region[space] = (lo, hi) if r is None else (min(r[0], lo), max(r[1], hi))
    fit = stages
    for space, (lo, hi) in region.items():
        align = target.align(space)
        size = -(-(hi - lo) // align) * align
        base = -(-high[space] // align) * align
        room = (target.capacity(space) - base) // size if size else stages
        fit = min(fit, 1 + max(0, room))
    deltas: list[dict[str, int]] = [{}]
    for k in range(1, fit):
        shift: dict[str, int] = {}
        for b, (space, _, _) in own.items():
            lo, hi = region[space]
            align = target.align(space)
            size = -(-(hi - lo) // align) * align
            base = -(-high[space] // align) * align
            shift[b] = base + (k - 1) * size - lo
        deltas.append(shift)
    return StagePlan(fit, tuple(deltas))


def lower_pipelined(gen: Any, loop: ForStmt, plan: StagePlan) -> list:
    """The instructions of a pipelined loop: one loop stepping ``stages * step`` whose iteration runs body
    copies ``0 .. stages - 1``, copy ``k`` on stage buffer set ``k`` with loop variable ``i + k * step``.
    When the trip count may not be a multiple of the depth, copies ``k >= 1`` run under
    ``if i + k * step < stop``: the last, partial iteration is the tail, on its own stage buffers like every
    other iteration, and no loop boundary stands between it and the iterations before it (events at a loop's
    exit would wait for every copy). A constant trip count below the depth uses that many copies.
    ``gen`` is codegen's function lowerer (its ``_body_copy`` / ``_carry_in`` / register names)."""
    from tilefold.backend.pto import For, If, SAssign, SBin, SConst, SReg
    from tilefold.ir.expr import ConstInt

    n, step = plan.stages, int(loop.step.value)
    static = isinstance(loop.start, ConstInt) and isinstance(loop.stop, ConstInt)
    trip = max(0, -(-(loop.stop.value - loop.start.value) // step)) if static else None
    if trip is not None:
        n = max(1, min(n, trip))
    var = gen.reg(loop.loop_var)
    start, stop = gen.sexpr(loop.start), gen.sexpr(loop.stop)
    out: list = []
    gen._carry_in(loop.iter_args, out)
    guarded = trip is None or trip % n != 0
    body: list = []
    key = id(loop.loop_var)
    for k in range(n):
        gen.stage_shift, gen.stage_copy = plan.deltas[k], k
        copy: list = []
        first = SBin("+", SReg(var), SConst(k * step))
        if k:
            reg_k = gen.names.fresh(f"{var}.{k}")
            copy.append(SAssign(reg_k, first))
            gen.names.by_var[key] = reg_k
        try:
            copy.extend(gen._body_copy(loop))
        finally:
            gen.names.by_var[key] = var
            gen.stage_shift, gen.stage_copy = {}, 0
        if k and guarded:
            body.append(If(SBin("<", first, stop), tuple(copy), ()))
        else:
            body.extend(copy)
    out.append(For(var, start, stop, SConst(n * step), tuple(body)))
    return out


__all__ = ["StagePlan", "lower_pipelined", "plan_stages"]
