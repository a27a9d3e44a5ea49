"""Affine maps in MLIR syntax, for custom-op indexing maps.

``AffineMap.parse("(d0, d1) -> (d0, 0)")`` gives a map with 2 dims and results ``[d0, 0]``.
Supported expressions: dims ``dN``, symbols ``sN``, integer constants, ``+``, ``-``, ``*``,
``floordiv``, ``ceildiv``, ``mod`` and parentheses. Maps print back to the same syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class AffineExpr:
    __slots__ = ()


@dataclass(frozen=True)
class AffineDimExpr(AffineExpr):
    position: int

    def __str__(self) -> str:
        return f"d{self.position}"


@dataclass(frozen=True)
class AffineSymbolExpr(AffineExpr):
    position: int

    def __str__(self) -> str:
        return f"s{self.position}"


@dataclass(frozen=True)
class AffineConstantExpr(AffineExpr):
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class AffineBinaryExpr(AffineExpr):
    kind: str  # "+", "*", "floordiv", "ceildiv", "mod"
    lhs: AffineExpr
    rhs: AffineExpr

    def __str__(self) -> str:
        return f"({self.lhs} {self.kind} {self.rhs})"


class AffineMapError(ValueError):
    """A map string is not valid MLIR affine-map syntax."""


@dataclass(frozen=True)
class AffineMap:
    num_dims: int
    num_symbols: int
    results: tuple[AffineExpr, ...]

    @property
    def num_results(self) -> int:
        return len(self.results)

    def is_identity(self) -> bool:
        return self.num_symbols == 0 and self.results == tuple(
            AffineDimExpr(i) for i in range(self.num_dims)
        )

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.num_dims))
        syms = f"[{', '.join(f's{i}' for i in range(self.num_symbols))}]" if self.num_symbols else ""
        res = ", ".join(_strip_parens(str(r)) for r in self.results)
        return f"({dims}){syms} -> ({res})"

    @staticmethod
    def parse(text: str) -> AffineMap:
        return _Parser(text).parse_map()

    @staticmethod
    def identity(n: int) -> AffineMap:
        return AffineMap(n, 0, tuple(AffineDimExpr(i) for i in range(n)))


def _strip_parens(s: str) -> str:
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i != len(s) - 1:
                return s
        return s[1:-1]
    return s


_TOKEN = re.compile(r"\s*(->|floordiv|ceildiv|mod|[ds]\d+|\d+|[()\[\],+\-*])")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        text = text.strip()
        if text.startswith("affine_map<") and text.endswith(">"):
            text = text[len("affine_map<") : -1]
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                if text[pos:].strip() == "":
                    break
                raise AffineMapError(f"bad affine map {self.text!r}: unexpected {text[pos:]!r}")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i = 0
        self.dims: list[str] = []
        self.syms: list[str] = []

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise AffineMapError(f"bad affine map {self.text!r}: expected {expected or 'more input'}, got {tok!r}")
        self.i += 1
        return tok

    def ident_list(self, close: str) -> list[str]:
        out: list[str] = []
        if self.peek() == close:
            self.take(close)
            return out
        while True:
            out.append(self.take())
            tok = self.take()
            if tok == close:
                return out
            if tok != ",":
                raise AffineMapError(f"bad affine map {self.text!r}: expected ',' or {close!r}")

    def parse_map(self) -> AffineMap:
        self.take("(")
        self.dims = self.ident_list(")")
        if self.peek() == "[":
            self.take("[")
            self.syms = self.ident_list("]")
        for i, d in enumerate(self.dims):
            if d != f"d{i}":
                raise AffineMapError(f"bad affine map {self.text!r}: dims must be named d0, d1, ... in order")
        for i, s in enumerate(self.syms):
            if s != f"s{i}":
                raise AffineMapError(f"bad affine map {self.text!r}: symbols must be named s0, s1, ...")
        self.take("->")
        self.take("(")
        results: list[AffineExpr] = []
        if self.peek() == ")":
            self.take(")")
        else:
            while True:
                results.append(self.expr())
                tok = self.take()
                if tok == ")":
                    break
                if tok != ",":
                    raise AffineMapError(f"bad affine map {self.text!r}: expected ',' or ')' in results")
        if self.peek() is not None:
            raise AffineMapError(f"bad affine map {self.text!r}: trailing {self.peek()!r}")
        return AffineMap(len(self.dims), len(self.syms), tuple(results))

    def expr(self) -> AffineExpr:
        lhs = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term()
            if op == "-":
                rhs = AffineBinaryExpr("*", rhs, AffineConstantExpr(-1))
            lhs = AffineBinaryExpr("+", lhs, rhs)
        return lhs

    def term(self) -> AffineExpr:
        lhs = self.atom()
        while self.peek() in ("*", "floordiv", "ceildiv", "mod"):
            op = self.take()
            lhs = AffineBinaryExpr(op, lhs, self.atom())
        return lhs

    def atom(self) -> AffineExpr:
        tok = self.take()
        if tok == "(":
            e = self.expr()
            self.take(")")
            return e
        if tok == "-":
            nxt = self.peek()
            if nxt is not None and nxt.isdigit():
                return AffineConstantExpr(-int(self.take()))
            return AffineBinaryExpr("*", self.atom(), AffineConstantExpr(-1))
        if tok.isdigit():
            return AffineConstantExpr(int(tok))
        if tok.startswith("d") and tok in self.dims:
            return AffineDimExpr(int(tok[1:]))
        if tok.startswith("s") and tok in self.syms:
            return AffineSymbolExpr(int(tok[1:]))
        raise AffineMapError(f"bad affine map {self.text!r}: unknown identifier {tok!r}")


PARALLEL = "parallel"
REDUCTION = "reduction"
