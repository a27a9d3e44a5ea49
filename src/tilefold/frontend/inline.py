"""Splicing inline helpers into their caller: one mechanism for both front ends.

``@pl.jit.inline`` / ``@pl.jit.opaque`` helpers of the ``@pl.jit`` form and ``@pl.inline`` helpers of the
``@pl.program`` form (dev/03-functions) leave no function behind: each call parses the helper's body again, in
a parser of the helper's own source (its file positions, its module constants and closure values, its ``pl``
aliases), with the helper's parameters bound to the call's arguments. The body's statements are spliced into
the caller just before the statement holding the call (``_pending``); the value of the helper's final
``return`` is the call's value. Python's meaning is kept:

- arguments are bound by Python's rules (positional, then keywords; a missing, extra or doubled one is a located
  error) and evaluated once, before the body (a computed argument is bound to a variable first);
- the helper sees only its parameters and its own module's names, never the caller's locals;
- only the final statement may ``return``: an early return cannot be spliced (it would end the caller);
- a helper that calls itself, directly or through another helper, is refused (there is no call stack);
- a call inside a ``while`` condition cannot take statements before it (they would run once, not per test).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tilefold.ir.expr import ConstBool, ConstFloat, ConstInt, Expr, MakeTuple, Var
from tilefold.ir.stmt import AssignStmt, Stmt

#: how deeply helpers may call helpers (each level is a parse of the helper's body)
MAX_INLINE_DEPTH = 32


@dataclass
class JitSource:
    """What a parser needs to know about one decorated function defined somewhere else in the user's code."""

    name: str
    kind: str  # "entry" | "incore" | "inline"
    node: ast.FunctionDef
    parser_args: dict[str, Any]  # Parser(...) keyword arguments (source, filename, offsets, const lookup)
    #: the helper module's own resolver of further helpers (program form; the jit form shares the entry's)
    resolve: Callable[[str], JitSource | None] | None = None


class InlineMixin:
    """``_inline_call``: a call of an inline helper; ``_splice_into`` wraps a statement's parse so the
    statements of the helpers it calls land just before it."""

    @contextmanager
    def _splice_into(self, out: list[Stmt]) -> Iterator[None]:
        """The statements inline helpers called in the body of the ``with`` produce land in ``out`` just before
        what the body appends (a context, not a call: the parse keeps its stack depth)."""
        outer = self.__dict__.get("_pending")
        self._pending: list[Stmt] = []
        marker = len(out)
        try:
            yield
        finally:
            pending, self._pending = self._pending, outer
        if pending:
            out[marker:marker] = pending

    def _no_splicing(self, what: str, parse: Callable[[], Expr]) -> Expr:
        """Parse an expression evaluated more than once (a while condition): a helper there must not need
        statements."""
        saved = getattr(self, "_splice_forbidden", None)
        self._splice_forbidden = what
        try:
            return parse()
        finally:
            self._splice_forbidden = saved

    def _inline_sub_parser(self, src: JitSource) -> Any:  # each front end makes a parser of its own kind
        raise NotImplementedError

    def _inline_call(self, node: ast.Call, src: JitSource) -> Expr:
        fn = src.node
        stack: list[str] = self.__dict__.setdefault("_inline_stack", [])
        if src.name in stack or len(stack) >= MAX_INLINE_DEPTH:
            chain = " -> ".join([*stack, src.name])
            raise self.error(node, f"inline helper {src.name!r} calls itself ({chain})" if src.name in stack
                             else f"inline helpers nested more than {MAX_INLINE_DEPTH} deep ({chain})",
                             hint="an inline helper is spliced at its call sites: it cannot recurse; write the "
                                  "repetition as a pl.range loop")
        body = fn.body
        last = body[-1] if body else None
        while body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str) and len(body) > 1:
            body = body[1:]  # the docstring
        sub = self._inline_sub_parser(src)
        if not isinstance(last, ast.Return) or last.value is None:
            raise sub.error(fn, f"inline helper {src.name!r} must end with `return value`",
                            hint="inline helpers return the value they compute")
        early = _early_return(body[:-1])
        if early is not None:
            raise sub.error(early, f"inline helper {src.name!r} returns before its last statement",
                            hint="a helper is spliced into its caller: compute the value and return it once, at "
                                 "the end (an if can yield it: `x = pl.yield_(...)`)")
        args = self._inline_arguments(node, src)
        sub._reset_scope()
        self._inline_context(sub)
        sub.__dict__["_inline_stack"] = [*stack, src.name]
        sub._pending = []
        stmts: list[Stmt] = []
        for p, (a, a_node) in zip(fn.args.args, args, strict=True):
            if isinstance(a, (ConstInt, ConstFloat, ConstBool)):
                sub.consts[p.arg] = a.value  # a literal argument: a constant of the helper
                continue
            if not isinstance(a, Var):  # a computed argument: evaluated once, before the body
                if isinstance(a, MakeTuple):
                    raise self.error(a_node, f"inline helper {src.name!r}: a tuple for parameter {p.arg!r}",
                                     hint="pass one value per parameter")
                v = Var(p.arg, a.type, self.span(a_node))
                stmts.append(AssignStmt(v, a, span=self.span(a_node)))
                a = v
            sub.env[p.arg] = a
            sub.depth_of[p.arg] = 0
        sub._future.run(body, lambda i, st: sub._stmt(st, stmts) if i < len(body) - 1 else None, isolated=True)
        result = sub._inline_result(last.value)
        pending = stmts + sub._pending
        if pending and getattr(self, "_splice_forbidden", None):
            from tilefold.errors import NotSupportedError

            raise NotSupportedError(f"inline helper {src.name!r} in {self._splice_forbidden}: its statements would "
                                    "run once, not at every evaluation", span=self.span(node),
                                    hint="compute the value into a loop-carried name inside the loop body instead")
        self._pending.extend(pending)  # spliced before the statement that called the helper
        return result

    def _inline_result(self, node: ast.expr) -> Expr:
        if isinstance(node, ast.Tuple):  # return a, b: the caller unpacks it
            return MakeTuple(tuple(self._expr(e) for e in node.elts), span=self.span(node))
        return self._expr(node)

    def _inline_context(self, sub: Any) -> None:
        """What the helper's parser takes over from the caller's (each front end adds its own state)."""
        sub._param_vars = set(self._param_vars)  # the caller's parameters, passed in as the helper's arguments
        sub._current_sig = getattr(self, "_current_sig", None)

    def _inline_arguments(self, node: ast.Call, src: JitSource) -> list[tuple[Expr, ast.expr]]:
        """The call's arguments in parameter order (Python's binding rules), each evaluated once, in the order
        they are written."""
        fn = src.node
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or a.kw_defaults:
            raise self.error(node, f"inline helper {src.name!r} takes plain positional parameters without defaults",
                             hint="remove *args, **kwargs, keyword-only markers and default values")
        names = [p.arg for p in a.args]
        if any(isinstance(x, ast.Starred) for x in node.args) or any(kw.arg is None for kw in node.keywords):
            raise self.error(node, f"{src.name}(...): *args / **kwargs are not supported",
                             hint="pass one value per parameter")
        if len(node.args) > len(names):
            raise self.error(node, f"{src.name}() takes {len(names)} argument(s) but {len(node.args)} were given",
                             hint="pass one value per parameter")
        bound: dict[str, ast.expr] = dict(zip(names, node.args, strict=False))
        for kw in node.keywords:
            if kw.arg not in names:
                raise self.error(kw.value, f"{src.name}() got an unexpected keyword argument {kw.arg!r}",
                                 hint="parameters: " + ", ".join(names))
            if kw.arg in bound:
                raise self.error(kw.value, f"{src.name}() got multiple values for argument {kw.arg!r}",
                                 hint=f"pass {kw.arg!r} either by position or by keyword")
            bound[kw.arg] = kw.value
        missing = [n for n in names if n not in bound]
        if missing:
            raise self.error(node, f"{src.name}() missing argument(s): {', '.join(map(repr, missing))}",
                             hint="pass one value per parameter")
        written = [*node.args, *(kw.value for kw in node.keywords)]
        values = {id(e): self._expr(e) for e in written}
        return [(values[id(bound[n])], bound[n]) for n in names]


def _early_return(stmts: list[ast.stmt]) -> ast.Return | None:
    """A ``return`` among ``stmts`` (not inside a nested function)."""
    todo: list[ast.AST] = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return):
            return n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return None


__all__ = ["MAX_INLINE_DEPTH", "InlineMixin", "JitSource"]
