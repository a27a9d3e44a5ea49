"""OutlineHierarchyScopes: turn every hierarchy scope (``with pl.at(level=pl.Level.HOST, role=...)``, see
frontend/hierarchy.py) into an Opaque function carrying ``level`` / ``role`` attributes and a call of it. See
docs/passes/outline_hierarchy_scopes.md.

PyPTO's pass (dev/07-outline_hierarchy_scopes): the outlined function is named ``{parent}_{level}[_{role}]_{n}``
(``n`` counts the hierarchy scopes of the parent); its parameters are the variables the scope reads but does not
define (in the parent's parameter order, then first use), its results the variables it defines that later code
reads. Nested hierarchy scopes are outlined inside the outlined function, so their names chain
(``main_global_orch_0_host_orch_0``). On-chip scopes inside are left for OutlineIncoreScopes. The parent's function
type is kept. A tensor the scope writes through a parameter (``out[:] = ...``) is returned too, so the caller's
later statements see the written value.
"""

from __future__ import annotations

from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call, GlobalVar, IterArg, TupleGetItem, Var
from tilefold.ir.hierarchy import ON_CHIP, outlined_name
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    Function,
    FunctionType,
    ParamDirection,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    flatten_stmts,
)
from tilefold.ir.types import TupleType
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.passes.base import Pass
from tilefold.passes.tensor_lowering.outline_incore_scopes import _Defs, _Reads, _roots, _store_destinations


def is_hierarchy(s: Stmt) -> bool:
    return isinstance(s, ScopeStmt) and s.level not in ON_CHIP


def _outline_function(fn: Function, taken: set[str], out: list[Function]) -> Function:
    """``fn`` with its top-level hierarchy scopes replaced by calls; the outlined functions (their own nested
    scopes outlined first) are appended to ``out``."""
    stmts = flatten_stmts(fn.body)
    if not any(is_hierarchy(s) for s in stmts):
        _reject_nested(fn)
        return fn
    reads = _Reads(stmts)
    directions = dict(zip(fn.params, fn.param_directions, strict=False))
    body: list[Stmt] = []
    n = 0
    for i, s in enumerate(stmts):
        if not is_hierarchy(s):
            body.append(s)
            continue
        role = dict(s.attrs).get("role")
        name = dict(s.attrs).get("name_hint") or outlined_name(fn.name, s.level, role, n)
        n += 1
        if name in taken:
            raise NotSupportedError(f"the outlined hierarchy function {name!r} clashes with a function of the "
                                    "program", span=s.span if s.span.line else None,
                                    hint="rename that function (or give the scope name_hint=...)")
        taken.add(name)
        child, call = _outline_scope(fn, s, i, reads, directions, name)
        out.append(_outline_function(child, taken, out))
        body.extend(call)
    new_fn = fn.with_fields(body=SeqStmts(tuple(body)))
    _reject_nested(new_fn)
    return new_fn


def _outline_scope(fn: Function, scope: ScopeStmt, position: int, reads: _Reads,
                   directions: dict[Var, ParamDirection], name: str) -> tuple[Function, list[Stmt]]:
    inner = flatten_stmts(scope.body)
    d = _Defs()
    for s in inner:
        d.visit_stmt(s)
    used = collect_uses(SeqStmts(tuple(inner)))
    free = [v for v in used if v not in d.defs and not isinstance(v, IterArg)]
    for v in list(free):  # the symbolic extents of a crossing tensor cross too
        for e in getattr(v.type, "shape", ()):
            for dim in (collect_uses(e) if not isinstance(e, Var) else {e: 1}):
                if dim not in free and dim not in d.defs:
                    free.append(dim)
    order = {p: k for k, p in enumerate(fn.params)}
    free.sort(key=lambda v: order.get(v, len(order)))
    outputs = reads.read_after(position, d.defs)
    roots = _roots(inner)
    written = {roots[v] for v in roots} | set(_store_destinations(inner))
    last_write = {r: w for w, r in roots.items()}  # a write chain's last value (statement order)
    for r, w in last_write.items():  # a parameter's last write is an effect of the scope: it is returned
        if r in free and w not in outputs and not any(roots.get(o) is r for o in outputs):
            outputs.append(w)
    dirs = []
    for v in free:
        if v in written:
            d_in = directions.get(v, ParamDirection.InOut)
            if d_in is ParamDirection.In:
                raise NotSupportedError(f"the pl.at scope writes {v.name!r}, an input parameter",
                                        span=scope.span if scope.span.line else None,
                                        hint="declare it pl.Out[...] (or pl.InOut[...]) in the signature")
            dirs.append(d_in)
        else:
            dirs.append(ParamDirection.In)
    rtypes = tuple(v.type for v in outputs)
    attrs = (("level", scope.level),) + ((("role", dict(scope.attrs)["role"]),) if dict(scope.attrs).get("role")
                                         else ())
    child = Function(name, tuple(free), tuple(dirs), rtypes,
                     SeqStmts((*inner, ReturnStmt(tuple(outputs), span=scope.span))), FunctionType.Opaque,
                     attrs=attrs, span=scope.span)
    return child, _call_site(name, free, outputs, rtypes, scope)


def _call_site(name: str, free: list[Var], outputs: list[Var], rtypes: tuple, scope: ScopeStmt) -> list[Stmt]:
    span = scope.span
    call_type = rtypes[0] if len(rtypes) == 1 else TupleType(rtypes)
    call = Call(GlobalVar(name, span=span), tuple(free), (), call_type, span=span)
    if not outputs:
        return [EvalStmt(call, span=span)]
    if len(outputs) == 1:
        return [AssignStmt(outputs[0], call, span=span)]
    tup = Var(f"{name}_results", call_type, span)
    return [AssignStmt(tup, call, span=span)] + [AssignStmt(v, TupleGetItem(tup, k, span=span), span=span)
                                                 for k, v in enumerate(outputs)]


def _reject_nested(fn: Function) -> None:
    class _Find(IRVisitor):
        def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
            if is_hierarchy(stmt):
                raise NotSupportedError("a hierarchy pl.at scope inside a loop or an if is not supported",
                                        span=stmt.span if stmt.span.line else None,
                                        hint="put the loop inside the scope")
            super().visit_ScopeStmt(stmt)

    _Find().visit_stmt(fn.body)


def _run(program: Program) -> Program:
    if not any(is_hierarchy(s) for fn in program.functions for s in flatten_stmts(fn.body)):
        return program
    taken = {f.name for f in program.functions}
    outlined: list[Function] = []
    originals = [_outline_function(fn, taken, outlined) for fn in program.functions]
    return program.with_fields(functions=tuple(outlined + originals))


def has_hierarchy_scopes(program: Program) -> bool:
    return any(is_hierarchy(s) for fn in program.functions for s in flatten_stmts(fn.body))


def outline_hierarchy_scopes() -> Pass:
    """The OutlineHierarchyScopes pass (hierarchy ``pl.at`` scopes -> level / role functions + calls)."""
    return Pass("OutlineHierarchyScopes", _run)


__all__ = ["has_hierarchy_scopes", "is_hierarchy", "outline_hierarchy_scopes"]
