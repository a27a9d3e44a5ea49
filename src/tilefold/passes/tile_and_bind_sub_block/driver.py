"""Driver: hoisting nested calls, dimension analysis, trying each candidate axis, split or roll back."""

from __future__ import annotations

from tilefold.analysis.dimensions import DimensionAnalyzer
from tilefold.ir.expr import Call, Expr, MakeTuple, Var
from tilefold.ir.names import name_supply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.axis import _Stores, axis_plans
from tilefold.passes.tile_and_bind_sub_block.common import (
    AXIS_ATTR,
    PASS_NAME,
    REVERTED,
    _Abort,
    _remark,
)
from tilefold.passes.tile_and_bind_sub_block.gm_hazards import check_gm_hazards
from tilefold.passes.tile_and_bind_sub_block.prefix_slices import clip_stored_prefix_slices
from tilefold.passes.tile_and_bind_sub_block.rollback import _revert, limit_function_to_sub_block0
from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter
from tilefold.passes.tile_and_bind_sub_block.window_stores import stored_windows


class _Hoister:
    """Hoist tile-valued nested calls into fresh variables named after the op: ``c = add(r, exp(r))`` becomes
    ``exp = exp(r)``, ``c = add(r, exp)``, so every tile operand the demand pass sees is a variable it can bubble
    a window into. Innermost calls first; statements inside loops and ifs too (loop iter-arg inits are left alone)."""

    def __init__(self, fn: Function) -> None:
        self.names = name_supply(fn)
        self.changed = False

    def fresh(self, base: str) -> str:
        return self.names.fresh(base)

    def operand(self, e: Expr, pre: list[Stmt]) -> Expr:
        if isinstance(e, Call) and isinstance(e.type, TileType):
            inner = self.call(e, pre)
            v = Var(self.fresh(e.op_name.split(".")[-1]), inner.type, inner.span)
            pre.append(AssignStmt(v, inner))
            self.changed = True
            return v
        if isinstance(e, MakeTuple):
            elems = tuple(self.operand(x, pre) for x in e.elements)
            if any(a is not b for a, b in zip(elems, e.elements, strict=True)):
                return e.with_fields(elements=elems)
        return e

    def call(self, c: Call, pre: list[Stmt]) -> Call:
        args = tuple(self.operand(a, pre) for a in c.args)
        if all(a is b for a, b in zip(args, c.args, strict=True)):
            return c
        return c.with_fields(args=args)

    def body(self, body: Stmt | None) -> SeqStmts | None:
        if body is None:
            return None
        out: list[Stmt] = []
        for s in flatten_stmts(body):
            out.extend(self.stmt(s))
        return SeqStmts(tuple(out))

    def stmt(self, s: Stmt) -> list[Stmt]:
        pre: list[Stmt] = []
        if isinstance(s, AssignStmt) and isinstance(s.value, Call):
            value = self.call(s.value, pre)
            new: Stmt = s if value is s.value else s.with_fields(value=value)
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            expr = self.call(s.expr, pre)
            new = s if expr is s.expr else s.with_fields(expr=expr)
        elif isinstance(s, (YieldStmt, ReturnStmt)):
            values = tuple(self.operand(v, pre) for v in s.values)
            new = s if all(a is b for a, b in zip(values, s.values, strict=True)) else s.with_fields(values=values)
        elif isinstance(s, (ForStmt, WhileStmt)):
            new = s.with_fields(body=self.body(s.body))
        elif isinstance(s, IfStmt):
            new = s.with_fields(then_body=self.body(s.then_body), else_body=self.body(s.else_body))
        else:
            new = s
        return pre + [new]


def hoist_nested_calls(fn: Function) -> Function:
    """``fn`` with every tile-valued nested call bound to a fresh variable (``fn`` itself if there is none)."""
    h = _Hoister(fn)
    body = h.body(fn.body)
    return fn.with_fields(body=body) if h.changed else fn


def split_function(fn: Function, requested_axis: int | None = None) -> tuple[Function, bool]:
    """Split ``fn`` 1:2 across the sub-blocks, or roll back. Returns (function, reverted).

    Never raises for a valid program: an unexpected failure anywhere in the analysis or the rewrite (e.g. a
    type-inference error of a rebuilt op — a bug of this pass, not of the input) rolls the function back
    like any refusal, with the reason ``internal: <error>`` and an ``internal-error`` remark carrying the
    error, so users get the sub-block-0 fallback and tests / tools can still see what happened.

    ``requested_axis`` (0: rows, 1: columns; from ``pl.at(optimizations=[pl.split(mode)])``) is tried first; when
    no store can be split on it, or the demand / GM-hazard checks refuse it, a ``split-request-fallback`` remark
    says why and the pass's own candidates follow. The request never bypasses a check."""
    try:
        return _split_or_revert(fn, requested_axis)
    except Exception as exc:  # noqa: BLE001 - turned into a visible rollback, see the docstring
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        reason = f"internal: {type(exc).__name__}: {message.splitlines()[0] if message else ''}"
        _remark(PASS_NAME, fn.name, "internal-error", f"unexpected failure, rolling back: {reason}",
                error=type(exc).__name__, error_message=message)
    try:
        return _revert(fn, reason), True
    except Exception as exc:  # noqa: BLE001 - the guards failed too: keep the untouched function
        _remark(PASS_NAME, fn.name, "internal-error",
                f"sub-block-0 guarding failed as well ({type(exc).__name__}: {exc}); function left unchanged",
                error=type(exc).__name__)
        return fn.with_attr(REVERTED, reason), True


def _requested_first(fn: Function, plans: list, requested_axis: int | None) -> list:
    """The plans splitting every store on ``requested_axis`` first; a remark when there is none."""
    if requested_axis is None:
        return plans
    wanted = [p for p in plans if all(a == requested_axis for a in p[0].values())]
    if not wanted:
        _remark(PASS_NAME, fn.name, "split-request-fallback",
                f"requested split axis {requested_axis} ({_AXIS_NAMES[requested_axis]}) cannot be split safely: no "
                "candidate halves every store on it (see the axis remarks); using the pass's own choice",
                requested_axis=requested_axis)
    return wanted + [p for p in plans if p not in wanted]


_AXIS_NAMES = {0: "rows, pl.SplitMode.UP_DOWN", 1: "columns, pl.SplitMode.LEFT_RIGHT"}


def _split_or_revert(fn: Function, requested_axis: int | None = None) -> tuple[Function, bool]:
    original = fn
    fn = hoist_nested_calls(fn)  # ``f(r, g(r))`` -> ``tmp = g(r); f(r, tmp)``: every operand is a variable
    fn = clip_stored_prefix_slices(fn)  # a stored prefix slice is a clipped store of its source
    an = DimensionAnalyzer(fn).run()
    for c in an.conflicts:
        if not c.broadcast:
            _remark(PASS_NAME, fn.name, "dimension-conflict",
                    f"dimension conflict recorded, strict mode kept: {c}", conflict=str(c))
    if an.unranked_custom:
        return _revert(original, "custom op with an unranked shaped operand or result: giving up on the "
                       "function"), True
    stores = _Stores()
    stores.visit_stmt(fn.body)
    emitted: set[tuple[str, str]] = set()

    def emit(notes: list[tuple[str, str, dict]], skip_split: bool) -> None:
        for kind, msg, details in notes:
            if (skip_split and kind == "split") or (kind, msg) in emitted:
                continue  # nothing was split after all / already reported
            emitted.add((kind, msg))
            _remark(PASS_NAME, fn.name, kind, msg, **details)

    try:
        plans = axis_plans(an, stores.calls, stored_windows(fn))
    except _Abort as a:
        if requested_axis is not None:
            _remark(PASS_NAME, fn.name, "split-request-fallback", f"requested split axis {requested_axis} "
                    f"({_AXIS_NAMES[requested_axis]}) cannot be split safely: {a.reason}; work stays on sub-block 0",
                    requested_axis=requested_axis)
        return _revert(original, a.reason), True
    plans = _requested_first(fn, plans, requested_axis)
    failures: list[tuple[int, str]] = []
    # a partly covering tile.assemble is clipped per half only when no plan splits without it (assembles, rule 2)
    for clip in (False, True):
        out, partial = _try_plans(fn, an, stores, plans, clip, emit, requested_axis, failures)
        if out is not None:
            return out, False
        if not partial:
            break
    if len(failures) == 1:
        return _revert(original, failures[0][1]), True
    return _revert(original, "; ".join(f"axis {axis}: {reason}" for axis, reason in failures)), True


def _try_plans(fn: Function, an: DimensionAnalyzer, stores, plans: list, clip_assembles: bool, emit,
               requested_axis: int | None, failures: list[tuple[int, str]]) -> tuple[Function | None, bool]:
    """The first plan that splits, rewritten (None when every plan fails, each failure appended to ``failures``),
    and whether a partly covering assemble was refused on the way."""
    partial = False
    if clip_assembles:
        failures.clear()  # the second round's reasons replace the first's
    for plan, why in plans:
        axis = next(iter(plan.values()))
        # strict mode is off for this function only when the SELECTED axis may have been broadcast along two
        # different axes (a value broadcast into rows in one place and into columns in another, a diamond of
        # broadcasts, a custom op reading one operand through two dims)
        split_store = next(s for s in stores.calls if id(s) in plan)
        broadcast = an.broadcast_conflicts_of((split_store.args[0], plan[id(split_store)]))
        strict = not broadcast
        if broadcast:
            _remark(PASS_NAME, fn.name, "strict-off", "selected split axis may be broadcast along two different "
                    f"axes; strict mode disabled for this function ({broadcast[0]})", axis=axis,
                    conflicts=[str(c) for c in broadcast])
        sp = Splitter(fn, strict, an, clip_assembles=clip_assembles)
        _remark(PASS_NAME, fn.name, "axis", f"split axis {axis}: {why}", axis=axis)
        try:
            sp.run_demands(plan)
            check_gm_hazards(sp)
            out = sp.rewrite()
        except _Abort as a:
            partial = partial or sp.partial_assembles
            emit(sp.notes, skip_split=True)
            failures.append((axis, a.reason))
            if not a.axis_specific:
                break  # the refusal holds for every axis
            if len(failures) < len(plans):
                _remark(PASS_NAME, fn.name, "axis-refused", f"split axis {axis} refused ({a.reason}); trying the "
                        "next candidate axis", axis=axis, reason=a.reason)
            continue
        emit(sp.notes, skip_split=False)
        for left in sp.left:
            _remark(PASS_NAME, fn.name, "window-left",
                    f"non-strict: window left on {left} (both sub-blocks compute it)")
        out = out.with_fields(func_type=FunctionType.AIV).with_attr(AXIS_ATTR, axis)
        if requested_axis is not None and axis != requested_axis and any(a == requested_axis for a, _ in failures):
            _remark(PASS_NAME, fn.name, "split-request-fallback",
                    f"requested split axis {requested_axis} ({_AXIS_NAMES[requested_axis]}) refused ("
                    f"{next(r for a, r in failures if a == requested_axis)}); split on axis {axis} instead",
                    requested_axis=requested_axis, axis=axis)
        # custom ops that no split work reads (``sp.fenced``) run on sub-block 0 only; custom ops whose
        # result split work needs whole are marked ``sub_block_replicated`` and stay unguarded. Guarded work
        # therefore never feeds unguarded work: the stores are all split, and a fenced op's results are only
        # read by dead work or by other fenced ops (see ``_Splitter._unsplit_custom``).
        return limit_function_to_sub_block0(out), partial
    return None, partial
