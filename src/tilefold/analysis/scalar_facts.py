"""Scalar facts about index arithmetic: constants, known multiples and loop ranges.

The analysis is fed in program order (SSA: a scalar is defined before it is used), so every fact is
computed once, at the definition, from facts already known about its operands. Nothing is recomputed
on lookup, which keeps clients linear in program size.

Facts:

- ``const_value(e)``: the integer value of ``e`` when it is a compile-time constant — a ``ConstInt``,
  a variable bound (directly or through plain aliases) to one, or ``+ - * // %`` / negation of
  constants. ``resolve(e)`` returns a ``ConstInt`` for such expressions and ``e`` otherwise.
- ``known_multiple(e)``: an integer ``m`` such that ``e`` is provably a multiple of ``m``. ``0`` means
  ``e`` is exactly zero (a multiple of everything); ``1`` means nothing is known. Multiples flow through
  aliases, addition and subtraction (gcd), multiplication (product), negation and loop variables
  (gcd of start and step).
- ``loop_range(loop_var)``: the ``(start, stop, step)`` of the loop that binds the variable, with
  constant bounds resolved; ``runs_more_than_once(start, stop, step)`` for back-edge reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from tilefold.ir.expr import (
    Add,
    BinaryExpr,
    ConstInt,
    Expr,
    FloorDiv,
    Mod,
    Mul,
    Neg,
    Sub,
    Var,
)
from tilefold.ir.types import DataType, ScalarType

__all__ = ["LoopRange", "ScalarFacts", "add_index", "runs_more_than_once"]


@dataclass(frozen=True)
class LoopRange:
    """Bounds of a counted loop; ``*_value`` are the constants when known."""

    start: Expr
    stop: Expr
    step: Expr
    start_value: int | None
    stop_value: int | None
    step_value: int | None

    @property
    def provably_runs_more_than_once(self) -> bool:
        return runs_more_than_once(self.start_value, self.stop_value, self.step_value)


def runs_more_than_once(start: int | None, stop: int | None, step: int | None) -> bool:
    """True when a ``range(start, stop, step)`` loop provably takes its back edge (>= 2 iterations)."""
    if start is None or stop is None or step is None or step <= 0:
        return False
    return start + step < stop


class ScalarFacts:
    """Constants and known multiples of scalar SSA values, recorded in program order."""

    def __init__(self) -> None:
        self._const: dict[Var, int] = {}
        self._multiple: dict[Var, int] = {}
        self._loops: dict[Var, LoopRange] = {}

    # -- recording -------------------------------------------------------------------------------

    def record_assign(self, var: Var, value: Expr) -> None:
        """Record ``var = value`` for a scalar ``var`` (non-scalars are ignored)."""
        if not isinstance(var.type, ScalarType):
            return
        c = self.const_value(value)
        if c is not None:
            self._const[var] = c
            self._multiple[var] = abs(c)
            return
        m = self.known_multiple(value)
        if m != 1:
            self._multiple[var] = m

    def record_loop(self, loop_var: Var, start: Expr, stop: Expr, step: Expr) -> LoopRange:
        rng = LoopRange(start, stop, step, self.const_value(start), self.const_value(stop),
                        self.const_value(step))
        self._loops[loop_var] = rng
        m = gcd(self.known_multiple(start), self.known_multiple(step))
        if m != 1:
            self._multiple[loop_var] = m
        return rng

    # -- queries -----------------------------------------------------------------------------------

    def loop_range(self, loop_var: Var) -> LoopRange | None:
        return self._loops.get(loop_var)

    def const_value(self, expr: Expr) -> int | None:
        if isinstance(expr, ConstInt):
            return expr.value
        if isinstance(expr, Var):
            return self._const.get(expr)
        if isinstance(expr, Neg):
            v = self.const_value(expr.operand)
            return None if v is None else -v
        if isinstance(expr, (Add, Sub, Mul, FloorDiv, Mod)):
            a = self.const_value(expr.lhs)
            if a is None:
                return None
            b = self.const_value(expr.rhs)
            if b is None:
                return None
            if isinstance(expr, Add):
                return a + b
            if isinstance(expr, Sub):
                return a - b
            if isinstance(expr, Mul):
                return a * b
            if b == 0:
                return None
            return a // b if isinstance(expr, FloorDiv) else a % b
        return None

    def is_const(self, expr: Expr) -> bool:
        return self.const_value(expr) is not None

    def resolve(self, expr: Expr) -> Expr:
        """``ConstInt`` for constant expressions (keeping an existing ConstInt object), else ``expr``."""
        if isinstance(expr, ConstInt):
            return expr
        c = self.const_value(expr)
        if c is None:
            return expr
        dtype = expr.dtype if isinstance(expr, BinaryExpr) else _scalar_dtype(expr)
        return ConstInt(c, dtype)

    def known_multiple(self, expr: Expr) -> int:
        """``m`` with ``expr`` provably a multiple of ``m``; 0 = exactly zero, 1 = nothing known."""
        c = self.const_value(expr)
        if c is not None:
            return abs(c)
        if isinstance(expr, Var):
            return self._multiple.get(expr, 1)
        if isinstance(expr, Neg):
            return self.known_multiple(expr.operand)
        if isinstance(expr, (Add, Sub)):
            return gcd(self.known_multiple(expr.lhs), self.known_multiple(expr.rhs))
        if isinstance(expr, Mul):
            return self.known_multiple(expr.lhs) * self.known_multiple(expr.rhs)
        return 1

    def describe(self, expr: Expr) -> str:
        """Short human-readable form of a scalar fact, for remarks."""
        c = self.const_value(expr)
        if c is not None:
            return str(c)
        m = self.known_multiple(expr)
        name = expr.name if isinstance(expr, Var) else type(expr).__name__.lower()
        return f"{name} (a multiple of {m})" if m > 1 else f"{name} (unknown)"


def _scalar_dtype(expr: Expr) -> DataType:
    t = getattr(expr, "type", None)
    return t.dtype if isinstance(t, ScalarType) else DataType.INDEX


def add_index(a: Expr, b: Expr, facts: ScalarFacts | None = None) -> Expr:
    """``a + b`` as an INDEX expression: constant-folded when both are constants, and adding a
    constant 0 returns the other operand unchanged."""
    ca = facts.const_value(a) if facts is not None else (a.value if isinstance(a, ConstInt) else None)
    cb = facts.const_value(b) if facts is not None else (b.value if isinstance(b, ConstInt) else None)
    if ca is not None and cb is not None:
        return ConstInt(ca + cb, DataType.INDEX)
    if cb == 0:
        return a
    if ca == 0:
        return b
    return Add(a, b, DataType.INDEX)
