"""Shared parser state: the source, spans, error construction, per-function scope fields."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilefold.errors import ParseError, Span
from tilefold.ir.expr import (
    GlobalVar,
    Var,
)
from tilefold.ir.stmt import (
    FunctionType,
    ParamDirection,
)
from tilefold.ir.types import (
    DataType,
    ScalarType,
    Type,
)
from tilefold.ops.registry import OpDef

_INDEX = DataType.INDEX


_INDEX_T = ScalarType(DataType.INDEX)


@dataclass
class _FnSig:
    gvar: GlobalVar
    params: list[tuple[str, Type, ParamDirection]]
    return_types: tuple[Type, ...]
    func_type: FunctionType
    attrs: tuple[tuple[str, Any], ...]
    node: ast.FunctionDef


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def parse_python(source: str, filename: str = "<string>", *, line_offset: int = 0, col_offset: int = 0,
                 lines: list[str] | None = None) -> ast.Module:
    """``ast.parse`` with the guards every reader of user source goes through: a NUL byte, invalid syntax and an
    expression nested too deeply for Python's stack each become a located ``ParseError`` with a hint (never a
    ``ValueError`` / ``RecursionError`` traceback). ``line_offset`` / ``col_offset`` place ``source`` in its file
    (``lines``: the file's lines, for the quoted source line)."""
    lines = source.splitlines() if lines is None else lines
    nul = source.find("\x00")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        col = nul - (source.rfind("\n", 0, nul) + 1) + 1
        quoted = _quoted(lines, line + line_offset).replace("\x00", "\\x00")  # visible in the message
        raise ParseError("the source contains a NUL byte (\\x00), which Python source cannot hold",
                         span=Span(filename, line + line_offset, col + col_offset, quoted),
                         hint="the file looks binary or corrupted: remove the NUL bytes, or check the file name")
    try:
        return ast.parse(source, filename=filename)
    except RecursionError:
        raise too_deep_error(source, filename, line_offset=line_offset, col_offset=col_offset, lines=lines) from None
    except SyntaxError as exc:
        line = (exc.lineno or 0) + line_offset
        src = _quoted(lines, line) or (exc.text or "")
        raise ParseError(f"invalid Python syntax: {exc.msg}",
                         span=Span(filename, line, (exc.offset or 1) + col_offset, src),
                         hint="a pl program must be valid Python") from None


def too_deep_error(source: str, filename: str, *, line_offset: int = 0, col_offset: int = 0,
                   lines: list[str] | None = None) -> ParseError:
    """Python's stack ran out on ``source`` (in ``ast.parse`` or in a walk of its tree): point at the line with the
    most operators, the likely culprit."""
    own = source.splitlines()
    best, best_count = 1, -1
    for i, text in enumerate(own, start=1):
        count = sum(text.count(op) for op in "+-*/%(&|")
        if count > best_count:
            best, best_count = i, count
    src = _quoted(lines if lines is not None else own, best + line_offset)
    return ParseError("expression nested too deeply to parse (Python's stack ran out)", span=Span(
        filename, best + line_offset, 1 + col_offset, src[:200]),
        hint="split the expression into several assignments (e.g. partial sums)")


def _quoted(lines: list[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""




class ParserBase:
    """State every parser mixin relies on: the source text, its line/column offsets, the constants lookup
    and the per-function scope."""

    def __init__(self, source: str, filename: str = "<string>", *, line_offset: int = 0, col_offset: int = 0,
                 file_lines: list[str] | None = None, consts: dict[str, Any] | None = None,
                 const_lookup: Callable[[str], Any] | None = None, pl_aliases: set[str] | None = None) -> None:
        self.source = source
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.lines = file_lines if file_lines is not None else source.splitlines()
        self.consts: dict[str, Any] = dict(consts or {})
        self.const_lookup = const_lookup
        self.pl = set(pl_aliases or {"pl"})
        self._op_cache: dict[str, tuple[OpDef, dict[str, int]] | None] = {}
        self._spans: dict[tuple[int, int], Span] = {}
        self._release_ast = False
        self._fn_sigs: dict[str, _FnSig] = {}
        # scope state (per function)
        self.env: dict[str, Var] = {}
        self.depth_of: dict[str, int] = {}
        self.depth = 0
        self.scope_stack: list[list[tuple[str, Var | None, int]]] = []
        self.loop_kind: list[str] = []  # "loop" / "if" per open scope

    def span(self, node: ast.AST) -> Span:
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        sp = self._spans.get(key)
        if sp is None:
            line = key[0] + self.line_offset
            col = key[1] + 1 + self.col_offset
            src = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            sp = self._spans[key] = Span(self.filename, line, col, src)
        return sp

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> ParseError:
        return ParseError(message, span=self.span(node), hint=hint)

