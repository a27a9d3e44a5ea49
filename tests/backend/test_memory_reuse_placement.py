"""MemoryReuse's heap-based first-fit placement gives exactly the assignment of the plain quadratic
first-fit it replaced (every storage scanned in creation order), on random lifetimes with ties."""

import random

from tilefold.ir.expr import ConstInt, Var
from tilefold.ir.stmt import EvalStmt
from tilefold.ir.types import DataType, MemorySpace, ScalarType
from tilefold.passes.memory_planning.memory_reuse import _can_follow, _Group, _place_groups


def _reference(ordered, defs, live):
    storages: list[tuple[str, MemorySpace, list]] = []
    new_base = {}
    for g in ordered:
        if g.root is None or defs.get(g.root) is None or g.start < 0:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
            continue
        chosen = next(((host, placed) for host, space, placed in storages
                       if space is g.space and all(_can_follow(p, g, defs, live) for p in placed)), None)
        if chosen is None:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
        else:
            chosen[1].append(g)
            new_base[g.base] = chosen[0]
    return new_base


def _groups(rng: random.Random, n: int):
    stmt = EvalStmt(ConstInt(0))  # not an in-place vector op: a group ending on another's start is not reused
    defs, groups = {}, []
    for i in range(n):
        start = rng.randrange(-1, 3 * n) if rng.random() < 0.05 else rng.randrange(0, 3 * n)
        end = start + rng.choice((0, 1, 1, 2, 3, 5, 8, 40))
        root = Var(f"v{i}", ScalarType(DataType.INDEX))
        if rng.random() > 0.05:
            defs[root] = stmt
        space = rng.choice((MemorySpace.Vec, MemorySpace.Vec, MemorySpace.Mat))
        groups.append(_Group(f"b{i}", space, start, end, 64, [root], root, {root}))
    return sorted(groups, key=lambda g: g.start), defs


def test_heap_placement_equals_quadratic_first_fit():
    rng = random.Random(12)
    for trial in range(200):
        ordered, defs = _groups(rng, rng.randrange(1, 120))
        assert _place_groups(ordered, defs, None) == _reference(ordered, defs, None), trial
