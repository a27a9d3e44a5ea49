"""The splitter: a reverse demand pass (the bubbling of the marked half-windows from the stores to their producers)
followed by a forward rewrite. Bookkeeping lives here; what each op family or statement does with a demanded half is
the rule of its strategy module (``elementwise``, ``broadcast``, ``reduction``, ``load``, ``copies``, ``transpose``,
``reshape``, ``assembles``, ``index_ops``, ``sorting``, ``scans``, ``expansion``, ``generators``, ``gathers``,
``scatters``, ``custom``, ``loops``, ``while_loops``, ``ifs``; stores: ``seeding``).

Op strategies export ``demand(sp, var, call, axis) -> [(operand, axis)]`` (raises ``Refusal``) and may export
``rewrite(sp, var, call, axis, out) -> Call``; without one the op is re-emitted on the demanded operand halves.
Statement strategies export ``reverse(sp, stmt)`` and ``rewrite(sp, stmt) -> [Stmt]``.
"""

from __future__ import annotations

from typing import Any

from tilefold.analysis.dimensions import DimensionAnalyzer, ValueKey
from tilefold.ir.expr import Call, ConstInt, Expr, MakeTuple, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import ScalarType, TileType
from tilefold.ops.registry import OpDef, OpKind, make_call, op_of
from tilefold.passes.tile_and_bind_sub_block import (
    assembles,
    broadcast,
    clipping,
    copies,
    custom,
    elementwise,
    expansion,
    gathers,
    generators,
    ifs,
    index_ops,
    load,
    loops,
    reduction,
    reshape,
    scans,
    scatters,
    seeding,
    sorting,
    transpose,
    while_loops,
    window_stores,
)
from tilefold.passes.tile_and_bind_sub_block.common import (
    FOLLOW,
    FULL,
    INDEX,
    SOFT,
    Refusal,
    _Abort,
    _half_type,
    _halvable,
    _key_name,
    _key_type,
    _name,
    _offset_plus,
    _rebuild,
    _split_reason,
    _tile_subexprs,
)
from tilefold.passes.tile_and_bind_sub_block.custom import CustomPlan
from tilefold.passes.tile_and_bind_sub_block.window_stores import is_window_axis, stored_windows

#: op kind -> the strategy module that splits it
_STRATEGY_BY_KIND: dict[OpKind, Any] = {
    OpKind.ELEMENTWISE: elementwise, OpKind.SCALAR_ELEMENTWISE: elementwise, OpKind.UNARY: elementwise,
    OpKind.CAST: elementwise,
    OpKind.ROW_BROADCAST: broadcast, OpKind.COL_BROADCAST: broadcast,
    OpKind.ROW_REDUCTION: reduction, OpKind.COL_REDUCTION: reduction,
    OpKind.LOAD: load, OpKind.CREATE: load,
    OpKind.COPY: copies,
    OpKind.TRANSPOSE: transpose,
}
#: view ops (by name) -> their strategy module; ``tile.transpose_view`` whatever its kind
_STRATEGY_BY_VIEW: dict[str, Any] = {
    "tile.slice": copies, "tile.set_validshape": clipping, "tile.reshape": reshape, "tile.transpose_view": transpose,
}


#: ops (by name) whose strategy their kind does not give
_STRATEGY_BY_NAME: dict[str, Any] = {
    "tile.ci": index_ops, "tile.gather": index_ops, "tile.sort32": sorting, "tile.mrgsort": sorting,
    "tile.expand_clone": expansion, "tile.fillpad_expand": expansion,
    "tile.random": generators, "tile.gatherb": gathers, "tile.mgather": gathers,
    "tile.scatter": scatters, "tile.scatter_update": scatters, "tile.assemble": assembles,
    "tile.cumsum": scans, "tile.cumprod": scans, "tile.sort": scans,
}


def op_strategy(op: OpDef, call: Call) -> Any:
    """The strategy module of an op family (None: no strategy)."""
    if call.op_name in _STRATEGY_BY_NAME:
        return _STRATEGY_BY_NAME[call.op_name]
    by_kind = _STRATEGY_BY_KIND.get(op.kind)
    if by_kind is not None:
        return by_kind
    if op.kind is OpKind.VIEW or call.op_name == "tile.transpose_view":
        return _STRATEGY_BY_VIEW.get(call.op_name)
    return None


class Splitter:
    """Demands (reverse) then rewrite (forward) of one function for one candidate axis."""

    def __init__(self, fn: Function, strict: bool, analyzer: DimensionAnalyzer, clip_assembles: bool = False) -> None:
        self.fn = fn
        # a tile.assemble whose value covers only part of the split axis: clipped per half (``assembles``, rule 2)
        # when set, else refused; ``partial_assembles`` records that such a refusal happened
        self.clip_assembles = clip_assembles
        self.partial_assembles = False
        self.strict = strict
        self.an = analyzer
        self.demand: dict[ValueKey, set[int]] = {}
        self.mode: dict[ValueKey, int] = {}  # value -> half axis (FULL = whole)
        self.custom_plans: dict[int, CustomPlan] = {}  # id(call) -> plan
        self.store_axes: dict[int, int] = {}  # id(store call) -> axis of its tile
        self.left: list[str] = []  # windows left on ops (non-strict)
        self.notes: list[tuple[str, str, dict]] = []
        self._note_at: dict[tuple[str, str], int] = {}  # (kind, message) -> its index in notes (dedup in O(1))
        # values some unguarded work reads (a store, a pure op, a loop / if, a replicated custom op...); a
        # demand that only comes from custom ops fenced to sub-block 0 is "weak" and not in this set
        self.strong: set[ValueKey] = set()
        # undo journal of demand / strong changes: (key, its demand set before, was it strong); a loop's
        # fixpoint rounds roll back to their start instead of copying every demand (linear in the loops)
        self.journal: list[tuple[ValueKey, set[int] | None, bool]] = []
        self.replicated: dict[int, str] = {}  # id(custom call) -> why it is computed whole on both
        self.fenced: set[int] = set()  # id(custom call): un-split, results unused by unguarded work
        self.sb = Var("subblock_idx", ScalarType(INDEX))
        self.clipped: set[ValueKey] = set()  # set_validshape results whose halves get clipped valid shapes
        self.windows = stored_windows(fn)  # stored slices [off, off + n) of a tile, clipped per half

    def note(self, kind: str, message: str, details: dict) -> None:
        i = self._note_at.get((kind, message))
        if i is not None and i < len(self.notes) and self.notes[i][:2] == (kind, message):
            return  # already noted (an index past a rollback's truncation is stale)
        self._note_at[(kind, message)] = len(self.notes)
        self.notes.append((kind, message, details))

    def want(self, key: ValueKey, axis: int, weak: bool = False) -> None:
        if not isinstance(_key_type(key), TileType):
            return
        self.journal.append((key, set(self.demand[key]) if key in self.demand else None, key in self.strong))
        self.demand.setdefault(key, set()).add(axis)
        if not weak:
            self.strong.add(key)

    def want_expr(self, e: Expr, axis: int, weak: bool = False) -> None:
        if isinstance(e, Var):
            self.want(e, axis, weak)
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            self.want((e.tuple_value, e.index), axis, weak)
        elif isinstance(e.type, TileType):
            # a tile-valued expression that is not a variable (nested calls are hoisted into variables
            # before the analysis, so this is only reached for exotic expressions): nothing to bubble into
            self.leave("window on a non-variable tile expression", repr(e), custom=False)

    def leave(self, reason: str, what: str, custom: bool) -> None:
        if custom or self.strict:
            raise _Abort(f"window stuck on {what}: {reason}")
        self.left.append(f"{what}: {reason}")

    def decide(self, key: ValueKey, what: str, custom: bool = False) -> int | None:
        """The single demanded half axis of ``key`` or None (whole)."""
        d = self.resolve(key)
        if not d or d == {FULL}:
            return None
        if len(d) > 1:
            self.leave("value is needed both whole and halved" if FULL in d else "value is halved on two axes",
                        what, custom)
            return None
        (axis,) = d
        return axis

    def resolve(self, key: ValueKey) -> set[int]:
        """The demand set of ``key`` with soft demands resolved: a soft ``axis`` demand is the ``axis``-half
        when every other demand agrees (or there is none and all soft demands agree), else the whole value
        (the window copy then reads the whole source at an offset index)."""
        d = self.demand.get(key, set())
        soft = {SOFT - a for a in d if a <= SOFT}
        if not soft:
            return d
        hard = {a for a in d if a > SOFT}
        if not hard:
            return soft if len(soft) == 1 else {FULL}
        return hard | ({FULL} if soft - hard else set())

    def soft_only(self, key: ValueKey) -> bool:
        d = self.demand.get(key, set())
        return bool(d) and all(a <= SOFT for a in d)

    def run_demands(self, store_plan: dict[int, int]) -> None:
        self.store_plan = store_plan
        self.reverse_body(self.fn.body)
        self.check_halves()

    def check_halves(self) -> None:
        """Every tile halved along its last (column) axis — loads, intermediates, custom operands, iter
        args, not only the stored tiles — must keep a half row that is a multiple of 32 B (the vector base
        alignment); every halved axis must be static and even."""
        seen: set[tuple[ValueKey, int]] = set()
        items = [(k, a) for k, d in self.demand.items() for a in d] + list(self.mode.items())
        for key, axis in items:
            if axis is None or axis < 0 or (key, axis) in seen:
                continue
            seen.add((key, axis))
            t = _key_type(key)
            if not isinstance(t, TileType) or is_window_axis(self, key, axis):
                continue  # a stored window's halves are clipped windows of its source's halves (window_stores)
            reason = _split_reason(t, axis, allow_valid=key in self.clipped)
            if reason is not None:
                raise _Abort(f"cannot halve {_key_name(key)} on axis {axis}: {reason}")

    def reverse_body(self, body: Stmt | None) -> None:
        for stmt in reversed(flatten_stmts(body)):
            self.reverse_stmt(stmt)

    def reverse_stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, AssignStmt):
            self.reverse_assign(stmt.var, stmt.value)
        elif isinstance(stmt, EvalStmt):
            if isinstance(stmt.expr, Call):
                self.reverse_call(None, stmt.expr)
        elif isinstance(stmt, ReturnStmt):
            for v in stmt.values:  # returns normally carry tensors; a returned tile keeps its type
                for sub in _tile_subexprs(v):
                    self.want_expr(sub, FULL)
        elif isinstance(stmt, YieldStmt):
            pass  # yields are handled by their loop / if
        elif isinstance(stmt, ForStmt):
            loops.reverse(self, stmt)
        elif isinstance(stmt, IfStmt):
            ifs.reverse(self, stmt)
        elif isinstance(stmt, WhileStmt):
            while_loops.reverse(self, stmt)
        elif isinstance(stmt, SeqStmts):
            self.reverse_body(stmt)

    def reverse_assign(self, var: Var, value: Expr) -> None:
        if isinstance(value, Call):
            self.reverse_call(var, value)
        elif isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
            if isinstance(var.type, TileType) and not self.demand.get(var):
                # an unused result of a multi-result op (``m, e = custom(...)`` with ``m`` dead) does not
                # force the op whole: it is halved with the op if the op is split
                self.mode[var] = FOLLOW
                return
            axis = self.decide(var, f"{var.name} = {value.tuple_value.name}[{value.index}]")
            self.mode[var] = FULL if axis is None else axis
            if isinstance(var.type, TileType):
                self.want((value.tuple_value, value.index), FULL if axis is None else axis)
        elif isinstance(value, Var):
            axis = self.decide(var, f"{var.name} = {value.name}")
            self.mode[var] = FULL if axis is None else axis
            if isinstance(var.type, TileType):
                self.want(value, FULL if axis is None else axis)
        else:
            for sub in _tile_subexprs(value):
                self.want_expr(sub, FULL)

    def full_operands(self, call: Call, weak: bool = False) -> None:
        for a in call.args:
            if isinstance(a.type, TileType):
                self.want_expr(a, FULL, weak)
            elif isinstance(a, MakeTuple):
                for e in a.elements:
                    if isinstance(e.type, TileType):
                        self.want_expr(e, FULL, weak)

    def reverse_call(self, var: Var | None, call: Call) -> None:
        op = op_of(call)
        if op is not None and op.kind is OpKind.STORE:
            seeding.seed(self, call)
            return
        if op is not None and op.kind is OpKind.CUSTOM:
            custom.reverse(self, var, call)
            return
        if op is not None and op.kind is OpKind.INDIRECT_STORE:  # a seed like a store (see ``scatters``)
            scatters.seed_mscatter(self, call)
            return
        what = f"{call.op_name}" + (f" -> {var.name}" if var is not None else "")
        axis = self.decide(var, what) if var is not None else None
        if axis is None:
            if var is not None:
                self.mode[var] = FULL
            self.full_operands(call)
            return
        try:
            operand_axes = self.strategy(var, call, axis)
        except Refusal as r:
            if self.soft_only(var):  # only window copies want a half: they read the whole value instead
                self.mode[var] = FULL
                self.full_operands(call)
                return
            self.leave(r.describe(), what, custom=False)
            self.note("window-left", f"window left on {what}: {r.describe()}", {"check": r.check})
            self.mode[var] = FULL
            self.full_operands(call)
            return
        self.mode[var] = axis
        for e, a in operand_axes:
            self.want_expr(e, a)

    def strategy(self, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
        """Operand demands for producing the ``axis``-half of ``var = call``; raises Refusal."""
        op = op_of(call)
        name = call.op_name
        if op is None:
            raise Refusal("supported_producer", f"{name} is not a registered op", op=name)
        if is_window_axis(self, var, axis):
            return [(call.args[0], axis)]  # the source's half; each half stores its part (window_stores)
        clipped = name == "tile.set_validshape" or (name == "tile.slice" and len(call.args) == 4)
        reason = _halvable(var.type, axis, allow_valid=clipped)
        if reason is not None:
            raise Refusal("halvable", reason, operand=var.name, op=name)
        module = op_strategy(op, call)
        if module is None:
            raise Refusal("supported_producer", f"no sub-block strategy for {name} ({op.kind.value})", op=name)
        return module.demand(self, var, call, axis)

    def rollback_demands(self, mark: int) -> None:
        """Undo every demand / strong change journaled after position ``mark``."""
        journal = self.journal
        while len(journal) > mark:
            key, old, strong = journal.pop()
            if old is None:
                self.demand.pop(key, None)
            else:
                self.demand[key] = old
            if strong:
                self.strong.add(key)
            else:
                self.strong.discard(key)

    def expr_mode(self, e: Expr) -> int:
        key: ValueKey | None = None
        if isinstance(e, Var):
            key = e
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            key = (e.tuple_value, e.index)
        m = self.mode.get(key, FULL) if key is not None else FULL
        return m if m is not None and m >= 0 else FULL

    # ----------------------------------------------------------------------------- rewrite

    def rewrite(self) -> Function:
        self.half: dict[ValueKey, Expr] = {}
        body = [AssignStmt(self.sb, make_call("tile.get_subblock_idx", []))]
        body += self.rewrite_body(self.fn.body)
        return self.fn.with_fields(body=SeqStmts(tuple(body)))

    def rewrite_body(self, body: Stmt | None) -> list[Stmt]:
        out: list[Stmt] = []
        for stmt in flatten_stmts(body):
            out.extend(self.rewrite_stmt(stmt))
        return out

    def get_half(self, e: Expr, axis: int, out: list[Stmt]) -> Expr:
        """The axis-half of tile expression ``e`` (a marked window left on its producer if needed)."""
        key: ValueKey | None = None
        if isinstance(e, Var):
            key = e
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            key = (e.tuple_value, e.index)
        if key is not None and key in self.half and self.mode.get(key) == axis:
            return self.half[key]
        t = e.type
        assert isinstance(t, TileType)
        half = t.shape[axis].value // 2
        shape = [s for s in t.shape]
        shape[axis] = ConstInt(half, INDEX)
        offs: list[Expr] = [ConstInt(0, INDEX) for _ in t.shape]
        offs[axis] = _offset_plus(ConstInt(0, INDEX), self.sb, half)
        window = make_call("tile.slice", [e, MakeTuple(tuple(shape)), MakeTuple(tuple(offs))])
        v = Var(f"{_name(e)}_sb", window.type)
        out.append(AssignStmt(v, window))
        return v

    def operand(self, e: Expr, axis: int | None, out: list[Stmt]) -> Expr:
        if axis is None or axis == FULL or not isinstance(e.type, TileType):
            return e
        return self.get_half(e, axis, out)

    def rewrite_stmt(self, stmt: Stmt) -> list[Stmt]:
        out: list[Stmt] = []
        if isinstance(stmt, AssignStmt):
            v, value = stmt.var, stmt.value
            if isinstance(value, Call):
                new = self.rewrite_call(v, value, out)
                if new is not None:
                    out.append(new)
                    return out
            axis = self.mode.get(v, FULL)
            if axis == FOLLOW:
                tv = value.tuple_value
                axis = self.mode.get((tv, value.index), FULL) if tv in self.half else FULL
                self.mode[v] = axis
            if axis != FULL and isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
                src = self.half[value.tuple_value]
                nv = Var(v.name, _half_type(v.type, axis), v.span)
                self.half[v] = nv
                out.append(AssignStmt(nv, TupleGetItem(src, value.index)))
                return out
            if axis != FULL and isinstance(value, Var):
                self.half[v] = self.get_half(value, axis, out)
                return out
            out.append(stmt)
            return out
        if isinstance(stmt, EvalStmt):
            if isinstance(stmt.expr, Call):
                new = self.rewrite_call(None, stmt.expr, out)
                if new is not None:
                    out.append(new)
                    return out
            out.append(stmt)
            return out
        if isinstance(stmt, ForStmt):
            return loops.rewrite(self, stmt)
        if isinstance(stmt, IfStmt):
            return ifs.rewrite(self, stmt)
        if isinstance(stmt, WhileStmt):
            return while_loops.rewrite(self, stmt)
        if isinstance(stmt, YieldStmt):
            return [stmt]  # rebuilt by the enclosing loop / if
        return [stmt]

    def rewrite_call(self, var: Var | None, call: Call, out: list[Stmt]) -> Stmt | None:
        op = op_of(call)
        if op is None:
            return None
        if op.kind is OpKind.STORE:
            return seeding.rewrite(self, var, call, out)
        if op.kind is OpKind.CUSTOM:
            return custom.rewrite(self, var, call, out)
        if op.kind is OpKind.INDIRECT_STORE:
            return scatters.rewrite_mscatter(self, var, call, out)
        if var is None:
            return None
        axis = self.mode.get(var, FULL)
        if axis == FULL:
            return None
        module = op_strategy(op, call)
        custom_rewrite = getattr(module, "rewrite", None)
        if is_window_axis(self, var, axis):
            new = window_stores.rewrite(self, var, call, self.windows[var], out)
        elif custom_rewrite is not None:
            new = custom_rewrite(self, var, call, axis, out)
        else:
            new = self.reemit(var, call, axis, out)
        nv = Var(var.name, new.type, var.span)
        self.half[var] = nv
        self.note("split", f"split {call.op_name} -> {var.name} on axis {axis}",
                  {"op": call.op_name, "axis": axis})
        return AssignStmt(nv, new)

    def reemit(self, var: Var, call: Call, axis: int, out: list[Stmt]) -> Call:
        """``call`` re-emitted on the operand halves its strategy demands (types re-inferred)."""
        operand_axes = dict((id(e), a) for e, a in self.strategy(var, call, axis))
        args = [self.operand(a, operand_axes.get(id(a)), out) for a in call.args]
        return _rebuild(call.op_name, args, dict(call.kwargs), call.span)

    def fix_yield(self, body: list[Stmt], axes: list[int]) -> list[Stmt]:
        if not body or not isinstance(body[-1], YieldStmt):
            return body
        y = body[-1]
        pre: list[Stmt] = []
        vals = [self.operand(v, axes[k] if k < len(axes) else FULL, pre) for k, v in enumerate(y.values)]
        return body[:-1] + pre + [y.with_fields(values=tuple(vals))]
