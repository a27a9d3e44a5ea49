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


def compute_liveness(fn: Function, *, carried_uses: bool = True) -> Liveness:
    """Live intervals of every variable of ``fn`` (tile, tensor and scalar alike). ``carried_uses=False``
    omits the loop-end use that keeps iter args live through their whole loop (reads only)."""
    live = Liveness()
    pos = 0
    # (var, position, enclosing loop ids) -- resolved once every loop's end is known
    raw_uses: list[tuple[Var, int, tuple[int, ...]]] = []
    loops: list[list[int]] = []  # loop id -> [start, end]
    ifs: list[tuple[int, int]] = []  # enclosing (if index, branch) while walking

    def define(var: Var, at: int) -> None:
        live.defs.setdefault(var, at)

    def use(expr: Expr | None, at: int, stack: tuple[int, ...]) -> None:
        if expr is None:
            return
        for v in _uses(expr):
            raw_uses.append((v, at, stack))

    def walk(stmt: Stmt, stack: tuple[int, ...]) -> None:
        nonlocal pos
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                walk(s, stack)
            return
        here = pos
        pos += 1
        live.stmt_pos[id(stmt)] = here
        if ifs:
            live.if_stack[here] = tuple(ifs)
        if isinstance(stmt, AssignStmt):
            use(stmt.value, here, stack)
            define(stmt.var, here)
        elif isinstance(stmt, EvalStmt):
            use(stmt.expr, here, stack)
        elif isinstance(stmt, (YieldStmt, ReturnStmt)):
            for v in stmt.values:
                use(v, here, stack)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            if isinstance(stmt, ForStmt):
                for e in (stmt.start, stmt.stop, stmt.step):
                    use(e, here, stack)
            for ia in stmt.iter_args:
                use(ia.init, here, stack)
            loop_id = len(loops)
            loops.append([here, here])
            inner = stack + (loop_id,)
            if isinstance(stmt, ForStmt):
                define(stmt.loop_var, here)
            for ia in stmt.iter_args:
                define(ia, here)
            if isinstance(stmt, WhileStmt):
                use(stmt.condition, here, inner)
            walk(stmt.body, inner)
            end = pos
            pos += 1
            loops[loop_id][1] = end
            if carried_uses:
                for ia in stmt.iter_args:
                    raw_uses.append((ia, end, stack))
            for rv in stmt.return_vars:
                define(rv, end)
        elif isinstance(stmt, IfStmt):
            use(stmt.condition, here, stack)
            for rv in stmt.return_vars:
                define(rv, here)
            k = len(live.if_branches)
            live.if_branches.append(((0, 0), (0, 0)))
            live.if_return_vars.append(tuple(stmt.return_vars))
            t0 = pos
            ifs.append((k, 0))
            walk(stmt.then_body, stack)
            ifs.pop()
            e0 = pos
            if stmt.else_body is not None:
                ifs.append((k, 1))
                walk(stmt.else_body, stack)
                ifs.pop()
            live.if_branches[k] = ((t0, e0), (e0, pos))
            pos += 1  # join point
        else:  # pragma: no cover - unknown statement kinds are treated as opaque
            pass

    for p in fn.params:
        define(p, -1)
    walk(fn.body, ())
    live.end = pos
    live.loop_spans = [(a, b) for a, b in loops]

    for var, at, stack in raw_uses:
        d = live.defs.get(var, -1)
        effective = at
        # the outermost enclosing loop that starts after the definition re-reads the var every iteration
        for loop_id in stack:
            start, end = loops[loop_id]
            if d < start:
                effective = max(effective, end)
                break
        live.use_positions.setdefault(var, []).append(effective)
        if effective > live.last_use.get(var, -2):
            live.last_use[var] = effective
    return live
