"""Fresh names: the one way tilefold makes up a name that is not taken yet.

The convention is ``base``, then ``base_1``, ``base_2``, ... : the first of those that is not taken. A
``NameSupply`` holds the names taken so far and hands out fresh ones, each taken as it is handed out; seed it
with every name already in scope (``name_supply(fn)`` seeds it with every variable name of a function), so a
made-up name never repeats a user's. ``unique_name`` is the same step on a plain set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tilefold.ir.expr import Var
from tilefold.ir.stmt import Function
from tilefold.ir.visitor import IRVisitor


def unique_name(taken: set[str], base: str) -> str:
    """The first of ``base``, ``base_1``, ``base_2``, ... that is not in ``taken``; it is added to ``taken``
    before it is returned."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


class NameSupply:
    """Hands out names no one has taken: ``fresh(base)`` is ``base`` or ``base_<k>`` (see the module doc).
    ``seed``, when given, supplies more taken names on first use (a pass that makes up no name never pays for
    collecting them)."""

    def __init__(self, taken: Iterable[str] = (), *, seed: Callable[[], Iterable[str]] | None = None) -> None:
        self._taken: set[str] = set(taken)
        self._seed = seed

    @property
    def taken(self) -> set[str]:
        if self._seed is not None:
            self._taken.update(self._seed())
            self._seed = None
        return self._taken

    def fresh(self, base: str) -> str:
        return unique_name(self.taken, base)

    def add(self, name: str) -> None:
        """Mark ``name`` taken (a name the caller keeps from its input rather than makes up)."""
        self.taken.add(name)

    def __contains__(self, name: object) -> bool:
        return name in self.taken


class _VarNames(IRVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Var(self, expr: Var) -> None:
        self.names.add(expr.name)


def function_names(fn: Function) -> set[str]:
    """The name of every variable of ``fn``: parameters, assigned variables, loop variables, iteration
    arguments, loop / if results, and every variable an expression reads."""
    walker = _VarNames()
    walker.visit_function(fn)
    return walker.names


def name_supply(fn: Function) -> NameSupply:
    """A ``NameSupply`` that has taken every variable name of ``fn`` (collected on first use)."""
    return NameSupply(seed=lambda: function_names(fn))


__all__ = ["NameSupply", "function_names", "name_supply", "unique_name"]
