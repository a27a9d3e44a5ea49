"""Static upper bounds of index values, for windows with run-time sizes.

Triton-Ascend bounds the last block of a loop with ``%sz = affine.min (64, n - off)`` (or ``arith.minsi``): the
window ``[off, off + sz)`` has a run-time size but never more than 64 elements. tilefold lowers such a window to a
tile of the static bound with a run-time valid extent; this module proves the bound.

:func:`upper_bound` is sound (the value is never above the number it returns) and partial (None when it cannot
prove one): a constant; the minimum of a ``minsi`` / ``minui`` / ``affine.min`` over the operands / results it can
bound; the maximum of a ``maxsi`` / ``affine.max`` when it bounds every one; a sum of bounded terms; a product by a
non-negative constant; ``x mod c`` (below ``c``) and ``x floordiv c`` / ``x ceildiv c`` for a constant ``c > 0``;
casts pass the bound through; an ``scf.for`` induction variable is below its upper bound. Anything else (a
function argument, a difference, a product of two run-time values) has no bound.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr
from xdsl.ir import BlockArgument, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

#: how deep a chain of index arithmetic is followed (hostile input cannot make the search unbounded)
MAX_DEPTH = 32
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")


def constant_of(v: SSAValue) -> int | None:
    """The value of an integer ``arith.constant``, else None."""
    owner = v.owner
    if getattr(owner, "name", None) == "arith.constant":
        value = getattr(owner, "value", None)
        if isinstance(value, IntegerAttr):
            return int(value.value.data)
    return None


def upper_bound(v: SSAValue, depth: int = 0) -> int | None:
    """A number the index value ``v`` is provably never above, or None."""
    if depth > MAX_DEPTH:
        return None
    c = constant_of(v)
    if c is not None:
        return c
    if isinstance(v, BlockArgument):
        loop = v.block.parent_op() if v.block is not None else None
        if isinstance(loop, scf.ForOp) and v.index == 0:  # lb <= iv < ub
            ub = upper_bound(loop.ub, depth + 1)
            return ub - 1 if ub is not None else None
        return None
    owner = v.owner
    name = owner.name
    args = list(owner.operands)
    if name in _CASTS:
        return upper_bound(args[0], depth + 1)
    if name in ("arith.minsi", "arith.minui"):
        known = [b for b in (upper_bound(a, depth + 1) for a in args) if b is not None]
        return min(known) if known else None
    if name in ("arith.maxsi", "arith.maxui", "arith.addi"):
        bounds = [upper_bound(a, depth + 1) for a in args]
        if any(b is None for b in bounds):
            return None
        return max(bounds) if name != "arith.addi" else sum(bounds)
    if name in ("affine.min", "affine.max", "affine.apply"):
        attr = owner.properties.get("map") or owner.attributes.get("map")
        if not isinstance(attr, AffineMapAttr):
            return None
        m = attr.data
        if len(args) != m.num_dims + m.num_symbols or not m.results:
            return None
        bounds = [_expr_bound(e, args[:m.num_dims], args[m.num_dims:], depth + 1) for e in m.results]
        if name == "affine.min":
            known = [b for b in bounds if b is not None]
            return min(known) if known else None
        return None if any(b is None for b in bounds) else max(bounds)
    return None


def _expr_bound(e: AffineExpr, dims: list[SSAValue], syms: list[SSAValue], depth: int) -> int | None:
    if depth > MAX_DEPTH:
        return None
    if isinstance(e, AffineConstantExpr):
        return e.value
    if isinstance(e, AffineDimExpr):
        return upper_bound(dims[e.position], depth + 1)
    if isinstance(e, AffineSymExpr):
        return upper_bound(syms[e.position], depth + 1)
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    rhs = e.rhs.value if isinstance(e.rhs, AffineConstantExpr) else None
    if e.kind is AffineBinaryOpKind.Add:
        a, b = _expr_bound(e.lhs, dims, syms, depth + 1), _expr_bound(e.rhs, dims, syms, depth + 1)
        return None if a is None or b is None else a + b
    if rhs is None or (e.kind is AffineBinaryOpKind.Mul and rhs < 0) or (
            e.kind is not AffineBinaryOpKind.Mul and rhs <= 0):
        return None
    if e.kind is AffineBinaryOpKind.Mod:
        return rhs - 1
    a = _expr_bound(e.lhs, dims, syms, depth + 1)
    if a is None:
        return None
    if e.kind is AffineBinaryOpKind.Mul:
        return a * rhs
    if e.kind is AffineBinaryOpKind.FloorDiv:
        return a // rhs
    return -((-a) // rhs)  # ceildiv
