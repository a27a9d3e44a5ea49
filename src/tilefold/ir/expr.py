"""IR expressions.

Every node is an immutable dataclass compared by identity (``eq=False``): two ``Var`` objects are the
same variable only if they are the same object. Structural comparison lives in ``ir.structural``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from tilefold.errors import UNKNOWN_SPAN, Span
from tilefold.ir.types import BOOL, INDEX, DataType, ScalarType, TupleType, Type, UnknownType


@dataclass(frozen=True, eq=False)
class Expr:
    """Base of every expression; ``type`` is the inferred IR type."""

    def with_fields(self, **changes: Any) -> Expr:
        return replace(self, **changes)


@dataclass(frozen=True, eq=False)
class Var(Expr):
    name: str
    type: Type
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    def __repr__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True, eq=False)
class IterArg(Var):
    """A loop-carried value: bound to ``init`` on entry and to the yielded value on each back edge."""

    init: Expr | None = None

    def __repr__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True, eq=False)
class GlobalVar(Expr):
    """Reference to a function of the enclosing program (the callee of a function call)."""

    name: str
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        return UnknownType()


@dataclass(frozen=True, eq=False)
class ConstInt(Expr):
    value: int
    is_const_int: ClassVar[bool] = True  # how ir.types (which ir.expr imports) recognises a static extent
    dtype: DataType = DataType.INDEX
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        return ScalarType(self.dtype)

    def __repr__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, eq=False)
class ConstFloat(Expr):
    value: float
    dtype: DataType = DataType.FP32
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        return ScalarType(self.dtype)

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, eq=False)
class ConstBool(Expr):
    value: bool
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        return BOOL

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """Application of a registered op (``op`` is its name, e.g. ``"tile.slice"``) or of a program
    function (``op`` is a ``GlobalVar``). ``kwargs`` is an ordered tuple of (name, value) pairs whose
    values are plain immutable Python data (ints, floats, strs, bools, enums, tuples, AffineMaps) or
    expressions."""

    op: str | GlobalVar
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    type: Type = field(default_factory=UnknownType)
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def op_name(self) -> str:
        return self.op if isinstance(self.op, str) else self.op.name

    @property
    def is_function_call(self) -> bool:
        return isinstance(self.op, GlobalVar)

    def kwarg(self, name: str, default: Any = None) -> Any:
        for key, value in self.kwargs:
            if key == name:
                return value
        return default

    @property
    def kwargs_dict(self) -> dict[str, Any]:
        return dict(self.kwargs)

    def __repr__(self) -> str:
        return f"{self.op_name}({', '.join(map(repr, self.args))})"


@dataclass(frozen=True, eq=False)
class MakeTuple(Expr):
    elements: tuple[Expr, ...]
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        return TupleType(tuple(e.type for e in self.elements))


@dataclass(frozen=True, eq=False)
class TupleGetItem(Expr):
    tuple_value: Expr
    index: int
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    @property
    def type(self) -> Type:
        tt = self.tuple_value.type
        if isinstance(tt, TupleType) and 0 <= self.index < len(tt.types):
            return tt.types[self.index]
        return UnknownType()


# ---------------------------------------------------------------------------------------------
# Scalar arithmetic. Binary ops carry their result dtype; comparisons and logic give BOOL.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BinaryExpr(Expr):
    lhs: Expr
    rhs: Expr
    dtype: DataType = DataType.INDEX
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    symbol = "?"  # Python operator used by the printer
    is_function_form = False  # printed as pl.min(a, b) rather than a op b

    @property
    def type(self) -> Type:
        return ScalarType(self.dtype)

    def __repr__(self) -> str:
        return f"({self.lhs!r} {self.symbol} {self.rhs!r})"


class Add(BinaryExpr):
    symbol = "+"


class Sub(BinaryExpr):
    symbol = "-"


class Mul(BinaryExpr):
    symbol = "*"


class FloorDiv(BinaryExpr):
    symbol = "//"


class Mod(BinaryExpr):
    symbol = "%"


class Min(BinaryExpr):
    symbol = "min"
    is_function_form = True


class Max(BinaryExpr):
    symbol = "max"
    is_function_form = True


class _Compare(BinaryExpr):
    @property
    def type(self) -> Type:
        return BOOL


class Eq(_Compare):
    symbol = "=="


class Ne(_Compare):
    symbol = "!="


class Lt(_Compare):
    symbol = "<"


class Le(_Compare):
    symbol = "<="


class Gt(_Compare):
    symbol = ">"


class Ge(_Compare):
    symbol = ">="


class And(_Compare):
    symbol = "and"


class Or(_Compare):
    symbol = "or"


@dataclass(frozen=True, eq=False)
class UnaryExpr(Expr):
    operand: Expr
    dtype: DataType = DataType.INDEX
    span: Span = field(default=UNKNOWN_SPAN, repr=False)

    symbol = "?"

    @property
    def type(self) -> Type:
        return ScalarType(self.dtype)


class Neg(UnaryExpr):
    symbol = "-"


class Not(UnaryExpr):
    symbol = "not"

    @property
    def type(self) -> Type:
        return BOOL


BINARY_OPS: dict[str, type[BinaryExpr]] = {
    cls.symbol: cls for cls in (Add, Sub, Mul, FloorDiv, Mod, Min, Max, Eq, Ne, Lt, Le, Gt, Ge, And, Or)
}


def const_int(value: int, dtype: DataType = DataType.INDEX) -> ConstInt:
    return ConstInt(int(value), dtype)


def as_expr(value: Any) -> Expr:
    """Wrap a Python int / float / bool as a constant expression; expressions pass through."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return ConstBool(value)
    if isinstance(value, int):
        return ConstInt(value, DataType.INDEX)
    if isinstance(value, float):
        return ConstFloat(value, DataType.FP32)
    raise TypeError(f"cannot use {value!r} as an IR expression")


def int_value(expr: Expr) -> int | None:
    """The value of a ConstInt, else None."""
    return expr.value if isinstance(expr, ConstInt) else None


def scalar_dtype(expr: Expr) -> DataType | None:
    t = expr.type
    return t.dtype if isinstance(t, ScalarType) else None


INDEX_TYPE = INDEX
