"""Precision paths: for every output of a program, the narrowest float type any value on its way was rounded
to, and how many terms the reductions after that rounding summed.

Two correct evaluations of a program (the golden interpreter on the source, the simulator on the lowered
code) may sum in different orders. Their float results then differ by a few units of the accumulator's last
place; when such a value is later rounded to a narrow type (a cast to FP16, an FP16 vector op) the tiny
difference can flip the rounding, i.e. become one unit in the last place of the *narrow* type, and every
reduction after that sums such flips. This analysis walks the IR the user wrote (not the lowering under
test) and gives each output a ``PrecisionPath``; ``tilefold.testing.precision`` turns it into a tolerance.

Rules (also stated in ``docs/precision.md``):

- the entry's inputs are exact: a parameter's dtype is not a rounding (its values are what they are);
- copies (loads, stores, views, moves, transposes, element reads / writes, assembling into a tensor) move
  values without rounding; constants and ``full`` are exact (both evaluations round them identically);
- every other op rounds its result to its result dtype: when that float type is narrower than the narrowest
  one on the path so far, it becomes the path's type and the reduction count restarts at 1;
- an order-sensitive reduction (a matmul over K, a row / column sum or product over its extent) multiplies
  the reduction count by its length; max / min / argmax / argmin select an element and add nothing;
- the operands of one op combine: term counts of operands rounded to the same type add up (their
  disagreements add), otherwise the looser path wins;
- where alternative paths meet (a store into a tensor written elsewhere too, the two arms of an if, a loop's
  carried value) the looser path wins; a loop is followed for up to four trips, and an accumulator still
  gaining terms after them is extended to the static trip count.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from tilefold.errors import TilefoldError
from tilefold.ir.expr import (
    BinaryExpr,
    Call,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    TupleGetItem,
    UnaryExpr,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    ParamDirection,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import DataType, TensorType, TileType
from tilefold.ops.registry import OpDef, OpKind, find_op, op_of


def float_eps(dtype: DataType) -> float:
    """Machine epsilon of a float data type (the spacing of its values just above 1)."""
    np_dtype = dtype.np_dtype
    if np_dtype.kind == "f":
        return float(np.finfo(np_dtype).eps)
    return float(ml_dtypes.finfo(np_dtype).eps)  # bfloat16, float8 variants


@dataclass(frozen=True)
class PrecisionPath:
    """``dtype``: the narrowest float type a computed value on the path was rounded to (None: the output is
    an exact copy of inputs and constants). ``reduction``: the product of the lengths of the order-sensitive
    reductions applied after that rounding (1: none)."""

    dtype: DataType | None = None
    reduction: int = 1

    @property
    def looseness(self) -> float:
        """How much disagreement between two evaluations this path allows, relative to other paths."""
        return 0.0 if self.dtype is None else float_eps(self.dtype) * math.sqrt(self.reduction)

    def rounded_to(self, dtype: DataType) -> PrecisionPath:
        if not dtype.is_float or dtype is DataType.INDEX:
            return self
        if self.dtype is None or float_eps(dtype) > float_eps(self.dtype):
            return PrecisionPath(dtype, 1)
        return self

    def reduced(self, length: int) -> PrecisionPath:
        if self.dtype is None or length <= 1:
            return self
        return PrecisionPath(self.dtype, self.reduction * length)

    def describe(self) -> str:
        if self.dtype is None:
            return "exact copy of inputs"
        tail = f", then reductions over {self.reduction} term(s)" if self.reduction > 1 else ""
        return f"rounded to {self.dtype.name}{tail}"


EXACT = PrecisionPath()


def join(paths: Iterable[Any]) -> PrecisionPath:
    """The loosest of ``paths`` (tuples are flattened)."""
    best = EXACT
    for p in _flatten(paths):
        if (p.looseness, p.reduction) > (best.looseness, best.reduction):
            best = p
    return best


def combine(paths: Iterable[Any]) -> PrecisionPath:
    """The path of a value computed from all of ``paths`` at once (the operands of one op): the disagreements
    of operands rounded to the same type add up, so their term counts add; otherwise the loosest wins."""
    best = EXACT
    for p in _flatten(paths):
        if p.dtype is None:
            continue
        if best.dtype is p.dtype:
            best = PrecisionPath(p.dtype, best.reduction + p.reduction)
        elif (p.looseness, p.reduction) > (best.looseness, best.reduction):
            best = p
    return best


def _flatten(values: Iterable[Any]) -> Iterable[PrecisionPath]:
    for v in values:
        if isinstance(v, tuple):
            yield from _flatten(v)
        elif isinstance(v, PrecisionPath):
            yield v


_COPY_KINDS = (OpKind.LOAD, OpKind.STORE, OpKind.VIEW, OpKind.COPY, OpKind.TRANSPOSE, OpKind.ELEMENT_READ,
               OpKind.ELEMENT_WRITE, OpKind.INDEX, OpKind.CREATE)
_SELECTING = (np.max, np.min, np.argmax, np.argmin, np.amax, np.amin)  # order-insensitive numpy reductions
_SELECTING_COMBINE = ("tile.maximum", "tile.minimum")
_MAX_LOOP_PASSES = 4  # a carried value fed back into a sum grows its count per pass; stop after a few trips


def selects_an_element(op: OpDef) -> bool:
    """A reduction that picks one element (max / min / arg-extremum): its result has no summation order."""
    if op.extra.get("numpy") in _SELECTING or op.extra.get("combine") in _SELECTING_COMBINE:
        return True
    tile_op = op.extra.get("tile_op")
    lowered = find_op(tile_op) if isinstance(tile_op, str) else None
    return lowered is not None and lowered is not op and selects_an_element(lowered)


def _static_extent(expr: Expr, axis: int) -> int:
    t = getattr(expr, "type", None)
    if not isinstance(t, (TensorType, TileType)) or len(t.shape) < abs(axis):
        return 1
    e = t.shape[axis]
    return e.value if isinstance(e, ConstInt) else 1


def _reduction_length(op: OpDef, call: Call) -> int:
    """Number of terms an order-sensitive reduction sums (1 for the rest)."""
    if op.kind is OpKind.MATMUL:
        names = [p.name for p in op.operand_params]
        if "lhs" not in names or names.index("lhs") >= len(call.args):
            return 1
        a_trans = bool(dict(call.kwargs).get("a_trans"))
        return _static_extent(call.args[names.index("lhs")], -2 if a_trans else -1)
    if op.kind in (OpKind.ROW_REDUCTION, OpKind.COL_REDUCTION) and call.args and not selects_an_element(op):
        return _static_extent(call.args[0], -1 if op.kind is OpKind.ROW_REDUCTION else -2)
    return 1


class _Analysis:
    def __init__(self, program: Program):
        self.functions = {fn.name: fn for fn in program.functions}
        self.root_state: dict[Var, PrecisionPath] = {}  # storage root (an entry parameter or a local) -> path
        self.depth = 0
        self.loop_depth = 0
        self.return_roots: list[Var | None] = []  # storage roots of the values the last ReturnStmt returned
        self.call_roots: list[Var | None] = []
        self.tuple_roots: dict[Var, list[Var | None]] = {}  # a function call's result -> its values' roots

    # -- values ------------------------------------------------------------------------------------
    def value(self, expr: Any, env: dict[Var, Any], roots: dict[Var, Var]) -> Any:
        if isinstance(expr, Var):
            root = roots.get(expr)
            own = env.get(expr, EXACT)
            if root is not None and not isinstance(own, tuple):
                return join((own, self.root_state.get(root, EXACT)))
            return own
        if isinstance(expr, Call):
            return self.call(expr, env, roots)
        if isinstance(expr, MakeTuple):
            return tuple(self.value(e, env, roots) for e in expr.elements)
        if isinstance(expr, TupleGetItem):
            tup = self.value(expr.tuple_value, env, roots)
            if isinstance(tup, tuple) and -len(tup) <= expr.index < len(tup):
                return tup[expr.index]
            return join((tup,)) if isinstance(tup, (tuple, PrecisionPath)) else EXACT
        if isinstance(expr, BinaryExpr):
            p = combine((self.value(expr.lhs, env, roots), self.value(expr.rhs, env, roots)))
            return p.rounded_to(expr.dtype) if isinstance(getattr(expr, "dtype", None), DataType) else p
        if isinstance(expr, UnaryExpr):
            p = join((self.value(expr.operand, env, roots),))
            return p.rounded_to(expr.dtype) if isinstance(getattr(expr, "dtype", None), DataType) else p
        if isinstance(expr, (list, tuple)):
            return tuple(self.value(e, env, roots) for e in expr)
        return EXACT  # constants, dtypes, attributes

    def root_of(self, expr: Any, roots: dict[Var, Var]) -> Var | None:
        return roots.get(expr) if isinstance(expr, Var) else None

    def call(self, call: Call, env: dict[Var, Any], roots: dict[Var, Var]) -> Any:
        if isinstance(call.op, GlobalVar):
            return self.function_call(call, env, roots)
        op = op_of(call)
        operands = [self.value(a, env, roots) for a in call.args]
        if op is None:
            return combine(operands)
        if op.kind in _COPY_KINDS:
            return join(operands)
        if op.kind is OpKind.MATMUL:
            names = [p.name for p in op.operand_params]
            reduced_ix = [i for i, n in enumerate(names) if n in ("lhs", "rhs") and i < len(operands)]
            others = [operands[i] for i in range(len(operands)) if i not in reduced_ix]
            # the sum runs in the result's type: round first, then count the terms after that rounding
            product = _round_to_result(combine(operands[i] for i in reduced_ix), call.type)
            product = _reduce(product, _reduction_length(op, call))
            return _round_to_result(combine([product, *others]), call.type)
        return _reduce(_round_to_result(combine(operands), call.type), _reduction_length(op, call))

    def function_call(self, call: Call, env: dict[Var, Any], roots: dict[Var, Var]) -> Any:
        fn = self.functions.get(call.op.name)
        if fn is None or self.depth > 32:
            return combine(self.value(a, env, roots) for a in call.args)
        inner_env: dict[Var, Any] = {}
        inner_roots: dict[Var, Var] = {}
        for param, arg in zip(fn.params, call.args, strict=False):
            inner_env[param] = self.value(arg, env, roots)
            root = self.root_of(arg, roots)
            if root is not None:
                inner_roots[param] = root
        self.depth += 1
        self.return_roots = []
        try:
            returned = self.stmt(fn.body, inner_env, inner_roots)
        finally:
            self.depth -= 1
        self.call_roots = list(self.return_roots)
        if returned is None:
            return EXACT
        return returned if len(returned) != 1 else returned[0]

    # -- statements --------------------------------------------------------------------------------
    def assign(self, var: Var, value: Any, expr: Any, env: dict[Var, Any], roots: dict[Var, Var]) -> None:
        env[var] = value
        if isinstance(expr, Call) and isinstance(expr.op, GlobalVar):
            self.tuple_roots[var] = self.call_roots
            if len(self.call_roots) == 1:
                roots_of_call = self.call_roots[0]
                if roots_of_call is not None and isinstance(var.type, (TensorType, TileType)):
                    roots[var] = roots_of_call
        root = self._destination_root(expr, roots)
        if root is None and isinstance(expr, Var):
            root = roots.get(expr)
        if root is None and isinstance(expr, TupleGetItem) and isinstance(expr.tuple_value, Var):
            item_roots = self.tuple_roots.get(expr.tuple_value, [])
            root = item_roots[expr.index] if -len(item_roots) <= expr.index < len(item_roots) else None
        if root is None:
            root = roots.get(var)  # a parameter rebound to a new value keeps its storage
        if root is not None and isinstance(var.type, (TensorType, TileType)):
            roots[var] = root
            self.root_state[root] = join((self.root_state.get(root, EXACT), value))

    def _destination_root(self, expr: Any, roots: dict[Var, Var]) -> Var | None:
        """The storage root a call writes its result through (a store's tensor, a view's base), if any."""
        if not isinstance(expr, Call) or isinstance(expr.op, GlobalVar):
            return None
        op = op_of(expr)
        if op is None:
            return None
        index = op.output_on_input_storage
        if index is None and op.kind in (OpKind.STORE, OpKind.ELEMENT_WRITE):
            index = next((i for i, a in enumerate(expr.args) if getattr(a, "type", None) == expr.type), None)
        if index is None or index >= len(expr.args):
            return None
        return self.root_of(expr.args[index], roots)

    def stmt(self, stmt: Stmt | None, env: dict[Var, Any], roots: dict[Var, Var]) -> list[Any] | None:
        """Analyze ``stmt``; returns the paths of a ReturnStmt / YieldStmt reached at its end, else None."""
        if stmt is None:
            return None
        if isinstance(stmt, SeqStmts):
            result = None
            for s in stmt.stmts:
                r = self.stmt(s, env, roots)
                if r is not None:
                    result = r
            return result
        if isinstance(stmt, AssignStmt):
            self.assign(stmt.var, self.value(stmt.value, env, roots), stmt.value, env, roots)
            return None
        if isinstance(stmt, EvalStmt):
            value = self.value(stmt.expr, env, roots)
            root = self._destination_root(stmt.expr, roots)
            if root is not None:
                self.root_state[root] = join((self.root_state.get(root, EXACT), value))
            return None
        if isinstance(stmt, ReturnStmt):
            self.return_roots = [self.root_of(v, roots) for v in stmt.values]
        if isinstance(stmt, (ReturnStmt, YieldStmt)):
            return [self.value(v, env, roots) for v in stmt.values]
        if isinstance(stmt, ScopeStmt):
            return self.stmt(stmt.body, env, roots)
        if isinstance(stmt, IfStmt):
            then = self.stmt(stmt.then_body, env, roots) or []
            other = self.stmt(stmt.else_body, env, roots) or []
            for i, var in enumerate(stmt.return_vars):
                arms = [arm[i] for arm in (then, other) if i < len(arm)]
                self.assign(var, join(arms), None, env, roots)
            return None
        if isinstance(stmt, (ForStmt, WhileStmt)):
            self.loop(stmt, env, roots)
            return None
        return None

    def loop(self, stmt: ForStmt | WhileStmt, env: dict[Var, Any], roots: dict[Var, Var]) -> None:
        carried: list[IterArg] = list(stmt.iter_args)
        for arg in carried:
            init = arg.init
            self.assign(arg, self.value(init, env, roots) if init is not None else EXACT, init, env, roots)
        trips = None  # static trip count, when known
        if isinstance(stmt, ForStmt) and all(isinstance(e, ConstInt) for e in (stmt.start, stmt.stop, stmt.step)) \
                and stmt.step.value != 0:
            trips = max(1, len(range(stmt.start.value, stmt.stop.value, stmt.step.value)))
        # nested loops multiply the passes: below the third level one pass (plus the extension below) is enough
        passes = min(trips or _MAX_LOOP_PASSES, _MAX_LOOP_PASSES if self.loop_depth < 3 else 1)
        self.loop_depth += 1
        growth: list[int] = [0] * len(carried)
        changed = False
        for _ in range(passes):
            yielded = self.stmt(stmt.body, env, roots) or []
            changed = False
            for i, arg in enumerate(carried):
                if i >= len(yielded) or isinstance(yielded[i], tuple):
                    continue
                old = env.get(arg, EXACT)
                new = join((old, yielded[i]))
                if isinstance(new, PrecisionPath) and isinstance(old, PrecisionPath) and new != old:
                    changed = True
                    growth[i] = new.reduction - old.reduction if new.dtype is old.dtype else 0
                    self.assign(arg, new, None, env, roots)
            if not changed:
                break
        self.loop_depth -= 1
        if changed and trips is not None and trips > passes:
            # still growing (an accumulator gains terms every trip): extend the last pass's growth to all trips
            for i, arg in enumerate(carried):
                last = env.get(arg, EXACT)
                if growth[i] > 0 and isinstance(last, PrecisionPath) and last.dtype is not None:
                    self.assign(arg, PrecisionPath(last.dtype, last.reduction + growth[i] * (trips - passes)),
                                None, env, roots)
        for i, var in enumerate(stmt.return_vars):
            self.assign(var, env.get(carried[i], EXACT) if i < len(carried) else EXACT,
                        carried[i] if i < len(carried) else None, env, roots)


def _round_to_result(path: PrecisionPath, result_type: Any) -> Any:
    types = getattr(result_type, "types", None)
    if types is not None:
        return tuple(_round_to_result(path, t) for t in types)
    dtype = getattr(result_type, "dtype", None)
    return path.rounded_to(dtype) if isinstance(dtype, DataType) else path


def _reduce(value: Any, length: int) -> Any:
    if isinstance(value, tuple):
        return tuple(_reduce(v, length) for v in value)
    return value.reduced(length)


def _entry_function(program: Program, entry: Function | str | None) -> Function:
    if isinstance(entry, Function):
        return entry
    if isinstance(entry, str):
        return program.function(entry)
    orch = [fn for fn in program.functions if fn.func_type is FunctionType.Orchestration]
    candidates = orch or list(program.functions)
    if len(candidates) != 1:
        raise TilefoldError(f"program {program.name!r}: which function is the entry is ambiguous",
                            hint="pass the entry Function (tilefold.golden.select_entry chooses it as run_program "
                                 "does)")
    return candidates[0]


def precision_paths(program: Program, entry: Function | str | None = None) -> dict[str, PrecisionPath]:
    """The precision path of every Out / InOut parameter of the entry function (by name), and of returned
    values that are not parameters (``"return"`` / ``"return0"``, ``"return1"``, ..., as
    ``tilefold.golden.run_program`` names them). ``entry``: the entry Function or its name; None: the
    Orchestration function, or the program's only function."""
    fn = _entry_function(program, entry)
    analysis = _Analysis(program)
    env: dict[Var, Any] = {}
    roots: dict[Var, Var] = {}
    for param in fn.params:
        env[param] = EXACT
        if isinstance(param.type, (TensorType, TileType)):
            roots[param] = param
    try:
        returned = analysis.stmt(fn.body, env, roots) or []
    except RecursionError:
        raise TilefoldError("the precision-path analysis ran out of stack on this program",
                            hint="split very deep expressions into named steps") from None
    result: dict[str, PrecisionPath] = {}
    for param, direction in zip(fn.params, fn.param_directions, strict=False):
        if direction in (ParamDirection.Out, ParamDirection.InOut):
            result[param.name] = analysis.root_state.get(param, EXACT)
    outs = {p for p, d in zip(fn.params, fn.param_directions, strict=False)
            if d in (ParamDirection.Out, ParamDirection.InOut)}
    extra = [(i, join((v,))) for i, (v, ret) in enumerate(zip(returned, _return_exprs(fn), strict=False))
             if not (isinstance(ret, Var) and roots.get(ret) in outs)]
    if len(extra) == 1:
        result["return"] = extra[0][1]
    else:
        for i, p in extra:
            result[f"return{i}"] = p
    return result


def _return_exprs(fn: Function) -> Sequence[Any]:
    body = fn.body
    last = body.stmts[-1] if isinstance(body, SeqStmts) and body.stmts else body
    return last.values if isinstance(last, ReturnStmt) else ()


__all__ = ["EXACT", "PrecisionPath", "combine", "float_eps", "join", "precision_paths", "selects_an_element"]
