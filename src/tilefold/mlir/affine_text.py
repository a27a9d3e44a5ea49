"""Affine maps in mlir-opt's spelling (xDSL parenthesises every binary expression).

mlir-opt writes ``(d0)[s0] -> (d0 * -32 + s0, 0)``: a sum left to right without parentheses, a term whose
constant factor is negative subtracted (``d0 * 32 - s0``, ``d0 - d1``, ``d0 - 1``), a factor -1 as a negation,
and parentheses only around a sum used as a factor or as the operand of ``mod`` / ``floordiv`` / ``ceildiv``.
"""

from __future__ import annotations

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

_WORDS = {AffineBinaryOpKind.Mod: "mod", AffineBinaryOpKind.FloorDiv: "floordiv",
          AffineBinaryOpKind.CeilDiv: "ceildiv"}


def _negated_term(e: AffineExpr) -> AffineExpr | None:
    """``t`` when ``e`` is ``t * c`` with a negative constant ``c`` (as ``t * |c|``), or a negative constant."""
    if isinstance(e, AffineConstantExpr) and e.value < 0:
        return AffineConstantExpr(-e.value)
    if isinstance(e, AffineBinaryOpExpr) and e.kind is AffineBinaryOpKind.Mul \
            and isinstance(e.rhs, AffineConstantExpr) and e.rhs.value < 0:
        return e.lhs if e.rhs.value == -1 else AffineBinaryOpExpr(AffineBinaryOpKind.Mul, e.lhs,
                                                                  AffineConstantExpr(-e.rhs.value))
    return None


def expr_text(e: AffineExpr, tight: bool = False) -> str:
    """``e`` as mlir-opt prints it; ``tight``: inside a product or a mod / div (a sum gets parentheses)."""
    if isinstance(e, AffineDimExpr):
        return f"d{e.position}"
    if isinstance(e, AffineSymExpr):
        return f"s{e.position}"
    if isinstance(e, AffineConstantExpr):
        return str(e.value)
    assert isinstance(e, AffineBinaryOpExpr)
    if e.kind is AffineBinaryOpKind.Add:
        neg = _negated_term(e.rhs)
        text = (f"{expr_text(e.lhs)} - {expr_text(neg, True)}" if neg is not None
                else f"{expr_text(e.lhs)} + {expr_text(e.rhs)}")
        return f"({text})" if tight else text
    if e.kind is AffineBinaryOpKind.Mul:
        if isinstance(e.rhs, AffineConstantExpr) and e.rhs.value == -1:
            return f"-{expr_text(e.lhs, True)}"
        return f"{expr_text(e.lhs, True)} * {expr_text(e.rhs, True)}"
    return f"{expr_text(e.lhs, True)} {_WORDS[e.kind]} {expr_text(e.rhs, True)}"


def map_text(m: AffineMap) -> str:
    dims = ", ".join(f"d{i}" for i in range(m.num_dims))
    syms = f"[{', '.join(f's{i}' for i in range(m.num_symbols))}]" if m.num_symbols else ""
    return f"({dims}){syms} -> ({', '.join(expr_text(r) for r in m.results)})"
