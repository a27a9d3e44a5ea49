"""A custom op's price declared by its work: cycles over its iteration space, per target and dtype.

A custom op is a structured op (``structured.py``): loop dims with iterator types (parallel / reduction) and
indexing maps that bind them to the operands' axes. Its work is counted on that iteration space:

- ``parallel points``: the product of the parallel dims' extents (one output element each);
- ``reduction steps``: the product of every dim's extent (the innermost loop body runs once per step; an
  op without reduction dims has as many steps as points).

``WorkCost(per_parallel, per_step, fixed, pipe)`` prices one call ``fixed + per_parallel * points +
per_step * steps`` cycles on ``pipe`` (a scalar loop runs on ``"S"``, vector code on ``"VECTOR"``). A
``CostDeclaration`` holds one ``WorkCost`` per target and dtype; the same declaration prices every shape and
both halves of a sub-block split (the tiled op's loop ranges are its half's), because the counts come from
the ranges, not from the shapes the declaration was written for. Register it as a kernel's cost:
``register_custom_op(symbol, kernel, cost=CostDeclaration({"Ascend910B": {"FP32": WorkCost(...)}}))``.
A call without indexing maps / iterator types (no iteration space), or on a target the declaration does not
name, gets the simulator's estimate instead (one measured TADDS pass per tile touched, marked extrapolated).
The seed's softmax kernels are declared this way in ``library.py`` (``SEED_SOFTMAX_WORK``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tilefold.errors import CustomOpError

PIPES = ("S", "VECTOR", "CUBE")


@dataclass(frozen=True)
class WorkCost:
    per_parallel: float  # cycles per parallel point (e.g. one row's set-up and write-back)
    per_step: float  # cycles per reduction step (the innermost loop body)
    fixed: float = 0.0  # cycles per call
    pipe: str = "VECTOR"  # the pipe the kernel runs on: "S" for a scalar loop
    source: str = ""  # where the figures come from (fitted on what, measured where)

    def __post_init__(self) -> None:
        if self.pipe not in PIPES:
            raise CustomOpError(f"custom-op cost on unknown pipe {self.pipe!r}", hint=f"one of {', '.join(PIPES)}")

    def cycles(self, points: int, steps: int) -> float:
        return self.fixed + self.per_parallel * points + self.per_step * steps


def iteration_counts(iterator_types: Sequence[str], ranges: Sequence[int | None]) -> tuple[int, int]:
    """(parallel points, reduction steps) of an iteration space; an unknown extent is an error."""
    if not iterator_types or len(ranges) != len(iterator_types) or any(r is None for r in ranges):
        raise CustomOpError("a work-based custom-op cost needs static loop ranges from the indexing maps",
                            hint="give the op indexing_maps and iterator_types over statically shaped tiles")
    points = math.prod(r for r, it in zip(ranges, iterator_types, strict=True) if it == "parallel")
    return points, math.prod(ranges)


@dataclass(frozen=True)
class CostDeclaration:
    """Per target name (or ``"default"``), per dtype name (or ``"default"``): the ``WorkCost`` of one call."""

    by_target: Mapping[str, Mapping[str, WorkCost]]

    def work(self, target_name: str, dtype_name: str) -> WorkCost | None:
        by_t = {k.lower(): v for k, v in self.by_target.items()}
        per = by_t.get(target_name.lower()) or by_t.get("default")
        if per is None:
            return None
        by_d = {k.upper(): v for k, v in per.items()}
        return by_d.get(dtype_name.upper()) or by_d.get("DEFAULT")

    def price(self, target_name: str, dtype_name: str, iterator_types: Sequence[str],
              ranges: Sequence[int | None]) -> tuple[float, str] | None:
        """(cycles, pipe) of one call, None when nothing is declared for this target and dtype."""
        w = self.work(target_name, dtype_name)
        if w is None:
            return None
        points, steps = iteration_counts(iterator_types, ranges)
        return w.cycles(points, steps), w.pipe


__all__ = ["CostDeclaration", "WorkCost", "iteration_counts"]
