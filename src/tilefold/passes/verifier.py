"""IR property verifiers.

Each ``IRProperty`` a pass can require or produce has a checker here:

- ``SSAForm``: every variable (param, assignment target, loop var, iter arg, return var) is defined once.
- ``TypeChecked``: every call of a registered op re-infers (``OpDef.infer``) without error to a type whose
  shape and dtype equal the call's type and the bound variable's type; a memory space may be filled in
  (by an annotation or a pass) where inference gave none, but may not contradict an inferred one. Calls of
  program functions name an existing function with the right operand count and tensor shapes. Loops and
  ifs yield as many values as they carry / return, with matching shapes and dtypes.
- ``UseAfterDef``: every use is in scope after its definition: loop vars and iter args only inside their
  loop, values defined in a loop or branch body only inside it, return vars after their loop / if.
- ``NormalizedStmtStructure``: every body (function, loop, branch) is a ``SeqStmts``, no ``SeqStmts`` is
  nested directly in another, and a ``YieldStmt`` appears only as the last statement of a loop / if body.
- ``TileOps2D``: tiles in InCore / AIC / AIV functions have rank <= 2.
- ``IncoreTileOps``: tile ops (registered ops in the ``tile.`` namespace, or any registered op taking or
  producing a tile) appear only in InCore / AIC / AIV functions.
- ``SplitIncoreOrch``: Orchestration functions contain no tile ops, and kernels (InCore / AIC / AIV) call
  no other function.
- ``TileMemoryInferred``: every tile in a kernel has a memory space.
- ``MemRefAllocated``: every tile in a kernel has a MemRef.

``check_properties(program, props)`` returns the list of ``Violation`` records; ``verify_properties``
raises ``VerificationError`` for the first one (naming the property, the function and the offending
statement, with a hint). All walks are linear in program size and iterative over statement lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from tilefold.errors import Span, TilefoldError, TypeInferenceError, VerificationError
from tilefold.ir.expr import (
    BinaryExpr,
    Call,
    ConstInt,
    Expr,
    GlobalVar,
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
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.structural import format_node, structural_equal
from tilefold.ir.types import ScalarType, TensorType, TileType, TupleType, Type, UnknownType
from tilefold.ops.registry import check_operands, op_of
from tilefold.passes.base import IRProperty

__all__ = [
    "PROPERTY_HINTS", "Violation", "check_function", "check_properties", "register_verifier",
    "verify_properties", "STRUCTURAL_PROPERTIES", "ALL_VERIFIABLE",
]


@dataclass(frozen=True)
class Violation:
    """One place where a property does not hold."""

    property: IRProperty
    function: str
    stmt: Stmt | None
    message: str
    hint: str = ""
    span: Span | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"Violation({self.property.value}, {self.function!r}, {self.message!r})"

    def statement_text(self) -> str:
        if self.stmt is None:
            return "<function signature>"
        return format_node(self.stmt, max_lines=6)

    def render(self) -> str:
        at = self.statement_text().replace("\n", "\n      ")
        return f"{self.property.value} violated in function '{self.function}': {self.message}\n  at: {at}"


PROPERTY_HINTS: dict[IRProperty, str] = {
    IRProperty.SSAForm: "every variable must be defined exactly once; a rewrite that re-binds a value must "
                        "create a fresh Var for it",
    IRProperty.TypeChecked: "build calls with tilefold.ops.make_call so their type is inferred, and give the "
                            "bound variable that type (only a missing memory space may be filled in)",
    IRProperty.UseAfterDef: "define a value before using it; loop vars and iter args exist only inside their "
                            "loop and values defined in a loop or branch body only inside it -- use the "
                            "loop's / if's return variables after it",
    IRProperty.NormalizedStmtStructure: "make every body a SeqStmts, splice nested SeqStmts "
                                        "(ir.flatten_stmts) and put the yield last in its loop / if body",
    IRProperty.TileOps2D: "run FlattenTileNdTo2D (passes.flatten_tile_nd_to_2d) first, or reshape the tile "
                          "to 2-D with pl.tile.reshape",
    IRProperty.IncoreTileOps: "move tile ops into a kernel declared with "
                              "@pl.function(type=pl.FunctionType.InCore) (or AIC / AIV) and call it from the "
                              "orchestration function",
    IRProperty.SplitIncoreOrch: "orchestration functions only call kernels and compute scalars; kernels do "
                                "not call other functions (inline the callee or call both kernels from the "
                                "orchestration function)",
    IRProperty.TileMemoryInferred: "run InferTileMemorySpace (passes.infer_tile_memory_space) or annotate the "
                                   "tile with its memory space, e.g. pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]",
    IRProperty.MemRefAllocated: "run InitMemRef (the init-mem-ref pass) before passes that need MemRefs",
}


# ------------------------------------------------------------------------------------------------
# walking helpers
# ------------------------------------------------------------------------------------------------


def _walk(stmt: Stmt | None) -> Iterator[Stmt]:
    """Every statement under ``stmt`` (inclusive), in program order, iteratively."""
    if stmt is None:
        return
    stack: list[Stmt] = [stmt]
    while stack:
        s = stack.pop()
        yield s
        if isinstance(s, SeqStmts):
            stack.extend(reversed(s.stmts))
        elif isinstance(s, (ForStmt, WhileStmt)):
            stack.append(s.body)
        elif isinstance(s, IfStmt):
            if s.else_body is not None:
                stack.append(s.else_body)
            stack.append(s.then_body)


def _own_exprs(stmt: Stmt) -> tuple[Expr, ...]:
    """The expressions a statement evaluates itself (not those of nested bodies)."""
    if isinstance(stmt, AssignStmt):
        return (stmt.value,)
    if isinstance(stmt, EvalStmt):
        return (stmt.expr,)
    if isinstance(stmt, ForStmt):
        return (stmt.start, stmt.stop, stmt.step) + tuple(ia.init for ia in stmt.iter_args if ia.init is not None)
    if isinstance(stmt, WhileStmt):
        return tuple(ia.init for ia in stmt.iter_args if ia.init is not None) + (stmt.condition,)
    if isinstance(stmt, IfStmt):
        return (stmt.condition,)
    if isinstance(stmt, (YieldStmt, ReturnStmt)):
        return stmt.values
    return ()


def _sub_exprs(expr: Expr) -> Iterator[Expr]:
    """``expr`` and every expression inside it (call operands, expression-valued kwargs, ...)."""
    stack: list[Expr] = [expr]
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, Call):
            stack.extend(reversed(e.args))
            for _, v in e.kwargs:
                stack.extend(_kwarg_exprs(v))
        elif isinstance(e, MakeTuple):
            stack.extend(reversed(e.elements))
        elif isinstance(e, TupleGetItem):
            stack.append(e.tuple_value)
        elif isinstance(e, BinaryExpr):
            stack.extend((e.rhs, e.lhs))
        elif isinstance(e, UnaryExpr):
            stack.append(e.operand)


def _kwarg_exprs(value: object) -> list[Expr]:
    if isinstance(value, Expr):
        return [value]
    if isinstance(value, (tuple, list)):
        out: list[Expr] = []
        for v in value:
            out.extend(_kwarg_exprs(v))
        return out
    return []


def _calls(stmt: Stmt) -> Iterator[Call]:
    for root in _own_exprs(stmt):
        for e in _sub_exprs(root):
            if isinstance(e, Call):
                yield e


def _defined_vars(stmt: Stmt) -> tuple[Var, ...]:
    """Variables a statement defines itself (loop vars and iter args belong to the loop)."""
    if isinstance(stmt, AssignStmt):
        return (stmt.var,)
    if isinstance(stmt, ForStmt):
        return (stmt.loop_var, *stmt.iter_args, *stmt.return_vars)
    if isinstance(stmt, WhileStmt):
        return (*stmt.iter_args, *stmt.return_vars)
    if isinstance(stmt, IfStmt):
        return stmt.return_vars
    return ()


def _is_tile_op(call: Call) -> bool:
    """A registered op in the ``tile.`` namespace, or any registered op taking or producing a tile."""
    op = op_of(call)
    if op is None:
        return False
    if op.name.startswith("tile."):
        return True
    return isinstance(call.type, TileType) or any(isinstance(a.type, TileType) for a in call.args)


def _span_of(stmt: Stmt | None, fn: Function) -> Span | None:
    for candidate in (getattr(stmt, "span", None), getattr(fn, "span", None)):
        if candidate is not None and candidate.line:
            return candidate
    return None


class _Report:
    def __init__(self, prop: IRProperty, fn: Function) -> None:
        self.prop = prop
        self.fn = fn
        self.items: list[Violation] = []

    def add(self, stmt: Stmt | None, message: str, hint: str | None = None) -> None:
        self.items.append(Violation(self.prop, self.fn.name, stmt, message, hint or PROPERTY_HINTS[self.prop],
                                    _span_of(stmt, self.fn)))


def _v(var: Var) -> str:
    return f"%{var.name}"


# ------------------------------------------------------------------------------------------------
# SSAForm
# ------------------------------------------------------------------------------------------------


def _check_ssa(fn: Function, program: Program, r: _Report) -> None:
    defined: dict[Var, Stmt | None] = {}
    for p in fn.params:
        if p in defined:
            r.add(None, f"parameter {_v(p)} appears twice in the signature")
        defined[p] = None
    for stmt in _walk(fn.body):
        for var in _defined_vars(stmt):
            if var in defined:
                first = defined[var]
                where = "as a parameter" if first is None else f"by `{format_node(first, max_lines=1)}`"
                r.add(stmt, f"{_v(var)} is defined again; it was already defined {where}")
            else:
                defined[var] = stmt


# ------------------------------------------------------------------------------------------------
# TypeChecked
# ------------------------------------------------------------------------------------------------


def _same_extent(a: Expr, b: Expr) -> bool:
    if a is b:
        return True
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return a.value == b.value
    return structural_equal(a, b)


def _type_diff(expected: Type, actual: Type, what: str) -> str | None:
    """Why ``actual`` (the type in the IR) disagrees with ``expected`` (the inferred type), or None."""
    if isinstance(expected, UnknownType):
        return None
    if type(expected) is not type(actual):
        return f"{what} is {format_node(actual)} but inference gives {format_node(expected)}"
    if isinstance(expected, TupleType):
        if len(expected.types) != len(actual.types):
            return f"{what} has {len(actual.types)} elements but inference gives {len(expected.types)}"
        for i, (e, a) in enumerate(zip(expected.types, actual.types, strict=True)):
            diff = _type_diff(e, a, f"{what} element {i}")
            if diff:
                return diff
        return None
    if isinstance(expected, ScalarType):
        if expected.dtype != actual.dtype:
            return f"{what} has dtype {actual.dtype.name} but inference gives {expected.dtype.name}"
        return None
    if isinstance(expected, (TileType, TensorType)):
        if len(expected.shape) != len(actual.shape) or not all(
                _same_extent(e, a) for e, a in zip(expected.shape, actual.shape, strict=True)):
            return f"{what} is {format_node(actual)} but inference gives shape {format_node(expected)}"
        if expected.dtype != actual.dtype:
            return f"{what} has dtype {actual.dtype.name} but inference gives {expected.dtype.name}"
        if isinstance(expected, TileType):
            em, am = expected.memory_space, actual.memory_space
            if em is not None and am is not None and em != am:
                return f"{what} is in memory {am.name} but inference gives {em.name}"
    return None


def _check_call(call: Call, stmt: Stmt, program: Program, r: _Report) -> Type | None:
    """Check one call; return its re-inferred type (None when it cannot be inferred)."""
    if isinstance(call.op, GlobalVar):
        try:
            callee = program.function(call.op.name)
        except KeyError:
            r.add(stmt, f"calls unknown function @{call.op.name}",
                  "define the callee in the same program, or fix the name")
            return None
        if len(call.args) != len(callee.params):
            r.add(stmt, f"calls @{callee.name} with {len(call.args)} operands; it takes {len(callee.params)}")
            return None
        for i, (arg, param) in enumerate(zip(call.args, callee.params, strict=True)):
            if isinstance(param.type, TensorType):
                diff = _type_diff(param.type, arg.type, f"operand {i} of @{callee.name}")
                if diff:
                    r.add(stmt, f"{diff} (parameter {_v(param)})")
        return None
    op = op_of(call)
    if op is None:
        r.add(stmt, f"calls unregistered op {call.op_name!r}",
              "declare the op in tilefold.ops (register_op) or use a registered one")
        return None
    try:
        check_operands(op, call.args)  # a pass must not build an op on operands its parameters do not declare
        inferred = op.infer(tuple(call.args), dict(call.kwargs))
    except TypeInferenceError as exc:
        r.add(stmt, f"{call.op_name} no longer type-checks: {exc.message}", exc.hint)
        return None
    except (TilefoldError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        r.add(stmt, f"{call.op_name} cannot be re-inferred: {exc}")
        return None
    if isinstance(call.type, UnknownType) and not isinstance(inferred, UnknownType):
        r.add(stmt, f"the {call.op_name} call has no type (inference gives {format_node(inferred)})")
        return inferred
    diff = _type_diff(inferred, call.type, f"the {call.op_name} call's type")
    if diff:
        r.add(stmt, diff)
    return inferred


def _check_carried(stmt: Stmt, targets: tuple[Var, ...], body: Stmt | None, what: str, r: _Report) -> None:
    """The last statement of ``body`` yields one value per target, each of a matching type."""
    stmts = body.stmts if isinstance(body, SeqStmts) else (() if body is None else (body,))
    last = stmts[-1] if stmts else None
    if not isinstance(last, YieldStmt):
        if targets:
            r.add(stmt, f"the {what} must end with a yield of {len(targets)} value(s)")
        return
    if len(last.values) != len(targets):
        r.add(last, f"the {what} yields {len(last.values)} value(s) but {len(targets)} are expected")
        return
    for value, target in zip(last.values, targets, strict=True):
        diff = _type_diff(target.type, value.type, f"yielded value {format_node(value)}")
        if diff:
            r.add(last, f"{diff} (it is carried into {_v(target)})")


def _check_types(fn: Function, program: Program, r: _Report) -> None:
    for stmt in _walk(fn.body):
        inferred_value: Type | None = None
        for call in _calls(stmt):
            t = _check_call(call, stmt, program, r)
            if isinstance(stmt, AssignStmt) and call is stmt.value:
                inferred_value = t
        if isinstance(stmt, AssignStmt):
            if inferred_value is not None:
                diff = _type_diff(inferred_value, stmt.var.type, f"{_v(stmt.var)}'s type")
                if diff:
                    r.add(stmt, diff)
            elif not isinstance(stmt.value, Call) and isinstance(stmt.value.type, (TileType, TensorType)):
                diff = _type_diff(stmt.value.type, stmt.var.type, f"{_v(stmt.var)}'s type")
                if diff:
                    r.add(stmt, diff)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            kind = "loop body"
            if len(stmt.return_vars) != len(stmt.iter_args):
                r.add(stmt, f"the loop carries {len(stmt.iter_args)} iter arg(s) but binds "
                            f"{len(stmt.return_vars)} return var(s)")
            for ia in stmt.iter_args:
                if ia.init is None:
                    r.add(stmt, f"iter arg {_v(ia)} has no init value")
                    continue
                diff = _type_diff(ia.type, ia.init.type, f"the init of {_v(ia)}")
                if diff:
                    r.add(stmt, diff)
            for ia, rv in zip(stmt.iter_args, stmt.return_vars, strict=False):
                diff = _type_diff(ia.type, rv.type, f"return var {_v(rv)}")
                if diff:
                    r.add(stmt, f"{diff} (iter arg {_v(ia)})")
            _check_carried(stmt, tuple(stmt.iter_args), stmt.body, kind, r)
        elif isinstance(stmt, IfStmt) and stmt.return_vars:
            if stmt.else_body is None:
                r.add(stmt, f"the if binds {len(stmt.return_vars)} value(s) but has no else branch to yield them")
            _check_carried(stmt, stmt.return_vars, stmt.then_body, "then branch", r)
            if stmt.else_body is not None:
                _check_carried(stmt, stmt.return_vars, stmt.else_body, "else branch", r)


# ------------------------------------------------------------------------------------------------
# UseAfterDef
# ------------------------------------------------------------------------------------------------


class _Scopes:
    """Visible variables with an undo log per open scope (linear overall)."""

    def __init__(self) -> None:
        self.visible: set[Var] = set()
        self.log: list[list[Var]] = [[]]

    def define(self, var: Var) -> None:
        if var not in self.visible:
            self.visible.add(var)
            self.log[-1].append(var)

    def open(self) -> None:
        self.log.append([])

    def close(self) -> None:
        for var in self.log.pop():
            self.visible.discard(var)


def _check_use_after_def(fn: Function, program: Program, r: _Report) -> None:
    all_defs: set[Var] = set(fn.params)
    for stmt in _walk(fn.body):
        all_defs.update(_defined_vars(stmt))
    scopes = _Scopes()
    for p in fn.params:
        scopes.define(p)
    reported: set[tuple[int, Var]] = set()

    def uses(stmt: Stmt, exprs: Iterable[Expr]) -> None:
        for root in exprs:
            for e in _sub_exprs(root):
                if isinstance(e, Var) and e not in scopes.visible and (id(stmt), e) not in reported:
                    reported.add((id(stmt), e))
                    if e in all_defs:
                        r.add(stmt, f"{_v(e)} is used before its definition or outside the scope that defines it")
                    else:
                        r.add(stmt, f"{_v(e)} is used but never defined in this function")

    # explicit stack of actions: ("stmt", s) visits a statement; ("call", fn) runs a continuation
    stack: list[tuple[str, object]] = [("stmt", fn.body)]
    while stack:
        kind, item = stack.pop()
        if kind == "call":
            item()  # type: ignore[operator]
            continue
        stmt = item
        if stmt is None:
            continue
        if isinstance(stmt, SeqStmts):
            stack.extend(("stmt", s) for s in reversed(stmt.stmts))
        elif isinstance(stmt, AssignStmt):
            uses(stmt, (stmt.value,))
            scopes.define(stmt.var)
        elif isinstance(stmt, ForStmt):
            uses(stmt, _own_exprs(stmt))
            scopes.open()
            scopes.define(stmt.loop_var)
            for ia in stmt.iter_args:
                scopes.define(ia)
            stack.append(("call", _after_block(scopes, stmt.return_vars)))
            stack.append(("stmt", stmt.body))
        elif isinstance(stmt, WhileStmt):
            uses(stmt, tuple(ia.init for ia in stmt.iter_args if ia.init is not None))
            scopes.open()
            for ia in stmt.iter_args:
                scopes.define(ia)
            uses(stmt, (stmt.condition,))
            stack.append(("call", _after_block(scopes, stmt.return_vars)))
            stack.append(("stmt", stmt.body))
        elif isinstance(stmt, IfStmt):
            uses(stmt, (stmt.condition,))
            stack.append(("call", _after_block(scopes, stmt.return_vars, close=False)))
            if stmt.else_body is not None:
                stack.append(("call", scopes.close))
                stack.append(("stmt", stmt.else_body))
                stack.append(("call", scopes.open))
            stack.append(("call", scopes.close))
            stack.append(("stmt", stmt.then_body))
            stack.append(("call", scopes.open))
        else:
            uses(stmt, _own_exprs(stmt))


def _after_block(scopes: _Scopes, return_vars: tuple[Var, ...], close: bool = True) -> Callable[[], None]:
    def done() -> None:
        if close:
            scopes.close()
        for rv in return_vars:
            scopes.define(rv)
    return done


# ------------------------------------------------------------------------------------------------
# NormalizedStmtStructure
# ------------------------------------------------------------------------------------------------


def _check_normalized(fn: Function, program: Program, r: _Report) -> None:
    if not isinstance(fn.body, SeqStmts):
        r.add(fn.body, f"the function body is a {type(fn.body).__name__}, not a SeqStmts")
    # (stmt, role) where role says which kind of body a SeqStmts is
    stack: list[tuple[Stmt, str]] = [(fn.body, "function")]
    while stack:
        stmt, role = stack.pop()
        if isinstance(stmt, SeqStmts):
            n = len(stmt.stmts)
            for i, s in enumerate(stmt.stmts):
                if isinstance(s, SeqStmts):
                    r.add(s, f"a SeqStmts is nested directly inside the {role} body")
                if isinstance(s, YieldStmt):
                    if role not in ("loop", "if"):
                        r.add(s, f"a yield appears in the {role} body; yields belong at the end of a loop or "
                                 "if body")
                    elif i != n - 1:
                        r.add(s, f"a yield appears at position {i} of a {role} body with {n} statements; it "
                                 "must be the last statement")
            stack.extend((s, role) for s in reversed(stmt.stmts))
            continue
        if isinstance(stmt, YieldStmt) and role not in ("loop", "if"):
            r.add(stmt, "a yield appears outside any loop or if body")
        if isinstance(stmt, (YieldStmt, ReturnStmt)):
            for v in stmt.values:
                if isinstance(v, Call):  # lowering emits calls where they are statements: this one would be lost
                    r.add(stmt, f"the call {v.op_name} is {'returned' if isinstance(stmt, ReturnStmt) else 'yielded'}"
                                " directly; bind its result to a variable first")
        if isinstance(stmt, (ForStmt, WhileStmt)):
            if not isinstance(stmt.body, SeqStmts):
                r.add(stmt, f"the loop body is a {type(stmt.body).__name__}, not a SeqStmts")
            stack.append((stmt.body, "loop"))
        elif isinstance(stmt, IfStmt):
            for name, body in (("then", stmt.then_body), ("else", stmt.else_body)):
                if body is None:
                    continue
                if not isinstance(body, SeqStmts):
                    r.add(stmt, f"the {name} body is a {type(body).__name__}, not a SeqStmts")
                stack.append((body, "if"))


# ------------------------------------------------------------------------------------------------
# kernel / orchestration properties
# ------------------------------------------------------------------------------------------------


def _tile_defs(fn: Function) -> Iterator[tuple[Stmt | None, Var]]:
    for p in fn.params:
        yield None, p
    for stmt in _walk(fn.body):
        for var in _defined_vars(stmt):
            yield stmt, var


def _tiles_in(t: Type) -> Iterator[TileType]:
    if isinstance(t, TileType):
        yield t
    elif isinstance(t, TupleType):
        for e in t.types:
            yield from _tiles_in(e)


def _check_2d(fn: Function, program: Program, r: _Report) -> None:
    if not fn.func_type.is_incore:
        return
    for stmt, var in _tile_defs(fn):
        for t in _tiles_in(var.type):
            if t.rank > 2:
                r.add(stmt, f"{_v(var)} is a rank-{t.rank} tile {format_node(t)}; {fn.func_type.name} kernels "
                            "need tiles of rank <= 2")
    for stmt in _walk(fn.body):
        if isinstance(stmt, EvalStmt):
            for t in _tiles_in(stmt.expr.type):
                if t.rank > 2:
                    r.add(stmt, f"the call produces a rank-{t.rank} tile {format_node(t)}")


def _check_incore_tile_ops(fn: Function, program: Program, r: _Report) -> None:
    if fn.func_type.is_incore:
        return
    for stmt in _walk(fn.body):
        for call in _calls(stmt):
            if _is_tile_op(call):
                r.add(stmt, f"tile op {call.op_name} is used in the {fn.func_type.name} function; tile ops belong "
                            "in InCore / AIC / AIV kernels")


def _check_split(fn: Function, program: Program, r: _Report) -> None:
    if fn.func_type is FunctionType.Orchestration:
        for stmt in _walk(fn.body):
            for call in _calls(stmt):
                if _is_tile_op(call):
                    r.add(stmt, f"the orchestration function uses tile op {call.op_name}; move it into a kernel")
    elif fn.func_type.is_incore:
        for stmt in _walk(fn.body):
            for call in _calls(stmt):
                if isinstance(call.op, GlobalVar):
                    r.add(stmt, f"the {fn.func_type.name} kernel calls function @{call.op.name}; kernels may "
                                "not call other functions")


def _check_memory_inferred(fn: Function, program: Program, r: _Report) -> None:
    if not fn.func_type.is_incore:
        return
    for stmt, var in _tile_defs(fn):
        for t in _tiles_in(var.type):
            if t.memory_space is None:
                r.add(stmt, f"tile {_v(var)} has no memory space")


def _check_memref(fn: Function, program: Program, r: _Report) -> None:
    if not fn.func_type.is_incore:
        return
    for stmt, var in _tile_defs(fn):
        for t in _tiles_in(var.type):
            if t.memref is None:
                r.add(stmt, f"tile {_v(var)} has no MemRef")


Checker = Callable[[Function, Program, _Report], None]

_CHECKERS: dict[IRProperty, Checker] = {
    IRProperty.SSAForm: _check_ssa,
    IRProperty.TypeChecked: _check_types,
    IRProperty.UseAfterDef: _check_use_after_def,
    IRProperty.NormalizedStmtStructure: _check_normalized,
    IRProperty.TileOps2D: _check_2d,
    IRProperty.IncoreTileOps: _check_incore_tile_ops,
    IRProperty.SplitIncoreOrch: _check_split,
    IRProperty.TileMemoryInferred: _check_memory_inferred,
    IRProperty.MemRefAllocated: _check_memref,
}

#: properties every well-formed program has, whatever the pipeline stage
STRUCTURAL_PROPERTIES = (
    IRProperty.SSAForm, IRProperty.TypeChecked, IRProperty.UseAfterDef, IRProperty.NormalizedStmtStructure,
)
#: the properties the foundation verifiers cover for a freshly parsed kernel program
ALL_VERIFIABLE = STRUCTURAL_PROPERTIES + (
    IRProperty.TileOps2D, IRProperty.IncoreTileOps, IRProperty.SplitIncoreOrch,
)


def register_verifier(prop: IRProperty, checker: Callable[[Function, Program], Iterable[tuple[Stmt | None, str]]],
                      hint: str = "") -> None:
    """Add (or replace) the checker of a property. ``checker(fn, program)`` yields (stmt, message) pairs."""

    def adapted(fn: Function, program: Program, r: _Report) -> None:
        for stmt, message in checker(fn, program):
            r.add(stmt, message)

    _CHECKERS[prop] = adapted
    if hint:
        PROPERTY_HINTS[prop] = hint
    else:
        PROPERTY_HINTS.setdefault(prop, "")


def _order(props: Iterable[IRProperty]) -> list[IRProperty]:
    """Properties in a stable order (declaration order of IRProperty), duplicates removed."""
    wanted = set(props)
    return [p for p in IRProperty if p in wanted]


def check_function(fn: Function, program: Program, props: Iterable[IRProperty]) -> list[Violation]:
    out: list[Violation] = []
    for prop in _order(props):
        checker = _CHECKERS.get(prop)
        if checker is None:
            continue
        report = _Report(prop, fn)
        checker(fn, program, report)
        out.extend(report.items)
    return out


def check_properties(program: Program, props: Iterable[IRProperty]) -> list[Violation]:
    """Every violation of ``props`` in ``program`` (property by property, function by function)."""
    out: list[Violation] = []
    for prop in _order(props):
        checker = _CHECKERS.get(prop)
        if checker is None:
            continue
        for fn in program.functions:
            report = _Report(prop, fn)
            checker(fn, program, report)
            out.extend(report.items)
    return out


def has_verifier(prop: IRProperty) -> bool:
    return prop in _CHECKERS


def violation_error(violations: list[Violation], context: str | None = None) -> VerificationError:
    first = violations[0]
    message = first.render()
    if context:
        message = f"{context}: {message}"
    if len(violations) > 1:
        more = [f"  - {v.property.value} in '{v.function}': {v.message}" for v in violations[1:6]]
        extra = " (showing 5)" if len(violations) > 6 else ""
        message += f"\n{len(violations) - 1} more violation(s){extra}:\n" + "\n".join(more)
    err = VerificationError(message, span=first.span, hint=first.hint or None)
    err.violations = violations  # type: ignore[attr-defined]
    return err


def verify_properties(program: Program, props: Iterable[IRProperty], *, context: str | None = None) -> None:
    """Raise ``VerificationError`` when any of ``props`` does not hold in ``program``.

    The error names the property, the function and the offending statement (printed), carries the
    statement's source span when known and a hint; ``err.violations`` lists every violation found.
    ``context`` (e.g. ``"after pass CanonicalizeTileSlice"``) prefixes the message.
    """
    violations = check_properties(program, props)
    if violations:
        raise violation_error(violations, context)


# ------------------------------------------------------------------------------------------------
# fault injection (test-only passes): each deliberately breaks one property, claims to produce it, and so
# lets tests (and `tilefold opt --passes test-... --verify`) exercise the verifiers on IR text for the
# properties the DSL parser can never violate. Like MLIR's -test-* passes: never part of a pipeline.
# ------------------------------------------------------------------------------------------------


def _first_kernel_assigns(fn: Function) -> list[int]:
    if not isinstance(fn.body, SeqStmts):
        return []
    return [i for i, s in enumerate(fn.body.stmts) if isinstance(s, AssignStmt)]


def _inject_duplicate_def(fn: Function, program: Program) -> Function:
    idx = _first_kernel_assigns(fn)
    if not idx:
        return fn
    stmts = list(fn.body.stmts)
    first = stmts[idx[0]]
    stmts.insert(idx[0] + 1, AssignStmt(first.var, first.value, first.span))
    return fn.with_fields(body=SeqStmts(tuple(stmts)))


def _inject_use_before_def(fn: Function, program: Program) -> Function:
    idx = _first_kernel_assigns(fn)
    stmts = list(fn.body.stmts) if idx else []
    for i in idx:
        for j in idx:
            if j > i and any(e is stmts[i].var for e in _sub_exprs(stmts[j].value)):
                moved = stmts.pop(j)
                stmts.insert(i, moved)
                return fn.with_fields(body=SeqStmts(tuple(stmts)))
    return fn


def _inject_nested_seq(fn: Function, program: Program) -> Function:
    if not isinstance(fn.body, SeqStmts) or len(fn.body.stmts) < 2:
        return fn
    stmts = fn.body.stmts
    return fn.with_fields(body=SeqStmts((SeqStmts(stmts[:2]),) + stmts[2:]))


def _inject_call_type(fn: Function, program: Program) -> Function:
    from tilefold.ir.types import DataType

    stmts = list(fn.body.stmts) if isinstance(fn.body, SeqStmts) else []
    for i, s in enumerate(stmts):
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and isinstance(s.value.type, TileType):
            t = s.value.type
            other = DataType.FP16 if t.dtype is not DataType.FP16 else DataType.FP32
            stmts[i] = s.with_fields(value=s.value.with_fields(type=TileType(t.shape, other, t.memory_space,
                                                                            t.memref, t.tile_view)))
            return fn.with_fields(body=SeqStmts(tuple(stmts)))
    return fn


_FAULTS: dict[str, tuple[str, Callable[[Function, Program], Function], IRProperty]] = {
    "test-duplicate-def": ("TestDuplicateDef", _inject_duplicate_def, IRProperty.SSAForm),
    "test-use-before-def": ("TestUseBeforeDef", _inject_use_before_def, IRProperty.UseAfterDef),
    "test-nested-seq": ("TestNestedSeq", _inject_nested_seq, IRProperty.NormalizedStmtStructure),
    "test-wrong-call-type": ("TestWrongCallType", _inject_call_type, IRProperty.TypeChecked),
}


def fault_injection_pass_names() -> list[str]:
    return sorted(_FAULTS)


def fault_injection_pass(cli_name: str):
    """A test-only pass that breaks one property in the first kernel where it can (see ``_FAULTS``) while
    declaring that it produces that property, so a verifying context must reject its output."""
    from tilefold.passes.base import Pass

    name, transform, prop = _FAULTS[cli_name]

    def run(program: Program) -> Program:
        functions = list(program.functions)
        for i, fn in enumerate(functions):
            if fn.func_type.is_incore:
                out = transform(fn, program)
                if out is not fn:
                    functions[i] = out
                    return program.with_fields(functions=tuple(functions))
        return program

    return Pass(name, run, produced=(prop,), cli_name=cli_name)
