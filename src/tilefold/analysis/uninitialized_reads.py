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
  loop / if result is uninitialised when the value yielded for it is (in any branch);
- a window write (``extra["window_write"] = (target, value, offsets)``: ``tile.assemble`` writes the value's
  window, ``tile.write`` one element, ``tile.gather_row`` the extents its ``extra["window_extents"](call)`` states)
  does not read its target: the target's other elements pass through. The
  walk tracks, per tile of a static shape, which elements nothing wrote yet: a window at offsets it can evaluate
  (constants, affine expressions of the loop variables of a loop with constant bounds, which it then walks
  iteration by iteration, up to ``_MAX_TRIPS``) clears them, and a tile whose every element is written is
  initialised. A read of a tile with any element still unwritten is a finding that names how many; a window at
  offsets the walk cannot evaluate proves nothing written (the finding says so);
- a ``tile.slice`` at constant offsets reads / passes on only its window of the unwritten elements.

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
from typing import Any

import numpy as np

from tilefold.analysis.affine import affine_form
from tilefold.errors import Span, VerificationError
from tilefold.ir.expr import Call, ConstBool, ConstInt, Eq, Expr, MakeTuple, Ne, Not, TupleGetItem, Var
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
from tilefold.ir.types import ScalarType, TileType
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
    partly: str = ""  # a partly written tile: which elements nothing wrote

    def message(self, fn_name: str) -> str:
        via = "" if self.var is self.origin else f" (through {self.var.name!r})"
        where = ""
        if self.origin.span is not None and self.origin.span.line:
            where = f" at line {self.origin.span.line}"
        if self.partly:
            return (f"in {fn_name!r}, {self.reader} reads tile {self.origin.name!r}{via} made by {self.origin_op}"
                    f"{where}, {self.partly}: those elements of a created tile are uninitialised on the device")
        return (f"in {fn_name!r}, {self.reader} reads tile {self.origin.name!r}{via} made by {self.origin_op}"
                f"{where} before anything wrote it: a created tile is uninitialised on the device, its "
                f"contents are whatever the storage held before")

    @property
    def hint(self) -> str:
        if self.partly:
            return (f"write every element before the read (pl.tile.assemble windows that cover the tile), or start "
                    f"from pl.tile.full(shape, dtype=..., value=0, target_memory=...) instead of {self.origin_op}")
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


_MAX_TRIPS = 256  # loops with window writes walked iteration by iteration, up to this trip count


def _unwritten_text(mask: np.ndarray, proved: bool) -> str:
    first = tuple(int(i) for i in np.argwhere(mask)[0])
    why = "" if proved else " (the offsets of a window write could not be evaluated, so nothing is proved written)"
    return f"{int(mask.sum())} of its {mask.size} elements nothing wrote, e.g. element {list(first)}{why}"


def _norm(form: Any) -> tuple[frozenset, int]:
    """An affine form comparable by ``==``: (the non-zero coefficients, the constant)."""
    coeffs, const = form
    return frozenset((v, c) for v, c in coeffs.items() if c), const


def _sum(a: Any, b: Any) -> Any:
    coeffs = dict(a[0])
    for v, c in b[0].items():
        coeffs[v] = coeffs.get(v, 0) + c
    return coeffs, a[1] + b[1]


class _Walker:
    def __init__(self) -> None:
        self.uninit: dict[Var, tuple[Var, str]] = {}  # var -> (origin var, origin op name)
        # a var of self.uninit holding a partly written tile of a static shape: True where nothing wrote yet
        # (absent: every element unwritten); False in ``proved``: a window write was not evaluated
        self.unwritten: dict[Var, np.ndarray] = {}
        self.proved: dict[Var, bool] = {}
        self.defs: dict[Var, Expr] = {}  # scalar definitions, for affine offsets
        self.loop_values: dict[Var, int] = {}  # loop vars of a loop walked iteration by iteration
        self.found: list[UninitializedRead] = []
        # loop var -> (start, iter args holding created tiles on the first iteration, reads excused in branches
        # that run only on later iterations, reported at the loop's end unless later iterations are written)
        self.first_iteration: dict[Var, tuple[Expr, list[Var], list[UninitializedRead]]] = {}
        # a var of self.uninit written in whole-row runs at symbolic offsets: the runs, (lo, hi) affine forms
        self.row_runs: dict[Var, list[tuple[Any, Any]]] = {}

    def _check(self, exprs, reader: str, span: Span | None) -> None:
        for e in exprs:
            if isinstance(e, Var) and e in self.uninit:
                origin, op_name = self.uninit[e]
                mask = self.unwritten.get(e)
                partly = "" if mask is None else _unwritten_text(mask, self.proved.get(e, True))
                self.found.append(UninitializedRead(e, origin, op_name, reader, span, partly))

    # ---- element masks of partly written tiles

    def _mask(self, v: Expr) -> np.ndarray | None:
        """True where nothing wrote ``v``'s element; None when ``v`` is initialised or its shape is not static."""
        if not isinstance(v, Var) or v not in self.uninit:
            return None
        if v in self.unwritten:
            return self.unwritten[v].copy()
        shape = getattr(v.type, "static_shape", None)
        return None if shape is None else np.ones(shape, dtype=bool)

    def _set(self, var: Var, origin: tuple[Var, str], mask: np.ndarray | None, proved: bool = True) -> None:
        """``var`` holds ``origin``'s tile with the unwritten elements ``mask`` (None: all of them)."""
        self.row_runs.pop(var, None)
        if mask is not None and not mask.any():
            self._forget(var)
            return
        self.uninit[var] = origin
        if mask is None or mask.all() and proved:
            self.unwritten.pop(var, None)
            self.proved.pop(var, None)
        else:
            self.unwritten[var] = mask
            self.proved[var] = proved

    def _forget(self, var: Var) -> None:
        self.row_runs.pop(var, None)
        self.uninit.pop(var, None)
        self.unwritten.pop(var, None)
        self.proved.pop(var, None)

    def _alias(self, dst: Var, src: Expr) -> None:
        """``dst`` holds the same value as ``src``."""
        if isinstance(src, Var) and src in self.uninit:
            self._set(dst, self.uninit[src], self.unwritten.get(src), self.proved.get(src, True))
            if src in self.row_runs:
                self.row_runs[dst] = list(self.row_runs[src])
        else:
            self._forget(dst)

    def _join(self, dst: Var, src: Expr) -> None:
        """``dst`` is ``src`` on one path (an if result): unwritten where any path left the element unwritten."""
        if not (isinstance(src, Var) and src in self.uninit):
            return
        if dst not in self.uninit:
            self._alias(dst, src)
            return
        a, b = self._mask(dst), self._mask(src)
        mask = None if a is None or b is None or a.shape != b.shape else a | b
        self._set(dst, self.uninit[dst], mask, self.proved.get(dst, True) and self.proved.get(src, True))

    def _offset(self, e: Expr) -> int | None:
        if isinstance(e, ConstInt):
            return e.value
        form = affine_form(e, self.defs)
        if form is None or any(v not in self.loop_values for v in form[0]):
            return None
        return form[1] + sum(c * self.loop_values[v] for v, c in form[0].items())

    def _window_write(self, call: Call, op: OpDef, var: Var | None, span: Span | None) -> None:
        target_at, value_at, offsets_at = op.extra["window_write"]
        target = call.args[target_at]
        self._check([a for i, a in enumerate(call.args) if i != target_at], op.name,
                    call.span if call.span and call.span.line else span)
        if var is None or not (isinstance(target, Var) and target in self.uninit):
            return
        mask = self._mask(target)
        offsets = call.args[offsets_at]
        extents = (1,) * len(mask.shape) if mask is not None and value_at is None else \
            getattr(call.args[value_at].type, "static_shape", None) if value_at is not None else None
        if op.extra.get("window_extents") is not None:  # the op states its written extents (tile.gather_row)
            extents = op.extra["window_extents"](call)
        where = [self._offset(o) for o in offsets.elements] if isinstance(offsets, MakeTuple) else [None]
        if mask is None or extents is None or None in where or len(where) != mask.ndim:
            if not self._row_runs(call, op, target, var):
                self._set(var, self.uninit[target], mask, False)  # nothing proved written
            return
        mask[tuple(slice(max(o, 0), max(o, 0) + e) for o, e in zip(where, extents, strict=True))] = False
        self._set(var, self.uninit[target], mask, self.proved.get(target, True))

    def _row_runs(self, call: Call, op: OpDef, target: Var, var: Var) -> bool:
        """Whole-row writes at symbolic offsets (``extra["window_region"](call)`` -> (offsets, extents)): runs of
        rows ``[lo, lo + extent)`` as affine forms, joined where one run ends where the next begins; rows
        ``[0, rows)`` covered make the tile initialised (e.g. PyPTO's two-run gather ``[0, r1)``, ``[r1, 16)``).
        False when the write is not such a run (nothing proved)."""
        region = op.extra.get("window_region")
        shape = getattr(target.type, "static_shape", None)
        if region is None or shape is None or len(shape) != 2 or target in self.unwritten:
            return False
        offs, exts = region(call)
        forms = [affine_form(e, self.defs) for e in (*offs, *exts)]
        if any(f is None for f in forms) or _norm(forms[1]) != _norm(({}, 0)) \
                or _norm(forms[3]) != _norm(({}, shape[1])):
            return False
        runs = [*self.row_runs.get(target, []), (_norm(forms[0]), _norm(_sum(forms[0], forms[2])))]
        merged = True
        while merged:
            merged = False
            for a in runs:
                b = next((b for b in runs if b is not a and b[0] == a[1]), None)
                if b is not None:
                    runs = [r for r in runs if r is not a and r is not b] + [(a[0], b[1])]
                    merged = True
                    break
        if (_norm(({}, 0)), _norm(({}, shape[0]))) in runs:
            self._forget(var)
            return True
        self.uninit[var] = self.uninit[target]
        self.row_runs[var] = runs
        return True

    def _slice_view(self, call: Call, var: Var) -> bool:
        """A ``tile.slice`` of a partly written tile at constant offsets: its window of the unwritten elements."""
        src = call.args[0] if call.args else None
        mask = self._mask(src) if isinstance(src, Var) and src in self.unwritten else None
        shape = getattr(var.type, "static_shape", None)
        if call.op_name != "tile.slice" or mask is None or shape is None or len(call.args) < 3 \
                or not isinstance(call.args[2], MakeTuple):
            return False
        where = [self._offset(o) for o in call.args[2].elements]
        if None in where or len(where) != mask.ndim:
            return False
        window = mask[tuple(slice(o, o + e) for o, e in zip(where, shape, strict=True))]
        self._set(var, self.uninit[src], window.copy() if window.shape == shape else None,
                  self.proved.get(src, True))
        return True

    def _call(self, call: Call, var: Var | None, span: Span | None) -> None:
        op = op_of(call)
        if op is None:  # a function call: every tile argument is read
            self._check(call.args, f"the call of {call.op_name}", call.span or span)
            return
        if op.extra.get("window_write") is not None:
            self._window_write(call, op, var, span)
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
            self._set(var, (var, op.name), None)
        elif op.is_view and call.args and not self._slice_view(call, var):
            src = call.args[op.memory.operand] if op.memory.operand < len(call.args) else call.args[0]
            if isinstance(src, Var) and src in self.uninit:
                shape = getattr(var.type, "static_shape", None)
                mask = self._mask(src)  # a view of another shape: unwritten as a whole if any element is
                self._set(var, self.uninit[src], mask if mask is not None and mask.shape == shape else None,
                          self.proved.get(src, True))

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
                self._alias(s.var, v)
            elif isinstance(v, TupleGetItem) and isinstance(v.tuple_value, Call):
                self._call(v.tuple_value, None, s.span)
            if isinstance(s.var.type, ScalarType) and not isinstance(v, Call):
                self.defs[s.var] = v
        elif isinstance(s, EvalStmt):
            if isinstance(s.expr, Call):
                self._call(s.expr, None, s.span)
        elif isinstance(s, (ForStmt, WhileStmt)):
            self._loop(s)
        elif isinstance(s, IfStmt):
            self._if(s)
        elif isinstance(s, YieldStmt):
            return s
        elif isinstance(s, ReturnStmt):
            self._check(s.values, "return", s.span)
        elif isinstance(s, SeqStmts):
            return self.body(s)
        return None

    def _loop(self, s: ForStmt | WhileStmt) -> None:
        for ia in s.iter_args:
            if isinstance(ia.init, Var) and ia.init in self.uninit:
                self._alias(ia, ia.init)
            elif isinstance(ia.init, Call):
                self._call(ia.init, ia, s.span)
        trips = _trips(s) if any(ia in self.uninit for ia in s.iter_args) and _has_window_write(s.body) else None
        if trips is not None:  # window writes at loop-variable offsets: walk the iterations one by one
            y = None
            for value in trips:
                self.loop_values[s.loop_var] = value  # type: ignore[union-attr]
                y = self.body(s.body)
                for ia, val in zip(s.iter_args, y.values if y is not None else (), strict=False):
                    self._alias(ia, val)
            self.loop_values.pop(s.loop_var, None)  # type: ignore[union-attr]
        else:
            y = self._loop_once(s)
        if y is not None:  # a loop walked again (nested in a walked loop) overwrites the last walk's state
            for rv, val in zip(s.return_vars, y.values, strict=False):
                self._alias(rv, val)

    def _loop_once(self, s: ForStmt | WhileStmt) -> YieldStmt | None:
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
        return y

    def _if(self, s: IfStmt) -> None:
        for rv in s.return_vars:  # joined afresh (an if in a walked loop is walked once per iteration)
            self._forget(rv)
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
                self._join(rv, val)


def _trips(s: ForStmt | WhileStmt) -> range | None:
    """The loop variable's values of a for loop with constant bounds and at most ``_MAX_TRIPS`` iterations."""
    if not isinstance(s, ForStmt) or not all(isinstance(e, ConstInt) for e in (s.start, s.stop, s.step)) \
            or s.step.value == 0:  # type: ignore[union-attr]
        return None
    values = range(s.start.value, s.stop.value, s.step.value)  # type: ignore[union-attr]
    return values if 0 < len(values) <= _MAX_TRIPS else None


def _has_window_write(stmt: Stmt | None) -> bool:
    """Whether a statement of ``stmt`` (nested ones included) is a window write."""
    if isinstance(stmt, SeqStmts):
        return any(_has_window_write(x) for x in stmt.stmts)
    if isinstance(stmt, (ForStmt, WhileStmt)):
        return _has_window_write(stmt.body)
    if isinstance(stmt, IfStmt):
        return _has_window_write(stmt.then_body) or _has_window_write(stmt.else_body)
    value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr if isinstance(stmt, EvalStmt) else None
    op = op_of(value) if isinstance(value, Call) else None
    return op is not None and op.extra.get("window_write") is not None


def find_uninitialized_reads(fn: Function) -> list[UninitializedRead]:
    """Every read of a not-yet-written created tile in ``fn``, in program order."""
    w = _Walker()
    w.body(fn.body)
    seen: set[tuple] = set()
    found = []
    for f in w.found:  # a loop walked iteration by iteration reports a read once
        key = (f.var, f.reader, f.span)
        if key not in seen:
            seen.add(key)
            found.append(f)
    return found


def check_uninitialized_reads(program: Program) -> None:
    """Raise ``VerificationError`` for the first read of an uninitialised tile in ``program``."""
    for fn in program.functions:
        found = find_uninitialized_reads(fn)
        if found:
            f = found[0]
            span = f.span if f.span is not None and f.span.line else None
            raise VerificationError(f.message(fn.name), span=span, hint=f.hint)


__all__ = ["UninitializedRead", "check_uninitialized_reads", "find_uninitialized_reads"]
