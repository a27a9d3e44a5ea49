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
from tilefold.ir.expr import Call, Expr, TupleGetItem, Var
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
        self._check(_read_operands(call, op), op.name, call.span if call.span and call.span.line else span)
        if var is None:
            return
        if _creates_uninitialized(op, call):
            self.uninit[var] = (var, op.name)
        elif op.is_view and call.args:
            src = call.args[op.memory.operand] if op.memory.operand < len(call.args) else call.args[0]
            if isinstance(src, Var) and src in self.uninit:
                self.uninit[var] = self.uninit[src]

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
            y = self.body(s.body)
            if y is not None:
                for rv, val in zip(s.return_vars, y.values, strict=False):
                    if isinstance(val, Var) and val in self.uninit:
                        self.uninit[rv] = self.uninit[val]
        elif isinstance(s, IfStmt):
            for branch in (s.then_body, s.else_body):
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
