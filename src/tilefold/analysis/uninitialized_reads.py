"""Reads of uninitialised tiles.

Semantics: a tile made by an op whose registry ``extra`` says ``"uninitialized"`` (``tile.create``) gets
storage but no instruction writes it, so its contents on the device are whatever the storage held before
(memory planning reuses storage). Reading such a tile before anything wrote it is a bug in the program;
``pl.tile.full(..., value=0)`` is the way to get a zero-filled tile (a matmul accumulator in Acc starts
with ``pl.tile.matmul`` instead).

What counts as a read and what as a write is taken from the registry:

- a destination-passing op (``OpDef.results_reuse_segment``, custom ops' ``outs``) *writes* its
  destination operands; its results are initialised. When the op names ``extra["read_segments"]`` only
  those segments are read (custom ops read ``ins``; ``tmps`` are scratch), otherwise every other tile
  operand is read;
- a view (``OpDef.is_view``) reads nothing: the view of an uninitialised tile is uninitialised;
- every other op reads all its tile operands -- including the accumulator of ``output_reuses_input`` ops
  (``matmul_acc`` adds to it), stores and copies;
- a plain ``b = a`` aliases; a loop iter arg is uninitialised on the first iteration when its init is; a
  loop / if result is uninitialised when the value yielded for it is (in any branch).

The values stay what they are in SSA terms: a destination-passing write makes the *result* initialised,
not the output-init variable itself (memory planning gives the op a fresh destination when that
variable is read again, so the device and the golden model agree that it still holds its old value).

``find_uninitialized_reads(fn)`` lists the findings of one function in program order (linear);
``check_uninitialized_reads(program)`` raises a ``VerificationError`` (a ``TilefoldError``) for the
first one, with the location of the read and a hint. ``tilefold.compiler.compile`` runs the check on its
input program.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefold.errors import Span, VerificationError
from tilefold.ir.expr import Call, ConstBool, ConstInt, Eq, Expr, Ne, Not, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import TileType
from tilefold.ops import OpDef, custom_segments, op_of, result_destination_indices


@dataclass(frozen=True)
class UninitializedRead:
    """``reader`` (an op name, ``"return"``) reads ``var``, which still holds the undefined contents of
    the tile ``origin`` made by ``origin_op``."""

    var: Var
    origin: Var
    origin_op: str
    reader: str
    span: Span | None

    def message(self, fn_name: str) -> str:
        via = "" if self.var is self.origin else f" (through {self.var.name!r})"
        where = ""
        if self.origin.span is not None and self.origin.span.line:
            where = f" at line {self.origin.span.line}"
        return (f"in {fn_name!r}, {self.reader} reads tile {self.origin.name!r}{via} made by {self.origin_op}"
                f"{where} before anything wrote it: a created tile is uninitialised on the device, its "
                f"contents are whatever the storage held before")

    @property
    def hint(self) -> str:
        return (f"initialise it with pl.tile.full(shape, dtype=..., value=0, target_memory=...) instead of "
                f"{self.origin_op}, or write it first (e.g. pass it in a custom op's outs=[...]); an Acc "
                f"accumulator starts with pl.tile.matmul, not matmul_acc on a created tile")


def _same_value(a: Expr, b: Expr) -> bool:
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return a.value == b.value
    return a is b


def _creates_uninitialized(op: OpDef | None, value: Call) -> bool:
    return op is not None and bool(op.extra.get("uninitialized")) and isinstance(value.type, TileType)


def _read_operands(call: Call, op: OpDef) -> list[Expr]:
    dests = result_destination_indices(call)
    if dests is not None:
        segments = op.extra.get("read_segments")
        if segments is not None:
            seg = custom_segments(call)
            return [a for name in segments for a in seg.get(name, ())]
        return [a for i, a in enumerate(call.args) if i not in dests]
    if op.is_view:
        return []
    shape_only = op.extra.get("shape_only_operands", ())  # e.g. tile.expands: only the target's shape is used
    return [a for i, a in enumerate(call.args) if i not in shape_only]


class _Walker:
    def __init__(self) -> None:
        self.uninit: dict[Var, tuple[Var, str]] = {}  # var -> (origin var, origin op name)
        self.found: list[UninitializedRead] = []
        # loop var -> (start, iter args holding created tiles on the first iteration, reads excused in branches
        # that run only on later iterations, reported at the loop's end unless later iterations are written)
        self.first_iteration: dict[Var, tuple[Expr, list[Var], list[UninitializedRead]]] = {}

    def _check(self, exprs, reader: str, span: Span | None) -> None:
        for e in exprs:
            if isinstance(e, Var) and e in self.uninit:
                origin, op_name = self.uninit[e]
                self.found.append(UninitializedRead(e, origin, op_name, reader, span))

    def _call(self, call: Call, var: Var | None, span: Span | None) -> None:
        op = op_of(call)
        if op is None:  # a function call: every tile argument is read
            self._check(call.args, f"the call of {call.op_name}", call.span or span)
            return
        reads = _read_operands(call, op)
        at = op.extra.get("init_operand")  # matmul_acc(init_cond=c): the accumulator is not read where c holds
        if at is not None and at < len(call.args) and reads:
            cond = call.args[at]
            guard = self._first_iteration_guard(cond)
            if isinstance(cond, ConstBool) and cond.value:
                reads = reads[1:]
            elif guard is not None and guard[1]:  # read only after the first iteration: deferred to the loop end
                _start, carried, deferred = self.first_iteration[guard[0]]
                origins = {self.uninit[ia][0] for ia in carried if ia in self.uninit}
                acc = reads[0]
                if isinstance(acc, Var) and acc in self.uninit and self.uninit[acc][0] in origins:
                    origin, op_name = self.uninit[acc]
                    deferred.append(UninitializedRead(acc, origin, op_name, op.name, call.span or span))
                    reads = reads[1:]
        self._check(reads, op.name, call.span if call.span and call.span.line else span)
        if var is None:
            return
        if _creates_uninitialized(op, call):
            self.uninit[var] = (var, op.name)
        elif op.is_view and call.args:
            src = call.args[op.memory.operand] if op.memory.operand < len(call.args) else call.args[0]
            if isinstance(src, Var) and src in self.uninit:
                self.uninit[var] = self.uninit[src]

    def _first_iteration_guard(self, cond: Expr) -> tuple[Var, bool] | None:
        """``(loop var, True)`` for ``k == start`` of an enclosing loop that carries created tiles (the then branch
        is the first iteration), ``(loop var, False)`` for ``k != start``; None otherwise."""
        if isinstance(cond, Not):
            inner = self._first_iteration_guard(cond.operand)
            return None if inner is None else (inner[0], not inner[1])
        if not isinstance(cond, (Eq, Ne)):
            return None
        for a, b in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
            if isinstance(a, Var) and a in self.first_iteration and _same_value(b, self.first_iteration[a][0]):
                return a, isinstance(cond, Eq)
        return None

    def _recheck(self, branch: Stmt | None, carried: dict, deferred: list) -> None:
        """Reads of the carried iter args by name in ``branch``: recorded as deferred findings (the walk above ran
        with them initialised, so it did not see them)."""
        w = _Walker()
        w.uninit = dict(self.uninit)
        w.uninit.update(carried)
        w.first_iteration = {}
        w.body(branch)
        origins = {origin for origin, _op in carried.values()}
        deferred.extend(f for f in w.found if f.origin in origins)

    def body(self, stmt: Stmt | None) -> YieldStmt | None:
        """Walk a body; return its (last) yield."""
        if stmt is None:
            return None
        last: YieldStmt | None = None
        for s in stmt.stmts if isinstance(stmt, SeqStmts) else (stmt,):
            y = self.stmt(s)
            if y is not None:
                last = y
        return last

    def stmt(self, s: Stmt) -> YieldStmt | None:
        if isinstance(s, AssignStmt):
            v = s.value
            if isinstance(v, Call):
                self._call(v, s.var, s.span)
            elif isinstance(v, Var) and v in self.uninit:
                self.uninit[s.var] = self.uninit[v]
            elif isinstance(v, TupleGetItem) and isinstance(v.tuple_value, Call):
                self._call(v.tuple_value, None, s.span)
        elif isinstance(s, EvalStmt):
            if isinstance(s.expr, Call):
                self._call(s.expr, None, s.span)
        elif isinstance(s, (ForStmt, WhileStmt)):
            for ia in s.iter_args:
                if isinstance(ia.init, Var) and ia.init in self.uninit:
                    self.uninit[ia] = self.uninit[ia.init]
                elif isinstance(ia.init, Call):
                    self._call(ia.init, ia, s.span)
            first = isinstance(s, ForStmt) and any(ia in self.uninit for ia in s.iter_args)
            if first:
                self.first_iteration[s.loop_var] = (s.start, [ia for ia in s.iter_args if ia in self.uninit], [])
            y = self.body(s.body)
            if first:
                _start, carried, deferred = self.first_iteration.pop(s.loop_var)
                yielded = dict(zip(s.iter_args, y.values if y is not None else (), strict=False))
                # reads excused as "not the first iteration" stand unless every later iteration's value was
                # written: the value yielded for the iter arg must be initialised (and not the iter arg itself)
                if any(yielded.get(ia) is None or yielded.get(ia) is ia or yielded.get(ia) in self.uninit
                       for ia in carried):
                    self.found.extend(deferred)
            if y is not None:
                for rv, val in zip(s.return_vars, y.values, strict=False):
                    if isinstance(val, Var) and val in self.uninit:
                        self.uninit[rv] = self.uninit[val]
        elif isinstance(s, IfStmt):
            guard = self._first_iteration_guard(s.condition)
            for branch in (s.then_body, s.else_body):
                later = guard is not None and branch is (s.else_body if guard[1] else s.then_body)
                if later:  # this branch runs only after the first iteration: the iter args hold written values
                    _start, carried, deferred = self.first_iteration[guard[0]]
                    saved = {ia: self.uninit.pop(ia) for ia in carried if ia in self.uninit}
                    y = self.body(branch)
                    self.uninit.update(saved)
                    # a read of a carried value in this branch is deferred to the loop's end (see above)
                    self._recheck(branch, saved, deferred)
                else:
                    y = self.body(branch)
                if y is None:
                    continue
                for rv, val in zip(s.return_vars, y.values, strict=False):
                    if isinstance(val, Var) and val in self.uninit and rv not in self.uninit:
                        self.uninit[rv] = self.uninit[val]
        elif isinstance(s, YieldStmt):
            return s
        elif isinstance(s, ReturnStmt):
            self._check(s.values, "return", s.span)
        elif isinstance(s, SeqStmts):
            return self.body(s)
        return None


def find_uninitialized_reads(fn: Function) -> list[UninitializedRead]:
    """Every read of a not-yet-written created tile in ``fn``, in program order."""
    w = _Walker()
    w.body(fn.body)
    return w.found


def check_uninitialized_reads(program: Program) -> None:
    """Raise ``VerificationError`` for the first read of an uninitialised tile in ``program``."""
    for fn in program.functions:
        found = find_uninitialized_reads(fn)
        if found:
            f = found[0]
            span = f.span if f.span is not None and f.span.line else None
            raise VerificationError(f.message(fn.name), span=span, hint=f.hint)


__all__ = ["UninitializedRead", "check_uninitialized_reads", "find_uninitialized_reads"]
