"""Print IR as ``pl`` DSL text that parses back (``tilefold.language.parse``) to a structurally equal IR.

``python_print(node)`` accepts a Program, Function, Stmt, Expr or Type.

Conventions (the parser accepts all of them, see docs/dsl.md):
- Names are unique per function: a repeated name gets a ``_1``, ``_2`` ... suffix.
- Every assignment to a tile / tensor / scalar / tuple is annotated with its full type, including
  ``pl.MemRef(space, base, byte_offset, size, address=...)`` and ``pl.TileView(...)`` when present.
- Constants print as literals when the parser would rebuild the very same constant (INDEX ints, FP32
  floats); otherwise as ``pl.const(value, dtype)``. Unfolded constant arithmetic prints its left operand as
  ``pl.const(...)`` so the parser does not fold it.
- Call kwargs equal to their registry default are omitted (the parser fills them back in); kwargs an op
  does not declare print under ``ir_attrs={...}``.
- Multi-result values print as a ``pl.Tuple[...]``-typed assignment followed by ``x = t[i]`` items, or as
  ``a, b = pl.tile.custom(...)`` when the items follow directly and their types are the inferred ones.
"""

from __future__ import annotations

import keyword
import math
import re
from typing import Any

from tilefold.ir.affine import AffineMap
from tilefold.ir.expr import (
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Max,
    Min,
    Not,
    TupleGetItem,
    UnaryExpr,
    Var,
)
from tilefold.ir.printing import register_printer
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
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
from tilefold.ir.types import (
    AtomicType,
    DataType,
    MemorySpace,
    MemRef,
    PadValue,
    PipeType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    UnknownType,
)
from tilefold.ops.registry import ParamKind, find_op
from tilefold.util.gc import no_gc

INDENT = "    "
EXTRA_KWARGS = "ir_attrs"
_RESERVED = set(keyword.kwlist) | set(keyword.softkwlist) | {
    "pl", "self", "min", "max", "float", "range", "tuple", "None", "True", "False", "print", "len",
}
_IDENT = re.compile(r"[^0-9A-Za-z_]")

# precedence of printed expressions
_P_OR, _P_AND, _P_NOT, _P_CMP, _P_ADD, _P_MUL, _P_UNARY, _P_ATOM = 1, 2, 3, 4, 6, 7, 8, 10
_BIN_PREC = {"or": _P_OR, "and": _P_AND, "==": _P_CMP, "!=": _P_CMP, "<": _P_CMP, "<=": _P_CMP, ">": _P_CMP,
             ">=": _P_CMP, "+": _P_ADD, "-": _P_ADD, "*": _P_MUL, "//": _P_MUL, "%": _P_MUL}


def python_print(node: Any) -> str:
    """``pl`` text for a Program, Function, Stmt, Expr or Type."""
    p = _Printer()
    if isinstance(node, Program):
        with no_gc():  # printing builds many short strings; cyclic GC passes would only rescan the IR
            return p.program(node)
    if isinstance(node, Function):
        p.function(node, 0)
        return "\n".join(p.lines) + "\n"
    if isinstance(node, Stmt):
        p.stmt(node, 0)
        return "\n".join(p.lines) + "\n"
    if isinstance(node, Expr):
        return p.expr(node)
    if isinstance(node, Type):
        return p.type(node)
    raise TypeError(f"python_print cannot print {type(node).__name__}")


def _sanitize(name: str) -> str:
    s = _IDENT.sub("_", name) or "v"
    if s[0].isdigit():
        s = "v" + s
    if s in _RESERVED:
        s = s + "_"
    return s


def _float_text(v: float) -> str:
    if math.isnan(v):
        return 'float("nan")'
    if math.isinf(v):
        return 'float("inf")' if v > 0 else '-float("inf")'
    return repr(float(v))


_ALWAYS_PRINTED = {"target_memory", "dtype", "shape"}


def _str_lit(s: str) -> str:
    if '"' not in s and "\\" not in s and s.isprintable():
        return f'"{s}"'
    return repr(s)


def _data_is_default(value: Any, default: Any) -> bool:
    if default is None:
        return False
    if type(value) is not type(default):
        return False
    return value == default



def _placement_options(attrs: tuple[tuple[str, Any], ...]) -> list[str]:
    """``level=pl.Level.X, role=pl.Role.Y`` of a hierarchy function / scope (frontend/hierarchy.py)."""
    d = dict(attrs)
    out = [f"level=pl.Level.{d['level']}"] if d.get("level") else []
    return out + ([f"role=pl.Role.{d['role']}"] if d.get("role") else [])

class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self._reset_names()
        self._op_params: dict[str, Any] = {}

    # ------------------------------------------------------------------ names

    def _reset_names(self) -> None:
        self.names: dict[Var, str] = {}
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}
        self._uses: dict[Var, int] | None = None
        self._uses_root: Stmt | None = None

    def define(self, var: Var) -> str:
        base = _sanitize(var.name)
        name = base
        if name in self.used:
            k = self.next_suffix.get(base, 1)
            name = f"{base}_{k}"
            while name in self.used:
                k += 1
                name = f"{base}_{k}"
            self.next_suffix[base] = k + 1
        self.used.add(name)
        self.names[var] = name
        return name

    def name(self, var: Var) -> str:
        n = self.names.get(var)
        if n is None:
            n = self.define(var)  # a free variable (printing a fragment)
        return n

    # ------------------------------------------------------------------ program / function

    def program(self, prog: Program) -> str:
        out = ["import tilefold.language as pl", "", ""]
        if prog.attrs:
            out.append(f"@pl.program(attrs={self.attrs_dict(prog.attrs)})")
        else:
            out.append("@pl.program")
        out.append(f"class {_sanitize(prog.name)}:")
        if not prog.functions:
            out.append(INDENT + "pass")
        for i, fn in enumerate(prog.functions):
            self.lines = []
            self.function(fn, 1)
            if i:
                out.append("")
            out.extend(self.lines)
        return "\n".join(out) + "\n"

    def function(self, fn: Function, level: int) -> None:
        self._reset_names()
        self._uses_root = fn.body
        ind = INDENT * level
        opts = [f"type=pl.FunctionType.{fn.func_type.name}"]
        opts += _placement_options(fn.attrs)
        rest = tuple((k, v) for k, v in fn.attrs if k not in ("level", "role"))
        if rest:
            opts.append(f"attrs={self.attrs_dict(rest)}")
        self.lines.append(f"{ind}@pl.function({', '.join(opts)})")
        params = ["self"]
        for v, d in zip(fn.params, fn.param_directions, strict=False):
            t = self.type(v.type)
            if d is ParamDirection.Out:
                t = f"pl.Out[{t}]"
            elif d is ParamDirection.InOut:
                t = f"pl.InOut[{t}]"
            params.append(f"{self.define(v)}: {t}")
        ret = ""
        if len(fn.return_types) == 1:
            ret = f" -> {self.type(fn.return_types[0])}"
        elif fn.return_types:
            ret = " -> tuple[" + ", ".join(self.type(t) for t in fn.return_types) + "]"
        self.lines.append(f"{ind}def {_sanitize(fn.name)}({', '.join(params)}){ret}:")
        self.body(fn.body, level + 1)

    # ------------------------------------------------------------------ types

    def type(self, t: Type, like: Type | None = None) -> str:
        """Annotation text of ``t``. ``like`` is the type the parser would infer without the annotation:
        when it has a tile view that ``t`` lacks, ``pl.TileView()`` says so explicitly."""
        if isinstance(t, TileType):
            items = [self.shape(t.shape), f"pl.{t.dtype.name}"]
            if t.memory_space is not None:
                items.append(f"pl.Mem.{t.memory_space.name}")
            if t.memref is not None:
                items.append(self.memref(t.memref))
            if t.tile_view is not None:
                items.append(self.tile_view(t.tile_view))
            elif isinstance(like, TileType) and like.tile_view is not None:
                items.append("pl.TileView()")
            return f"pl.Tile[{', '.join(items)}]"
        if isinstance(t, TensorType):
            return f"pl.Tensor[{self.shape(t.shape)}, pl.{t.dtype.name}]"
        if isinstance(t, ScalarType):
            return f"pl.Scalar[pl.{t.dtype.name}]"
        if isinstance(t, TupleType):
            likes = like.types if isinstance(like, TupleType) and len(like.types) == len(t.types) else ()
            return "pl.Tuple[" + ", ".join(
                self.type(x, likes[i] if likes else None) for i, x in enumerate(t.types)) + "]"
        return "None"

    def shape(self, shape: tuple[Expr, ...]) -> str:
        return "[" + ", ".join(self.expr(e) for e in shape) + "]"

    def memref(self, m: MemRef) -> str:
        off = "None" if m.byte_offset is None else self.expr(m.byte_offset)
        s = f"pl.MemRef(pl.Mem.{m.memory_space.name}, {_str_lit(m.base)}, {off}, {m.size!r}"
        if m.address is not None:
            s += f", address={m.address!r}"
        return s + ")"

    def tile_view(self, v: TileView) -> str:
        parts = []
        if v.valid_shape is not None:
            parts.append(f"valid_shape={self.shape(v.valid_shape)}")
        for f in ("blayout", "slayout", "fractal", "pad"):
            val = getattr(v, f)
            if val is not None:
                parts.append(f"{f}={self.data(val)}")
        return f"pl.TileView({', '.join(parts)})"

    # ------------------------------------------------------------------ statements

    def body(self, stmt: Stmt | None, level: int, results: tuple[Var, ...] = (),
             result_types: tuple[Type, ...] | None = None, annotate: bool = True) -> None:
        stmts = _flat(stmt)
        if not stmts:
            self.lines.append(INDENT * level + "pass")
            return
        i = 0
        n = len(stmts)
        while i < n:
            s = stmts[i]
            if isinstance(s, YieldStmt) and i == n - 1:
                self.yield_stmt(s, level, results, result_types, annotate)
            elif isinstance(s, AssignStmt) and isinstance(s.var.type, TupleType):
                i = self.tuple_assign(stmts, i, level)
                continue
            else:
                self.stmt(s, level)
            i += 1

    def stmt(self, s: Stmt, level: int) -> None:
        ind = INDENT * level
        if isinstance(s, AssignStmt):
            value = self.expr(s.value)
            name = self.define(s.var)
            if isinstance(s.var.type, UnknownType):
                self.lines.append(f"{ind}{name} = {value}")
            else:
                self.lines.append(f"{ind}{name}: {self.type(s.var.type, s.value.type)} = {value}")
        elif isinstance(s, EvalStmt):
            self.lines.append(f"{ind}{self.expr(s.expr)}")
        elif isinstance(s, SeqStmts):
            for x in _flat(s):
                self.stmt(x, level)
        elif isinstance(s, ForStmt):
            self.for_stmt(s, level)
        elif isinstance(s, WhileStmt):
            self.while_stmt(s, level)
        elif isinstance(s, IfStmt):
            self.if_stmt(s, level)
        elif isinstance(s, ReturnStmt):
            if not s.values:
                self.lines.append(f"{ind}return")
            else:
                self.lines.append(f"{ind}return {', '.join(self.expr(v) for v in s.values)}")
        elif isinstance(s, YieldStmt):
            self.lines.append(f"{ind}pl.yield_({', '.join(self.expr(v) for v in s.values)})")
        elif isinstance(s, ScopeStmt):  # the jit form before OutlineIncoreScopes (readable, not re-parsable)
            opts = "".join(f", {o}" for o in _placement_options(s.attrs)) + "".join(
                f", {k}={v!r}" for k, v in s.attrs if k not in ("level", "role"))
            self.lines.append(f"{ind}with pl.at(level=pl.Level.{s.level}{opts}):")
            self.stmt(s.body, level + 1)
        else:
            raise TypeError(f"python_print cannot print statement {type(s).__name__}")

    def tuple_assign(self, stmts: list[Stmt], i: int, level: int) -> int:
        """Print a tuple-typed assignment; use ``a, b = ...`` sugar when the next statements unpack it."""
        s = stmts[i]
        assert isinstance(s, AssignStmt)
        tt = s.var.type
        assert isinstance(tt, TupleType)
        k = len(tt.types)
        items = stmts[i + 1:i + 1 + k]
        sugar = len(items) == k and k > 0
        if sugar:
            for j, it in enumerate(items):
                if not (isinstance(it, AssignStmt) and isinstance(it.value, TupleGetItem)
                        and it.value.tuple_value is s.var and it.value.index == j
                        and _type_equal(it.var.type, tt.types[j])):
                    sugar = False
                    break
        if sugar:
            uses = self._use_counts()
            if uses is None or uses.get(s.var, 0) != k:
                sugar = False
        if not sugar:
            self.stmt(s, level)
            return i + 1
        value = self.expr(s.value)
        self.names[s.var] = "<tuple>"
        targets = ", ".join(self.define(it.var) for it in items)  # type: ignore[union-attr]
        self.lines.append(f"{INDENT * level}{targets} = {value}")
        return i + 1 + k

    def _use_counts(self) -> dict[Var, int] | None:
        if self._uses is None and self._uses_root is not None:
            from tilefold.ir.visitor import collect_uses

            self._uses = collect_uses(self._uses_root)
        return self._uses

    def yield_stmt(self, s: YieldStmt, level: int, results: tuple[Var, ...], result_types: tuple[Type, ...] | None,
                   annotate: bool) -> None:
        ind = INDENT * level
        vals = ", ".join(self.expr(v) for v in s.values)
        if not results or len(results) != len(s.values):
            self.lines.append(f"{ind}pl.yield_({vals})")
            return
        names = [self.names.get(r) or self.define(r) for r in results]
        if len(results) == 1:
            if annotate and not isinstance(results[0].type, UnknownType):
                like = result_types[0] if result_types else None
                self.lines.append(f"{ind}{names[0]}: {self.type(results[0].type, like)} = pl.yield_({vals})")
            else:
                self.lines.append(f"{ind}{names[0]} = pl.yield_({vals})")
            return
        if annotate and result_types is not None and not all(
                _type_equal(r.type, t) for r, t in zip(results, result_types, strict=False)):
            # tuple targets cannot be annotated in Python: give the result types as a keyword
            typed = (self.type(r.type, t) for r, t in zip(results, result_types, strict=False))
            vals += ", types=[" + ", ".join(typed) + "]"
        self.lines.append(f"{ind}{', '.join(names)} = pl.yield_({vals})")

    def _range_args(self, s: ForStmt) -> list[str]:
        start, stop, step = s.start, s.stop, s.step
        zero = isinstance(start, ConstInt) and start.value == 0 and start.dtype is DataType.INDEX
        one = isinstance(step, ConstInt) and step.value == 1 and step.dtype is DataType.INDEX
        if zero and one:
            return [self.expr(stop)]
        if one:
            return [self.expr(start), self.expr(stop)]
        return [self.expr(start), self.expr(stop), self.expr(step)]

    def _iter_types_kw(self, iter_args: tuple[IterArg, ...]) -> list[str]:
        if all(ia.init is not None and _type_equal(ia.type, ia.init.type) for ia in iter_args):
            return []
        return ["iter_types=[" + ", ".join(self.type(ia.type, ia.init.type if ia.init is not None else None)
                                           for ia in iter_args) + "]"]

    def for_stmt(self, s: ForStmt, level: int) -> None:
        ind = INDENT * level
        args = self._range_args(s)
        inits = [self.expr(ia.init) if ia.init is not None else "None" for ia in s.iter_args]
        lv = self.define(s.loop_var)
        kws: list[str] = []
        if s.iter_args:
            kws.append("init_values=(" + ", ".join(inits) + ("," if len(inits) == 1 else "") + ")")
        attrs = list(s.attrs)
        if attrs and attrs[0][0] == "stage" and s.kind is ForKind.Pipeline:
            kws.append(f"stage={self.data(attrs[0][1])}")
            attrs = attrs[1:]
        if attrs:
            kws.append(f"attrs={self.attrs_dict(tuple(attrs))}")
        kws.extend(self._iter_types_kw(s.iter_args))
        if s.iter_args:
            ias = ", ".join(self.define(ia) for ia in s.iter_args)
            target = f"{lv}, ({ias}{',' if len(s.iter_args) == 1 else ''})"
        else:
            target = lv
        self.lines.append(f"{ind}for {target} in pl.{s.kind.value}({', '.join(args + kws)}):")
        self.body(s.body, level + 1, s.return_vars, tuple(ia.type for ia in s.iter_args))

    def while_stmt(self, s: WhileStmt, level: int) -> None:
        ind = INDENT * level
        if not s.iter_args:
            self.lines.append(f"{ind}while {self.expr(s.condition)}:")
            self.body(s.body, level + 1)
            return
        inits = [self.expr(ia.init) if ia.init is not None else "None" for ia in s.iter_args]
        kws = ["init_values=(" + ", ".join(inits) + ("," if len(inits) == 1 else "") + ")"]
        kws.extend(self._iter_types_kw(s.iter_args))
        ias = ", ".join(self.define(ia) for ia in s.iter_args)
        target = f"({ias}{',' if len(s.iter_args) == 1 else ''})"
        self.lines.append(f"{ind}for {target} in pl.while_({', '.join(kws)}):")
        self.lines.append(f"{ind}{INDENT}pl.cond({self.expr(s.condition)})")
        self.body(s.body, level + 1, s.return_vars, tuple(ia.type for ia in s.iter_args))

    def if_stmt(self, s: IfStmt, level: int) -> None:
        ind = INDENT * level
        if s.attrs:  # a tagged if: `if pl.cond(cond, attrs={...}):`
            self.lines.append(f"{ind}if pl.cond({self.expr(s.condition)}, attrs={self.attrs_dict(s.attrs)}):")
        else:
            self.lines.append(f"{ind}if {self.expr(s.condition)}:")
        # the then branch defines the result names (annotated); the else branch reuses them
        then = _flat(s.then_body)
        yielded = tuple(v.type for v in then[-1].values) if then and isinstance(then[-1], YieldStmt) else None
        self.body(s.then_body, level + 1, s.return_vars, yielded)
        if s.else_body is not None:
            self.lines.append(f"{ind}else:")
            self.body(s.else_body, level + 1, s.return_vars, annotate=False)

    # ------------------------------------------------------------------ expressions

    def expr(self, e: Expr) -> str:
        return self._expr(e)[0]

    def _expr(self, e: Expr) -> tuple[str, int]:
        t = type(e)
        if t is Var or t is IterArg or isinstance(e, Var):
            return self.name(e), _P_ATOM  # type: ignore[arg-type]
        if t is ConstInt:
            if e.dtype is DataType.INDEX:  # type: ignore[attr-defined]
                v = e.value  # type: ignore[attr-defined]
                return str(v), (_P_UNARY if v < 0 else _P_ATOM)
            return f"pl.const({e.value}, pl.{e.dtype.name})", _P_ATOM  # type: ignore[attr-defined]
        if t is ConstFloat:
            if e.dtype is DataType.FP32:  # type: ignore[attr-defined]
                txt = _float_text(e.value)  # type: ignore[attr-defined]
                return txt, (_P_UNARY if txt.startswith("-") else _P_ATOM)
            return f"pl.const({_float_text(e.value)}, pl.{e.dtype.name})", _P_ATOM  # type: ignore[attr-defined]
        if t is ConstBool:
            return repr(e.value), _P_ATOM  # type: ignore[attr-defined]
        if t is Call:
            return self.call(e), _P_ATOM  # type: ignore[arg-type]
        if isinstance(e, BinaryExpr):
            return self.binary(e)
        if isinstance(e, UnaryExpr):
            if isinstance(e, Not):
                txt, p = self._expr(e.operand)
                return f"not {txt if p >= _P_NOT else '(' + txt + ')'}", _P_NOT
            txt = self._operand_text(e.operand, None, _P_UNARY)
            return f"-{txt}", _P_UNARY
        if t is MakeTuple:
            return "pl.make_tuple(" + ", ".join(self.expr(x) for x in e.elements) + ")", _P_ATOM  # type: ignore
        if t is TupleGetItem:
            txt, p = self._expr(e.tuple_value)  # type: ignore[attr-defined]
            return f"{txt}[{e.index}]", _P_ATOM  # type: ignore[attr-defined]
        if t is GlobalVar:
            return f"self.{_sanitize(e.name)}", _P_ATOM  # type: ignore[attr-defined]
        raise TypeError(f"python_print cannot print expression {t.__name__}")

    def _operand_text(self, e: Expr, other: Expr | None, min_prec: int) -> str:
        """Text of a binary/unary operand; constants are printed so the parser rebuilds them exactly."""
        if isinstance(e, (ConstInt, ConstFloat)):
            literal_ok = self._literal_rebuilds(e, other)
            if not literal_ok:
                return f"pl.const({self._num(e)}, pl.{e.dtype.name})"
        txt, p = self._expr(e)
        return txt if p >= min_prec else f"({txt})"

    @staticmethod
    def _num(e: ConstInt | ConstFloat) -> str:
        return str(e.value) if isinstance(e, ConstInt) else _float_text(e.value)

    @staticmethod
    def _literal_rebuilds(c: ConstInt | ConstFloat, other: Expr | None) -> bool:
        """Would the parser rebuild ``c`` from its bare literal next to ``other``?"""
        if other is None or isinstance(other, (ConstInt, ConstFloat, ConstBool)):
            return False  # literal-only arithmetic would be folded
        ot = other.type
        if not isinstance(ot, ScalarType):
            return False
        d = ot.dtype
        if isinstance(c, ConstInt):
            want = d if not d.is_float else None
            if d is DataType.BOOL:
                want = DataType.INDEX
            return want is c.dtype
        # float literal: coerced to d when d is a float type, else FP32
        return c.dtype is (d if d.is_float else DataType.FP32) and not math.isnan(c.value)

    def binary(self, e: BinaryExpr) -> tuple[str, int]:
        if e.is_function_form or isinstance(e, (Min, Max)):
            name = "min" if isinstance(e, Min) else "max"
            lhs = self._operand_text(e.lhs, e.rhs, 0)
            rhs = self._operand_text(e.rhs, e.lhs, 0)
            return f"pl.{name}({lhs}, {rhs})", _P_ATOM
        sym = e.symbol
        prec = _BIN_PREC[sym]
        if sym in ("and", "or"):
            lt, lp = self._expr(e.lhs)
            rt, rp = self._expr(e.rhs)
            lhs = lt if lp >= prec else f"({lt})"
            rhs = rt if rp > prec else f"({rt})"
            return f"{lhs} {sym} {rhs}", prec
        lhs = self._operand_text(e.lhs, e.rhs, prec if prec != _P_CMP else prec + 1)
        rhs = self._operand_text(e.rhs, e.lhs, prec + 1)
        return f"{lhs} {sym} {rhs}", prec

    def call(self, c: Call) -> str:
        if isinstance(c.op, GlobalVar):
            args = ", ".join(self.expr(a) for a in c.args)
            return f"self.{_sanitize(c.op.name)}({args})"
        op = find_op(c.op)
        if op is None:  # unregistered: print positionally (the parser will reject it with a clear error)
            parts = [self.expr(a) for a in c.args] + [f"{k}={self.data(v)}" for k, v in c.kwargs]
            return f"pl.{c.op}({', '.join(parts)})"
        return self._op_call(c, op)

    def _op_call(self, c: Call, op: Any) -> str:
        kwargs = dict(c.kwargs)
        declared = {p.name for p in op.params}
        seg_sizes = kwargs.get("operand_segment_sizes")
        parts: list[str] = []
        positional = True
        ai = 0
        seg_i = 0
        for idx, p in enumerate(op.params):
            if p.name == "operand_segment_sizes":
                continue
            if p.kind is ParamKind.ATTR:
                if p.name not in kwargs:
                    positional = False
                    continue
                v = kwargs[p.name]
                if p.name not in _ALWAYS_PRINTED and _data_is_default(v, p.default):
                    positional = False
                    continue
                txt = self.data(v, attr=p.name)
                if positional and idx == 0 and (p.name == "symbol" or c.op == "tensor.create"):
                    parts.append(txt)
                else:
                    positional = False
                    parts.append(f"{p.name}={txt}")
            elif p.kind is ParamKind.TILE_LIST:
                size = seg_sizes[seg_i] if seg_sizes is not None and seg_i < len(seg_sizes) else 0
                seg_i += 1
                seg = c.args[ai:ai + size]
                ai += size
                positional = False
                if size or p.required:
                    parts.append(f"{p.name}=[" + ", ".join(self.expr(a) for a in seg) + "]")
            else:
                if ai >= len(c.args):
                    positional = False
                    continue
                a = c.args[ai]
                ai += 1
                if p.kind is ParamKind.TUPLE and isinstance(a, MakeTuple):
                    txt = "[" + ", ".join(self.expr(x) for x in a.elements) + "]"
                else:
                    txt = self.expr(a)
                parts.append(txt if positional else f"{p.name}={txt}")
        extra = [(k, v) for k, v in c.kwargs if k not in declared]
        if extra:
            parts.append(f"{EXTRA_KWARGS}={self.attrs_dict(tuple(extra))}")
        name = c.op
        if name == "tile.store":
            return f"pl.store({', '.join(parts)})"
        if name == "tensor.create":
            return f"pl.create_tensor({', '.join(parts)})"
        return f"pl.{name}({', '.join(parts)})"

    # ------------------------------------------------------------------ attribute data

    def attrs_dict(self, attrs: tuple[tuple[str, Any], ...]) -> str:
        return "{" + ", ".join(f"{_str_lit(k)}: {self.data(v)}" for k, v in attrs) + "}"

    def data(self, v: Any, attr: str | None = None) -> str:
        if isinstance(v, str):
            if attr == "iterator_types" and v in ("parallel", "reduction"):
                return f"pl.{v}"
            return _str_lit(v)
        if v is None or isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            return repr(v)
        if isinstance(v, float):
            return _float_text(v)
        if isinstance(v, DataType):
            return f"pl.{v.name}"
        if isinstance(v, MemorySpace):
            return f"pl.Mem.{v.name}"
        if isinstance(v, FunctionType):
            return f"pl.FunctionType.{v.name}"
        if isinstance(v, (PadValue, AtomicType, PipeType)):
            return f"pl.{type(v).__name__}.{v.name}"
        if isinstance(v, AffineMap):
            return f'pl.affine_map("{v}")'
        if isinstance(v, (ConstInt, ConstFloat)):
            return f"pl.const({self._num(v)}, pl.{v.dtype.name})"
        if isinstance(v, Expr):
            return self.expr(v)
        if isinstance(v, tuple):
            if attr == "attrs" and v and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str)
                                             for x in v):
                return self.attrs_dict(v)
            return "[" + ", ".join(self.data(x, attr) for x in v) + "]"
        if isinstance(v, list):
            return "[" + ", ".join(self.data(x, attr) for x in v) + "]"
        if isinstance(v, dict):
            return self.attrs_dict(tuple(v.items()))
        raise TypeError(f"python_print cannot print attribute value {v!r}")


def _flat(stmt: Stmt | None) -> list[Stmt]:
    if stmt is None:
        return []
    if isinstance(stmt, SeqStmts):
        if not any(isinstance(s, SeqStmts) for s in stmt.stmts):
            return list(stmt.stmts)
        out: list[Stmt] = []
        for s in stmt.stmts:
            out.extend(_flat(s))
        return out
    return [stmt]


def _expr_equal(a: Expr, b: Expr) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (ConstInt, ConstFloat, ConstBool)):
        return a.value == b.value and a.type == b.type  # type: ignore[attr-defined]
    if isinstance(a, BinaryExpr):
        return a.dtype is b.dtype and _expr_equal(a.lhs, b.lhs) and _expr_equal(a.rhs, b.rhs)  # type: ignore
    return False


def _shape_equal(a: tuple[Expr, ...] | None, b: tuple[Expr, ...] | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(_expr_equal(x, y) for x, y in zip(a, b, strict=False))


def _type_equal(a: Type, b: Type) -> bool:
    """Do two types print identically (used to decide when a sugar form loses nothing)?"""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, TileType):
        assert isinstance(b, TileType)
        if not (a.dtype is b.dtype and a.memory_space is b.memory_space and _shape_equal(a.shape, b.shape)):
            return False
        if (a.memref is None) != (b.memref is None) or (a.tile_view is None) != (b.tile_view is None):
            return False
        if a.memref is not None and b.memref is not None:
            ma, mb = a.memref, b.memref
            if not (ma.memory_space is mb.memory_space and ma.base == mb.base and ma.size == mb.size
                    and ma.address == mb.address):
                return False
            if (ma.byte_offset is None) != (mb.byte_offset is None):
                return False
            if ma.byte_offset is not None and not _expr_equal(ma.byte_offset, mb.byte_offset):  # type: ignore
                return False
        if a.tile_view is not None and b.tile_view is not None:
            va, vb = a.tile_view, b.tile_view
            if (va.blayout, va.slayout, va.fractal, va.pad) != (vb.blayout, vb.slayout, vb.fractal, vb.pad):
                return False
            if not _shape_equal(va.valid_shape, vb.valid_shape):
                return False
        return True
    if isinstance(a, TensorType):
        assert isinstance(b, TensorType)
        return a.dtype is b.dtype and _shape_equal(a.shape, b.shape)
    if isinstance(a, ScalarType):
        return a.dtype is b.dtype  # type: ignore[attr-defined]
    if isinstance(a, TupleType):
        assert isinstance(b, TupleType)
        return len(a.types) == len(b.types) and all(_type_equal(x, y) for x, y in zip(a.types, b.types, strict=False))
    return True


register_printer(python_print)
