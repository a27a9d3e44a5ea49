"""Liveness of variables inside one function, on a linear program-order numbering of statements.

Every statement gets a position in program order (compound statements get a start position before their
bodies and an end position after them). A variable's live interval is ``[def, last_use]`` (inclusive):

- parameters are defined at position -1;
- an ``AssignStmt`` defines its var at its own position;
- a ``ForStmt`` / ``WhileStmt`` defines its loop var and iter args at its start position and its return
  vars at its end position; iter args stay live through the whole loop (the back edge reads them);
- an ``IfStmt`` defines its return vars at its start position: the branches write them before the join;
- a use inside a loop of a variable defined outside that loop keeps it live until the end of the
  outermost such loop, because every iteration reads it again.

With ``carried_uses=False`` the back-edge use of iter args is left out: intervals then end at the last
statement that actually reads the value (what InitMemRef needs to decide whether a loop init or an op's
write-through destination is still read after the statement that overwrites its storage).

The analysis is linear in the size of the function. Memory planning (``MemoryReuse``) uses it to decide
which buffers may share storage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilefold.ir.expr import Expr, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.visitor import IRVisitor


@dataclass
class Liveness:
    """Definition positions, last-use positions and loop spans of one function."""

    defs: dict[Var, int] = field(default_factory=dict)
    last_use: dict[Var, int] = field(default_factory=dict)
    loop_spans: list[tuple[int, int]] = field(default_factory=list)
    stmt_pos: dict[int, int] = field(default_factory=dict)  # id(stmt) -> position
    end: int = 0
    # every use of a variable at its effective position (a use inside a loop that re-reads an outer value
    # counts at the loop's end), for queries finer than ``last_use``
    use_positions: dict[Var, list[int]] = field(default_factory=dict)
    # per IfStmt (by index): ((then_start, then_end), (else_start, else_end)) half-open position ranges, and
    # its return vars; ``if_stack[pos]`` lists (if index, branch 0 / 1) of the ifs enclosing a statement
    if_branches: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    if_return_vars: list[tuple[Var, ...]] = field(default_factory=list)
    if_stack: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def interval(self, var: Var) -> tuple[int, int]:
        start = self.defs.get(var, -1)
        return start, max(start, self.last_use.get(var, start))

    def position(self, stmt: Stmt) -> int:
        return self.stmt_pos[id(stmt)]

    def exclusive(self, a: int, b: int) -> bool:
        """Do positions ``a`` and ``b`` lie in different branches of one if (no execution reaches both)?
        Uses at effective positions: a loop-extended use sits at the loop's end, never inside a branch of an
        if within that loop."""
        for k, branch in self.if_stack.get(a, ()):
            (t0, t1), (e0, e1) = self.if_branches[k]
            other = (e0, e1) if branch == 0 else (t0, t1)
            if other[0] <= b < other[1]:
                return True
        return False

    def live_at(self, var: Var, pos: int) -> bool:
        a, b = self.interval(var)
        return a <= pos <= b


class _Uses(IRVisitor):
    def __init__(self) -> None:
        self.vars: list[Var] = []

    def visit_Var(self, expr: Var) -> None:
        self.vars.append(expr)


def _uses(expr: Expr) -> list[Var]:
    v = _Uses()
    v.visit_expr(expr)
    return v.vars


class _Walk:
    """One program-order walk of a function: positions, definitions, raw uses (resolved by ``resolve`` once
    every loop's end is known), loop spans and the branches of every if."""

    def __init__(self, carried_uses: bool) -> None:
        self.live = Liveness()
        self.carried_uses = carried_uses
        self.pos = 0
        # (var, position, enclosing loop ids) -- resolved once every loop's end is known
        self.raw_uses: list[tuple[Var, int, tuple[int, ...]]] = []
        self.loops: list[list[int]] = []  # loop id -> [start, end]
        self.ifs: list[tuple[int, int]] = []  # enclosing (if index, branch) while walking

    def define(self, var: Var, at: int) -> None:
        self.live.defs.setdefault(var, at)

    def use(self, expr: Expr | None, at: int, stack: tuple[int, ...]) -> None:
        if expr is None:
            return
        for v in _uses(expr):
            self.raw_uses.append((v, at, stack))

    def walk(self, stmt: Stmt, stack: tuple[int, ...]) -> None:
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                self.walk(s, stack)
            return
        here = self.pos
        self.pos += 1
        self.live.stmt_pos[id(stmt)] = here
        if self.ifs:
            self.live.if_stack[here] = tuple(self.ifs)
        if isinstance(stmt, AssignStmt):
            self.use(stmt.value, here, stack)
            self.define(stmt.var, here)
        elif isinstance(stmt, EvalStmt):
            self.use(stmt.expr, here, stack)
        elif isinstance(stmt, (YieldStmt, ReturnStmt)):
            for v in stmt.values:
                self.use(v, here, stack)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            self.loop(stmt, here, stack)
        elif isinstance(stmt, IfStmt):
            self.if_stmt(stmt, here, stack)
        # other statement kinds are opaque: they take a position and nothing else

    def loop(self, stmt: ForStmt | WhileStmt, here: int, stack: tuple[int, ...]) -> None:
        """Loop var and iter args defined at the start, return vars at the end (the position after the body);
        the iter args read again at the end by the back edge (``carried_uses``)."""
        if isinstance(stmt, ForStmt):
            for e in (stmt.start, stmt.stop, stmt.step):
                self.use(e, here, stack)
        for ia in stmt.iter_args:
            self.use(ia.init, here, stack)
        loop_id = len(self.loops)
        self.loops.append([here, here])
        inner = stack + (loop_id,)
        if isinstance(stmt, ForStmt):
            self.define(stmt.loop_var, here)
        for ia in stmt.iter_args:
            self.define(ia, here)
        if isinstance(stmt, WhileStmt):
            self.use(stmt.condition, here, inner)
        self.walk(stmt.body, inner)
        end = self.pos
        self.pos += 1
        self.loops[loop_id][1] = end
        if self.carried_uses:
            for ia in stmt.iter_args:
                self.raw_uses.append((ia, end, stack))
        for rv in stmt.return_vars:
            self.define(rv, end)

    def if_stmt(self, stmt: IfStmt, here: int, stack: tuple[int, ...]) -> None:
        """Return vars defined at the start; the branches' half-open position ranges; a join position after."""
        live = self.live
        self.use(stmt.condition, here, stack)
        for rv in stmt.return_vars:
            self.define(rv, here)
        k = len(live.if_branches)
        live.if_branches.append(((0, 0), (0, 0)))
        live.if_return_vars.append(tuple(stmt.return_vars))
        t0 = self.pos
        self.ifs.append((k, 0))
        self.walk(stmt.then_body, stack)
        self.ifs.pop()
        e0 = self.pos
        if stmt.else_body is not None:
            self.ifs.append((k, 1))
            self.walk(stmt.else_body, stack)
            self.ifs.pop()
        live.if_branches[k] = ((t0, e0), (e0, self.pos))
        self.pos += 1  # join point

    def resolve(self) -> None:
        """Every raw use at its effective position: the outermost enclosing loop that starts after the
        definition re-reads the var every iteration, so the use counts at that loop's end."""
        live, loops = self.live, self.loops
        live.end = self.pos
        live.loop_spans = [(a, b) for a, b in loops]
        for var, at, stack in self.raw_uses:
            d = live.defs.get(var, -1)
            effective = at
            for loop_id in stack:
                start, end = loops[loop_id]
                if d < start:
                    effective = max(effective, end)
                    break
            live.use_positions.setdefault(var, []).append(effective)
            if effective > live.last_use.get(var, -2):
                live.last_use[var] = effective


def compute_liveness(fn: Function, *, carried_uses: bool = True) -> Liveness:
    """Live intervals of every variable of ``fn`` (tile, tensor and scalar alike). ``carried_uses=False``
    omits the loop-end use that keeps iter args live through their whole loop (reads only)."""
    walk = _Walk(carried_uses)
    for p in fn.params:
        walk.define(p, -1)
    walk.walk(fn.body, ())
    walk.resolve()
    return walk.live
