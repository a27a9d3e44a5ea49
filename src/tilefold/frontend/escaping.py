"""Names first bound inside a loop body or an if branch and used after it (Python's scoping, PyPTO's
ConvertToSSA "escaping variable promotion").

Python keeps a name a loop body binds after the loop: it holds the last iteration's value. PyPTO's ConvertToSSA
promotes such a name to an iter arg with a return var, found by forward-use analysis. tilefold does the same, with
these rules:

- **Used after** means: the first mention of the name after the statement (in the rest of its body, then in the
  rest of each enclosing body, outwards) reads it. A name assigned again before any read is not promoted.
- **A loop** (``for`` over ``pl.range`` / ``pl.pipeline`` / ``pl.parallel`` / ``pl.unroll``, ``while``,
  ``pl.while_``) gets one more iter arg per escaping name, yielding the body's last value of it; the name after
  the loop is the loop's return var. The init value of that iter arg:

  - a tensor written through by a store (``tile.store``, ``pl.assemble``, ``pl.write``: the registry's STORE /
    ELEMENT_WRITE kinds), whose written tensor is bound before the loop: that tensor (PyPTO's "matching Out
    parameter as initial value"). A loop of zero trips leaves it as it was;
  - otherwise, when the loop runs at least once (constant bounds): a value nothing reads (``tile.create`` for a
    tile, which costs no instruction; zero for a scalar; for a tensor, ``tensor.full`` of zeros in kernel code,
    where it becomes a tile fill, and ``tensor.create`` in orchestration code);
  - otherwise (a loop that may run zero times: dynamic bounds, a while loop) it is a located error with a hint:
    after zero trips the name would have no value.
- **An if**: a name bound in both branches (same type) is merged like a rebound name (both branches yield it); a
  name bound in one branch only and used after the if is a located error with a hint.
"""

from __future__ import annotations

import ast
import bisect
from typing import Any

from tilefold.ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, Var
from tilefold.ir.stmt import AssignStmt, ForStmt, IfStmt, SeqStmts, Stmt, WhileStmt
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType, Type

LOAD, STORE = "load", "store"


def _events(node: ast.AST, out: dict[str, str]) -> None:
    """The first event (read or write) of every name in ``node``, in Python's evaluation order."""
    if isinstance(node, ast.Name):
        out.setdefault(node.id, LOAD if isinstance(node.ctx, ast.Load) else STORE)
        return
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        if node.value is not None:
            _events(node.value, out)
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(t, ast.Subscript):  # out[...] = v reads out (and rebinds it)
                _events(t.value, out)
                _events(t.slice, out)
            else:
                _events(t, out)
        return
    if isinstance(node, ast.AugAssign):
        if isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, LOAD)
        _events(node.value, out)
        return
    if isinstance(node, ast.For):
        _events(node.iter, out)
        _events(node.target, out)
        for s in node.body:
            _events(s, out)
        return
    for child in ast.iter_child_nodes(node):
        _events(child, out)


class _BodyIndex:
    """For one statement list: per name, the positions of the statements mentioning it and the first event there."""

    def __init__(self, stmts: list[ast.stmt | None]) -> None:
        self.at: dict[str, tuple[list[int], list[str]]] = {}
        for j, s in enumerate(stmts):
            if s is None:  # already parsed and released (see StatementsMixin._body)
                continue
            ev: dict[str, str] = {}
            _events(s, ev)
            for name, kind in ev.items():
                pos, kinds = self.at.setdefault(name, ([], []))
                pos.append(j)
                kinds.append(kind)

    def first_after(self, name: str, i: int) -> str | None:
        entry = self.at.get(name)
        if entry is None:
            return None
        pos, kinds = entry
        k = bisect.bisect_right(pos, i)
        return kinds[k] if k < len(pos) else None


class FutureUses:
    """The statement lists being parsed, innermost last, each with the index of the statement being parsed."""

    def __init__(self) -> None:
        self.frames: list[list[Any]] = []  # [statements, index, _BodyIndex | None, isolated]

    def run(self, stmts: list[ast.stmt], each: Any, *, isolated: bool = False) -> None:
        """Call ``each(i, s)`` for every statement with this list as the innermost frame. ``isolated``: the list is
        a body of its own (a function, an inline helper): names after it in the enclosing frames are other names."""
        frame: list[Any] = [stmts, -1, None, isolated]
        self.frames.append(frame)
        try:
            for i, s in enumerate(stmts):
                frame[1] = i
                each(i, s)
        finally:
            self.frames.pop()

    def read_after(self, name: str) -> bool:
        """Whether the first mention of ``name`` after the current statement reads it."""
        for frame in reversed(self.frames):
            if frame[2] is None:
                frame[2] = _BodyIndex(frame[0])
            kind = frame[2].first_after(name, frame[1])
            if kind is not None:
                return kind == LOAD
            if frame[3]:
                break
        return False


def trip_count(start: Expr, stop: Expr, step: Expr) -> int | None:
    """The number of iterations of a for loop with constant bounds, else None."""
    if not all(isinstance(e, ConstInt) for e in (start, stop, step)) or step.value == 0:
        return None
    return len(range(start.value, stop.value, step.value))


def _written_through(call: Call) -> Expr | None:
    """The tensor a store-like call writes (its result is that tensor, updated), else None."""
    from tilefold.ops import op_of
    from tilefold.ops.registry import OpKind, ParamKind

    op = op_of(call)
    if op is None or op.kind not in (OpKind.STORE, OpKind.ELEMENT_WRITE) or not isinstance(call.type, TensorType):
        return None
    for p, a in zip(op.operand_params, call.args, strict=False):
        if p.kind is ParamKind.TENSOR:
            return a
    return None


def _bound(body: list[Stmt]) -> tuple[dict[Var, Expr], set[Var]]:
    """Var -> value of the body's assignments (nested ones included), and every Var the body binds (assignments,
    loop vars, iter args, return vars)."""
    defs: dict[Var, Expr] = {}
    bound: set[Var] = set()
    stack: list[Stmt] = list(body)
    while stack:
        s = stack.pop()
        if isinstance(s, AssignStmt):
            defs[s.var] = s.value
            bound.add(s.var)
        elif isinstance(s, SeqStmts):
            stack.extend(s.stmts)
        elif isinstance(s, (ForStmt, WhileStmt)):
            bound.update(s.iter_args)
            bound.update(s.return_vars)
            if isinstance(s, ForStmt):
                bound.add(s.loop_var)
            stack.append(s.body)
        elif isinstance(s, IfStmt):
            bound.update(s.return_vars)
            stack.extend(b for b in (s.then_body, s.else_body) if b is not None)
    return defs, bound


def outer_tensor(var: Var, body: list[Stmt], header: set[Var]) -> Var | None:
    """The tensor bound before the loop that ``var`` is (through a chain of stores in the body), else None.
    ``header``: the loop's own loop var and iter args."""
    defs, bound = _bound(body)
    inside = bound | header
    seen: set[Var] = set()
    cur: Expr = var
    while isinstance(cur, Var) and cur not in seen:
        seen.add(cur)
        if cur not in defs:
            return cur if cur not in inside and isinstance(cur.type, TensorType) else None
        value = defs[cur]
        if isinstance(value, Var):
            cur = value
            continue
        if not isinstance(value, Call):
            return None
        nxt = _written_through(value)
        if nxt is None:
            return None
        cur = nxt
    return None


def unread_init(t: Type, name: str, span: Any, on_chip: bool) -> tuple[list[Stmt], Expr] | None:
    """A value of type ``t`` no iteration reads (the loop runs at least once and overwrites it), or None.
    ``on_chip``: the loop is kernel code, where a tensor value becomes a tile (a zero fill, one vector
    instruction: a created tile is free, a created tensor there would be GM scratch)."""
    from tilefold.ops.registry import make_call

    if isinstance(t, ScalarType):
        if t.dtype is DataType.BOOL:
            return [], ConstBool(False)
        return [], (ConstFloat(0.0, t.dtype) if t.dtype.is_float else ConstInt(0, t.dtype))
    shape = getattr(t, "static_shape", None)
    if shape is None:
        return None
    if isinstance(t, TileType):
        call = make_call("tile.create", [], {"shape": tuple(shape), "dtype": t.dtype,
                                             "target_memory": t.memory_space or MemorySpace.Vec}, span=span)
    elif isinstance(t, TensorType) and on_chip:
        call = make_call("tensor.full", [], {"shape": tuple(shape), "dtype": t.dtype, "value": 0}, span=span)
    elif isinstance(t, TensorType):
        call = make_call("tensor.create", [], {"shape": tuple(shape), "dtype": t.dtype}, span=span)
    else:
        return None
    v = Var(f"{name}_unset", call.type, span)
    return [AssignStmt(v, call, span=span)], v


__all__ = ["FutureUses", "outer_tensor", "trip_count", "unread_init"]
