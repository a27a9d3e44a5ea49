"""OutlineIncoreScopes: turn every ``with pl.at(...)`` scope of an orchestration function into an InCore function
and a call of it. See docs/passes/outline_incore_scopes.md.

Values crossing the scope edge: every variable the scope reads but does not define becomes a parameter (in order
of first use); every variable the scope defines and later code reads becomes a result. A result must be a tensor
written inside the scope (``out[:] = ...`` / ``pl.assemble`` / ``pl.store`` chains rooted at a parameter): the
InCore function writes through that parameter (direction ``Out`` / ``InOut`` from the entry, ``InOut`` when the
scope also reads it) and returns it, as tilefold's kernels do. A fresh tensor of static shape computed in the scope
and read after it (``y = pl.matmul(a, b)`` in one scope, ``pl.add(y, 1)`` in the next) crosses through a GM
workspace: the orchestration creates it (``tensor.create``), the kernel writes the value into it (an ``Out``
parameter) and returns it. Anything else crossing out (a tile, a scalar) is refused: device functions hand results
back through GM tensors only. An Opaque parent that outlined a scope becomes an Orchestration function.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call, ConstInt, GlobalVar, IterArg, MakeTuple, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    ParamDirection,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import DataType, TensorType, TupleType
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.ops import make_call
from tilefold.passes.base import Pass

#: ops whose result is their destination tensor with a window written: (op name, index of the destination)
_WRITES = {"tensor.assemble": 0, "tile.store": 2, "tensor.write": 0, "tile.mscatter": 2}


class _Defs(IRVisitor):
    def __init__(self) -> None:
        self.defs: set[Var] = set()

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.defs.add(stmt.var)
        super().visit_AssignStmt(stmt)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        self.defs.update((stmt.loop_var, *stmt.iter_args, *stmt.return_vars))
        super().visit_ForStmt(stmt)

    def visit_WhileStmt(self, stmt: WhileStmt) -> None:
        self.defs.update((*stmt.iter_args, *stmt.return_vars))
        super().visit_WhileStmt(stmt)

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        self.defs.update(stmt.return_vars)
        super().visit_IfStmt(stmt)


def _store_destinations(body: list[Stmt]) -> list[Var]:
    """Tensors written by store / assemble calls anywhere in ``body`` (loop-carried ones by their initial value)."""
    found: list[Var] = []

    class _Stores(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if expr.op_name in _WRITES:
                dst = expr.args[_WRITES[expr.op_name]]
                while isinstance(dst, IterArg) and isinstance(dst.init, Var):
                    dst = dst.init
                if isinstance(dst, Var) and dst not in found:
                    found.append(dst)
            super().visit_Call(expr)

    v = _Stores()
    for s in body:
        v.visit_stmt(s)
    return found


def _roots(body: list[Stmt], root: dict[Var, Var] | None = None) -> dict[Var, Var]:
    """Written tensor -> the tensor it writes through (transitively), for the write chains of ``body``: writes,
    loop results (through their initial values) and if results (when both branches yield values written
    through the same tensor, as ``if c: out[i:j, :] = v`` does)."""
    root = {} if root is None else root
    for s in body:
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name in _WRITES:
            dst = s.value.args[_WRITES[s.value.op_name]]
            if isinstance(dst, Var):
                root[s.var] = root.get(dst, dst)
        elif isinstance(s, ForStmt):
            for ia, rv in zip(s.iter_args, s.return_vars, strict=False):
                if isinstance(ia.init, Var) and isinstance(rv.type, TensorType):
                    root[rv] = root.get(ia.init, ia.init)
        elif isinstance(s, IfStmt) and s.return_vars:
            yields = []
            for branch in (s.then_body, s.else_body):
                stmts = flatten_stmts(branch) if branch is not None else []
                _roots(stmts, root)
                last = stmts[-1] if stmts else None
                yields.append(last.values if isinstance(last, YieldStmt) else ())
            for k, rv in enumerate(s.return_vars):
                if not isinstance(rv.type, TensorType):
                    continue
                through = {root.get(y[k], y[k]) for y in yields if k < len(y) and isinstance(y[k], Var)}
                if len(through) == 1 and len(yields) == 2 and all(k < len(y) for y in yields):
                    root[rv] = through.pop()
    return root


class _Reads:
    """Where the top-level statements of a function read each variable: ``(statement index, rank of the first
    read within that statement)`` in order. One walk of the function answers "which of these does later code
    read" for every scope, where rescanning the rest of the function per scope was quadratic in the scopes."""

    def __init__(self, stmts: list[Stmt]) -> None:
        self.at: dict[Var, list[tuple[int, int]]] = {}
        for k, s in enumerate(stmts):
            for rank, v in enumerate(collect_uses(s)):
                self.at.setdefault(v, []).append((k, rank))

    def read_after(self, index: int, candidates: set[Var]) -> list[Var]:
        """The ``candidates`` some statement after ``index`` reads, in the order of their first such read."""
        found = []
        for v in candidates:
            where = self.at.get(v)
            if where:
                j = bisect_left(where, (index + 1, -1))  # the first read after statement ``index``
                if j < len(where):
                    found.append((where[j], v))
        found.sort(key=lambda t: t[0])
        return [v for _, v in found]


def _outline(fn: Function, scope: ScopeStmt, position: int, reads: _Reads, index: int,
             taken: set[str]) -> tuple[Function, list[Stmt]]:
    """The InCore function of ``scope`` (the ``position``-th top-level statement of ``fn``, its ``index``-th
    scope) and the statements that replace the scope in ``fn``: the call and the bindings of its results."""
    return _ScopeOutliner(fn, scope, position, reads).outline(_function_name(fn, scope, index, taken))


def _function_name(fn: Function, scope: ScopeStmt, index: int, taken: set[str]) -> str:
    """``pl.at(name_hint=...)`` or ``<fn>_incore_<index>``, made unique among ``taken`` (and added to it)."""
    hint = dict(scope.attrs).get("name_hint")
    name = hint or f"{fn.name}_incore_{index}"
    k = 0
    while name in taken:
        k += 1
        name = f"{hint}_{k}" if hint else name + "_"
    taken.add(name)
    return name


class _ScopeOutliner:
    """What crosses the edge of one scope: ``free`` (the parameters, in the entry's order), ``outputs`` (the
    results the orchestration binds), ``dirs`` (a direction per parameter) and the GM ``workspaces`` of fresh
    tensors read after the scope."""

    def __init__(self, fn: Function, scope: ScopeStmt, position: int, reads: _Reads) -> None:
        self.fn, self.scope = fn, scope
        self.span = scope.span if scope.span.line else None
        self.body = flatten_stmts(scope.body)
        d = _Defs()
        for s in self.body:
            d.visit_stmt(s)
        self.defs = d.defs
        self.free = self.free_vars()
        self.outputs = reads.read_after(position, self.defs)
        self.roots = _roots(self.body)
        self.directions = dict(zip(fn.params, fn.param_directions, strict=False))
        self.written: dict[Var, ParamDirection] = {}
        self.workspaces: dict[Var, Var] = {}  # a fresh tensor computed in the scope and read after it -> its GM
        self.dirs: list[ParamDirection] = []

    def outline(self, name: str) -> tuple[Function, list[Stmt]]:
        self.route_outputs()
        # the function's parameters are the orchestration's variables themselves: types refer to them (a tensor
        # with a pl.dynamic extent has the extent's variable in its shape), so they stay one object across the edge
        params = tuple(self.free)
        self.dirs = self.param_directions()
        self.return_unread_writes()
        new_body = list(self.body)
        returned = self.returned_values(new_body)
        new_body.append(ReturnStmt(tuple(returned), span=self.scope.span))
        rtypes = tuple(v.type for v in self.outputs)
        kernel_attrs = tuple((k, v) for k, v in self.scope.attrs if k in ScopeStmt.KERNEL_ATTRS)
        incore = Function(name, params, tuple(self.dirs), rtypes, SeqStmts(tuple(new_body)), FunctionType.InCore,
                          attrs=kernel_attrs, span=self.scope.span)
        return incore, self.call_site(name, rtypes)

    def free_vars(self) -> list[Var]:
        """The variables the scope reads but does not define, with the symbolic extents of the tensors among
        them, in the entry's parameter order, then in order of first use."""
        used = collect_uses(SeqStmts(tuple(self.body)))
        free = [v for v in used if v not in self.defs and not isinstance(v, IterArg)]
        for v in list(free):  # symbolic extents of the tensors that cross the edge cross it too
            for e in getattr(v.type, "shape", ()):
                for dim in collect_uses(e) if not isinstance(e, Var) else {e: 1}:
                    if dim not in free and dim not in self.defs:
                        free.append(dim)
        order = {p: i for i, p in enumerate(self.fn.params)}
        free.sort(key=lambda v: order.get(v, len(order)))
        return free

    def input_written(self, v: Var) -> NotSupportedError:
        return NotSupportedError(f"the pl.at scope writes {v.name!r}, an input parameter", span=self.span,
                                 hint="declare it pl.Out[...] (or pl.InOut[...]) in the signature")

    def route_outputs(self) -> None:
        """Each value read after the scope leaves through the parameter it is written through (``written``), or
        through a fresh GM workspace when it is a fresh tensor of static shape; anything else is refused."""
        for v in self.outputs:
            r = self.roots.get(v)
            if (r is None or r not in self.free) and isinstance(v.type, TensorType) \
                    and v.type.static_shape is not None:
                # it crosses out through a GM tensor the orchestration creates for it (PyPTO's staged scopes)
                ws = Var(f"{v.name}_ws", TensorType(v.type.shape, v.type.dtype), v.span)
                self.workspaces[v] = ws
                self.free.append(ws)
                self.written[ws] = ParamDirection.Out
                continue
            if r is None or r not in self.free or not isinstance(r.type, TensorType):
                raise NotSupportedError(
                    f"{v.name!r} is computed inside a pl.at scope and used after it, but is not written to a tensor "
                    "passed into the scope", span=self.span,
                    hint=f"write it to an output parameter inside the scope (out[:] = {v.name}) and use that tensor")
            d_in = self.directions.get(r, ParamDirection.InOut)
            if d_in is ParamDirection.In:
                raise self.input_written(r)
            self.written[r] = d_in

    def param_directions(self) -> list[ParamDirection]:
        """``In`` for a parameter the scope only reads; a written one is ``InOut`` when the scope also reads it
        (other than by a write) or the entry declares it so, else ``Out``."""
        dirs = []
        read_in_scope: set[Var] | None = None  # read by a statement of the scope other than a write
        for v in self.free:
            if v in self.written:
                if read_in_scope is None:
                    read_in_scope = {u for s in self.body if not (isinstance(s, AssignStmt)
                                                                  and isinstance(s.value, Call)
                                                                  and s.value.op_name in _WRITES)
                                     for u in collect_uses(s)}
                read = v in read_in_scope
                dirs.append(ParamDirection.InOut if read or self.written[v] is ParamDirection.InOut
                            else ParamDirection.Out)
            else:
                dirs.append(ParamDirection.In)
        return dirs

    def return_unread_writes(self) -> None:
        """A written parameter no later code reads is still an effect of the scope: its last write is returned
        too (and the parameter is at least ``Out``)."""
        last_write = {r: w for w, r in self.roots.items()}  # root -> its last written value
        for s in self.body:
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name in _WRITES \
                    and s.var not in self.outputs:
                r = self.roots.get(s.var)
                if r is not None and s.var is last_write[r] and r in self.free \
                        and not any(self.roots.get(o) is r for o in self.outputs):
                    if self.directions.get(r, ParamDirection.InOut) is ParamDirection.In:
                        raise self.input_written(r)
                    self.outputs.append(s.var)
                    i = self.free.index(r)
                    if self.dirs[i] is ParamDirection.In:
                        self.dirs[i] = ParamDirection.Out

    def returned_values(self, new_body: list[Stmt]) -> list[Var]:
        """The values the function returns, one per output: workspace-staged values are written into their
        workspace first (appended to ``new_body``); a tensor written by a statement-level ``pl.store`` (PyPTO's
        tile-level idiom, also inside loops) is returned as the parameter itself, under a new result name."""
        mapping = {v: v for v in self.free}
        returned = [mapping.get(v, v) for v in self.outputs]
        for k, v in enumerate(self.outputs):
            ws = self.workspaces.get(v)
            if ws is not None:  # the kernel writes the value into its workspace and returns that
                zeros = MakeTuple(tuple(ConstInt(0, DataType.INDEX) for _ in v.type.shape), span=self.scope.span)
                filled = Var(f"{v.name}_staged", ws.type, v.span)
                new_body.append(AssignStmt(filled, make_call("tensor.assemble", [ws, v, zeros], {},
                                                             span=self.scope.span), span=self.scope.span))
                returned[k] = filled
        for dest in _store_destinations(self.body):
            if dest in self.free and not any(self.roots.get(o) is dest for o in self.outputs):
                if self.directions.get(dest, ParamDirection.InOut) is ParamDirection.In:
                    raise self.input_written(dest)
                i = self.free.index(dest)
                if self.dirs[i] is ParamDirection.In:
                    self.dirs[i] = self.directions.get(dest, ParamDirection.Out)
                if mapping[dest] not in returned:
                    returned.append(mapping[dest])
                    # the orchestration keeps using the parameter itself: bind the call's result to a new name
                    self.outputs.append(Var(f"{dest.name}_written", dest.type, dest.span))
        return returned

    def call_site(self, name: str, rtypes: tuple[Any, ...]) -> list[Stmt]:
        """What replaces the scope: the workspaces' ``tensor.create``, the call, and its results bound to the
        outputs (through a tuple when there are several)."""
        span = self.scope.span
        call_type = rtypes[0] if len(rtypes) == 1 else TupleType(rtypes)
        call = Call(GlobalVar(name, span=span), tuple(self.free), (), call_type, span=span)
        creates: list[Stmt] = [AssignStmt(ws, make_call("tensor.create", [], {"shape": tuple(
            int(e) for e in ws.type.static_shape), "dtype": ws.type.dtype}, span=span), span=span)
            for ws in self.workspaces.values()]
        if len(self.outputs) == 1:
            return [*creates, AssignStmt(self.outputs[0], call, span=span)]
        tup = Var(f"{name}_results", call_type, span)
        stmts = [*creates, AssignStmt(tup, call, span=span)]
        stmts += [AssignStmt(v, TupleGetItem(tup, i, span=span), span=span) for i, v in enumerate(self.outputs)]
        return stmts


def _run(program: Program) -> Program:
    taken = {f.name for f in program.functions}
    functions: list[Function] = []
    changed = False
    for fn in program.functions:
        stmts = flatten_stmts(fn.body)
        if not any(isinstance(s, ScopeStmt) for s in stmts):
            _reject_nested(fn)
            functions.append(fn)
            continue
        changed = True
        out: list[Stmt] = []
        n = 0
        reads = _Reads(stmts)
        for i, s in enumerate(stmts):
            if isinstance(s, ScopeStmt):
                incore, call = _outline(fn, s, i, reads, n, taken)
                functions.append(incore)
                out.extend(call)
                n += 1
            else:
                out.append(s)
        new_fn = fn.with_fields(body=SeqStmts(tuple(out)))
        if fn.func_type is FunctionType.Opaque:  # PyPTO: an Opaque parent that outlined a scope is orchestration
            new_fn = new_fn.with_fields(func_type=FunctionType.Orchestration)
        _reject_nested(new_fn)
        functions.append(new_fn)
    return program.with_fields(functions=tuple(functions)) if changed else program


def _reject_nested(fn: Function) -> None:
    class _Find(IRVisitor):
        def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
            raise NotSupportedError("a pl.at scope inside a loop or if of the orchestration code is not supported",
                                    span=stmt.span if stmt.span.line else None,
                                    hint="put the loop inside the scope: with pl.at(...): for i in pl.range(...)")

    _Find().visit_stmt(fn.body)


def has_scopes(program: Program) -> bool:
    """Does a function of ``program`` hold a ``pl.at`` scope at its top level (what this pass outlines)?"""
    return any(isinstance(s, ScopeStmt) for fn in program.functions for s in flatten_stmts(fn.body))


def outline_incore_scopes() -> Pass:
    """The OutlineIncoreScopes pass (``pl.at`` scopes -> InCore functions + calls)."""
    return Pass("OutlineIncoreScopes", _run)


__all__ = ["has_scopes", "outline_incore_scopes"]
