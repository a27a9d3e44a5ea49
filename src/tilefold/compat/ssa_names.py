"""PyPTO's ConvertToSSA names (dev/04-convert_to_ssa) for tilefold's SSA IR.

tilefold's front ends build SSA form themselves: every assignment of a Python name makes a new ``Var`` that keeps
the name the user wrote (the printer tells them apart as ``x``, ``x_1``, ...). PyPTO's parser leaves the
re-assignments and its ConvertToSSA pass makes the versions, named ``{name}__{kind}_v{n}``:

- ``ssa``: an assignment (``x__ssa_v0``, ``x__ssa_v1``);
- ``phi``: a value an if merges from its branches (``x__phi_v2``);
- ``iter``: a loop-carried value inside the loop (``sum__iter_v1``);
- ``rv``: the value a loop leaves (``sum__rv_v3``).

``n`` counts the versions of one name in one function, in the order PyPTO's walk makes them: a parameter is
version 0 (and keeps its name: it is the function's signature), then statements in order; a loop makes its
``iter`` versions, then those of its body, then its ``rv`` ones; an if makes its branches' versions, then its
``phi`` ones. A loop-carried value whose iteration variable the front end named on its own (``out_iter``, the
loop-escaping form: ``{name}_iter`` for the loop result ``name``) is a version of that name (``out``).

Only names with more than one version are renamed, as in PyPTO's pages: a name assigned once keeps it (``y``,
``z`` of the straight-line example), and so do loop variables. IR already in those names (printed after the pass
and parsed back) has one version per name and comes back as the same object.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tilefold.ir.expr import Var
from tilefold.ir.stmt import (
    AssignStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
)


def _definitions(fn: Function) -> list[tuple[Var, str, str]]:
    """(variable, base name, version kind) for every definition of ``fn``, in PyPTO's version order."""
    out: list[tuple[Var, str, str]] = [(p, p.name, "param") for p in fn.params]

    def walk(s: Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, SeqStmts):
            for x in s.stmts:
                walk(x)
        elif isinstance(s, AssignStmt):
            out.append((s.var, s.var.name, "ssa"))
        elif isinstance(s, (ForStmt, WhileStmt)):
            for k, ia in enumerate(s.iter_args):
                rv = s.return_vars[k].name if k < len(s.return_vars) else None
                out.append((ia, rv if ia.name == f"{rv}_iter" else ia.name, "iter"))
            walk(s.body)
            out.extend((v, v.name, "rv") for v in s.return_vars)
        elif isinstance(s, IfStmt):
            walk(s.then_body)
            walk(s.else_body)
            out.extend((v, v.name, "phi") for v in s.return_vars)
        elif isinstance(s, ScopeStmt):
            walk(s.body)

    walk(fn.body)
    return out


def pypto_names(fn: Function) -> dict[Var, str]:
    """The variables of ``fn`` PyPTO's ConvertToSSA renames, each with its new name."""
    versions: dict[str, list[tuple[Var, str]]] = {}
    seen: set[int] = set()
    for v, base, kind in _definitions(fn):
        if id(v) not in seen:
            seen.add(id(v))
            versions.setdefault(base, []).append((v, kind))
    renamed: dict[Var, str] = {}
    for base, defs in versions.items():
        if len(defs) < 2:
            continue
        for n, (v, kind) in enumerate(defs):
            if kind != "param":
                renamed[v] = f"{base}__{kind}_v{n}"
    return renamed


class _Rebuild:
    """Rebuilds frozen IR dataclasses (statements, expressions, types, memrefs, kwargs tuples) with some
    variables renamed; a variable whose type mentions a renamed one (a dynamic extent) is rebuilt too, and every
    use of one old variable becomes the same new one."""

    def __init__(self, names: dict[Var, str]) -> None:
        self.names = names
        self.memo: dict[int, Any] = {}

    def __call__(self, obj: Any) -> Any:
        if isinstance(obj, (str, int, float, bool, type(None))) or isinstance(obj, type):
            return obj
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        if isinstance(obj, tuple):
            items = tuple(self(x) for x in obj)
            new = obj if all(a is b for a, b in zip(items, obj, strict=True)) else items
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {}
            for f in dataclasses.fields(obj):
                if f.name == "span":
                    continue
                value = getattr(obj, f.name)
                new_value = self(value)
                if new_value is not value:
                    changes[f.name] = new_value
            if isinstance(obj, Var) and obj in self.names:
                changes["name"] = self.names[obj]
            new = dataclasses.replace(obj, **changes) if changes else obj
        else:
            new = obj  # enums, affine maps' plain data, ...
        self.memo[key] = new
        return new


def rename_function(fn: Function) -> Function:
    names = pypto_names(fn)
    if not names:
        return fn
    return _Rebuild(names)(fn)


def rename_program(program: Program) -> Program:
    """``program`` with every function's re-assigned names in PyPTO's ConvertToSSA scheme (the module doc)."""
    functions = tuple(rename_function(fn) for fn in program.functions)
    if all(a is b for a, b in zip(functions, program.functions, strict=True)):
        return program
    return program.with_fields(functions=functions)


__all__ = ["pypto_names", "rename_function", "rename_program"]
