"""The golden interpreter: runs any ``ir.Program`` at any pipeline stage with value semantics in numpy.

Semantics
---------
- Every op's math comes from its registry declaration (``op_of(call).golden(args, attrs)``); the result
  is converted to the result type's dtype (``values.to_dtype``). Low-precision floats compute in FP32
  inside the goldens; matmuls accumulate in FP32 (INT32 for integer inputs).
- Storage facts come from the registry as well, so that a program after any pass computes what the
  device computes:
  * a view op whose output lives on an operand's storage (``OpDef.output_on_input_storage`` of a view,
    e.g. ``tile.slice``) yields a real numpy view of that operand when the window is strided, so
    writes through the view reach the parent tile (and vice versa);
  * an op with ``output_reuses_input = i`` (``tile.matmul_acc`` ...) writes its result into operand
    ``i`` in place — this is what makes a bare ``pl.tile.matmul_acc(acc_page, a, b)`` statement update
    ``acc_page`` and the accumulator it is a window of;
  * an op returning a tensor (``tile.store``) writes into its tensor operand in place: tensors are
    global memory shared by every block, sub-block and caller.
- Structural ops (not listed anywhere else): ``tile.get_block_idx``, ``tile.get_subblock_idx`` and
  ``tile.get_block_num`` take the values of the instance being run; custom ops (``OpKind.CUSTOM``) call
  the kernel registered with ``tilefold.register_custom_op``.
- Launch model: calling an InCore / AIC / AIV / Group function from host level (the Orchestration
  function, or the entry itself) runs it once per block index in ``range(block_dim)`` (a ``block_dim``
  attribute on the kernel overrides the argument). Blocks are distinct units: each block is one logical
  execution (a kernel that ignores ``block_idx`` and stores the same bytes from every block races on the
  device, which the simulator reports). An AIV function is sub-block-bound only when it (or a function it
  calls) reads ``get_subblock_idx``: then it runs once per vector sub-block (0, then 1), as on the device.
  An AIV function written without ``get_subblock_idx`` is ONE logical execution per block and runs once
  (DESIGN.md section 1: the compiler makes the device's two copies add up to one execution). All
  instances share the same GM tensors.
- A store writes the valid region of its tile only (``TileView.valid_shape``, evaluated at run time): the
  rest of the GM window keeps its bytes, as on the device. Element-wise ops compute whole tiles (the
  elements outside the valid region are never stored); an op that mixes positions (reduction, broadcast
  vector, matmul, transpose, custom kernel) on a partially valid operand is refused (NotSupportedError):
  the device would compute on the valid region only.
- Loops of every kind (sequential, pipeline, parallel, unroll) run sequentially; ``while``, ``if`` with
  yields, tuples and scalar arithmetic (Python floor division / modulo on integers) are supported.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilefold.budget import DEFAULT_MAX_STEPS, MAX_TENSOR_BYTES, StepBudget
from tilefold.errors import CustomOpError, NotSupportedError, Span, TilefoldError
from tilefold.golden.lanes import cross_core_value, run_region
from tilefold.golden.phases import has_barrier, run_blocks_phased, system_value
from tilefold.golden.summation_order import reorder_operands
from tilefold.golden.values import byte_offsets, is_float_dtype, scalar_value, strided_view, to_dtype
from tilefold.ir.expr import (
    Add,
    And,
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Eq,
    Expr,
    FloorDiv,
    Ge,
    GlobalVar,
    Gt,
    Le,
    Lt,
    MakeTuple,
    Max,
    Min,
    Mod,
    Mul,
    Ne,
    Neg,
    Not,
    Or,
    Sub,
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
from tilefold.ir.types import AtomicType, DataType, ScalarType, TensorType, TileType, TupleType, Type
from tilefold.ops import OpDef, OpKind, ParamKind, custom_segments, op_of
from tilefold.ops import get_op as op_of_name
from tilefold.ops.cross_core_ops import region_split
from tilefold.ops.custom.kernels import call_kernel, describe_kernel, get_custom_op
from tilefold.ops.registry import POSITION_MIXING_KINDS, position_mixing_operands, valid_shape_operands
from tilefold.targets import get_target
from tilefold.targets.system import resolve_block_dim

#: Upper bound on the iterations of one ``while`` loop before the interpreter gives up.
MAX_WHILE_ITERATIONS = 1_000_000

# ops whose result mixes elements of different positions of an operand (see _refuse_partial_tiles)
_MIXING_KINDS = POSITION_MIXING_KINDS

_KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV, FunctionType.Group)


@dataclass(frozen=True)
class Instance:
    """The hardware instance a function body runs as. ``None`` means host level (no launch yet)."""

    block_idx: int | None = None
    block_num: int = 1
    subblock_idx: int | None = None


HOST = Instance()

# Structural ops: their value is a property of the running instance, not a function of operands.
_INSTANCE_OPS: dict[str, Callable[[Instance], int]] = {
    "tile.get_block_idx": lambda inst: inst.block_idx or 0,
    "tile.get_subblock_idx": lambda inst: inst.subblock_idx or 0,
    "tile.get_block_num": lambda inst: inst.block_num,
}


def _floordiv(a: Any, b: Any) -> Any:
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    return a // b


def _mod(a: Any, b: Any) -> Any:
    if b == 0:
        raise ZeroDivisionError("modulo by zero")
    return a % b


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    Add: operator.add, Sub: operator.sub, Mul: operator.mul, FloorDiv: _floordiv, Mod: _mod,
    Min: min, Max: max, Eq: operator.eq, Ne: operator.ne, Lt: operator.lt, Le: operator.le,
    Gt: operator.gt, Ge: operator.ge, And: lambda a, b: bool(a) and bool(b), Or: lambda a, b: bool(a) or bool(b),
}


class _Return(Exception):  # noqa: N818  (control flow, not an error)
    def __init__(self, values: tuple[Any, ...]) -> None:
        super().__init__()
        self.values = values


def _span(node: Any) -> Span | None:
    span = getattr(node, "span", None)
    return span if isinstance(span, Span) and span.line else None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{list(value.shape)} {value.dtype}"
    return f"{type(value).__name__} {value!r}"


class GoldenInterpreter:
    """Executes the functions of one program. Create one per run (it caches flattened bodies)."""

    def __init__(self, program: Program, *, block_dim: int = 1, max_steps: int | None = DEFAULT_MAX_STEPS,
                 target: Any = None) -> None:
        self.program = program
        self.target = get_target(target)  # what pl.system.available_*_count() answers (targets/system.py)
        # statements and loop iterations executed count against one budget (tilefold.budget, --max-steps)
        self.budget = StepBudget(max_steps, "golden interpreter")
        self.block_dim = int(block_dim)
        self._functions = {fn.name: fn for fn in program.functions}
        self._bodies: dict[int, tuple[Stmt, ...]] = {}
        self._sub_block_bound: dict[str, bool] = {}

    # ------------------------------------------------------------------------------------------
    # functions and launches
    # ------------------------------------------------------------------------------------------

    def call_function(self, fn: Function, args: list[Any], inst: Instance = HOST) -> tuple[Any, ...]:
        """Call ``fn`` from ``inst``; launches kernels over blocks / sub-blocks as the device does."""
        if fn.func_type in _KERNEL_TYPES and inst.block_idx is None:
            block_dim = fn.attr("block_dim")
            block_dim = self.block_dim if block_dim is None else resolve_block_dim(block_dim, self.target)
            if block_dim < 1:
                raise TilefoldError(f"kernel {fn.name!r} launched with block_dim={block_dim}",
                                    hint="block_dim must be a positive number of cores")
            if has_barrier(self, fn):  # pl.system.syncall: the blocks run phase by phase (golden/phases.py)
                return run_blocks_phased(self, fn, args, block_dim, Instance)
            result: tuple[Any, ...] = ()
            for b in range(block_dim):
                result = self.call_function(fn, args, Instance(b, block_dim, None))
            return result
        if fn.func_type is FunctionType.AIV and inst.subblock_idx is None and self.sub_block_bound(fn):
            result = ()
            for sb in (0, 1):
                result = self.run_function(fn, args, Instance(inst.block_idx, inst.block_num, sb))
            return result
        return self.run_function(fn, args, inst)

    def sub_block_bound(self, fn: Function) -> bool:
        """Does ``fn`` (or a function it calls) read ``get_subblock_idx``? Such a function describes the
        work of ONE sub-block; any other AIV function describes one execution for the whole core."""
        known = self._sub_block_bound.get(fn.name)
        if known is None:
            self._sub_block_bound[fn.name] = False  # a recursive call does not make it bound by itself
            known = self._sub_block_bound[fn.name] = _reads_subblock_idx(fn, self._functions, self)
        return known

    def run_function(self, fn: Function, args: list[Any], inst: Instance) -> tuple[Any, ...]:
        """Run ``fn``'s body once, as ``inst``."""
        if len(args) != len(fn.params):
            raise TilefoldError(f"function {fn.name!r} takes {len(fn.params)} arguments, got {len(args)}",
                                span=_span(fn))
        env: dict[Var, Any] = dict(zip(fn.params, args, strict=False))
        for param, value in zip(fn.params, args, strict=False):
            self._bind_shape_vars(param.type, value, env)
        try:
            self._exec_body(fn.body, env, inst)
        except _Return as ret:
            return ret.values
        return ()

    @staticmethod
    def _bind_shape_vars(t: Type, value: Any, env: dict[Var, Any]) -> None:
        """Bind symbolic extents of a tensor / tile parameter (``pl.Tensor[[n, 64], ...]``) that are
        not bound yet to the actual extents of the argument."""
        if not isinstance(t, (TensorType, TileType)) or not isinstance(value, np.ndarray):
            return
        for extent, actual in zip(t.shape, value.shape, strict=False):
            if isinstance(extent, Var) and extent not in env:
                env[extent] = int(actual)

    # ------------------------------------------------------------------------------------------
    # statements
    # ------------------------------------------------------------------------------------------

    def _flat(self, body: Stmt | None) -> tuple[Stmt, ...]:
        if body is None:
            return ()
        key = id(body)
        flat = self._bodies.get(key)
        if flat is None:
            out: list[Stmt] = []
            stack = [body]
            while stack:
                s = stack.pop()
                if isinstance(s, SeqStmts):
                    stack.extend(reversed(s.stmts))
                else:
                    out.append(s)
            flat = tuple(out)
            self._bodies[key] = flat
        return flat

    def _exec_body(self, body: Stmt | None, env: dict[Var, Any], inst: Instance) -> tuple[Any, ...] | None:
        """Execute a body; returns the yielded values if it ends in a ``yield``."""
        budget = self.budget
        for stmt in self._flat(body):
            budget.steps += 1
            if budget.max_steps is not None and budget.steps > budget.max_steps:
                budget.spend(0, _span(stmt), f"this {type(stmt).__name__.removesuffix('Stmt').lower()} statement")
            if isinstance(stmt, YieldStmt):
                return tuple(self.eval(v, env, inst) for v in stmt.values)
            self._exec_stmt(stmt, env, inst)
        return None

    def _exec_stmt(self, stmt: Stmt, env: dict[Var, Any], inst: Instance) -> None:
        if isinstance(stmt, AssignStmt):
            env[stmt.var] = self.eval(stmt.value, env, inst)
        elif isinstance(stmt, EvalStmt):
            self.eval(stmt.expr, env, inst)
        elif isinstance(stmt, ForStmt):
            self._exec_for(stmt, env, inst)
        elif isinstance(stmt, IfStmt):
            self._exec_if(stmt, env, inst)
        elif isinstance(stmt, WhileStmt):
            self._exec_while(stmt, env, inst)
        elif isinstance(stmt, ReturnStmt):
            raise _Return(tuple(self.eval(v, env, inst) for v in stmt.values))
        elif isinstance(stmt, ScopeStmt) and "block_dim" not in dict(stmt.attrs):
            # a pl.at scope not outlined yet: its body is the kernel it becomes, run once, in place
            self._exec_body(stmt.body, env, inst)
        elif isinstance(stmt, SeqStmts):
            result = self._exec_body(stmt, env, inst)
            if result is not None:
                raise TilefoldError("a yield inside a nested statement block has no enclosing loop or if",
                                    span=_span(stmt))
        else:
            raise NotSupportedError(f"the golden interpreter cannot execute {type(stmt).__name__}",
                                    span=_span(stmt))

    def _int(self, expr: Expr, env: dict[Var, Any], inst: Instance, what: str) -> int:
        value = self.eval(expr, env, inst)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TilefoldError(f"{what} must be an integer, got {_describe(value)}", span=_span(expr))
        return int(value)

    def _exec_for(self, stmt: ForStmt, env: dict[Var, Any], inst: Instance) -> None:
        split = region_split(stmt)
        if split is not None:  # a pl.split_aiv region: both AIV lanes, in parallel (golden/lanes.py)
            run_region(self, stmt, env, inst, split)
            return
        start = self._int(stmt.start, env, inst, "loop start")
        stop = self._int(stmt.stop, env, inst, "loop stop")
        step = self._int(stmt.step, env, inst, "loop step")
        if step == 0:
            raise TilefoldError("loop step is 0", span=_span(stmt), hint="use a non-zero step")
        values = tuple(self.eval(ia.init, env, inst) if ia.init is not None else env.get(ia)
                       for ia in stmt.iter_args)
        for i in range(start, stop, step):
            self.budget.spend(1, _span(stmt), f"iteration {i} of the loop over range({start}, {stop}, {step})")
            env[stmt.loop_var] = i
            for ia, v in zip(stmt.iter_args, values, strict=False):
                env[ia] = v
            yielded = self._exec_body(stmt.body, env, inst)
            if stmt.iter_args:
                values = self._check_yield(yielded, len(stmt.iter_args), stmt, "loop")
        self._bind_results(stmt.return_vars, values, env, stmt)

    def _exec_while(self, stmt: WhileStmt, env: dict[Var, Any], inst: Instance) -> None:
        values = tuple(self.eval(ia.init, env, inst) if ia.init is not None else env.get(ia)
                       for ia in stmt.iter_args)
        for _ in range(MAX_WHILE_ITERATIONS):
            for ia, v in zip(stmt.iter_args, values, strict=False):
                env[ia] = v
            if not bool(self.eval(stmt.condition, env, inst)):
                break
            self.budget.spend(1, _span(stmt), "a while loop whose condition is still true")
            yielded = self._exec_body(stmt.body, env, inst)
            if stmt.iter_args:
                values = self._check_yield(yielded, len(stmt.iter_args), stmt, "while loop")
        else:
            raise TilefoldError(f"while loop did not terminate after {MAX_WHILE_ITERATIONS} iterations",
                                span=_span(stmt), hint="check that the loop condition eventually becomes false")
        self._bind_results(stmt.return_vars, values, env, stmt)

    def _exec_if(self, stmt: IfStmt, env: dict[Var, Any], inst: Instance) -> None:
        cond = self.eval(stmt.condition, env, inst)
        body = stmt.then_body if bool(cond) else stmt.else_body
        yielded = self._exec_body(body, env, inst)
        if stmt.return_vars:
            if yielded is None:
                raise TilefoldError("an if with results must yield on both branches", span=_span(stmt),
                                    hint="add an else branch ending in pl.yield_(...)")
            values = self._check_yield(yielded, len(stmt.return_vars), stmt, "if")
            self._bind_results(stmt.return_vars, values, env, stmt)

    @staticmethod
    def _check_yield(yielded: tuple[Any, ...] | None, count: int, stmt: Stmt, what: str) -> tuple[Any, ...]:
        if yielded is None or len(yielded) != count:
            got = "nothing" if yielded is None else f"{len(yielded)} values"
            raise TilefoldError(f"{what} body yields {got} but carries {count} values", span=_span(stmt),
                                hint="end the body with pl.yield_(...) giving one value per carried variable")
        return yielded

    @staticmethod
    def _bind_results(return_vars: tuple[Var, ...], values: tuple[Any, ...], env: dict[Var, Any],
                      stmt: Stmt) -> None:
        if return_vars and len(return_vars) != len(values):
            raise TilefoldError(f"{len(return_vars)} result variables for {len(values)} carried values",
                                span=_span(stmt))
        for var, value in zip(return_vars, values, strict=False):
            env[var] = value

    # ------------------------------------------------------------------------------------------
    # expressions
    # ------------------------------------------------------------------------------------------

    def eval(self, expr: Expr, env: dict[Var, Any], inst: Instance) -> Any:
        if isinstance(expr, Var):
            try:
                return env[expr]
            except KeyError:
                raise TilefoldError(f"variable {expr.name!r} is used before it is defined", span=_span(expr),
                                    hint="the IR is not well-formed; run the verifier on it") from None
        if isinstance(expr, Call):
            return self._eval_call(expr, env, inst)
        if isinstance(expr, ConstInt):
            return int(expr.value)
        if isinstance(expr, ConstFloat):
            return float(expr.value)
        if isinstance(expr, ConstBool):
            return bool(expr.value)
        if isinstance(expr, BinaryExpr):
            return self._eval_binary(expr, env, inst)
        if isinstance(expr, UnaryExpr):
            value = self.eval(expr.operand, env, inst)
            if isinstance(expr, Not):
                return not bool(value)
            if isinstance(expr, Neg):
                return scalar_value(-value, expr.dtype)
        if isinstance(expr, MakeTuple):
            return tuple(self.eval(e, env, inst) for e in expr.elements)
        if isinstance(expr, TupleGetItem):
            value = self.eval(expr.tuple_value, env, inst)
            if not isinstance(value, tuple) or not -len(value) <= expr.index < len(value):
                raise TilefoldError(f"tuple index {expr.index} out of range for {_describe(value)}",
                                    span=_span(expr))
            return value[expr.index]
        raise NotSupportedError(f"the golden interpreter cannot evaluate {type(expr).__name__}", span=_span(expr))

    def _eval_binary(self, expr: BinaryExpr, env: dict[Var, Any], inst: Instance) -> Any:
        lhs = self.eval(expr.lhs, env, inst)
        rhs = self.eval(expr.rhs, env, inst)
        fn = _BINARY.get(type(expr))
        if fn is None:
            raise NotSupportedError(f"scalar operator {type(expr).__name__} is not supported", span=_span(expr))
        try:
            value = fn(lhs, rhs)
        except ZeroDivisionError as exc:
            raise TilefoldError(f"scalar expression {expr!r}: {exc}", span=_span(expr),
                                hint="guard the division or check the operand values") from None
        if isinstance(value, bool):
            return value
        return scalar_value(value, expr.dtype)

    def _eval_call(self, call: Call, env: dict[Var, Any], inst: Instance) -> Any:
        if isinstance(call.op, GlobalVar):
            return self._eval_function_call(call, env, inst)
        op = op_of(call)
        if op is None:
            raise NotSupportedError(f"unknown op {call.op_name!r}", span=_span(call),
                                    hint="the op is not declared in the op registry (tilefold.ops)")
        name = op.name
        if name in _INSTANCE_OPS:
            return _INSTANCE_OPS[name](inst)
        if op.kind is OpKind.SYSTEM or op.extra.get("device_query"):  # golden/phases.py
            return system_value(self, op, inst, _span(call))
        if op.kind is OpKind.CUSTOM:
            return self._eval_custom(call, env, inst)
        if op.kind is OpKind.CROSS_CORE:  # its value depends on the lane running it (golden/lanes.py)
            return cross_core_value(self, call, env, inst)
        if op.golden is None:
            raise NotSupportedError(f"op {name!r} has no golden semantics", span=_span(call),
                                    hint="declare golden= for it in the op registry")
        _refuse_oversized_tile(call)
        args = [self.eval(a, env, inst) for a in call.args]
        attrs = {k: self._eval_attr(v, env, inst) for k, v in call.kwargs}
        for i in valid_shape_operands(op):  # e.g. fillpad, part_*: the operands' valid extents, evaluated now
            args.append(self._valid_extents(call.args[i], args[i], env, inst))
        if op.kind is OpKind.STORE:
            self._keep_invalid_region(call, args, attrs, env, inst)
        elif op.kind in _MIXING_KINDS:
            self._refuse_partial_tiles(op, call, args, env, inst)
        try:
            with np.errstate(all="ignore"):  # the device computes inf / NaN silently; so does the reference
                raw = op.golden(reorder_operands(op, args, attrs), attrs)  # as-is unless a test asks
        except TilefoldError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError) as exc:
            hint = ("every index must lie inside the axis it indexes: bound or clamp the indices first"
                    if isinstance(exc, IndexError) and "of the index tile" in str(exc)
                    else "check window offsets / shapes against the operand extents")
            raise TilefoldError(f"{name}: {exc}", span=_span(call), hint=hint) from None
        value = self._typed(raw, call.type, name, call, env, inst)
        return self._apply_storage_facts(op, args, attrs, value, call.type)

    def _keep_invalid_region(self, call: Call, args: list[Any], attrs: dict[str, Any], env: dict[Var, Any],
                             inst: Instance) -> None:
        """A store writes the stored tile's valid region only (``TileView.valid_shape``): outside it the GM
        window keeps its bytes. Replaces the tile operand by the window's current contents overlaid with
        the tile's valid region."""
        t = getattr(call.args[0], "type", None)
        view = getattr(t, "tile_view", None)
        tile = args[0] if args else None
        if view is None or view.valid_shape is None or not isinstance(tile, np.ndarray) or len(args) < 3:
            return
        valid = [min(max(self._int(e, env, inst, "valid extent"), 0), n)
                 for e, n in zip(view.valid_shape, tile.shape, strict=False)]
        if attrs.get("shapes") is None:  # the store writes the valid part alone (its window may pass the end)
            args[0] = tile[tuple(slice(0, v) for v in valid)]
            return
        window = tuple(attrs.get("shapes") or tile.shape)
        try:
            current = np.reshape(op_of_name("tile.load").golden([args[2], args[1], window], {}), tile.shape)
        except (ValueError, IndexError, TypeError):
            return  # the store's own golden reports the bad window
        if attrs.get("atomic") is AtomicType.Add:
            current = np.zeros_like(current)  # an atomic add of the valid region: the rest adds nothing
        merged = np.array(current, dtype=tile.dtype, copy=True)
        region = tuple(slice(0, v) for v in valid)
        merged[region] = tile[region]
        args[0] = merged

    def _valid_extents(self, expr: Expr, value: Any, env: dict[Var, Any], inst: Instance) -> tuple[int, ...]:
        """The valid extents of the tile ``expr`` (its shape when the whole tile is valid), clipped to it."""
        shape = np.shape(value)
        view = getattr(getattr(expr, "type", None), "tile_view", None)
        if view is None or view.valid_shape is None:
            return tuple(shape)
        valid = tuple(self._int(e, env, inst, "valid extent") for e in view.valid_shape)
        for v, n in zip(valid, shape, strict=False):
            if not 0 <= v <= n:  # the device would not clamp it: an error, not a plausible result
                raise TilefoldError(f"valid shape {list(valid)} of a {list(shape)} tile: {v} is outside [0, {n}]",
                                    span=_span(expr) if hasattr(expr, "span") else None,
                                    hint="bound the run-time valid extent, e.g. pl.min(M - r0, R)")
        return valid

    def _refuse_partial_tiles(self, op: OpDef, call: Call, args: list[Any], env: dict[Var, Any],
                              inst: Instance) -> None:
        """An op that combines elements across positions (a reduction, a matmul, a transpose, a custom
        kernel, the vector of a broadcast) computes, on the device, on its operand's valid region only;
        tilefold computes whole tiles. A partially valid operand is therefore refused, not guessed."""
        for i in position_mixing_operands(op, len(args)):
            if i < len(call.args):
                self._refuse_partial(op.name, call, call.args[i], args[i], env, inst)

    def _refuse_partial(self, what: str, call: Call, expr: Expr, value: Any, env: dict[Var, Any],
                        inst: Instance) -> None:
        view = getattr(getattr(expr, "type", None), "tile_view", None)
        if view is None or view.valid_shape is None or not isinstance(value, np.ndarray):
            return
        valid = [self._int(e, env, inst, "valid extent") for e in view.valid_shape]
        if any(v < n for v, n in zip(valid, value.shape, strict=False)):
            raise NotSupportedError(
                f"{what} on a tile whose valid shape {valid} is smaller than its shape {list(value.shape)} is not "
                "supported: the device computes on the valid region only, tilefold on the whole tile",
                span=_span(call),
                hint="apply pl.tile.set_validshape after the computation, right before the store (a store writes "
                     "the valid region only), or compute on a tile of the valid size")

    def _eval_attr(self, value: Any, env: dict[Var, Any], inst: Instance) -> Any:
        if isinstance(value, Expr):
            return self.eval(value, env, inst)
        if isinstance(value, tuple) and any(isinstance(v, Expr) for v in value):
            return tuple(self._eval_attr(v, env, inst) for v in value)
        return value

    def _typed(self, raw: Any, t: Type, name: str, node: Expr, env: dict[Var, Any], inst: Instance) -> Any:
        """``raw`` converted to type ``t`` (dtype, shape check for static shapes)."""
        if isinstance(t, (TileType, TensorType)):
            with np.errstate(all="ignore"):
                value = to_dtype(raw, t.dtype)
            expected = self._shape_of(t, env, inst)
            if expected is not None and value.shape != expected:
                raise TilefoldError(f"{name}: golden produced shape {list(value.shape)} but the IR type says "
                                    f"{list(expected)}", span=_span(node),
                                    hint="the op's golden semantics and type inference disagree")
            return value
        if isinstance(t, ScalarType):
            return scalar_value(raw, t.dtype)
        if isinstance(t, TupleType):
            if not isinstance(raw, (tuple, list)) or len(raw) != len(t.types):
                raise TilefoldError(f"{name}: expected {len(t.types)} results", span=_span(node))
            return tuple(self._typed(r, tt, name, node, env, inst)
                         for r, tt in zip(raw, t.types, strict=False))
        return raw

    def _shape_of(self, t: TileType | TensorType, env: dict[Var, Any], inst: Instance) -> tuple[int, ...] | None:
        static = t.static_shape
        if static is not None:
            return static
        try:
            return tuple(int(self.eval(e, env, inst)) for e in t.shape)
        except TilefoldError:
            return None

    @staticmethod
    def _apply_storage_facts(op: OpDef, args: list[Any], attrs: dict[str, Any], value: Any, t: Type) -> Any:
        """Give the result the storage the registry says it has (see the module docstring)."""
        if not isinstance(value, np.ndarray):
            return value
        src_index = op.output_on_input_storage
        if op.is_view and src_index is not None and src_index < len(args):
            src = args[src_index]
            if isinstance(src, np.ndarray) and src.dtype == value.dtype:
                view = _view_of(op, args, attrs, src_index)
                if view is not None and view.shape == value.shape and view.tobytes() == value.tobytes():
                    return view
            return value
        if any(isinstance(a, np.ndarray) and np.may_share_memory(value, a) for a in args):
            value = value.copy()  # a golden that hands back an operand must not alias it
        if op.output_reuses_input is not None and op.output_reuses_input < len(args):
            dest = args[op.output_reuses_input]
            if _can_write(dest, value):
                dest[...] = value
                return dest
            return value
        if isinstance(t, TensorType):
            dest = _tensor_operand(op, args)
            if _can_write(dest, value):
                dest[...] = value
                return dest
        return value

    def _eval_function_call(self, call: Call, env: dict[Var, Any], inst: Instance) -> Any:
        name = call.op_name
        fn = self._functions.get(name)
        if fn is None:
            raise TilefoldError(f"call of unknown function {name!r}", span=_span(call),
                                hint=f"functions of the program: {', '.join(sorted(self._functions))}")
        args = [self.eval(a, env, inst) for a in call.args]
        results = self.call_function(fn, args, inst)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    # ------------------------------------------------------------------------------------------
    # custom ops
    # ------------------------------------------------------------------------------------------

    def _eval_custom(self, call: Call, env: dict[Var, Any], inst: Instance) -> Any:
        segments = custom_segments(call)
        symbol = call.kwarg("symbol")
        if not symbol:
            raise NotSupportedError(f"{call.op_name} without a symbol (a builtin library call) has no golden kernel",
                                    span=_span(call), hint="give the op a symbol and register its kernel")
        try:
            entry = get_custom_op(symbol)
        except CustomOpError as exc:
            raise CustomOpError(exc.message, span=_span(call), hint=exc.hint) from None
        ins = []
        for e in segments["ins"]:
            v = self.eval(e, env, inst)
            self._refuse_partial(f"custom op {symbol!r}", call, e, v, env, inst)
            ins.append(np.array(v, copy=True) if isinstance(v, np.ndarray) else v)
        out = call_kernel(entry, ins, _span(call))
        kernel = f"\n  {describe_kernel(entry)}"
        result_types = call.type.types if isinstance(call.type, TupleType) else (call.type,)
        n = len(segments["outs"])
        if n == 1 and not isinstance(out, (tuple, list)):
            outs = (out,)
        elif isinstance(out, (tuple, list)):
            outs = tuple(out)
        else:
            raise CustomOpError(f"kernel of custom op {symbol!r} returned one value for {n} outputs{kernel}",
                                span=_span(call), hint="return a tuple with one array per output, in outs order")
        if len(outs) != n:
            raise CustomOpError(f"kernel of custom op {symbol!r} returned {len(outs)} values for {n} outputs{kernel}",
                                span=_span(call), hint="return one array per output, in outs order")
        checked = []
        for i, (value, t) in enumerate(zip(outs, result_types, strict=False)):
            arr = np.asarray(value)
            if isinstance(t, (TileType, TensorType)):
                expected = self._shape_of(t, env, inst)
                if expected is not None and arr.shape != expected:
                    raise CustomOpError(
                        f"kernel of custom op {symbol!r} returned shape {list(arr.shape)} for output #{i}, "
                        f"expected {list(expected)}{kernel}", span=_span(call),
                        hint="the kernel sees tile-local arrays and must return each output at its tile shape")
                if arr.dtype != t.dtype.np_dtype:
                    raise CustomOpError(
                        f"kernel of custom op {symbol!r} returned dtype {arr.dtype} for output #{i}, "
                        f"expected {t.dtype.name} ({t.dtype.np_dtype}){kernel}", span=_span(call),
                        hint=f"convert the result with .astype({_np_name(t.dtype)})")
                checked.append(np.array(arr, copy=True))
            elif isinstance(t, ScalarType):
                checked.append(scalar_value(arr, t.dtype))
            else:
                checked.append(arr)
        return checked[0] if len(checked) == 1 and not isinstance(call.type, TupleType) else tuple(checked)


def _reads_subblock_idx(fn: Function, functions: Mapping[str, Function], interp: GoldenInterpreter) -> bool:
    from tilefold.ir.visitor import IRVisitor

    found = False
    callees: list[str] = []

    class _Reads(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            nonlocal found
            if isinstance(expr.op, GlobalVar):
                callees.append(expr.op.name)
            elif expr.op_name == "tile.get_subblock_idx":
                found = True
            super().visit_Call(expr)

    _Reads().visit_function(fn)
    return found or any(interp.sub_block_bound(functions[c]) for c in callees if c in functions)


def _np_name(dtype: DataType) -> str:
    np_dtype = dtype.np_dtype
    if is_float_dtype(np_dtype) and np_dtype.kind == "V":
        return f"ml_dtypes.{np_dtype.name}"
    return f"np.{np_dtype.name}"


def _view_of(op: OpDef, args: list[Any], attrs: dict[str, Any], src_index: int) -> np.ndarray | None:
    """Run the view op's golden on the byte offsets of its source to find which elements the result
    covers; a strided pattern becomes a numpy view sharing the source's storage."""
    src = args[src_index]
    probe = list(args)
    offsets = byte_offsets(src)
    probe[src_index] = offsets
    try:
        mapped = np.asarray(op.golden(probe, attrs))
    except Exception:  # noqa: BLE001  (no view: fall back to the copy the golden made)
        return None
    return strided_view(src, mapped, offsets)


def _can_write(dest: Any, value: np.ndarray) -> bool:
    return (isinstance(dest, np.ndarray) and dest.shape == value.shape and dest.dtype == value.dtype
            and dest.flags.writeable)


def _tensor_operand(op: OpDef, args: list[Any]) -> Any:
    """The operand bound to the op's last tensor parameter (the GM destination of a store)."""
    operands = op.operand_params
    for i in range(min(len(operands), len(args)) - 1, -1, -1):
        if operands[i].kind is ParamKind.TENSOR:
            return args[i]
    return None


# ----------------------------------------------------------------------------------------------
# entry point
# ----------------------------------------------------------------------------------------------


def select_entry(program: Program, entry: str | None = None) -> Function:
    """The function ``run_program`` starts from: ``entry`` by name, else the Orchestration function,
    else the only function no other function calls."""
    if entry is not None:
        try:
            return program.function(entry)
        except KeyError:
            raise TilefoldError(f"program {program.name!r} has no function {entry!r}", span=program.span,
                                hint=f"functions: {', '.join(fn.name for fn in program.functions)}") from None
    if not program.functions:
        raise TilefoldError(f"program {program.name!r} has no functions", span=program.span,
                            hint="add a kernel (@pl.function(type=pl.FunctionType.InCore)) to the program")
    called = _called_functions(program)
    # an Orchestration function another one calls (a helper, a Graph fragment) is not the entry: the caller is
    orch = [fn for fn in program.functions if fn.func_type is FunctionType.Orchestration and fn.name not in called]
    if len(orch) == 1:
        return orch[0]
    if len(orch) > 1:
        raise TilefoldError(f"program {program.name!r} has several Orchestration functions", span=program.span,
                            hint=f"pass entry= one of {', '.join(fn.name for fn in orch)}")
    roots = [fn for fn in program.functions if fn.name not in called]
    if len(roots) > 1:  # an uncalled kernel next to an uncalled Opaque caller: the caller is the program
        callers = [fn for fn in roots if not fn.func_type.is_incore]
        roots = callers if len(callers) == 1 and any(fn.name in called for fn in program.functions) else roots
    if len(roots) == 1:
        return roots[0]
    names = ", ".join(fn.name for fn in (roots or program.functions))
    raise TilefoldError(f"program {program.name!r} has several kernels and no Orchestration function",
                        span=program.span, hint=f"pass entry= one of {names}")


def _called_functions(program: Program) -> set[str]:
    from tilefold.ir.visitor import IRVisitor

    names: set[str] = set()

    class _Calls(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if isinstance(expr.op, GlobalVar):
                names.add(expr.op.name)
            super().visit_Call(expr)

    visitor = _Calls()
    for fn in program.functions:
        visitor.visit_function(fn)
    return names


def _np_dtype_hint(dtype: DataType) -> str:
    return f"x.astype({_np_name(dtype)})"


def extent_from_arrays(fn: Function, param: Var, inputs: Mapping[str, Any]) -> int | None:
    """The value of a scalar parameter that is an axis extent of a tensor parameter given as an array (a hidden
    ``pl.dynamic`` extent), when the arrays agree on it; None when no array carries it."""
    found = {int(np.shape(inputs[q.name])[axis]) for q in fn.params
             if isinstance(q.type, TensorType) and q.name in inputs
             for axis, e in enumerate(q.type.shape) if e is param and axis < np.ndim(inputs[q.name])}
    if len(found) > 1:
        raise TilefoldError(f"the arrays disagree on the extent {param.name!r} of {fn.name!r}: {sorted(found)}",
                            hint=f"pass arrays with one value of {param.name}")
    return found.pop() if found else None


def prepare_inputs(fn: Function, inputs: Mapping[str, Any]) -> list[Any]:
    """Validate and copy user inputs into the argument list of ``fn``. Missing Out parameters with a
    static shape are zero-filled; everything else must be given."""
    names = [p.name for p in fn.params]
    unknown = sorted(set(inputs) - set(names))
    if unknown:
        raise TilefoldError(f"unknown input(s) {unknown} for function {fn.name!r}",
                            hint=f"parameters of {fn.name}: {', '.join(names)}")
    scalars: dict[Var, Any] = {}
    args: list[Any] = [None] * len(fn.params)
    order = sorted(range(len(fn.params)), key=lambda i: not isinstance(fn.params[i].type, ScalarType))
    for i in order:
        param, direction = fn.params[i], fn.param_directions[i]
        t = param.type
        if param.name not in inputs and isinstance(t, ScalarType):
            extent = extent_from_arrays(fn, param, inputs)  # a pl.dynamic extent: read from the arrays
            if extent is not None:
                args[i] = scalars[param] = extent
                continue
        if param.name not in inputs:
            shape = _static_extents(t, scalars)
            if direction is ParamDirection.Out and isinstance(t, (TensorType, TileType)) and shape is not None:
                args[i] = np.zeros(shape, dtype=t.dtype.np_dtype)
                continue
            raise TilefoldError(f"missing input {param.name!r} for function {fn.name!r}",
                                hint=f"pass inputs={{{param.name!r}: {_expected(t)}}}")
        value = inputs[param.name]
        if isinstance(t, ScalarType):
            args[i] = _scalar_input(param.name, value, t.dtype)
            scalars[param] = args[i]
        elif isinstance(t, (TensorType, TileType)):
            args[i] = _array_input(param.name, value, t, scalars)
        else:
            args[i] = value
    return args


def _expected(t: Type) -> str:
    if isinstance(t, (TensorType, TileType)):
        dims = [e.value if isinstance(e, ConstInt) else getattr(e, "name", "?") for e in t.shape]
        return f"np.ndarray of shape {dims} and dtype {_np_name(t.dtype)}"
    if isinstance(t, ScalarType):
        return f"a {t.dtype.name} scalar"
    return "a value"


def _static_extents(t: Type, scalars: dict[Var, Any]) -> tuple[int, ...] | None:
    if not isinstance(t, (TensorType, TileType)):
        return None
    out = []
    for e in t.shape:
        if isinstance(e, ConstInt):
            out.append(e.value)
        elif isinstance(e, Var) and e in scalars:
            out.append(int(scalars[e]))
        else:
            return None
    return tuple(out)


def _scalar_input(name: str, value: Any, dtype: DataType) -> Any:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        value = value.item() if not is_float_dtype(value.dtype) else float(np.float64(value))
    if isinstance(value, bool) or (dtype.is_bool and isinstance(value, int)):
        return scalar_value(value, dtype)
    if dtype.is_int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise TilefoldError(f"input {name!r} must be an integer ({dtype.name}), got {_describe(value)}",
                                hint=f"pass a Python int for {name!r}")
        return scalar_value(value, dtype)
    if dtype.is_float and isinstance(value, (int, float)):
        return scalar_value(value, dtype)
    raise TilefoldError(f"input {name!r} must be a {dtype.name} scalar, got {_describe(value)}",
                        hint=f"pass a Python number for {name!r}")


def _array_input(name: str, value: Any, t: TensorType | TileType, scalars: dict[Var, Any]) -> np.ndarray:
    target = t.dtype.np_dtype
    if isinstance(value, (list, tuple)):
        value = np.asarray(value, dtype=target)
    if not isinstance(value, np.ndarray):
        raise TilefoldError(f"input {name!r} must be a numpy array, got {_describe(value)}",
                            hint=f"pass {_expected(t)}")
    if value.dtype != target:
        raise TilefoldError(f"input {name!r} has dtype {value.dtype}, the parameter is {t.dtype.name}",
                            hint=f"convert it with {_np_dtype_hint(t.dtype)}")
    if value.ndim != len(t.shape):
        raise TilefoldError(f"input {name!r} has rank {value.ndim} (shape {list(value.shape)}), the parameter "
                            f"has rank {len(t.shape)}", hint=f"pass {_expected(t)}")
    for axis, (extent, actual) in enumerate(zip(t.shape, value.shape, strict=False)):
        want = (extent.value if isinstance(extent, ConstInt)
                else scalars.get(extent) if isinstance(extent, Var) else None)
        if want is not None and int(want) != actual:
            raise TilefoldError(f"input {name!r} has shape {list(value.shape)}, expected extent {want} on axis "
                                f"{axis}", hint=f"pass {_expected(t)}")
    return np.array(value, copy=True, order="C")


def run_program(program: Program, inputs: Mapping[str, Any], *, entry: str | None = None,
                block_dim: int = 1, max_steps: int | None = DEFAULT_MAX_STEPS,
                target: Any = None) -> dict[str, np.ndarray]:
    """Run ``program`` on ``inputs`` (numpy arrays / Python scalars by parameter name).

    Returns the final value of every Out / InOut parameter of the entry, by name; if the entry returns
    values that are not its out parameters, they are added as ``"return"`` (one value) or
    ``"return0"``, ``"return1"``, ... (several, numbered by position in the return statement).
    ``max_steps`` bounds the statements and loop iterations executed (``StepBudgetExceeded``, a located
    error, when passed; None: unbounded).
    """
    fn = select_entry(program, entry)
    if int(block_dim) < 1:
        raise TilefoldError(f"block_dim={block_dim} is not a positive number of cores")
    args = prepare_inputs(fn, inputs)
    interp = GoldenInterpreter(program, block_dim=block_dim, max_steps=max_steps, target=target)
    returned = interp.call_function(fn, args, HOST)
    outputs: dict[str, np.ndarray] = {}
    out_arrays = []
    for param, direction, arg in zip(fn.params, fn.param_directions, args, strict=False):
        if direction in (ParamDirection.Out, ParamDirection.InOut):
            outputs[param.name] = np.asarray(arg)
            out_arrays.append(arg)
    extra = []
    for i, value in enumerate(returned):
        if any(value is a for a in out_arrays):
            continue
        t = fn.return_types[i] if i < len(fn.return_types) else None
        if isinstance(value, np.ndarray):
            arr = value.copy()
        elif isinstance(t, ScalarType):
            arr = np.asarray(value, dtype=t.dtype.np_dtype)
        else:
            arr = np.asarray(value)
        extra.append((i, arr))
    if len(extra) == 1:
        outputs["return"] = extra[0][1]
    else:
        for i, arr in extra:
            outputs[f"return{i}"] = arr
    return outputs


def _refuse_oversized_tile(call: Call) -> None:
    """A tile result too large for host memory is refused before numpy allocates it (no on-chip buffer holds a
    tile of more than a few MiB; the compiler's memory check runs after the golden reference in ``tilefold run``)."""
    t = call.type
    if not isinstance(t, TileType):
        return
    shape = t.static_shape
    if shape is None:
        return
    nbytes = math.prod(shape) * t.dtype.storage_bits // 8
    if nbytes > MAX_TENSOR_BYTES:
        raise TilefoldError(f"{call.op_name}: a {list(shape)} {t.dtype.name} tile is {nbytes:,} bytes, more than any "
                            f"on-chip buffer (and above the {MAX_TENSOR_BYTES // 2**20} MiB host limit)",
                            span=_span(call), hint="tiles live in Vec / Mat / L0 buffers of a few hundred KiB: "
                                                   "make the tile smaller and loop over the data")
