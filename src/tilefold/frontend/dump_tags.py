"""PyPTO's selective tensor dump markers (dev/01-statements, precision/00-workflow, tutorials/05).

- ``pl.dump_tag(t)``: a statement of orchestration code (a ``@pl.program`` Orchestration / Opaque function, a
  ``@pl.jit`` entry outside its ``pl.at`` scopes, or an inline helper spliced there) naming one tensor variable.
  It becomes ``tensor.dump_tag(t)``: from that statement on, every kernel launch binding ``t``'s GM tensor dumps
  it before and after the launch when the run asks for dumps (``RunConfig(enable_dump_args=1)``).
- ``dumps=[a, b]`` on ``pl.at(...)`` / ``pl.submit(...)``: the same for the one task that scope or submit launches
  (``tensor.dump_tag(a, next_launch=True)`` just before it).

Kernel code (a ``pl.at`` body, an InCore function, a jit kernel), an argument that is not a bare tensor name, and a
use as a value are located errors. The dumps themselves are written by ``tilefold.runtime.dfx``.
"""

from __future__ import annotations

import ast
from typing import Any

from tilefold.ir.expr import Var
from tilefold.ir.stmt import EvalStmt, Stmt
from tilefold.ir.types import TensorType
from tilefold.ops.registry import make_call

_WHERE = ("pl.dump_tag marks a tensor of orchestration code: use it in an Orchestration / Opaque function, in a "
          "@pl.jit entry outside its pl.at scopes, or in an inline helper called there")


def dump_tag_stmt(p: Any, call: ast.Call, out: list[Stmt]) -> None:
    """``pl.dump_tag(t)`` as a statement: ``tensor.dump_tag(t)`` in orchestration code, else a located error.
    (The printer's ``pl.tensor.dump_tag(t, next_launch=True)`` is the mark ``dumps=[t]`` leaves.)"""
    once = [kw for kw in call.keywords if kw.arg == "next_launch"]
    if len(call.keywords) != len(once) or len(call.args) != 1:
        raise p.error(call, "pl.dump_tag takes exactly one tensor variable", hint="write pl.dump_tag(t)")
    if once and not (isinstance(once[0].value, ast.Constant) and isinstance(once[0].value.value, bool)):
        raise p.error(once[0].value, "next_launch= must be True or False", hint="next_launch=True")
    if p._on_chip():
        raise p.error(call, "pl.dump_tag in kernel code (a pl.at scope, an InCore function or a jit kernel)",
                      hint=_WHERE)
    v = _tensor_name(p, call.args[0], "pl.dump_tag")
    attrs = {"next_launch": True} if once and once[0].value.value else {}
    out.append(EvalStmt(make_call("tensor.dump_tag", (v,), attrs, p.span(call)), span=p.span(call)))


def dumps_option(p: Any, node: ast.expr, what: str) -> tuple[Var, ...]:
    """The tensors of ``dumps=[a, b]`` on ``pl.at`` / ``pl.submit`` (bare tensor names, written inline)."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise p.error(node, f"{what}(dumps=...) takes a list of tensor names written inline",
                      hint="e.g. dumps=[x, out]")
    return tuple(_tensor_name(p, e, f"{what}(dumps=...)") for e in node.elts)


def next_launch_tags(p: Any, tensors: tuple[Var, ...], node: ast.AST) -> list[Stmt]:
    """The statements that mark ``tensors`` for the next launch only (placed just before it)."""
    span = p.span(node)
    return [EvalStmt(make_call("tensor.dump_tag", (v,), {"next_launch": True}, span), span=span) for v in tensors]


def _tensor_name(p: Any, node: ast.expr, what: str) -> Var:
    if not isinstance(node, ast.Name):
        raise p.error(node, f"{what} takes a bare tensor variable name, not {ast.unparse(node)!r}",
                      hint="bind the value to a name first (t = ...), then write pl.dump_tag(t)")
    v = p.env.get(node.id)
    if not isinstance(v, Var) or not isinstance(v.type, TensorType):
        kind = "undefined" if v is None else "not a tensor"
        raise p.error(node, f"{what}: {node.id!r} is {kind}",
                      hint="name a tensor of the orchestration code (a parameter, a pl.create_tensor result, a "
                           "kernel's result)")
    return v


__all__ = ["dump_tag_stmt", "dumps_option", "next_launch_tags"]
