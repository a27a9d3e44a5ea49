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


MAX_NESTING = 64  # parentheses; deeper maps are refused instead of exhausting the Python stack


def _has_dim(e: AffineExpr) -> bool:
    """Does ``e`` depend on a dimension (d0, d1, ...)? (Constants and symbols do not.)"""
    if isinstance(e, AffineDimExpr):
        return True
    if isinstance(e, AffineBinaryExpr):
        return _has_dim(e.lhs) or _has_dim(e.rhs)
    return False


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
        self.depth = 0
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
            rhs = self.atom()
            if op == "*" and _has_dim(lhs) and _has_dim(rhs):
                raise AffineMapError(f"map {self.text!r} is not affine: '{_strip_parens(str(lhs))} * "
                                     f"{_strip_parens(str(rhs))}' multiplies two dimension expressions; one "
                                     "factor of a product must be a constant or a symbol")
            if op != "*":
                if _has_dim(rhs):
                    raise AffineMapError(f"map {self.text!r} is not affine: the divisor of '{op}' must be a "
                                         f"constant or a symbol, got '{_strip_parens(str(rhs))}'")
                if isinstance(rhs, AffineConstantExpr) and rhs.value <= 0:
                    raise AffineMapError(f"map {self.text!r}: '{op} {rhs.value}' divides by "
                                         f"{'zero' if rhs.value == 0 else 'a negative number'}; the divisor must "
                                         "be a positive constant")
            lhs = AffineBinaryExpr(op, lhs, rhs)
        return lhs

    def atom(self) -> AffineExpr:
        tok = self.take()
        if tok == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise AffineMapError(f"bad affine map {self.text[:60]!r}...: parentheses nested deeper than "
                                     f"{MAX_NESTING}")
            e = self.expr()
            self.take(")")
            self.depth -= 1
            return e
        if tok == "-":
            nxt = self.peek()
            if nxt is not None and nxt.isdigit():
                return AffineConstantExpr(-int(self.take()))
            return AffineBinaryExpr("*", self.atom(), AffineConstantExpr(-1))
        if tok.isdigit():
            if len(tok) > 18:
                raise AffineMapError(f"bad affine map {self.text[:60]!r}: constant {tok[:20]}... is too large "
                                     "(at most 18 digits)")
            return AffineConstantExpr(int(tok))
        if tok.startswith("d") and tok in self.dims:
            return AffineDimExpr(int(tok[1:]))
        if tok.startswith("s") and tok in self.syms:
            return AffineSymbolExpr(int(tok[1:]))
        raise AffineMapError(f"bad affine map {self.text!r}: unknown identifier {tok!r}")


PARALLEL = "parallel"
REDUCTION = "reduction"
