"""``for`` loops.

Rule: the init, the iter arg, the yielded value and the result of a loop-carried tile carry the same half. The
demand on each iter arg (after the loop through its result, in the body through its uses) is iterated to a fixpoint
before anything is decided; an iter arg nobody demands follows the half of the value it yields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import IterArg, Var
from tilefold.ir.stmt import (
    ForStmt,
    SeqStmts,
    Stmt,
    final_yield,
)
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import (
    FULL,
    _Abort,
    _half_type,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def reverse(sp: Splitter, stmt: ForStmt) -> None:
    """Loop-carried windows: the demand on each iter arg (from after the loop, through its result, and
    from its uses in the body) is iterated to a fixpoint before anything is decided. An iter arg nobody
    demands yet starts with *no* demand (it does not force its yielded value whole); demands only grow,
    so the walk stops after at most one round per (iter arg, axis). Notes of superseded rounds are
    dropped. An iter arg that stays undemanded follows the half of the value it yields."""
    ias, rvs = stmt.iter_args, stmt.return_vars
    mark = len(sp.journal)
    base_ia = [set(sp.demand.get(ia, set())) for ia in ias]
    base_rv = [set(sp.demand.get(rv, set())) for rv in rvs]
    n_notes, n_left = len(sp.notes), len(sp.left)
    extra: list[set[int]] = [set() for _ in ias]
    rounds = 2 + sum((ia.type.rank + 1) if isinstance(ia.type, TileType) else 0 for ia in ias)
    y = final_yield(stmt.body)
    seeded: list[set[int]] = []
    for _ in range(rounds):
        sp.rollback_demands(mark)
        del sp.notes[n_notes:]
        del sp.left[n_left:]
        seeded = []
        for k, ia in enumerate(ias):
            d = base_ia[k] | extra[k]
            if k < len(rvs):
                d |= base_rv[k]
            if d:
                sp.journal.append((ia, set(sp.demand[ia]) if ia in sp.demand else None, ia in sp.strong))
                sp.demand[ia] = set(d)
            seeded.append(d)
        for k, ia in enumerate(ias):
            if not seeded[k]:
                continue  # no demand yet: decided after the fixpoint
            axis = sp.decide(ia, f"loop-carried {ia.name}")
            sp.mode[ia] = FULL if axis is None else axis
            if k < len(rvs):
                sp.mode[rvs[k]] = sp.mode[ia]
            if y is not None and k < len(y.values) and isinstance(ia.type, TileType):
                sp.want_expr(y.values[k], sp.mode[ia])
        sp.reverse_body(stmt.body)
        # inner uses of the iter args may have added demands: iterate until stable
        inner = [set(sp.demand.get(ia, set())) for ia in ias]
        if inner == seeded:
            break
        extra = [e | i for e, i in zip(extra, inner, strict=True)]
    else:
        raise _Abort("loop-carried windows did not stabilise")
    for k, ia in enumerate(ias):
        if seeded[k]:
            continue
        m = FULL
        if y is not None and k < len(y.values) and isinstance(ia.type, TileType):
            m = sp.expr_mode(y.values[k])
        sp.mode[ia] = m
        if k < len(rvs):
            sp.mode[rvs[k]] = m
    for ia in ias:
        if ia.init is not None and isinstance(ia.type, TileType):
            sp.want_expr(ia.init, sp.mode.get(ia, FULL))

def rewrite(sp: Splitter, stmt: ForStmt) -> list[Stmt]:
    out: list[Stmt] = []
    new_ias = []
    for ia in stmt.iter_args:
        axis = sp.mode.get(ia, FULL)
        if axis == FULL or not isinstance(ia.type, TileType):
            new_ias.append(ia)
            continue
        init = sp.get_half(ia.init, axis, out)
        nia = IterArg(ia.name, _half_type(ia.type, axis), ia.span, init=init)
        sp.half[ia] = nia
        new_ias.append(nia)
    body = sp.rewrite_body(stmt.body)
    body = sp.fix_yield(body, [sp.mode.get(ia, FULL) for ia in stmt.iter_args])
    new_rvs = []
    for _k, rv in enumerate(stmt.return_vars):
        axis = sp.mode.get(rv, FULL)
        if axis == FULL or not isinstance(rv.type, TileType):
            new_rvs.append(rv)
        else:
            nrv = Var(rv.name, _half_type(rv.type, axis), rv.span)
            sp.half[rv] = nrv
            new_rvs.append(nrv)
    out.append(stmt.with_fields(iter_args=tuple(new_ias), body=SeqStmts(tuple(body)),
                                return_vars=tuple(new_rvs)))
    return out
