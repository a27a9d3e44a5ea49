"""Dimension analysis: which axes of which values move together.

``DimensionAnalyzer`` runs a union-find over *value axes* ``(value, axis)``. A value is a ``Var`` (a
tile, a GM tensor, a loop iter arg, ...) or ``(var, i)`` for element ``i`` of a tuple-typed custom-op
result. Two value axes are joined when an op relates them one-to-one (an elementwise op maps axis ``i``
of each operand to axis ``i`` of its result). Every rule comes from the op registry (``OpKind``), never
from op-name lists:

- ELEMENTWISE / SCALAR_ELEMENTWISE / UNARY / CAST: every tile operand axis ``i`` joins result axis ``i``.
- ROW_BROADCAST / COL_BROADCAST (target [M, N] (op) vector): the target joins the result on every axis;
  the vector joins only its non-broadcast axis; its size-1 axis is marked *broadcast*.
- ROW_REDUCTION / COL_REDUCTION: the kept axis joins the result; the reduced axis of the input is
  marked *reduction* (it can never be split).
- LOAD / STORE: tile axes join the GM tensor's axes (and a store's result, the updated tensor).
- VIEW ``tile.slice`` and COPY (``tile.extract`` window, whole ``tile.move``) join axis ``i`` with the
  source's axis ``i``; other views, matmul, transpose, ...
  add no joins (their results are fresh classes).
- scans / full sorts (an op with ``extra["scan_axis"]``: ``tile.cumsum`` / ``cumprod`` / ``sort``): axis ``i``
  of the result joins axis ``i`` of the source; the axis they run along is marked *reduction*.
- loops and ifs join inits, iter args, yielded values and results.
- Custom-like ops (``OpKind.CUSTOM``): any unranked shaped operand or result -> opaque and recorded in
  ``unranked_custom`` (TileAndBindSubBlock then gives up on the whole function); no explicit maps ->
  opaque (no joins at all, not even result <-> output init: without maps nothing says how the kernel
  relates them); all-parallel identity maps -> the elementwise path; otherwise only axes whose map result is
  the ``AffineDimExpr`` of a *parallel* iterator are joined (through the iterator); axes mapped to a
  reduction iterator are marked *reduction*; results without an output map are skipped.

Joins are *transactional* per op: all joins one op asks for are applied together, and if any of them
would put two different axes of one value into the same class, the whole op's joins (and marks) are
undone and a ``DimensionConflict`` is recorded. Conflicts do not abort the analysis. A conflict is a
*broadcast on two different axes* (``DimensionConflict.broadcast``) when the join that failed touches an
operand the op broadcasts (a row/col-broadcast vector, or a custom-op operand with a constant-0 map
result) — e.g. one ``[16, 1]`` vector read as a column through ``(d0, 0)`` and as a row through
``(d1, 0)``. Only that kind turns the sub-block pass's strict mode off (for that function); any other
conflict (e.g. axes crossed by a transposing map) is recorded and strict mode is kept.

The analysis is linear in program size (near-constant union-find operations per operand axis).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilefold.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from tilefold.ir.expr import Call, Expr, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    final_yield,
    flatten_stmts,
)
from tilefold.ir.types import TensorType, TileType, TupleType, Type
from tilefold.ops.custom.structured import PARALLEL, StructuredView
from tilefold.ops.registry import OpKind, op_of

ValueKey = Hashable  # a Var, or (Var, element index) for tuple elements
AxisKey = tuple[ValueKey, int]

@dataclass(frozen=True)
class DimensionConflict:
    """An op asked to join two different axes of one value; its joins were rolled back."""

    op: str
    value: str
    axes: tuple[int, int]
    reason: str
    broadcast: bool = False  # "broadcast on two different axes": the failed join touches a broadcast operand
    keys: tuple = field(default=(), compare=False)  # the (value, axis) keys the failed op tried to join

    def __str__(self) -> str:
        kind = "broadcast on two different axes: " if self.broadcast else ""
        return f"{self.op}: {kind}{self.reason} (axes {self.axes[0]} and {self.axes[1]} of {self.value})"


@dataclass
class DimensionInfo:
    """Facts about one class of value axes."""

    reduction: bool = False  # some member is reduced (or a reduction iterator of a custom op)
    broadcast: bool = False  # some member is a broadcast (size-1, expanded) axis
    reasons: list[str] = field(default_factory=list)


def value_rank(t: Type) -> int | None:
    if isinstance(t, (TileType, TensorType)):
        return t.rank
    return None


def is_shaped(t: Type) -> bool:
    return isinstance(t, (TileType, TensorType))


class DimensionAnalyzer:
    """Union-find over ``(value, axis)``. Build with ``DimensionAnalyzer(fn).run()``."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self._parent: dict[AxisKey, AxisKey] = {}
        self._rank: dict[AxisKey, int] = {}
        # per class root: {value: axis} (to detect two axes of one value in one class)
        self._members: dict[AxisKey, dict[ValueKey, int]] = {}
        self._marks: dict[AxisKey, DimensionInfo] = {}
        self._undo: list[tuple[str, Any]] | None = None
        self.conflicts: list[DimensionConflict] = []
        self.opaque_ops: list[Call] = []
        self.unranked_custom: list[Call] = []
        self.ranks: dict[ValueKey, int] = {}

    # ------------------------------------------------------------------ union-find core

    def _add(self, key: AxisKey) -> None:
        if key not in self._parent:
            self._parent[key] = key
            self._rank[key] = 0
            self._members[key] = {key[0]: key[1]}
            self._marks[key] = DimensionInfo()
            if self._undo is not None:
                self._undo.append(("add", key))

    def find(self, key: AxisKey) -> AxisKey:
        self._add(key)
        root = key
        while self._parent[root] != root:
            root = self._parent[root]
        # no path compression inside a transaction (keeps undo simple); compress outside
        if self._undo is None:
            while self._parent[key] != root:
                nxt = self._parent[key]
                self._parent[key] = root
                key = nxt
        return root

    def _union(self, a: AxisKey, b: AxisKey, op: str, reason: str) -> DimensionConflict | None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return None
        ma, mb = self._members[ra], self._members[rb]
        small, large = (ma, mb) if len(ma) <= len(mb) else (mb, ma)
        for value, axis in small.items():
            other = large.get(value)
            if other is not None and other != axis:
                return DimensionConflict(op, _value_name(value), (min(axis, other), max(axis, other)), reason)
        if len(self._members[ra]) < len(self._members[rb]):
            ra, rb = rb, ra  # union by size: the merge (and its undo record) costs the smaller class only
        # rb goes under ra; the undo record holds what changes, never a copy of the larger class
        mr, mb2 = self._marks[ra], self._marks[rb]
        if self._undo is not None:
            added = [v for v in self._members[rb] if v not in self._members[ra]]
            self._undo.append(("union", (ra, rb, added, mr.reduction, mr.broadcast, len(mr.reasons),
                                         self._rank[ra])))
        self._parent[rb] = ra
        self._members[ra].update(self._members[rb])
        mr.reduction = mr.reduction or mb2.reduction
        mr.broadcast = mr.broadcast or mb2.broadcast
        mr.reasons.extend(mb2.reasons)
        if self._rank[ra] == self._rank[rb]:
            self._rank[ra] += 1
        return None

    def _mark(self, key: AxisKey, *, reduction: bool = False, broadcast: bool = False, reason: str = "") -> None:
        root = self.find(key)
        info = self._marks[root]
        if self._undo is not None:
            self._undo.append(("mark", (root, info.reduction, info.broadcast, len(info.reasons))))
        info.reduction = info.reduction or reduction
        info.broadcast = info.broadcast or broadcast
        if reason:
            info.reasons.append(reason)

    def _rollback(self, log: list[tuple[str, Any]]) -> None:
        for kind, data in reversed(log):
            if kind == "add":
                for table in (self._parent, self._rank, self._members, self._marks):
                    table.pop(data, None)
            elif kind == "union":
                ra, rb, added, reduction, broadcast, n_reasons, rank = data
                self._parent[rb] = rb
                members = self._members[ra]
                for v in added:
                    del members[v]
                info = self._marks[ra]
                info.reduction, info.broadcast = reduction, broadcast
                del info.reasons[n_reasons:]
                self._rank[ra] = rank
            elif kind == "mark":
                root, red, brc, n = data
                info = self._marks[root]
                info.reduction, info.broadcast = red, brc
                del info.reasons[n:]

    def transaction(self, op: str, joins: list[tuple[AxisKey, AxisKey, str]],
                    marks: list[tuple[AxisKey, bool, bool, str]] = (),
                    broadcast_op: bool = False) -> DimensionConflict | None:
        """Apply all ``joins`` (and ``marks``) of one op, or none of them. A conflict is classified as a
        broadcast on two different axes when ``broadcast_op`` says the op broadcasts one operand along two
        different iteration dims, or when the failed join touches a value the op broadcasts."""
        self._undo = []
        conflict = None
        # values this op broadcasts (a broadcast mark on one of their axes)
        bcast_values = {key[0] for key, _red, brc, _r in marks if brc}
        try:
            for a, b, reason in joins:
                conflict = self._union(a, b, op, reason)
                if conflict is not None:
                    bcast = broadcast_op or a[0] in bcast_values or b[0] in bcast_values
                    every = tuple(k for j in joins for k in j[:2])  # the op's axes: its result's among them
                    conflict = DimensionConflict(conflict.op, conflict.value, conflict.axes, conflict.reason,
                                                 broadcast=bcast, keys=every)
                    break
            if conflict is None:
                for key, red, brc, reason in marks:
                    self._mark(key, reduction=red, broadcast=brc, reason=reason)
            if conflict is not None:
                self._rollback(self._undo)
        finally:
            self._undo = None
        if conflict is not None:
            self.conflicts.append(conflict)
        return conflict

    # ------------------------------------------------------------------ queries

    def broadcast_conflicts_of(self, key: AxisKey) -> list[DimensionConflict]:
        """Broadcast-on-two-axes conflicts that involve the class of ``key``: the axis may have been broadcast
        along two different axes (a conflict without recorded keys involves every class)."""
        root = self.find(key)
        return [c for c in self.conflicts if c.broadcast and (not c.keys or any(self.find(k) == root for k in c.keys))]

    def same_class(self, a: AxisKey, b: AxisKey) -> bool:
        return self.find(a) == self.find(b)

    def info(self, key: AxisKey) -> DimensionInfo:
        return self._marks[self.find(key)]

    def is_parallel(self, key: AxisKey) -> bool:
        info = self.info(key)
        return not info.reduction

    def class_members(self, key: AxisKey) -> dict[ValueKey, int]:
        return dict(self._members[self.find(key)])

    # ------------------------------------------------------------------ walking the IR

    def run(self) -> DimensionAnalyzer:
        for p in self.fn.params:
            self._register(p, p.type)
        self._visit_body(self.fn.body)
        return self

    def _register(self, value: ValueKey, t: Type) -> None:
        r = value_rank(t)
        if r is not None:
            self.ranks[value] = r
            for i in range(r):
                self._add((value, i))
        elif isinstance(t, TupleType) and isinstance(value, Var):
            for j, et in enumerate(t.types):
                self._register((value, j), et)

    def _visit_body(self, body: Stmt | None) -> None:
        for stmt in flatten_stmts(body):
            self._visit_stmt(stmt)

    def _visit_stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, AssignStmt):
            self._register(stmt.var, stmt.var.type)
            self._visit_value(stmt.var, stmt.value)
        elif isinstance(stmt, EvalStmt):
            if isinstance(stmt.expr, Call):
                self._visit_call(None, stmt.expr)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            kind = "for" if isinstance(stmt, ForStmt) else "while"
            for ia in stmt.iter_args:
                self._register(ia, ia.type)
            for rv in stmt.return_vars:
                self._register(rv, rv.type)
            self._visit_body(stmt.body)
            yields = final_yield(stmt.body)
            for k, ia in enumerate(stmt.iter_args):
                self._join_same(f"{kind} iter arg {ia.name}", ia, ia.init)
                if k < len(stmt.return_vars):
                    self._join_same(f"{kind} result {stmt.return_vars[k].name}", stmt.return_vars[k], ia)
                if yields is not None and k < len(yields.values):
                    self._join_same(f"{kind} yield {ia.name}", ia, yields.values[k])
        elif isinstance(stmt, IfStmt):
            for rv in stmt.return_vars:
                self._register(rv, rv.type)
            self._visit_body(stmt.then_body)
            self._visit_body(stmt.else_body)
            for body in (stmt.then_body, stmt.else_body):
                y = final_yield(body)
                if y is None:
                    continue
                for k, rv in enumerate(stmt.return_vars):
                    if k < len(y.values):
                        self._join_same(f"if result {rv.name}", rv, y.values[k])
        elif isinstance(stmt, SeqStmts):
            self._visit_body(stmt)

    def _join_same(self, what: str, a: ValueKey, b: Expr | None) -> None:
        if not isinstance(b, Var) or a is b:
            return
        ra, rb = self.ranks.get(a), self.ranks.get(b)
        if ra is None or ra != rb:
            return
        self.transaction(what, [((a, i), (b, i), what) for i in range(ra)])

    def _visit_value(self, var: Var, value: Expr) -> None:
        if isinstance(value, Call):
            self._visit_call(var, value)
        elif isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
            src = (value.tuple_value, value.index)
            r = self.ranks.get(var)
            if r is not None and self.ranks.get(src) == r:
                self.transaction("tuple item", [((var, i), (src, i), "tuple item") for i in range(r)])
        elif isinstance(value, Var):
            self._join_same(f"alias {var.name}", var, value)

    def _visit_call(self, result: Var | None, call: Call) -> None:
        op = op_of(call)
        if op is None:
            self.opaque_ops.append(call)
            return
        kind = op.kind
        name = call.op_name
        joins: list[tuple[AxisKey, AxisKey, str]] = []
        marks: list[tuple[AxisKey, bool, bool, str]] = []
        r_rank = self.ranks.get(result) if result is not None else None

        def tile_args() -> list[Var]:
            return [a for a in call.args if isinstance(a, Var) and a in self.ranks]

        if kind in (OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY, OpKind.CAST):
            if r_rank is not None:
                for a in tile_args():
                    if self.ranks[a] == r_rank:
                        joins += [((result, i), (a, i), f"{name} elementwise") for i in range(r_rank)]
        elif kind in (OpKind.ROW_BROADCAST, OpKind.COL_BROADCAST):
            bcast_axis = op.extra.get("axis", 1 if kind is OpKind.ROW_BROADCAST else 0)
            target, vec = (call.args + (None, None))[:2]
            if r_rank == 2:
                if isinstance(target, Var) and self.ranks.get(target) == 2:
                    joins += [((result, i), (target, i), f"{name} target") for i in range(2)]
                if isinstance(vec, Var) and self.ranks.get(vec) == 2:
                    keep = 1 - bcast_axis
                    joins.append(((result, keep), (vec, keep), f"{name} vector"))
                    marks.append(((vec, bcast_axis), False, True, f"{name} broadcasts axis {bcast_axis}"))
        elif kind in (OpKind.ROW_REDUCTION, OpKind.COL_REDUCTION):
            axis = op.extra.get("axis", 1 if kind is OpKind.ROW_REDUCTION else 0)
            src = call.args[0] if call.args else None
            if r_rank == 2 and isinstance(src, Var) and self.ranks.get(src) == 2:
                keep = 1 - axis
                joins.append(((result, keep), (src, keep), f"{name} kept axis"))
                marks.append(((src, axis), True, False, f"{name} reduces axis {axis}"))
                marks.append(((result, axis), True, False, f"{name} reduced axis {axis}"))
        elif kind is OpKind.LOAD:
            src = call.args[0] if call.args else None
            if r_rank is not None and isinstance(src, Var) and self.ranks.get(src) == r_rank:
                flip = r_rank == 2 and bool(call.kwarg("transpose"))  # a transposed load: tile axis i is GM 1 - i
                joins += [((result, i), (src, 1 - i if flip else i), "load window") for i in range(r_rank)]
        elif kind is OpKind.STORE:
            tile = call.args[0] if call.args else None
            out = call.args[2] if len(call.args) > 2 else None
            if isinstance(tile, Var) and isinstance(out, Var) and self.ranks.get(tile) == self.ranks.get(out):
                r = self.ranks.get(tile)
                if r is not None:
                    joins += [((tile, i), (out, i), "store window") for i in range(r)]
                    if result is not None and self.ranks.get(result) == r:
                        joins += [((result, i), (out, i), "store result") for i in range(r)]
        elif kind is OpKind.VIEW and call.op_name == "tile.slice" and len(call.args) in (3, 4):  # 4: + valid shape
            src = call.args[0]
            if r_rank is not None and isinstance(src, Var) and self.ranks.get(src) == r_rank:
                joins += [((result, i), (src, i), "slice window") for i in range(r_rank)]
        elif kind is OpKind.TRANSPOSE or name == "tile.transpose_view":
            src = call.args[0] if call.args else None
            if r_rank is not None and isinstance(src, Var) and self.ranks.get(src) == r_rank:
                a1, a2 = (call.kwarg("axis1", 0), call.kwarg("axis2", 1)) if kind is OpKind.TRANSPOSE else (0, 1)
                perm = {a1: a2, a2: a1}
                joins += [((result, i), (src, perm.get(i, i)), f"{name} axes") for i in range(r_rank)]
        elif kind is OpKind.VIEW and name == "tile.reshape":
            src = call.args[0] if call.args else None
            st, rt = getattr(getattr(src, "type", None), "static_shape", None), (
                result.type.static_shape if result is not None and hasattr(result.type, "static_shape") else None)
            if isinstance(src, Var) and src in self.ranks and st is not None and rt is not None:
                for i in range(len(rt)):
                    b = reshape_split_axis(st, rt, i) if rt[i] % 2 == 0 else None
                    if isinstance(b, int):
                        joins.append(((result, i), (src, b), f"{name} kept axis"))
        elif kind is OpKind.COPY:
            src = call.args[0] if call.args else None
            if r_rank is not None and isinstance(src, Var) and self.ranks.get(src) == r_rank:
                flip = r_rank == 2 and bool(call.kwarg("transpose"))  # a transposed move swaps the axes
                joins += [((result, i), (src, 1 - i if flip else i), f"{name} copy window") for i in range(r_rank)]
        elif kind is OpKind.CUSTOM:
            self._custom(result, call, joins, marks)
        elif kind in (OpKind.CREATE, OpKind.INDEX):
            pass
        elif op.extra.get("scan_axis") and r_rank is not None:
            # scans / full sorts along one axis (ops/scan_ops.py): the result has its source's axes, one to one;
            # the scanned / sorted axis mixes its elements like a reduction's (it can never be split)
            along = int(call.kwarg(op.extra["scan_axis"], r_rank - 1)) % r_rank
            for a in tile_args()[:1]:
                if self.ranks[a] == r_rank:
                    joins += [((result, i), (a, i), f"{name} along one axis") for i in range(r_rank)]
                    marks.append(((a, along), True, False, f"{name} runs along axis {along}"))
        else:
            self.opaque_ops.append(call)
        if joins or marks:
            self.transaction(name, joins, marks, broadcast_op=self._bcast_two_axes)
        self._bcast_two_axes = False

    _bcast_two_axes = False  # set by ``_custom`` for the op being visited

    def _custom(self, result: Var | None, call: Call, joins: list, marks: list) -> None:
        view = StructuredView.of(call)
        ins, outs = view.ins, view.outs
        results: list[ValueKey] = []
        if result is not None:
            if isinstance(result.type, TupleType):
                results = [(result, j) for j in range(len(result.type.types))]
            else:
                results = [result]
        shaped = [o for o in list(ins) + list(outs) if not _is_scalar(o)]
        for o in shaped:
            if not isinstance(o.type, (TileType, TensorType)):
                self.unranked_custom.append(call)
                self.opaque_ops.append(call)
                return
        for r in results:
            if r not in self.ranks:
                self.unranked_custom.append(call)
                self.opaque_ops.append(call)
                return
        maps: tuple[AffineMap, ...] = view.indexing_maps
        iters: tuple[str, ...] = view.iterator_types
        if not view.has_explicit_maps:
            self.opaque_ops.append(call)  # opaque: no join at all, not even result <-> output init
            return
        # DPS: result j is written through output init j
        for j, r in enumerate(results):
            if j < len(outs) and isinstance(outs[j], Var) and self.ranks.get(outs[j]) == self.ranks[r]:
                joins += [((r, i), (outs[j], i), "custom result / output init") for i in range(self.ranks[r])]
        operands = list(view.mapped_operands)
        if view.all_parallel_identity:
            # elementwise path: every ranked operand of full rank joins the first result
            anchor = results[0] if results else (outs[0] if outs and isinstance(outs[0], Var) else None)
            if anchor is None:
                return
            rank = self.ranks.get(anchor)
            for o in operands:
                if isinstance(o, Var) and self.ranks.get(o) == rank and o is not anchor:
                    joins += [((anchor, i), (o, i), "custom identity map") for i in range(rank)]
            return
        # general path: go through the iterators. Iterator n is represented by its first bound axis.
        iter_anchor: dict[int, AxisKey] = {}
        bound: list[tuple[AxisKey, int]] = []
        for o, m in zip(operands, maps, strict=False):
            if not isinstance(o, Var) or o not in self.ranks:
                continue
            for axis, e in enumerate(m.results):
                if axis >= self.ranks[o]:
                    break
                if isinstance(e, AffineDimExpr) and e.position < len(iters):
                    bound.append(((o, axis), e.position))
        # results without an output map are skipped: result j only uses map len(ins) + j if present
        for j, r in enumerate(results):
            k = len(ins) + j
            if k >= len(maps):
                continue
            for axis, e in enumerate(maps[k].results):
                if axis < self.ranks[r] and isinstance(e, AffineDimExpr) and e.position < len(iters):
                    bound.append(((r, axis), e.position))
        for key, n in bound:
            if iters[n] == PARALLEL:
                if n in iter_anchor:
                    joins.append((iter_anchor[n], key, f"custom parallel iterator d{n}"))
                else:
                    iter_anchor[n] = key
            else:
                marks.append((key, True, False, f"{call.kwarg('symbol')}: reduction iterator d{n}"))
        broadcast_values: set[Var] = set()
        for o, m in zip(operands, maps, strict=False):
            if isinstance(o, Var) and o in self.ranks:
                for axis, e in enumerate(m.results):
                    if axis < self.ranks[o] and isinstance(e, AffineConstantExpr):
                        marks.append(((o, axis), False, True, "custom broadcast constant"))
                        broadcast_values.add(o)
        # a broadcast operand whose same axis is bound to two different iteration dims (e.g. one [16, 1]
        # vector read through (d0, 0) and through (d1, 0)): a "broadcast on two different axes"
        dims_of: dict[AxisKey, set[int]] = {}
        for key, n in bound:
            dims_of.setdefault(key, set()).add(n)
        self._bcast_two_axes = any(key[0] in broadcast_values and len(ns) > 1 for key, ns in dims_of.items())


def _is_scalar(e: Expr) -> bool:
    from tilefold.ir.types import ScalarType

    return isinstance(e.type, ScalarType)


def _value_name(value: ValueKey) -> str:
    if isinstance(value, Var):
        return value.name
    if isinstance(value, tuple) and value and isinstance(value[0], Var):
        return f"{value[0].name}[{value[1]}]"
    return repr(value)


def flattened_split_axis(window: Sequence[int | None], axis: int) -> tuple[int, int] | str:
    """Map a halving of a 2-D tile back onto the N-D tensor window it holds.

    FlattenTileNdTo2D lays an N-D window ``[w0, ..., w(n-2), w(n-1)]`` out as the 2-D tile
    ``[w0 * ... * w(n-2), w(n-1)]`` (row-major). Halving the tile on ``axis`` is the N-D box obtained by
    halving one window axis exactly when

    * ``axis == 1`` (columns): the last window axis, if its extent is static and even;
    * ``axis == 0`` (rows): the outermost leading axis whose extent is not 1, if that extent is static and
      even (rows ``[0, R/2)`` are then ``i_k in [0, w_k / 2)`` for that axis ``k`` and all of the axes after
      it). Any other row split (an odd outermost extent, e.g. ``[3, 16, 64]`` -> ``[48, 64]``) is not one
      box of the tensor and is not provable.

    A window of rank <= 2 is the tile itself (identity). Returns ``(window axis, half extent)`` or the
    reason the mapping does not exist."""
    n = len(window)
    if n <= 2:
        nd = axis
    elif axis == 1:
        nd = n - 1
    elif axis == 0:
        nd = -1
        for k in range(n - 1):
            if window[k] is None:
                return f"leading window extent {k} is dynamic"
            if window[k] != 1:
                nd = k
                break
        if nd < 0:
            return "every leading window extent is 1"
    else:
        return f"axis {axis} is out of range for a flattened 2-D tile"
    if nd >= n:
        return f"axis {axis} is out of range for the rank-{n} window"
    ext = window[nd]
    if ext is None:
        return f"window extent {nd} is dynamic"
    if ext % 2:
        if n > 2 and axis == 0:
            return (f"a row split of the flattened window {list(window)} is not one N-D box: the outermost "
                    f"non-unit leading extent {ext} (window axis {nd}) is odd")
        return f"window extent {ext} on window axis {nd} is odd"
    return nd, ext // 2


def analyze_dimensions(fn: Function) -> DimensionAnalyzer:
    """Run the dimension analysis on one function."""
    return DimensionAnalyzer(fn).run()


def reshape_split_axis(src_shape: Sequence[int | None], res_shape: Sequence[int | None], axis: int) -> int | str:
    """The source axis whose halving is the halving of result ``axis`` of a row-major reshape, or the reason
    there is none.

    Halving result axis ``a`` keeps the flat elements whose index, divided by ``prod(res[a+1:]) * res[a] / 2``,
    is even (sub-block 0) or odd (sub-block 1). Halving source axis ``b`` does the same with
    ``prod(src[b+1:]) * src[b] / 2``; the two element sets (and their row-major orders) agree exactly when
    ``prod(res[a:]) == prod(src[b:])`` and both extents are even. This covers an unchanged axis, a collapse
    (``[2, 16, 64] -> [32, 64]``: result axis 0 is source axis 0), an expand (``[32, 64] -> [2, 16, 64]``:
    result axis 0 is source axis 0, result axis 1 is not a box) and size-1 axis insertion / removal. Among the
    axes with that suffix product at most one has an extent other than 1."""
    if any(e is None for e in src_shape) or any(e is None for e in res_shape):
        return "the reshape has a dynamic extent"
    ext = res_shape[axis]
    if ext % 2:
        return f"result extent {ext} on axis {axis} is odd"
    suffix = 1
    for e in res_shape[axis:]:
        suffix *= e
    tail = 1
    for b in range(len(src_shape) - 1, -1, -1):
        tail *= src_shape[b]
        if tail == suffix and src_shape[b] != 1:
            if src_shape[b] % 2:
                return f"axis {axis} maps to source axis {b} whose extent {src_shape[b]} is odd"
            return b
        if tail > suffix:
            break
    return (f"axis {axis} of the result {list(res_shape)} is not one contiguous block of an axis of the "
            f"source {list(src_shape)}")
