"""``x.bind_dynamic(axis, M)`` in a ``@pl.jit`` entry: axis ``axis`` of the tensor parameter ``x`` is the dynamic
extent ``M`` (a ``pl.dynamic`` dim), as if the annotation said ``M`` there.

PyPTO's docs name ``bind_dynamic`` beside ``pl.dynamic`` ("dynamic dims need no value: the compiled artifact is
extent-independent") and say no more. tilefold's reading, what a PyPTO user would expect of it:

- It is a declaration at the top level of the entry's body (not in a scope, loop or if), about a tensor parameter
  (typically a bare ``pl.Tensor``, whose shape comes from the call). ``axis`` is an integer constant (negative
  counts from the end); ``M`` is a ``pl.dynamic`` dim: a module or closure constant, a name bound by
  ``M = pl.dynamic("M")`` at the top of the body, or an inline ``pl.dynamic("M")``.
- The axis then behaves exactly like an annotated ``pl.dynamic`` axis: its extent is left out of the compile
  cache key (one compiled kernel for every extent), ``M`` is a hidden scalar parameter filled from the arrays at
  each call, every axis bound to ``M`` must have the same extent (a located error otherwise), and the body may
  use ``M`` (or ``pl.tensor.dim(x, axis)``) as a run-time extent.
- Binding an axis whose annotation gives a constant extent, an axis outside the tensor's rank, a parameter that is
  not a tensor, or the same axis to two dims is a located error with a hint.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Binding:
    param: str
    axis: int  # as written (negative: from the end)
    dim: str  # the pl.dynamic name
    node: ast.Call
    py_name: str | None  # the Python name the dim was given by (None: an inline pl.dynamic("M"))


def _dynamic_call(node: ast.AST) -> str | None:
    """The name of an inline ``pl.dynamic("M")`` (any ``<module>.dynamic``), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dynamic" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str) and not node.keywords:
        return node.args[0].value
    return None


def local_dims(fn: ast.FunctionDef) -> dict[str, str]:
    """Python name -> dim name of the body's top-level ``M = pl.dynamic("M")`` statements."""
    out: dict[str, str] = {}
    for s in fn.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            dim = _dynamic_call(s.value)
            if dim is not None:
                out[s.targets[0].id] = dim
    return out


def is_local_dim(s: ast.stmt) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
        and _dynamic_call(s.value) is not None


def binding_call(s: ast.stmt) -> ast.Call | None:
    """The call of a ``x.bind_dynamic(...)`` expression statement, else None."""
    v = s.value if isinstance(s, ast.Expr) else None
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "bind_dynamic":
        return v
    return None


def bindings(fn: ast.FunctionDef, const_lookup: Any, error: Any) -> list[Binding]:
    """The entry's ``x.bind_dynamic(axis, M)`` declarations, checked for form; ``error(node, message, hint)``
    builds the located error."""
    from tilefold.frontend.dsl import DynamicDim

    params = {p.arg for p in fn.args.args}
    local = local_dims(fn)
    out: list[Binding] = []
    for s in fn.body:
        call = binding_call(s)
        if call is None:
            continue
        base = call.func.value  # type: ignore[attr-defined]
        if not isinstance(base, ast.Name) or base.id not in params:
            raise error(call, "bind_dynamic binds an axis of a tensor parameter of the @pl.jit entry",
                        "write `x.bind_dynamic(0, M)` with x a parameter")
        if len(call.args) != 2 or call.keywords:
            raise error(call, "bind_dynamic takes two arguments: the axis and the pl.dynamic dim",
                        'e.g. x.bind_dynamic(0, M) with M = pl.dynamic("M")')
        axis_node, dim_node = call.args
        axis = axis_node.value if isinstance(axis_node, ast.Constant) else None
        if isinstance(axis_node, ast.UnaryOp) and isinstance(axis_node.op, ast.USub) \
                and isinstance(axis_node.operand, ast.Constant) and type(axis_node.operand.value) is int:
            axis = -axis_node.operand.value
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise error(axis_node, "the axis of bind_dynamic must be an integer constant", "e.g. x.bind_dynamic(0, M)")
        dim = _dynamic_call(dim_node)
        if dim is None and isinstance(dim_node, ast.Name):
            value = const_lookup(dim_node.id) if const_lookup is not None else None
            dim = value.name if isinstance(value, DynamicDim) else local.get(dim_node.id)
        if dim is None:
            raise error(dim_node, "the second argument of bind_dynamic must be a pl.dynamic dim",
                        'define it with M = pl.dynamic("M") (in the module or at the top of the body)')
        out.append(Binding(base.id, axis, dim, call, dim_node.id if isinstance(dim_node, ast.Name) else None))
    return out


def nested_binding(node: ast.AST) -> ast.Call | None:
    """A ``bind_dynamic`` call below the top level of a body (refused: it is a declaration), else None."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "bind_dynamic":
            return sub
    return None


__all__ = ["Binding", "binding_call", "bindings", "is_local_dim", "local_dims", "nested_binding"]
