"""IR evidence that TileAndBindSubBlock really split a program (the seed's five conditions).

Correct results alone do not prove a split: the conservative rollback to sub-block 0 is also correct.
``sub_block_evidence(program)`` inspects a program *after* the pass and reports:

- ``has_subblock_idx``: ``tile.get_subblock_idx`` is present;
- ``halved_windows``: every store marked ``tiled_op`` (and every load whose window depends on the
  sub-block index) covers one half along one axis, at offset ``orig + sb * half``, where ``half`` is
  the extent of its window on that axis: the tile's own extent, or — for a flattened 2-D tile of an N-D
  tensor (a store with ``shapes=``, a load with ``flatten=True``) — the extent of the N-D window; there
  is at least one such store; ``axis`` maps each split function to its ``sub_block_axis`` (the tile
  axis); a ``tile.mscatter`` marked ``tiled_op`` is a split store too when it scatters half of its source rows
  with the matching half of its index tile (``sub_block_half``; the index a ``tile.ci`` starting at
  ``orig +- sb * half``, maybe shifted by a scalar, or a halved load), on axis 0; an unmarked one must be guarded;
- ``consistent_custom_ranges``: True iff every custom op of every function the pass handled (split, or
  rolled back) runs on tile ranges that are consistent for BOTH sub-blocks. Precisely, each such custom
  op must be either

  * split: marked ``tiled_op``, in a split function, and its tile ins and outs agree with one iteration
    space through their indexing maps (bound dims have the iteration extent, broadcast constants and
    unbound dims the operand's own extent); or
  * replicated: marked ``sub_block_replicated`` (un-split, its result is needed whole, both sub-blocks
    compute it whole, unguarded) in a split function, with the same map consistency on its whole
    operands.

  Any other custom op makes it False: an un-split custom op fenced to sub-block 0 in a split function,
  and EVERY custom op of a rolled-back function (nothing was split there, so nothing is claimed). A
  program without custom ops in handled functions is vacuously consistent;
- ``no_guarded_tiled_work``: no ``tiled_op`` store / custom op sits under a sub-block-0 guard (an
  ``IfStmt`` tagged ``limit_sub_block_id0``; the tag, not the condition, identifies a guard);
- ``not_reverted``: neither the program nor any function carries ``tile_and_bind_subblock_reverted``;
- ``split``: all five hold.

``problems`` lists human-readable reasons for every failed condition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilefold.ir.affine import AffineDimExpr
from tilefold.ir.expr import Add, Call, ConstInt, Expr, MakeTuple, Max, Min, Mul, Sub, Var
from tilefold.ir.stmt import AssignStmt, Function, IfStmt, Program
from tilefold.ir.types import TileType
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.custom.structured import custom_segments
from tilefold.ops.registry import OpKind, op_of

TILED_OP = "tiled_op"
REPLICATED = "sub_block_replicated"
LIMIT_TAG = "limit_sub_block_id0"
REVERTED = "tile_and_bind_subblock_reverted"


@dataclass
class SubBlockEvidence:
    has_subblock_idx: bool = False
    halved_windows: bool = False
    consistent_custom_ranges: bool = True
    no_guarded_tiled_work: bool = True
    not_reverted: bool = True
    axis: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def split(self) -> bool:
        return (self.has_subblock_idx and self.halved_windows and self.consistent_custom_ranges
                and self.no_guarded_tiled_work and self.not_reverted)

    def __bool__(self) -> bool:
        return self.split


CLIPPED = -2  # _sb_axis multiplier of a stored window clipped per half (window_stores): disjoint parts


def _clipped_window_shift(e: Expr, sb_vars: set[Var]) -> bool:
    return (isinstance(e, Min) and isinstance(e.lhs, Max) and isinstance(e.lhs.lhs, Sub)
            and isinstance(e.lhs.lhs.lhs, Mul) and isinstance(e.lhs.lhs.lhs.lhs, Var)
            and e.lhs.lhs.lhs.lhs in sb_vars)


def _sb_axis(offsets: tuple[Expr, ...], sb_vars: set[Var]) -> list[tuple[int, int]]:
    """(axis, multiplier) for each offset entry of the form ``[orig +] sb * m``."""
    found = []
    for axis, e in enumerate(offsets):
        term = e.rhs if isinstance(e, Add) else e
        if isinstance(term, Min) and isinstance(term.lhs, Mul):  # a clipped store: ``min(sb * m, valid)``
            term = term.lhs
        if _clipped_window_shift(term, sb_vars):  # a stored window's part: ``min(max(sb * H - off, 0), n)``
            found.append((axis, CLIPPED))
            continue
        if isinstance(term, Mul) and isinstance(term.lhs, Var) and term.lhs in sb_vars \
                and isinstance(term.rhs, ConstInt):
            found.append((axis, term.rhs.value))
        elif _mentions(e, sb_vars):
            found.append((axis, -1))
    return found


def _mentions(e: Expr, vars_: set[Var]) -> bool:
    class _V(IRVisitor):
        hit = False

        def visit_Var(self, expr: Var) -> None:
            if expr in vars_:
                _V.hit = True

    v = _V()
    v.visit_expr(e)
    return _V.hit


def _is_guard(stmt: IfStmt) -> bool:
    """A sub-block-0 guard is recognised by its ``limit_sub_block_id0`` tag only (the tag survives the
    passes and the DSL round trip). An untagged ``if sb == 0:`` is ordinary user control flow."""
    return bool(stmt.attr(LIMIT_TAG, False))


class _Collect(IRVisitor):
    def __init__(self) -> None:
        self.sb_vars: set[Var] = set()
        self.calls: list[tuple[Call, bool]] = []  # (call, under a sub-block-0 guard)
        self.defs: dict[Var, Expr] = {}
        self._guard_depth = 0

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.defs[stmt.var] = stmt.value
        if isinstance(stmt.value, Call) and stmt.value.op_name == "tile.get_subblock_idx":
            self.sb_vars.add(stmt.var)
        super().visit_AssignStmt(stmt)

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        guard = _is_guard(stmt)
        self.visit_expr(stmt.condition)
        self._guard_depth += guard
        self.visit_stmt(stmt.then_body)
        self._guard_depth -= guard
        if stmt.else_body is not None:
            self.visit_stmt(stmt.else_body)

    def visit_Call(self, expr: Call) -> None:
        self.calls.append((expr, self._guard_depth > 0))
        super().visit_Call(expr)


def _check_custom(call: Call, problems: list[str], fname: str) -> bool:
    maps = call.kwarg("indexing_maps") or ()
    seg = custom_segments(call)
    operands = list(seg["ins"]) + list(seg["outs"])
    if len(maps) != len(operands):
        problems.append(f"{fname}: custom op {call.kwarg('symbol')} has no usable indexing maps")
        return False
    extents: dict[int, int] = {}
    ok = True
    for x, m in zip(operands, maps, strict=False):
        t = x.type
        if not isinstance(t, TileType):
            continue
        shape = t.static_shape
        if shape is None:
            problems.append(f"{fname}: custom op operand {getattr(x, 'name', x)} has a dynamic shape")
            return False
        for e, ext in zip(m.results, shape, strict=False):
            if isinstance(e, AffineDimExpr):
                if extents.setdefault(e.position, ext) != ext:
                    problems.append(f"{fname}: custom op {call.kwarg('symbol')}: operand "
                                    f"{getattr(x, 'name', x)} covers d{e.position} with {ext}, another operand "
                                    f"with {extents[e.position]}")
                    ok = False
    return ok


def _static_ints(values) -> tuple[int, ...] | None:
    out = []
    for v in values:
        if isinstance(v, ConstInt):
            out.append(v.value)
        elif isinstance(v, int):
            out.append(v)
        else:
            return None
    return tuple(out)


def _store_window(call: Call) -> tuple[int, ...] | None:
    """The GM window a store writes: its ``shapes=`` (flattened N-D window) or its tile's shape."""
    if call.kwarg("shapes") is not None:
        return _static_ints(call.kwarg("shapes"))
    t = call.args[0].type
    return t.static_shape if isinstance(t, TileType) else None


def _load_window(call: Call) -> tuple[int, ...] | None:
    """The GM window a load reads: its ``shapes`` operand (the N-D window, also when flattened)."""
    shapes = call.args[2] if len(call.args) > 2 else None
    if isinstance(shapes, MakeTuple):
        return _static_ints(shapes.elements)
    return call.type.static_shape if isinstance(call.type, TileType) else None


def _index_half(index: Expr, c: _Collect, half: int) -> bool:
    """The index tile of a split ``tile.mscatter`` is this sub-block's half: through aliases and scalar shifts
    (``tile.adds`` / ``tile.subs``) a ``tile.ci`` starting at ``orig + sb * half``, or a load of a halved window."""
    e = index
    for _ in range(64):
        value = c.defs.get(e) if isinstance(e, Var) else None
        if isinstance(value, Var):
            e = value
        elif isinstance(value, Call) and value.op_name in ("tile.adds", "tile.subs"):
            e = value.args[0]
        elif isinstance(value, Call) and value.op_name == "tile.ci":  # ``start +- sb * half``
            start = value.args[0]
            term = start.rhs if isinstance(start, (Add, Sub)) else start
            return (isinstance(term, Mul) and isinstance(term.lhs, Var) and term.lhs in c.sb_vars
                    and isinstance(term.rhs, ConstInt) and term.rhs.value == half)
        elif isinstance(value, Call) and value.op_name == "tile.load":
            found = _sb_axis(value.args[1].elements, c.sb_vars)
            return len(found) == 1 and found[0][1] == half
        else:
            return False
    return False


def _indirect_store(call: Call, guarded: bool, c: _Collect, fname: str, ev: SubBlockEvidence) -> int | None:
    """A ``tile.mscatter`` in a split function: marked ``tiled_op``, it is a split store when it scatters half of
    its source rows with the matching half of its index tile (its rows then are the half the index names); the
    split axis (0, the source rows), or None when it is no split store."""
    if not call.kwarg(TILED_OP, False):
        if not guarded:
            ev.problems.append(f"{fname}: {call.op_name} not split and not guarded")
            return -1
        return None
    src, index, part = call.args[0].type, call.args[1].type, call.kwarg("sub_block_half")
    rows = src.static_shape[0] if isinstance(src, TileType) and src.static_shape else None
    ishape = index.static_shape if isinstance(index, TileType) else None
    ok = (rows is not None and ishape is not None and part is not None and len(part) == 2
          and ishape[int(part[0])] == int(part[1]) == rows and _index_half(call.args[1], c, rows))
    if not ok:
        ev.problems.append(f"{fname}: {call.op_name} source / index {ishape} is not one half of the rows (its "
                           f"sub_block_half {part})")
        return -1
    return 0


def _function_evidence(fn: Function, ev: SubBlockEvidence) -> bool | None:
    """Record evidence for one function; returns whether its windows are halved (None: not split)."""
    c = _Collect()
    c.visit_function(fn)
    split_fn = fn.attr("sub_block_axis") is not None or any(
        call.kwarg(TILED_OP, False) for call, _ in c.calls if op_of(call) is not None)
    if c.sb_vars:
        ev.has_subblock_idx = True
    if fn.attr(REVERTED) is not None:
        ev.not_reverted = False
        ev.problems.append(f"{fn.name}: reverted ({fn.attr(REVERTED)})")
        for call, _ in c.calls:
            op = op_of(call)
            if op is not None and op.kind is OpKind.CUSTOM:
                ev.consistent_custom_ranges = False
                ev.problems.append(f"{fn.name}: custom op {call.kwarg('symbol')} is un-split (function rolled "
                                   "back)")
    if not split_fn:
        return None
    axes: set[int] = set()
    halved = True
    n_tiled_stores = 0
    for call, guarded in c.calls:
        op = op_of(call)
        if op is None:
            continue
        tiled = bool(call.kwarg(TILED_OP, False))
        if tiled and guarded:
            ev.no_guarded_tiled_work = False
            ev.problems.append(f"{fn.name}: tiled {call.op_name} under a sub-block-0 guard")
        if op.kind is OpKind.STORE and tiled:
            n_tiled_stores += 1
            found = _sb_axis(call.args[1].elements, c.sb_vars)
            window = _store_window(call)
            if len(found) == 1 and found[0][1] == CLIPPED:
                axes.add(found[0][0])
            elif len(found) != 1 or window is None or found[0][1] != window[found[0][0]]:
                halved = False
                ev.problems.append(f"{fn.name}: store window {found} is not one half along one axis")
            else:
                axes.add(found[0][0] if call.kwarg("shapes") is None else fn.attr("sub_block_axis", found[0][0]))
        elif op.kind is OpKind.LOAD:
            found = _sb_axis(call.args[1].elements, c.sb_vars)
            if found:
                shape = _load_window(call)
                if len(found) != 1 or shape is None or found[0][1] != shape[found[0][0]]:
                    halved = False
                    ev.problems.append(f"{fn.name}: load window {found} is not one half along one axis")
        elif op.kind is OpKind.INDIRECT_STORE:
            axis = _indirect_store(call, guarded, c, fn.name, ev)
            halved = halved and axis != -1
            if axis is not None and axis >= 0:
                n_tiled_stores += 1
                axes.add(axis)
        elif op.kind is OpKind.STORE and not tiled and not guarded:
            halved = False
            ev.problems.append(f"{fn.name}: store not split and not guarded")
        elif op.kind is OpKind.CUSTOM:
            replicated = bool(call.kwarg(REPLICATED, False))
            if replicated and guarded:
                ev.consistent_custom_ranges = False
                ev.problems.append(f"{fn.name}: replicated custom op {call.kwarg('symbol')} under a sub-block-0 "
                                   "guard")
            elif not tiled and not replicated:
                ev.consistent_custom_ranges = False
                ev.problems.append(f"{fn.name}: custom op {call.kwarg('symbol')} was not split")
            elif not _check_custom(call, ev.problems, fn.name):
                ev.consistent_custom_ranges = False
    if n_tiled_stores == 0:
        halved = False
        ev.problems.append(f"{fn.name}: no split store")
    if len(axes) > 1:
        ev.problems.append(f"{fn.name}: stores split on several axes {sorted(axes)}")
    if axes:
        ev.axis[fn.name] = fn.attr("sub_block_axis", min(axes))
    return halved


def sub_block_evidence(program: Program) -> SubBlockEvidence:
    """Evidence of a real 1:2 split in ``program`` (run after TileAndBindSubBlock)."""
    ev = SubBlockEvidence()
    if program.attr(REVERTED):
        ev.not_reverted = False
        ev.problems.append("program is marked tile_and_bind_subblock_reverted")
    verdicts = [v for v in (_function_evidence(fn, ev) for fn in program.functions) if v is not None]
    ev.halved_windows = bool(verdicts) and all(verdicts) and bool(ev.axis)
    if not ev.axis:
        ev.halved_windows = False
        if not ev.problems:
            ev.problems.append("no function was split")
    if not ev.has_subblock_idx:
        ev.problems.append("no get_subblock_idx")
    return ev


__all__ = ["SubBlockEvidence", "sub_block_evidence"]
