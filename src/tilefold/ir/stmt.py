"""IR statements, functions and programs."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

from tilefold.errors import UNKNOWN_SPAN, Span
from tilefold.ir.expr import Expr, IterArg, Var
from tilefold.ir.types import Type

_A = TypeVar("_A", bound="_Attributed")


class _Attributed:
    """``attr`` / ``with_attr`` over an ``attrs`` field holding (name, value) pairs."""

    __slots__ = ()
    attrs: tuple[tuple[str, Any], ...]

    def attr(self, name: str, default: Any = None) -> Any:
        return dict(self.attrs).get(name, default)

    def with_attr(self: _A, name: str, value: Any) -> _A:
        attrs = tuple((k, v) for k, v in self.attrs if k != name) + ((name, value),)
        return replace(self, attrs=attrs)  # type: ignore[type-var]


@dataclass(frozen=True, eq=False)
class Stmt:
    def with_fields(self, **changes: Any) -> Stmt:
        return replace(self, **changes)


@dataclass(frozen=True, eq=False)
class AssignStmt(Stmt):
    var: Var
    value: Expr
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


@dataclass(frozen=True, eq=False)
class EvalStmt(Stmt):
    """An expression evaluated for its effect (e.g. a bare ``pl.tile.matmul_acc(...)``)."""

    expr: Expr
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


@dataclass(frozen=True, eq=False)
class SeqStmts(Stmt):
    stmts: tuple[Stmt, ...]
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


class ForKind(enum.Enum):
    Sequential = "range"
    Pipeline = "pipeline"
    Parallel = "parallel"
    Unroll = "unroll"


@dataclass(frozen=True, eq=False)
class ForStmt(Stmt, _Attributed):
    """``for loop_var in range(start, stop, step)`` carrying ``iter_args``; the loop's results are
    bound to ``return_vars`` (one per iter arg). ``attrs`` holds e.g. the pipeline ``stage``."""

    loop_var: Var
    start: Expr
    stop: Expr
    step: Expr
    iter_args: tuple[IterArg, ...]
    body: Stmt
    return_vars: tuple[Var, ...]
    kind: ForKind = ForKind.Sequential
    attrs: tuple[tuple[str, Any], ...] = ()
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


@dataclass(frozen=True, eq=False)
class WhileStmt(Stmt):
    iter_args: tuple[IterArg, ...]
    condition: Expr
    body: Stmt
    return_vars: tuple[Var, ...]
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


@dataclass(frozen=True, eq=False)
class IfStmt(Stmt, _Attributed):
    condition: Expr
    then_body: Stmt
    else_body: Stmt | None
    return_vars: tuple[Var, ...] = ()
    span: Span = field(default=UNKNOWN_SPAN, repr=False)
    # (name, value) tags, e.g. ("limit_sub_block_id0", True) on the sub-block-0 guard that
    # LimitUniqueSubBlockIdToStoreCopy inserts. Empty for ordinary ifs.
    attrs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, eq=False)
class ScopeStmt(Stmt):
    """``with pl.at(level=pl.Level.<level>):`` in a ``@pl.jit`` body: on-chip work inside orchestration code.
    Only the tensor-level front end produces it; OutlineIncoreScopes turns each one into an InCore function and
    a call, so no later pass sees it."""

    level: str
    body: Stmt
    #: pl.at keyword options (name_hint, sub_block_split, deps, ...) as (key, value) pairs
    attrs: tuple[tuple[str, Any], ...] = ()
    span: Span = field(default=UNKNOWN_SPAN, repr=False)
    #: the options that shape the outlined kernel (the pl.split request, cross_core_slot, pl.spmd's block_dim) or
    #: name its task (task_key, deps: reported by the runtime's enable_dep_gen): they go onto the InCore function
    KERNEL_ATTRS: ClassVar[tuple[str, ...]] = ("sub_block_split", "cross_core_slot", "block_dim", "task_key", "deps")


@dataclass(frozen=True, eq=False)
class YieldStmt(Stmt):
    values: tuple[Expr, ...]
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


@dataclass(frozen=True, eq=False)
class ReturnStmt(Stmt):
    values: tuple[Expr, ...]
    span: Span = field(default=UNKNOWN_SPAN, repr=False)


class FunctionType(enum.Enum):
    Opaque = "Opaque"
    Orchestration = "Orchestration"
    InCore = "InCore"
    AIC = "AIC"
    AIV = "AIV"
    Group = "Group"
    #: a recordable orchestration fragment (PyPTO dev/03-functions "Graph Fragments"): orchestration code the
    #: runtime records on its first call and replays after; values are those of an Orchestration function
    Graph = "Graph"

    @property
    def is_incore(self) -> bool:
        """Kernel-level functions (InCore, AIC, AIV) that tile passes operate on."""
        return self in (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)


class ParamDirection(enum.Enum):
    In = "In"
    Out = "Out"
    InOut = "InOut"


@dataclass(frozen=True, eq=False)
class Function(_Attributed):
    name: str
    params: tuple[Var, ...]
    param_directions: tuple[ParamDirection, ...]
    return_types: tuple[Type, ...]
    body: Stmt
    func_type: FunctionType = FunctionType.Opaque
    attrs: tuple[tuple[str, Any], ...] = ()
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    def with_fields(self, **changes: Any) -> Function:
        return replace(self, **changes)


@dataclass(frozen=True, eq=False)
class Program(_Attributed):
    name: str
    functions: tuple[Function, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    def with_fields(self, **changes: Any) -> Program:
        return replace(self, **changes)

    def function(self, name: str) -> Function:
        for fn in self.functions:
            if fn.name == name:
                return fn
        raise KeyError(f"program {self.name!r} has no function {name!r}")

    def as_python(self) -> str:
        from tilefold.ir.printing import python_print

        return python_print(self)


def flatten_stmts(stmt: Stmt | None) -> list[Stmt]:
    """The statements of a body as a flat list (nested SeqStmts are spliced)."""
    if stmt is None:
        return []
    if isinstance(stmt, SeqStmts):
        out: list[Stmt] = []
        for s in stmt.stmts:
            out.extend(flatten_stmts(s))
        return out
    return [stmt]


def final_yield(body: Stmt | None) -> YieldStmt | None:
    """The ``YieldStmt`` that ends a loop / if body (nested SeqStmts spliced), or None if the body does not end
    with one. In normalized IR a yield can only be the last statement of its body."""
    stmts = flatten_stmts(body)
    if stmts and isinstance(stmts[-1], YieldStmt):
        return stmts[-1]
    return None


def seq(stmts: list[Stmt] | tuple[Stmt, ...]) -> Stmt:
    """A normalized body: a SeqStmts holding the statements (never a bare statement)."""
    return SeqStmts(tuple(stmts))
