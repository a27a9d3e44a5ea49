"""Compile-time constants: module-level / closure names, folding of literal arithmetic, dicts of
attributes, ``pl.affine_map`` and ``pl.<Enum>.<Member>`` values. Nothing is evaluated: folding walks the ast.
"""

from __future__ import annotations

import ast
import difflib
import math
from typing import Any

from tilefold.frontend.parse_base import _MISSING
from tilefold.ir.affine import AffineMap, AffineMapError
from tilefold.ir.expr import (
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
)
from tilefold.ir.stmt import (
    FunctionType,
)
from tilefold.ir.types import (
    AtomicType,
    DataType,
    MemorySpace,
    PadValue,
    PipeType,
)

_FOLD = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a ** b,
}

_PLAIN = (int, float, bool, str, type(None), DataType, MemorySpace, FunctionType, AffineMap, PadValue, AtomicType,
          PipeType)

#: folded integer constants stay below 2**MAX_CONST_BITS in magnitude (INDEX / INT64 hold 63 bits + sign):
#: folding ``10 ** 10 ** 10`` is refused before it is computed instead of running for ever
MAX_CONST_BITS = 63


def _int_pow_bits(a: int, b: int) -> float:
    """A lower bound on the bit length of ``a ** b`` (b >= 0), computed without the power: |a| >= 2**(L-1) for
    L = |a|.bit_length(). Below the limit the power is cheap to compute (then b <= 63), and its value is checked."""
    return b * (abs(a).bit_length() - 1) + 1 if abs(a) > 1 else 1.0


def _fold_bounded(op: type, a: int | float, b: int | float) -> int | float | None:
    """``a op b`` for the folded operators, or None when the result would not be a bounded constant (the caller
    reports it). Raises ZeroDivisionError like Python."""
    if op is ast.Pow and isinstance(a, int) and isinstance(b, int) and b > 0 and \
            _int_pow_bits(a, b) > MAX_CONST_BITS + 1:
        return None
    try:
        value = _FOLD[op](a, b)
    except OverflowError:
        return None
    if isinstance(value, complex):
        return None
    if isinstance(value, int) and value.bit_length() > MAX_CONST_BITS:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class _NotConst(Exception):
    """Raised by constant folding when a node is not a compile-time constant."""


# raised as the class, so each raise makes a fresh instance: re-raising one shared instance chains every raise's
# traceback onto it, which kept the frames (and the IR they hold) of every earlier parse alive
_NOT_CONST = _NotConst


def _plain_data(value: Any, depth: int = 0) -> Any:
    """Python data acceptable as a DSL constant (lists become tuples), else raise _NotConst."""
    if isinstance(value, _PLAIN):
        if type(value) not in (bool, int, float, str) and isinstance(value, (int, float, str)) \
                and not isinstance(value, (DataType, MemorySpace, FunctionType, PadValue, AtomicType)):
            raise _NOT_CONST  # a subclass of int / float / str: its methods are user code, never called
        return value
    from tilefold.frontend.dsl import DynamicDim

    if type(value) is DynamicDim:  # M = pl.dynamic("M"): a symbolic extent of the signatures that name it
        return value
    if isinstance(value, (list, tuple)) and depth < 8:
        return tuple(_plain_data(v, depth + 1) for v in value)
    import numpy as np

    if isinstance(value, np.integer):  # numpy scalars
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise _NOT_CONST




def _source_text(node: ast.AST, limit: int = 60) -> str:
    """A short rendering of ``node`` for messages (``ast.unparse`` of a huge tree is itself bounded here)."""
    try:
        text = ast.unparse(node)
    except (RecursionError, ValueError):
        return "(expression)"
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ConstantsMixin:
    """Folds ast nodes that denote compile-time constants."""

    def _lookup_const(self, name: str) -> Any:
        if name in self.consts:
            return self.consts[name]
        if self.const_lookup is not None:
            value = self.const_lookup(name)
            if value is not _MISSING:
                try:
                    value = _plain_data(value)
                except _NotConst:
                    self.__dict__.setdefault("_nonconst_names", {})[name] = None
                    return _MISSING
                self.consts[name] = value
                return value
        return _MISSING

    def _fold_number(self, node: ast.expr) -> int | float | None:
        """Value of a constant numeric expression (literals, constant names, + - * // % on them)."""
        t = type(node)
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > MAX_CONST_BITS:
                raise self.error(node, f"integer constant {str(v)[:24]}... is too large (more than "
                                       f"{MAX_CONST_BITS} bits)", hint="constants must fit a 64-bit integer")
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
            return None
        if t is ast.Name:
            if node.id in self.env:  # type: ignore[attr-defined]
                return None
            v = self._lookup_const(node.id)  # type: ignore[attr-defined]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
            return None
        if t is ast.Attribute and isinstance(node.value, ast.Name) and node.value.id == "math" \
                and node.value.id not in self.env and node.attr in ("inf", "pi", "e"):  # type: ignore[attr-defined]
            return float(getattr(math, node.attr))  # type: ignore[attr-defined]  (PyPTO's fillpad takes math.inf)
        if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):  # type: ignore[attr-defined]
            v = self._fold_number(node.operand)  # type: ignore[attr-defined]
            if v is None:
                return None
            return -v if type(node.op) is ast.USub else v  # type: ignore[attr-defined]
        if t is ast.BinOp and type(node.op) in _FOLD:  # type: ignore[attr-defined]
            a = self._fold_number(node.left)  # type: ignore[attr-defined]
            if a is None:
                return None
            b = self._fold_number(node.right)  # type: ignore[attr-defined]
            if b is None:
                return None
            try:
                value = _fold_bounded(type(node.op), a, b)  # type: ignore[attr-defined]
            except ZeroDivisionError:
                raise self.error(node, "division by zero in a constant expression",
                                 hint="fix the divisor; the expression is folded at parse time") from None
            if value is None:
                what = "overflows a float" if isinstance(a, float) or isinstance(b, float) else \
                    f"is too large (more than {MAX_CONST_BITS} bits)"
                raise self.error(node, f"constant expression {_source_text(node)} {what}",
                                 hint="constants are folded at parse time and must fit a 64-bit integer or a "
                                      "finite float")
            return value
        if t is ast.Call and isinstance(node.func, ast.Name) and node.func.id == "float" and len(  # type: ignore
                node.args) == 1 and isinstance(node.args[0], ast.Constant):  # type: ignore
            try:
                return float(node.args[0].value)  # type: ignore
            except (TypeError, ValueError):
                return None
        return None

    def _const(self, node: ast.expr, *, allow_error: bool = False) -> Any:
        """Compile-time Python data for ``node`` (attr values, decorator options). Raises _NotConst, or a
        ParseError when ``allow_error``."""
        try:
            return self._const_inner(node)
        except _NotConst:
            if allow_error:
                raise self.error(node, "expected a compile-time constant",
                                 hint="use literals, module constants, pl dtypes / memory spaces or lists of them"
                                 ) from None
            raise

    def _const_inner(self, node: ast.expr) -> Any:
        num = self._fold_number(node)
        if num is not None:
            return num
        t = type(node)
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if isinstance(v, (str, bool)) or v is None:
                return v
            raise _NOT_CONST
        if t is ast.Name:
            if node.id in self.env:  # type: ignore[attr-defined]
                raise _NOT_CONST
            v = self._lookup_const(node.id)  # type: ignore[attr-defined]
            if v is _MISSING:
                raise _NOT_CONST
            return v
        if t in (ast.List, ast.Tuple):
            return tuple(self._const_inner(e) for e in node.elts)  # type: ignore[attr-defined]
        if t is ast.Dict:
            return self._dict_pairs(node)  # type: ignore[arg-type]
        if t is ast.Attribute:
            return self._pl_attr(node)  # type: ignore[arg-type]
        if t is ast.Call:
            f = node.func  # type: ignore[attr-defined]
            if isinstance(f, ast.Attribute) and self._is_pl(f.value) and f.attr == "affine_map":
                return self._affine_map(node)  # type: ignore[arg-type]
            raise _NOT_CONST
        if t is ast.UnaryOp and isinstance(node.op, ast.Not):  # type: ignore[attr-defined]
            v = self._const_inner(node.operand)  # type: ignore[attr-defined]
            if isinstance(v, bool):
                return not v
        raise _NOT_CONST

    def _dict_pairs(self, node: ast.Dict) -> tuple[tuple[str, Any], ...]:
        pairs = []
        for k, v in zip(node.keys, node.values, strict=False):
            if k is None:
                raise self.error(v, "** in a dict is not supported", hint='write each entry: {"key": value}')
            key = self._const(k, allow_error=True)
            if not isinstance(key, str):
                raise self.error(k, "attribute names must be strings", hint='e.g. attrs={"key": 1}')
            pairs.append((key, self._const(v, allow_error=True)))
        return tuple(pairs)

    def _attrs_dict(self, node: ast.expr) -> tuple[tuple[str, Any], ...]:
        if not isinstance(node, ast.Dict):
            raise self.error(node, "attrs= must be a dict literal", hint='e.g. attrs={"key": 1}')
        return self._dict_pairs(node)

    def _affine_map(self, node: ast.Call) -> AffineMap:
        if len(node.args) != 1 or node.keywords or not (isinstance(node.args[0], ast.Constant)
                                                         and isinstance(node.args[0].value, str)):
            raise self.error(node, "pl.affine_map takes one string in MLIR syntax",
                             hint='e.g. pl.affine_map("(d0, d1) -> (d0, 0)")')
        try:
            return AffineMap.parse(node.args[0].value)
        except AffineMapError as exc:
            raise self.error(node.args[0], str(exc), hint='e.g. "(d0, d1) -> (d0, 0)"') from None

    def _pl_attr(self, node: ast.Attribute) -> Any:
        """``pl.FP32``, ``pl.Mem.Vec``, ``pl.FunctionType.InCore``, ``pl.parallel`` ..."""
        base = node.value
        if self._is_pl(base):
            name = node.attr
            if name in ("parallel", "reduction"):
                return name
            if name == "AUTO":  # PyPTO's "compiler-chosen" sentinel (pl.reserve_buffer(base=pl.AUTO)): no value
                return None
            if name in DataType.__members__:
                return DataType[name]
            if name.upper() in DataType.__members__ or name in ("Mem", "MemorySpace", "FunctionType", "tile"):
                raise _NOT_CONST
            close = difflib.get_close_matches(name, [d.name for d in DataType], n=1)
            if close:
                raise self.error(node, f"unknown dtype pl.{name}", hint=f"did you mean pl.{close[0]}?")
            raise _NOT_CONST
        if isinstance(base, ast.Attribute) and self._is_pl(base.value):
            if base.attr in ("Mem", "MemorySpace"):
                return self._mem(node)
            if base.attr == "FunctionType":
                try:
                    return FunctionType[node.attr]
                except KeyError:
                    raise self.error(node, f"unknown function type pl.FunctionType.{node.attr}",
                                     hint="one of " + ", ".join(t.name for t in FunctionType)) from None
            if base.attr == "DataType":
                return self._dtype(node)
            if base.attr in ("PadValue", "AtomicType", "PipeType"):  # fillpad / atomic stores / pipe syncs
                enum_type = {"PadValue": PadValue, "AtomicType": AtomicType, "PipeType": PipeType}[base.attr]
                try:
                    return enum_type[node.attr]
                except KeyError:
                    raise self.error(node, f"unknown pl.{base.attr}.{node.attr}",
                                     hint="one of " + ", ".join(f"pl.{base.attr}.{m.name}" for m in enum_type)
                                     ) from None
        raise _NOT_CONST

    def _const_of(self, value: Any, dtype: DataType, node: ast.AST) -> Expr:
        """A constant expression of ``value`` coerced to ``dtype``."""
        if isinstance(value, bool):
            return ConstBool(value, span=self.span(node))
        if dtype.is_float:
            return ConstFloat(float(value), dtype, span=self.span(node))
        if isinstance(value, float):
            return ConstFloat(value, DataType.FP32, span=self.span(node))
        return ConstInt(int(value), dtype, span=self.span(node))

