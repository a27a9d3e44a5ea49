"""The copies the pass makes: a rule's request for one, a placed copy, and where one copy dominates several uses.

Contract:

- ``CopyRequest`` is a rule's verdict on one slice operand: copy it into ``memory`` (fresh name
  ``<slice>_<suffix>``), then ``report`` the copy. ``OperandRule`` is the type of a rule:
  ``(operand index, slice) -> CopyRequest | None`` (None: the operand stays, the rule has said why).
- ``PlannedCopy`` records a copy made by the rewrite and its position (block id, statement index per enclosing
  block, from the function body inwards).
- ``hoist_plan(made)`` computes, from every copy made in one rewrite, the anchors of a second rewrite: for each
  (slice, memory) copied more than once, the one statement before which a single copy dominates them all.
- ``reused_note(built)`` is the remark suffix of a consumer that reuses an earlier copy.

Nothing here builds IR; ``context.RewriteContext.obtain`` builds and places the ``tile.extract``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tilefold.analysis.slice_windows import SliceInfo
from tilefold.ir.expr import Var
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace


@dataclass(frozen=True)
class CopyRequest:
    """A rule's verdict on one slice operand: copy it into ``memory`` (fresh name ``<slice>_<suffix>``), then
    ``report`` the copy (``obtain``'s result: the new statements, empty when an earlier copy is reused, and
    the variable)."""

    memory: MemorySpace
    suffix: str
    report: Callable[[tuple[list[Stmt], Var]], None]


OperandRule = Callable[[int, SliceInfo], CopyRequest | None]


@dataclass(frozen=True, eq=False)
class PlannedCopy:
    """A copy of ``info``'s window into ``memory`` (named ``<slice>_<suffix>``) and where it was placed."""

    info: SliceInfo
    memory: MemorySpace
    suffix: str
    path: tuple[tuple[int, int], ...]  # (id of the block, statement index) from the function body inwards


def hoist_plan(made: dict[tuple[Var, MemorySpace], list[PlannedCopy]]) -> dict[tuple[int, int], list[PlannedCopy]]:
    """For each (slice, memory) copied more than once, the one place that dominates every copy: in the
    innermost block enclosing them all, right before the statement that holds the first one."""
    anchors: dict[tuple[int, int], list[PlannedCopy]] = {}
    for copies in made.values():
        if len(copies) < 2:
            continue
        paths = [m.path for m in copies]
        anchor: tuple[int, int] | None = None
        for level in range(min(len(p) for p in paths)):
            steps = [p[level] for p in paths]
            if any(st[0] != steps[0][0] for st in steps):
                break  # different blocks (then / else): the statement one level up encloses them
            anchor = (steps[0][0], min(st[1] for st in steps))
            if any(st != steps[0] for st in steps):
                break  # same block, different statements: this is the innermost common block
        if anchor is not None:
            anchors.setdefault(anchor, []).append(copies[0])
    return anchors


def reused_note(built: tuple[list[Stmt], Var]) -> str:
    """`` (reusing 'x', ...)`` when ``built`` reuses an earlier copy (no new statements), else empty."""
    return "" if built[0] else f" (reusing '{built[1].name}', which dominates this use)"
