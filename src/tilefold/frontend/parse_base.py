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

