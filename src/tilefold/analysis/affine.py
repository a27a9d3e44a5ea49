"""Affine index expressions: ``c0 + sum(c_i * v_i)`` over scalar variables, and their value intervals.

Tensor windows at loop offsets (``a[k0 : k0 + K_CHUNK, :]`` with ``k0 = k * K_CHUNK``) need two proofs: the extent
``hi - lo`` is a constant, and the window stays inside the tensor for every value the loop variables take. Both
reduce to the affine form of the bounds: a variable bound to an affine scalar expression (``defs``) is replaced by
its definition, any other variable (one bound to ``s // 3``, a parameter, a loop variable) is an atom; ``+``, ``-``,
negation and multiplication by a constant stay affine, anything else (a product of two variables, ``//``, ``%`` of a
variable) is not affine and proves nothing.

``interval`` bounds an affine form from the ranges of its atoms (a loop variable ``range(start, stop, step)``
with constant bounds takes values in ``[start, last]``); an atom without a range (a scalar parameter, a value
read from memory) leaves the interval unknown.
"""

from __future__ import annotations

from collections.abc import Mapping

from tilefold.ir.expr import Add, ConstInt, Expr, FloorDiv, Mod, Mul, Neg, Sub, Var

Affine = tuple[dict[Var, int], int]

__all__ = ["Affine", "affine_form", "constant_difference", "interval", "loop_value_range"]

_MAX_DEPTH = 64  # definition chains deeper than this are treated as atoms (never a wrong proof, only a missed one)


def affine_form(e: Expr, defs: Mapping[Var, Expr], _depth: int = 0) -> Affine | None:
    """``(coefficients, constant)`` of ``e``, or None when ``e`` is not affine in its variables."""
    f = _affine(e, defs, _depth, {})
    return None if f is None else (dict(f[0]), f[1])  # the memo's forms are shared: hand out a copy


def _affine(e: Expr, defs: Mapping[Var, Expr], depth: int, memo: dict[tuple[Expr, int], Affine | None]
            ) -> Affine | None:
    # A definition used twice (d1 = d0 + d0; d2 = d1 + d1; ...) is expanded once per depth: without the memo
    # the walk is exponential in the chain's length. The result is a function of (e, depth), so it is exact.
    if isinstance(e, ConstInt):
        return {}, e.value
    key = (e, depth)
    if key in memo:
        return memo[key]
    memo[key] = f = _affine_node(e, defs, depth, memo)
    return f


def _affine_node(e: Expr, defs: Mapping[Var, Expr], _depth: int, memo: dict[tuple[Expr, int], Affine | None]
                 ) -> Affine | None:
    if isinstance(e, Var):
        d = defs.get(e)
        if d is not None and _depth < _MAX_DEPTH:
            f = _affine(d, defs, _depth + 1, memo)
            if f is not None:
                return f
        return {e: 1}, 0  # a variable of a non-affine definition is an atom: it has one value (SSA)
    if isinstance(e, Neg):
        f = _affine(e.operand, defs, _depth + 1, memo)
        return None if f is None else _scale(f, -1)
    if isinstance(e, (Add, Sub)):
        a = _affine(e.lhs, defs, _depth + 1, memo)
        b = _affine(e.rhs, defs, _depth + 1, memo)
        if a is None or b is None:
            return None
        return _combine(a, b, 1 if isinstance(e, Add) else -1)
    if isinstance(e, (Mul, FloorDiv, Mod)):
        a = _affine(e.lhs, defs, _depth + 1, memo)
        b = _affine(e.rhs, defs, _depth + 1, memo)
        if a is None or b is None:
            return None
        if isinstance(e, Mul):
            if not a[0]:
                return _scale(b, a[1])
            if not b[0]:
                return _scale(a, b[1])
            return None
        if a[0] or b[0] or b[1] == 0:  # // and % of constants only
            return None
        return {}, (a[1] // b[1] if isinstance(e, FloorDiv) else a[1] % b[1])
    return None


def constant_difference(hi: Expr, lo: Expr, defs: Mapping[Var, Expr]) -> int | None:
    """``hi - lo`` when it is the same integer for every value of the variables, else None."""
    a = affine_form(hi, defs)
    b = affine_form(lo, defs)
    if a is None or b is None:
        return None
    coeffs, const = _combine(a, b, -1)
    return const if not coeffs else None


def interval(form: Affine, ranges: Mapping[Var, tuple[int, int]]) -> tuple[int, int] | None:
    """``[min, max]`` of an affine form when every atom has a known range, else None."""
    coeffs, const = form
    lo = hi = const
    for v, c in coeffs.items():
        r = ranges.get(v)
        if r is None:
            return None
        lo += min(c * r[0], c * r[1])
        hi += max(c * r[0], c * r[1])
    return lo, hi


def loop_value_range(start: int, stop: int, step: int) -> tuple[int, int] | None:
    """Values a loop variable of ``range(start, stop, step)`` takes, as ``[first, last]``; None for no trip."""
    trips = range(start, stop, step)
    if len(trips) == 0:
        return None
    return min(trips[0], trips[-1]), max(trips[0], trips[-1])


def _scale(f: Affine, k: int) -> Affine:
    return ({v: c * k for v, c in f[0].items() if c * k}, f[1] * k)


def _combine(a: Affine, b: Affine, sign: int) -> Affine:
    coeffs = dict(a[0])
    for v, c in b[0].items():
        coeffs[v] = coeffs.get(v, 0) + sign * c
        if coeffs[v] == 0:
            del coeffs[v]
    return coeffs, a[1] + sign * b[1]
