"""Expressions and operator dispatch: names, literals, scalar arithmetic and comparisons, calls of
DSL constructs (``pl.min``, ``pl.const`` ...), calls of other functions of the program, and calls of registry
ops (``pl.tile.add``, ``pl.add`` ...) with their operand / attribute binding and type inference.
"""

from __future__ import annotations

import ast
import difflib
import enum
from typing import Any

from tilefold.errors import TilefoldError, TypeInferenceError
from tilefold.frontend.annotations import _describe, _same_expr, _shape_str
from tilefold.frontend.constants import MAX_CONST_BITS, _NotConst
from tilefold.frontend.parse_base import _INDEX, _MISSING
from tilefold.frontend.split_aiv import boundary_call, pipe_attrs, record_push
from tilefold.frontend.statements import _LOOP_KINDS
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
)
from tilefold.ir.types import (
    DataType,
    MemorySpace,
    ScalarType,
    TensorType,
    TileType,
    TupleType,
    Type,
    UnknownType,
)
from tilefold.ops.cross_core_ops import BOUNDARY_OPS
from tilefold.ops.pipe_setup import SETUP_OPS
from tilefold.ops.registry import OpDef, OpKind, ParamKind, find_op, make_call

_BINOPS: dict[type, type[BinaryExpr]] = {ast.Add: Add, ast.Sub: Sub, ast.Mult: Mul, ast.FloorDiv: FloorDiv,
                                         ast.Mod: Mod}

#: Python's arithmetic operators on Tile / Tensor operands -> the op ``pl.<name>`` builds (PyPTO's operator table)
_ARRAY_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}

_CMPOPS: dict[type, type[BinaryExpr]] = {ast.Eq: Eq, ast.NotEq: Ne, ast.Lt: Lt, ast.LtE: Le, ast.Gt: Gt,
                                         ast.GtE: Ge}


_OP_ALIASES = {"store": "tile.store", "load": "tile.load", "create_tensor": "tensor.create", "write": "tensor.write",
               "read": "tensor.read", "create_tile": "tile.create"}


# pl.<name> entries that are DSL constructs, not op aliases
_DSL_NAMES = {"range", "pipeline", "parallel", "unroll", "while_", "yield_", "cond", "min", "max", "const",
              "make_tuple", "affine_map"}


# the reserved call keyword carrying call kwargs an op does not declare (pass markers such as tiled_op)
EXTRA_KWARGS = "ir_attrs"


def _common(a: DataType, b: DataType) -> DataType:
    if a is b:
        return a
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a is DataType.INDEX or b is DataType.INDEX:
        return DataType.INDEX
    return a if a.bits >= b.bits else b


def _signature_str(opname: str, op: OpDef) -> str:
    parts = []
    for p in op.params:
        if p.name == "operand_segment_sizes":
            continue
        s = p.name
        if p.kind is ParamKind.TILE_LIST:
            s += "=[...]"
        elif p.is_attr or not p.required:
            s += "=" + ("..." if p.default is None else repr(p.default))
        parts.append(s)
    return f"pl.{opname}({', '.join(parts)})"




#: the deepest expression the parser accepts; deeper ones would exhaust the Python stack here or in the passes
MAX_EXPR_DEPTH = 100


def _is_unified(p: Any, node: ast.Call) -> bool:
    """``pl.<op>(...)`` (not ``pl.tile.<op>`` / ``pl.tensor.<op>``): PyPTO's unified spelling, which dispatches on
    the operand's kind."""
    f = node.func
    return isinstance(f, ast.Attribute) and p._is_pl(f.value)


def _with_extents(t: Type, pairs: list[tuple[Expr, Expr]]) -> Type:
    """``t`` with the extents that are one of the ``pairs``' variables replaced by its expression."""
    import dataclasses

    shape = getattr(t, "shape", None)
    if shape is None or not isinstance(t, (TensorType, TileType)):
        return t
    new = tuple(next((e2 for v, e2 in pairs if e is v), e) for e in shape)
    return t if all(a is b for a, b in zip(new, shape, strict=True)) else dataclasses.replace(t, shape=new)


def _python_axes(attrs: dict[str, Any], rank: int) -> dict[str, Any]:
    """``pl.transpose(x, -2, -1)``: negative axes count from the end, as in Python (the IR keeps them >= 0)."""
    out = dict(attrs)
    for key in ("axis1", "axis2"):
        a = out.get(key)
        if isinstance(a, int) and not isinstance(a, bool) and -rank <= a < 0:
            out[key] = a + rank
    return out


def _scalar_form(opname: str) -> str | None:
    """The op a scalar right operand dispatches ``opname`` to (``tile.add`` -> ``tile.adds``): the registry's
    ``scalar_form`` of the tensor op of that name, in ``opname``'s namespace."""
    ns, _, base = opname.partition(".")
    decl = find_op(f"tensor.{base}")
    form = decl.extra.get("scalar_form") if decl is not None else None
    return f"{ns}.{form}" if form and find_op(f"{ns}.{form}") is not None else None


def _valid_rows_cols(node: ast.Call) -> ast.Call:
    """PyPTO's ``pl.set_validshape(tile, valid_rows, valid_cols)``: the registry's ``(tile, [rows, cols])``."""
    pair = ast.copy_location(ast.List(elts=list(node.args[1:]), ctx=ast.Load()), node.args[1])
    return ast.copy_location(ast.Call(func=node.func, args=[node.args[0], pair], keywords=[]), node)


class ExpressionsMixin:
    """Parses expressions into ``ir`` expressions and op calls."""

    def _expr(self, node: ast.expr) -> Expr:
        pre = self.__dict__.get("_pre")
        if pre:  # an operand a statement form already parsed (a subscript write's value)
            given = pre.pop(id(node), None)
            if given is not None:
                return given
        depth = self.__dict__.get("_expr_depth", 0)
        if depth >= MAX_EXPR_DEPTH:
            raise self.error(node, f"expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)",
                             hint="split the expression into several assignments (e.g. partial sums)")
        self._expr_depth = depth + 1
        try:
            return self._expr_node(node)
        finally:
            self._expr_depth = depth

    def _expr_node(self, node: ast.expr) -> Expr:
        t = type(node)
        if t is ast.Name:
            v = self.env.get(node.id)  # type: ignore[attr-defined]
            if v is not None:
                return v
            value = self._lookup_const(node.id)  # type: ignore[attr-defined]
            if value is _MISSING:
                if node.id in self.__dict__.get("_nonconst_names", {}):  # type: ignore[attr-defined]
                    raise self.error(node, f"{node.id!r} is not a compile-time constant",  # type: ignore
                                     hint="module-level names used in a kernel must be int / float / bool "
                                          "literals or lists of them (the parser never runs your code)")
                raise self.error(node, f"use of undefined name {node.id!r}",  # type: ignore[attr-defined]
                                 hint=self._undefined_hint(node.id))  # type: ignore[attr-defined]
            return self._value_expr(value, node)
        if t is ast.Call:
            return self._call(node)  # type: ignore[arg-type]
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if isinstance(v, (bool, int, float)):
                return self._value_expr(v, node)
            raise self.error(node, f"unsupported constant {v!r} in an expression",
                             hint="expressions take int, float and bool constants; strings and None only appear "
                                  "as op attributes")
        if t is ast.BinOp:
            return self._binop(node)  # type: ignore[arg-type]
        if t is ast.UnaryOp:
            return self._unary(node)  # type: ignore[arg-type]
        if t is ast.Compare:
            return self._compare(node)  # type: ignore[arg-type]
        if t is ast.BoolOp:
            vals = [self._bool_operand(e) for e in node.values]  # type: ignore[attr-defined]
            cls = And if isinstance(node.op, ast.And) else Or  # type: ignore[attr-defined]
            out = vals[0]
            for v in vals[1:]:
                out = cls(out, v, DataType.BOOL, span=self.span(node))
            return out
        if t is ast.Subscript:
            extent = self._shape_extent(node)  # type: ignore[arg-type]
            if extent is not None:
                return extent
            base = self._expr(node.value)  # type: ignore[attr-defined]
            if isinstance(base.type, (TileType, TensorType)) and not any(
                    isinstance(e, ast.Slice) for e in (node.slice.elts if isinstance(node.slice, ast.Tuple)
                                                       else [node.slice])):
                # t[i, j]: one element, read by the scalar unit (tile.read / tensor.read)
                items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                idx = MakeTuple(tuple(self._index_expr(e) for e in items), span=self.span(node.slice))
                opname = "tile.read" if isinstance(base.type, TileType) else "tensor.read"
                return self._finish_call(node, opname, find_op(opname), [base, idx], {}, ())
            if not isinstance(base.type, TupleType):
                raise self.error(node, f"cannot index a value of type {_describe(base.type)}",
                                 hint="use pl.tile.slice / pl.tile.extract for tile windows")
            idx = self._fold_number(node.slice)  # type: ignore[attr-defined]
            if not isinstance(idx, int) or not 0 <= idx < len(base.type.types):
                raise self.error(node.slice, f"tuple index must be a constant in [0, {len(base.type.types)})",  # type: ignore
                                 hint="index multi-result values with an integer literal, e.g. res[0]")
            return TupleGetItem(base, idx, span=self.span(node))
        if t is ast.Attribute:
            try:
                self._pl_attr(node)  # type: ignore[arg-type]
            except _NotConst:
                pass
            raise self.error(node, "this attribute is not a value here",
                             hint="dtypes and memory spaces are op options, e.g. target_memory=pl.Mem.Vec")
        if t in (ast.List, ast.Tuple):
            raise self.error(node, "a list is only allowed as an op argument (offsets, shapes, ins=...)",
                             hint="use pl.make_tuple(a, b) for a tuple value")
        raise self.error(node, f"unsupported Python expression in a kernel: {t.__name__}",
                         hint="kernels use names, constants, arithmetic, comparisons and pl.* / self.* calls")

    def _undefined_hint(self, name: str) -> str:
        if name in getattr(self, "_scope_locals", ()):
            return (f"{name!r} is a tile or scalar of an earlier pl.at scope: only tensors "
                    "cross out of it; compute it as a tensor there (pl.add(a, b) ...), or compute it in this scope")
        close = difflib.get_close_matches(name, list(self.env), n=1)
        if close:
            return f"did you mean {close[0]!r}? variables must be assigned before use"
        return "assign it before use (module constants must be int / float / list literals)"

    def _value_expr(self, value: Any, node: ast.AST) -> Expr:
        if isinstance(value, bool):
            return ConstBool(value, span=self.span(node))
        if isinstance(value, int):
            if value.bit_length() > MAX_CONST_BITS:
                raise self.error(node, f"integer constant {str(value)[:24]}... is too large (more than "
                                       f"{MAX_CONST_BITS} bits)", hint="constants must fit a 64-bit integer")
            return ConstInt(value, _INDEX, span=self.span(node))
        if isinstance(value, float):
            return ConstFloat(value, DataType.FP32, span=self.span(node))
        raise self.error(node, f"constant {value!r} cannot be used as a scalar value here",
                         hint="use an int, float or bool, or pl.const(value, dtype)")

    def _bool_operand(self, node: ast.expr) -> Expr:
        e = self._expr(node)
        if not isinstance(e.type, ScalarType):
            raise self.error(node, f"expected a scalar condition, got {_describe(e.type)}",
                             hint="compare scalars, e.g. `if b < 4:`; a tile cannot be a condition")
        return e

    def _dim(self, node: ast.Call) -> Expr:
        """``pl.dim(t, axis)`` / ``pl.tensor.dim(t, axis)``: the tensor's extent (a constant or its pl.dynamic)."""
        if len(node.args) != 2 or node.keywords:
            raise self.error(node, "pl.tensor.dim takes (tensor, axis)", hint="e.g. pl.tensor.dim(a, 0)")
        t = self._expr(node.args[0]).type
        axis = self._fold_number(node.args[1])
        if not isinstance(t, TensorType) or not isinstance(axis, int) or not -len(t.shape) <= axis < len(t.shape):
            raise self.error(node, "pl.tensor.dim needs a tensor and a constant axis inside its rank",
                             hint="e.g. pl.tensor.dim(a, 0)")
        return t.shape[axis]

    def _shape_extent(self, node: ast.Subscript) -> Expr | None:
        """``x.shape[i]`` of a tensor or tile: its extent along axis ``i`` (a constant, or the ``pl.dynamic``
        variable); None when ``node`` is another subscript."""
        v = node.value
        if not (isinstance(v, ast.Attribute) and v.attr == "shape"):
            return None
        base = self._expr(v.value)
        if not isinstance(base.type, (TileType, TensorType)):
            return None
        rank = len(base.type.shape)
        i = self._fold_number(node.slice)  # type: ignore[arg-type]
        if not isinstance(i, int) or not -rank <= i < rank:
            raise self.error(node.slice, f"shape index must be a constant in [{-rank}, {rank})",
                             hint="index the shape with an integer literal, e.g. x.shape[0]")
        return base.type.shape[i]

    def _scalar_dtype(self, e: Expr, node: ast.AST) -> DataType:
        t = e.type
        if not isinstance(t, ScalarType):
            raise self.error(node, f"arithmetic needs scalars, got {_describe(t)}",
                             hint="use tile ops such as pl.tile.add / pl.tile.muls for tiles")
        return t.dtype

    def _operands(self, left: ast.expr, right: ast.expr,
                  given: tuple[Expr | None, Expr | None] = (None, None)) -> tuple[Expr, Expr, DataType]:
        """The two scalar operands (``given``: either already parsed) and their common dtype."""
        ln = self._fold_number(left)
        rn = self._fold_number(right)
        if ln is not None and rn is None:
            r = given[1] if given[1] is not None else self._expr(right)
            dt = self._scalar_dtype(r, right)
            lhs = self._coerced_literal(ln, dt, left)
            return lhs, r, _common(lhs.type.dtype, dt)  # type: ignore[attr-defined]
        if rn is not None and ln is None:
            lhs = given[0] if given[0] is not None else self._expr(left)
            dt = self._scalar_dtype(lhs, left)
            r = self._coerced_literal(rn, dt, right)
            return lhs, r, _common(dt, r.type.dtype)  # type: ignore[attr-defined]
        lhs = given[0] if given[0] is not None else self._expr(left)
        r = given[1] if given[1] is not None else self._expr(right)
        return lhs, r, _common(self._scalar_dtype(lhs, left), self._scalar_dtype(r, right))

    def _array_binop(self, node: ast.BinOp) -> tuple[Expr | None, Expr | None, Expr | None]:
        """``a + b`` / ``t * 2.0`` with a Tile or Tensor operand: the op call ``pl.add`` / ``pl.mul`` ... builds
        (a number on the right selects the scalar form). Otherwise (None, the parsed operands) for the scalar
        path, so that no operand is parsed twice."""
        ln, rn = self._fold_number(node.left), self._fold_number(node.right)
        lhs = self._expr(node.left) if ln is None else None
        rhs = self._expr(node.right) if rn is None else None
        arrays = [e for e in (lhs, rhs) if e is not None and isinstance(e.type, (TileType, TensorType))]
        if not arrays:
            return None, lhs, rhs
        name = _ARRAY_OPS[type(node.op)]
        ns = "tensor" if isinstance(arrays[0].type, TensorType) else "tile"
        if lhs is None:  # a number on the left
            if name not in ("add", "mul"):
                raise self.error(node, f"a number on the left of {name} with a {ns} on the right is not supported",
                                 hint=f"write pl.{name}(x, y) with the {ns} first, e.g. pl.add(pl.neg(t), 2.0) "
                                      "for 2.0 - t")
            lhs, rhs, rn = rhs, None, ln
        if rhs is None:
            rhs = self._value_expr(rn, node.right)
        opname = f"{ns}.{name}"
        return self._finish_call(node, opname, find_op(opname), [lhs, rhs], {}, ()), None, None  # type: ignore

    def _coerced_literal(self, value: int | float, dtype: DataType, node: ast.AST) -> Expr:
        if isinstance(value, float) and not dtype.is_float:
            return ConstFloat(value, DataType.FP32, span=self.span(node))
        if dtype is DataType.BOOL:
            return self._value_expr(value, node)
        return self._const_of(value, dtype, node)

    def _binop(self, node: ast.BinOp) -> Expr:
        num = self._fold_number(node)
        if num is not None:
            return self._value_expr(num, node)
        given: tuple[Expr | None, Expr | None] = (None, None)
        if type(node.op) in _ARRAY_OPS:
            call, *operands = self._array_binop(node)
            if call is not None:
                return call
            given = (operands[0], operands[1])
        cls = _BINOPS.get(type(node.op))
        if cls is None:
            hint = "use // for integer division" if isinstance(node.op, ast.Div) else None
            raise self.error(node, f"unsupported operator {type(node.op).__name__} in a scalar expression", hint=hint)
        lhs, rhs, dt = self._operands(node.left, node.right, given)
        return cls(lhs, rhs, dt, span=self.span(node))

    def _unary(self, node: ast.UnaryOp) -> Expr:
        num = self._fold_number(node)
        if num is not None:
            return self._value_expr(num, node)
        operand = self._expr(node.operand)
        if isinstance(operand.type, (TileType, TensorType)) and isinstance(node.op, (ast.USub, ast.UAdd)):
            if isinstance(node.op, ast.UAdd):
                return operand
            opname = ("tensor" if isinstance(operand.type, TensorType) else "tile") + ".neg"  # -t is pl.neg(t)
            return self._finish_call(node, opname, find_op(opname), [operand], {}, ())  # type: ignore[arg-type]
        if isinstance(node.op, ast.Not):
            return Not(operand, DataType.BOOL, span=self.span(node))
        dt = self._scalar_dtype(operand, node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            return Neg(operand, dt, span=self.span(node))
        raise self.error(node, "bitwise ~ is not supported", hint="use `not x` for a bool or `-x - 1` for an integer")

    def _compare(self, node: ast.Compare) -> Expr:
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons are not supported", hint="write (a < b) and (b < c)")
        cls = _CMPOPS.get(type(node.ops[0]))
        if cls is None:
            raise self.error(node, f"unsupported comparison {type(node.ops[0]).__name__}",
                             hint="use ==, !=, <, <=, > or >= between two scalars")
        lhs, rhs, dt = self._operands(node.left, node.comparators[0])
        return cls(lhs, rhs, dt, span=self.span(node))

    def _call(self, node: ast.Call) -> Expr:
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in self._fn_sigs and f.id not in self.env:  # a module-level @pl.function called by name
                return self._fn_call(node, f.id)
            if f.id in ("min", "max"):
                return self._minmax(node, f.id)
            if f.id == "float":
                num = self._fold_number(node)
                if num is not None:
                    return self._value_expr(num, node)
            helper = self._find_inline(f.id) if f.id not in self.env else None
            if helper is not None:  # an @pl.inline helper: spliced here (frontend/inline.py)
                return self._inline_call(node, helper)
            raise self.error(f, f"unknown function {f.id!r}",
                             hint="call ops as pl.tile.<op>(...) and kernels as self.<kernel>(...)")
        if not isinstance(f, ast.Attribute):
            raise self.error(node, "unsupported call",
                             hint="call ops as pl.tile.<op>(...) and kernels as self.<kernel>(...)")
        base = f.value
        if isinstance(base, ast.Name) and base.id == "self":
            return self._fn_call(node, f.attr)
        if self._is_pl(base):
            name = f.attr
            if name in ("min", "max"):
                return self._minmax(node, name)
            if name == "const":
                return self._pl_const(node)
            if name == "dim":
                return self._dim(node)
            if name == "make_tuple":
                if node.keywords:
                    raise self.error(node, "pl.make_tuple takes positional values",
                                 hint="remove the keywords: pl.make_tuple(a, b)")
                return MakeTuple(tuple(self._expr(a) for a in node.args), span=self.span(node))
            if name == "yield_":
                raise self.error(node, "pl.yield_ must be the last statement of a loop body or if branch, "
                                       "assigned to the result names: `x = pl.yield_(v)`",
                                 hint="write `x = pl.yield_(v)` as the body's last statement, not inside an "
                                      "expression")
            if name == "cond":
                raise self.error(node, "pl.cond(...) must be the first statement of a pl.while_ body or the "
                                       "whole condition of an if",
                                 hint='e.g. `if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):`')
            if name in ("submit", "spmd_submit"):
                extra = ", core_num=4" if name == "spmd_submit" else ""
                raise self.error(node, f"pl.{name} returns the kernel's result(s) and a task id: it is the whole "
                                       "value of a tuple assignment",
                                 hint=f"out, tid = pl.{name}(self.kernel, a, out{extra})")
            if name in _LOOP_KINDS or name == "while_":
                raise self.error(node, f"pl.{name}(...) can only be iterated by a for statement",
                                 hint=f"write `for i in pl.{name}(...):`")
            opname = _OP_ALIASES.get(name)
            if opname is None and name not in _DSL_NAMES and find_op(f"tile.{name}") is not None:
                opname = f"tile.{name}"
            if opname is None and name not in _DSL_NAMES and name != "dump_tag" \
                    and find_op(f"tensor.{name}") is not None:
                opname = f"tensor.{name}"  # an op with a tensor form only (pl.create_l1, pl.paged_gather)
            if opname is None:
                from tilefold.errors import NotSupportedError
                from tilefold.ops.catalog_ops import UNSUPPORTED

                if name == "dump_tag":
                    raise self.error(node, "pl.dump_tag is a statement: it has no value",
                                     hint="write pl.dump_tag(t) on a line of its own in orchestration code")
                if name in UNSUPPORTED:  # a PyPTO catalog operator tilefold refuses, with the reason
                    raise NotSupportedError(f"pl.{name}: {UNSUPPORTED[name]}", span=self.span(node),
                                            hint="see docs/ops.md (PyPTO catalog coverage) for what is modelled")
                raise self.error(f, f"unknown op pl.{name}", hint=self._op_hint(name, "tile"))
            return self._op_call(node, opname)
        if isinstance(base, ast.Attribute) and self._is_pl(base.value):
            if base.attr == "tensor" and f.attr == "dim":
                return self._dim(node)
            if base.attr == "system" and f"tile.{f.attr}" in SETUP_OPS:  # pl.system.reserve_buffer ... (PyPTO's home)
                return self._op_call(node, f"tile.{f.attr}")
            if base.attr == "system":
                from tilefold.errors import NotSupportedError
                from tilefold.ops.registry import find_op as _find

                if _find(f"system.{f.attr}") is not None:  # barrier, fence, cache maintenance, device queries
                    return self._op_call(node, f"system.{f.attr}")

                hint = ("j = pl.system.task_dummy(deps=[...]) is a statement of the orchestration code"
                        if f.attr == "task_dummy" else
                        "tilefold models pl.system.syncall / fence / cacheinvalid / available_aiv_count / "
                        "available_cluster_count (docs/dsl.md, 'Barriers inside a launch') and sync_src / sync_dst "
                        "/ bar_v / bar_m / bar_all (docs/dsl.md, 'Pipe synchronisation inside a kernel'); other "
                        "device-runtime primitives have no simulated counterpart")
                raise NotSupportedError(f"pl.system.{f.attr} (a primitive of PyPTO's device runtime) is not "
                                        "supported here", span=self.span(node), hint=hint)
            if base.attr == "array":  # pl.array.create / get_element / update_element (frontend/arrays.py)
                from tilefold.frontend.arrays import array_call

                return array_call(self, node, f.attr)
            opname = f"{base.attr}.{f.attr}"
            return self._op_call(node, opname)
        raise self.error(node, "unsupported call", hint="call ops as pl.tile.<op>(...)")

    def _op_hint(self, name: str, ns: str) -> str:
        from tilefold.ops import all_ops

        names = [n.split(".", 1)[1] for n in all_ops() if n.startswith(ns + ".")]
        close = difflib.get_close_matches(name, names, n=3)
        if close:
            return "did you mean " + " / ".join(f"pl.{ns}.{c}" for c in close) + "?"
        return f"see dir(pl.{ns}) for the registered ops"

    def _minmax(self, node: ast.Call, which: str) -> Expr:
        if len(node.args) != 2 or node.keywords:
            raise self.error(node, f"{which}() takes exactly two scalar arguments",
                             hint=f"write {which}(a, b); nest calls for more values")
        lhs, rhs, dt = self._operands(node.args[0], node.args[1])
        cls = Min if which == "min" else Max
        return cls(lhs, rhs, dt, span=self.span(node))

    def _pl_const(self, node: ast.Call) -> Expr:
        if not 1 <= len(node.args) <= 2 or node.keywords:
            raise self.error(node, "pl.const takes (value[, dtype])", hint="e.g. pl.const(1, pl.INT32)")
        value = self._fold_number(node.args[0])
        if value is None:
            v = self._const(node.args[0], allow_error=True)
            if not isinstance(v, bool):
                raise self.error(node.args[0], "pl.const needs a number or a bool",
                                 hint="e.g. pl.const(1, pl.INT32) or pl.const(0.5, pl.FP16)")
            return ConstBool(v, span=self.span(node))
        if len(node.args) == 2:
            dtype = self._dtype(node.args[1])
        else:
            dtype = DataType.FP32 if isinstance(value, float) else _INDEX
        if isinstance(value, float) and not dtype.is_float:
            raise self.error(node, f"float constant {value!r} cannot have integer dtype {dtype.name}",
                             hint="write an integer value, or use a float dtype such as pl.FP32")
        return self._const_of(value, dtype, node)

    def _fn_call(self, node: ast.Call, name: str) -> Expr:
        sig = self._fn_sigs.get(name)
        edges, caller = self.__dict__.get("_call_edges"), self.__dict__.get("_current_sig")
        if edges is not None and caller is not None and sig is not None:
            edges.append((caller.gvar.name, name, node))
        if sig is None:
            close = difflib.get_close_matches(name, list(self._fn_sigs), n=1)
            raise self.error(node.func, f"unknown function self.{name}",
                             hint=(f"did you mean self.{close[0]}? " if close else "")
                             + "call other @pl.function methods of the same program")
        n = len(sig.params)
        bound: list[ast.expr | None] = [None] * n
        if len(node.args) > n:
            raise self.error(node, f"self.{name} takes {n} argument(s) but {len(node.args)} were given",
                             hint=f"pass one value per parameter of {name}")
        for i, a in enumerate(node.args):
            bound[i] = a
        pnames = [p[0] for p in sig.params]
        for kw in node.keywords:
            if kw.arg not in pnames:
                raise self.error(kw.value, f"self.{name} has no parameter {kw.arg!r}",
                                 hint="parameters: " + ", ".join(pnames))
            i = pnames.index(kw.arg)
            if bound[i] is not None:
                raise self.error(kw.value, f"self.{name} got two values for {kw.arg!r}",
                                 hint=f"pass {kw.arg!r} either by position or by keyword, not both")
            bound[i] = kw.value
        args = []
        for (pname, ptype, _d), a in zip(sig.params, bound, strict=False):
            if a is None:
                raise self.error(node, f"self.{name} is missing argument {pname!r}",
                                 hint=f"pass a value for {pname!r}")
            e = self._expr(a)
            if type(e.type) is not type(ptype) and not isinstance(ptype, UnknownType):
                raise self.error(a, f"argument {pname!r} of self.{name} must be {_describe(ptype)}, "
                                    f"got {_describe(e.type)}",
                                 hint=f"pass a {type(ptype).__name__.removesuffix('Type').lower()} for {pname!r}, "
                                      f"or change the parameter's annotation")
            args.append(e)
        hidden = []
        for dim_name, where in self.__dict__.get("_fn_hidden", {}).get(name, ()):
            # a pl.dynamic extent of the callee: the extent of the argument on that axis (the caller's own
            # pl.dynamic variable, a scalar, or a constant)
            found = [args[i].type.shape[axis] for i, axis in where
                     if isinstance(args[i].type, (TensorType, TileType)) and axis < len(args[i].type.shape)]
            if not found:
                raise self.error(node, f"self.{name}: no argument carries the pl.dynamic extent {dim_name!r}",
                                 hint=f"use {dim_name} in the shape of a tensor parameter of {name}")
            hidden.append(found[0])
        rts = sig.return_types
        if hidden:  # the callee's return types name its own extents: use the caller's
            callee_dims = self.__dict__.get("_fn_dim_vars", {}).get(name, ())
            rts = tuple(_with_extents(t, list(zip(callee_dims, hidden, strict=False))) for t in rts)
        rtype: Type = UnknownType() if not rts else rts[0] if len(rts) == 1 else TupleType(rts)
        return Call(sig.gvar, tuple(hidden + args), (), rtype, span=self.span(node))

    def _pypto_operand_forms(self, node: ast.Call, opname: str, op: OpDef) -> ast.Call:
        """PyPTO operand forms the registry declares for ``op``, rewritten to tilefold's:

        - ``scratch_operands`` (``tmp`` of row_sum / col_sum / row_prod / rsqrt ...): a workspace tile the device
          instruction may clobber; its contents afterwards are unspecified, so it carries no value. Checked to be
          a tile (positional after the op's operands, or by keyword), then dropped;
        - ``transpose_flags`` (``a_trans`` / ``b_trans`` of a tile matmul): the operand is read through a
          zero-copy ``tile.transpose_view``, as the tensor-level matmul lowers them."""
        scratch = tuple(op.extra.get("scratch_operands", ()))
        flags = dict(op.extra.get("transpose_flags", {}))
        n_operands = len(op.params)
        args = list(node.args)
        dropped: list[ast.expr] = []
        if scratch and len(args) > n_operands:
            dropped, args = args[n_operands:n_operands + len(scratch)], args[:n_operands] + \
                args[n_operands + len(scratch):]
        keywords = []
        transpose: dict[str, ast.expr] = {}
        for kw in node.keywords:
            if kw.arg in scratch:
                dropped.append(kw.value)
            elif kw.arg in flags:
                transpose[kw.arg] = kw.value
            else:
                keywords.append(kw)
        for d in dropped:
            t = self._expr(d).type
            if not isinstance(t, TileType):
                raise self.error(d, f"the scratch operand of pl.{opname} must be a tile, got {_describe(t)}",
                                 hint="pass a tile (pl.tile.create(...)) or leave the operand out")
        names = [p.name for p in op.params]
        for flag, value in transpose.items():
            on = self._const(value, allow_error=True)
            if not isinstance(on, bool):
                raise self.error(value, f"{flag}= must be True or False", hint=f"{flag}=True")
            if not on:
                continue
            i = names.index(flags[flag])
            if i >= len(args):
                raise self.error(node, f"pl.{opname}({flag}=True) needs its {flags[flag]!r} operand positionally",
                                 hint=f"signature: {_signature_str(opname, op)}")
            view = ast.Call(func=ast.Attribute(value=ast.Attribute(value=ast.Name(id=next(iter(self.pl)),
                                                                                     ctx=ast.Load()),
                                                                      attr="tile", ctx=ast.Load()),
                                               attr="transpose_view", ctx=ast.Load()), args=[args[i]], keywords=[])
            for n in ast.walk(view):
                ast.copy_location(n, args[i])
            args[i] = view
        new = ast.Call(func=node.func, args=args, keywords=keywords)
        return ast.copy_location(new, node)

    def _op_info(self, opname: str) -> tuple[OpDef, dict[str, int]] | None:
        info = self._op_cache.get(opname, _MISSING)
        if info is _MISSING:
            op = find_op(opname)
            info = None if op is None else (op, {p.name: i for i, p in enumerate(op.params)})
            self._op_cache[opname] = info
        return info  # type: ignore[return-value]

    def _op_call(self, node: ast.Call, opname: str) -> Expr:
        info = self._op_info(opname)
        if info is None:
            raise self._unknown_op(node, opname)
        if opname == "tensor.slice" and any(kw.arg == "valid_shape" for kw in node.keywords):
            return self._slice_with_valid_shape(node)
        op, index = info
        if op.kind is OpKind.SYSTEM and node is not getattr(self, "_statement_call", None):
            # a barrier, fence, cache invalidation or pipe sync gives nothing to use: bound to a name or nested in
            # an expression it had reached the simulator as a register never written
            raise self.error(node, f"pl.{opname} is a statement: it gives no value",
                             hint=f"write pl.{opname}(...) on a line of its own")
        if opname in BOUNDARY_OPS:  # pl.aiv_shard / pl.aic_gather take the enclosing region's split
            node = boundary_call(self, node, opname)
        if opname == "tile.set_validshape" and len(node.args) == 3 and not node.keywords:
            node = _valid_rows_cols(node)
        if opname == "tile.store":
            node = self._implicit_store_window(node)
            if len(node.args) == 4:
                return self._store_with_shapes(node, op)
        if op.extra.get("scratch_operands") or op.extra.get("transpose_flags"):
            tensor_form = self._unified_tensor_form(node, opname)
            if tensor_form is not None:  # pl.matmul(a, b, b_trans=True) on tensors: tensor.matmul's own flags
                return self._op_call(node, tensor_form)
            node = self._pypto_operand_forms(node, opname, op)
        bound, extra = self._bind_arguments(node, opname, op, index)
        args, attrs = self._bound_operands(node, opname, op, bound)
        if op.kind is OpKind.CROSS_CORE:  # a pop takes its push's tile type (frontend/split_aiv.py)
            attrs = pipe_attrs(self, node, opname, attrs)
            call = self._finish_call(node, opname, op, args, attrs, extra)
            record_push(self, opname, call)
            return call
        return self._finish_call(node, opname, op, args, attrs, extra)

    def _unified_tensor_form(self, node: ast.Call, opname: str) -> str | None:
        """``tensor.<op>`` when ``node`` is a unified ``pl.<op>(x, ...)`` whose first operand names a tensor (in
        an InCore / Opaque function) and the op has a tensor form; else None (``_finish_call`` dispatches the
        other unified calls once their operands are built)."""
        short = opname.partition(".")[2]
        first = node.args[0] if node.args else None
        if not (opname.startswith("tile.") and _is_unified(self, node) and getattr(node.func, "attr", None) == short
                and isinstance(first, ast.Name) and first.id in self.env):
            return None
        if not isinstance(self.env[first.id].type, TensorType) or find_op(f"tensor.{short}") is None:
            return None
        return f"tensor.{short}"

    def _unknown_op(self, node: ast.Call, opname: str) -> TilefoldError:
        from tilefold.errors import NotSupportedError
        from tilefold.ops.catalog_ops import UNSUPPORTED

        ns, _, short = opname.partition(".")
        if short in UNSUPPORTED:  # a PyPTO catalog operator tilefold refuses, with the reason
            return NotSupportedError(f"pl.{opname}: {UNSUPPORTED[short]}", span=self.span(node),
                                     hint="see docs/ops.md (PyPTO catalog coverage) for what is modelled")
        return self.error(node.func, f"unknown op pl.{opname}", hint=self._op_hint(short, ns))

    def _implicit_store_window(self, node: ast.Call) -> ast.Call:
        """``pl.store(tile, offsets, out)`` of a rank-2 tile into a rank-3 tensor (offsets for every tensor axis):
        the window is the tile with leading extents of 1, PyPTO's implicit form of ``pl.store(tile, offsets,
        shapes, out)``."""
        if not (len(node.args) == 3 and isinstance(node.args[0], ast.Name)
                and not any(kw.arg == "shapes" for kw in node.keywords)
                and isinstance(node.args[1], (ast.List, ast.Tuple)) and node.args[0].id in self.env):
            return node
        tt = self.env[node.args[0].id].type
        extra_axes = len(node.args[1].elts) - len(getattr(tt, "shape", ()))
        if not (isinstance(tt, TileType) and extra_axes > 0 and tt.static_shape is not None):
            return node
        window = ast.List(elts=[ast.Constant(value=v) for v in [1] * extra_axes + list(tt.static_shape)],
                          ctx=ast.Load())
        for n in ast.walk(window):
            ast.copy_location(n, node.args[1])
        return ast.copy_location(ast.Call(func=node.func, args=[node.args[0], node.args[1], window, node.args[2]],
                                          keywords=node.keywords), node)

    def _bind_arguments(self, node: ast.Call, opname: str, op: OpDef, index: dict[str, int]
                        ) -> tuple[list[ast.expr | None], tuple[tuple[str, Any], ...]]:
        """The call's arguments, one slot per registry parameter (positional, then keywords), and the
        ``EXTRA_KWARGS`` attributes; Python's binding errors as located errors with the op's signature."""
        params = op.params
        bound: list[ast.expr | None] = [None] * len(params)
        extra: tuple[tuple[str, Any], ...] = ()
        if len(node.args) > len(params):
            raise self.error(node, f"wrong arity: pl.{opname} takes at most {len(params)} argument(s) but "
                                   f"{len(node.args)} were given",
                             hint=f"signature: {_signature_str(opname, op)}")
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Starred):
                raise self.error(a, "*args is not supported", hint="pass the arguments one by one")
            if params[i].name in op.extra.get("keyword_only", ()):  # e.g. gather_row's valid_shape=
                raise self.error(a, f"pl.{opname}: {params[i].name!r} is keyword-only",
                                 hint=f"write {params[i].name}=[...]; signature: {_signature_str(opname, op)}")
            bound[i] = a
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(kw.value, "**kwargs is not supported", hint="pass the keywords one by one")
            if kw.arg == EXTRA_KWARGS:
                extra = self._attrs_dict(kw.value)
                continue
            i = index.get(op.extra.get("keyword_aliases", {}).get(kw.arg, kw.arg))  # type: ignore[assignment]
            if opname == "tensor.create" and kw.arg == "manual_dep":
                # PyPTO: the runtime tracks no dependency through this tensor; tilefold runs the orchestration
                # in program order, so every task touching it is ordered anyway (validated, then dropped)
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    raise self.error(kw.value, "manual_dep= must be True or False", hint="manual_dep=True")
                continue
            refused = op.extra.get("refused_keywords", {}).get(kw.arg)
            if refused is not None:  # a PyPTO keyword tilefold does not model (e.g. load / move transpose=)
                from tilefold.errors import NotSupportedError

                raise NotSupportedError(f"pl.{opname}({kw.arg}=...): {refused[0]}", span=self.span(kw.value),
                                        hint=refused[1])
            if i is None or kw.arg == "operand_segment_sizes":
                if kw.arg == "operand_segment_sizes":
                    raise self.error(kw.value, "operand_segment_sizes is computed from ins/outs/tmps; do not pass it",
                                     hint="remove operand_segment_sizes=...")
                close = difflib.get_close_matches(kw.arg, list(index), n=1)
                raise self.error(kw.value, f"unknown keyword argument {kw.arg!r} for pl.{opname}",
                                 hint=(f"did you mean {close[0]!r}? " if close else "")
                                 + f"signature: {_signature_str(opname, op)}")
            if bound[i] is not None:
                raise self.error(kw.value, f"pl.{opname} got multiple values for {kw.arg!r}",
                                 hint=f"pass {kw.arg!r} either by position or by keyword, not both")
            bound[i] = kw.value
        return bound, extra

    def _bound_operands(self, node: ast.Call, opname: str, op: OpDef, bound: list[ast.expr | None]
                        ) -> tuple[list[Expr], dict[str, Any]]:
        """The IR operands and attributes of the bound arguments: attributes as constants, operand lists
        flattened with their segment sizes, missing required arguments as located errors."""
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        segments: list[int] = []
        skipped: str | None = None
        missing = f"signature: {_signature_str(opname, op)}"
        for p, a in zip(op.params, bound, strict=False):
            kind = p.kind
            if kind is ParamKind.ATTR:
                if a is not None:
                    attrs[p.name] = self._attr_value(a, p.name)
                elif p.required and p.default is None and p.name != "operand_segment_sizes":
                    raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                     hint=missing)
            elif kind is ParamKind.TILE_LIST:
                seg: list[Expr] = []
                if a is not None:
                    if not isinstance(a, (ast.List, ast.Tuple)):
                        raise self.error(a, f"{p.name}= must be a list", hint=f"e.g. {p.name}=[x, y]")
                    seg = [self._expr(e) for e in a.elts]
                elif p.required:
                    raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                     hint=missing)
                args.extend(seg)
                segments.append(len(seg))
            elif a is None:
                if p.required:
                    raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                     hint=missing)
                skipped = skipped or p.name
            elif skipped is not None:
                raise self.error(a, f"pl.{opname}: {p.name!r} needs the optional argument {skipped!r} too",
                                 hint=f"pass {skipped!r} as well (positional arguments cannot skip it)")
            else:
                args.append(self._tuple_operand(a) if kind is ParamKind.TUPLE else self._expr(a))
        if segments:
            attrs["operand_segment_sizes"] = tuple(segments)
        return args, attrs

    def _slice_with_valid_shape(self, node: ast.Call) -> Expr:
        """``pl.tensor.slice(x, shape, offsets, valid_shape=v)`` / ``pl.slice(...)`` in kernel code: the window
        with only ``v`` valid (static or run-time extents), lowered as the tile it becomes on the chip: a
        ``tile.load`` of the valid region (the rest is padding for ``pl.fillpad``; a store writes the valid region
        only), or a ``tile.slice`` with that valid shape of a tile. Orchestration tensors carry no valid region."""
        from tilefold.errors import NotSupportedError

        valid_kw = next(kw for kw in node.keywords if kw.arg == "valid_shape")
        plain = ast.copy_location(ast.Call(func=node.func, args=node.args,
                                           keywords=[kw for kw in node.keywords if kw is not valid_kw]), node)
        window = self._op_call(plain, "tensor.slice")
        if not self._on_chip():
            raise NotSupportedError("pl.tensor.slice(valid_shape=...) in orchestration code: a tensor passed to a "
                                    "kernel carries no valid region", span=self.span(node),
                                    hint="slice with valid_shape inside the kernel (a pl.at scope or an InCore "
                                         "function), where the window becomes a tile")
        assert isinstance(window, Call)
        src, shape, offsets = window.args
        valid = self._tuple_operand(valid_kw.value)
        if isinstance(src.type, TileType):
            return self._finish_call(node, "tile.slice", find_op("tile.slice"), [src, shape, offsets, valid], {}, ())
        if src not in getattr(self, "_param_vars", ()):
            raise NotSupportedError(f"pl.tensor.slice(valid_shape=...) of the computed tensor value "
                                    f"{getattr(src, 'name', '?')!r}: the valid shape of a slice is modelled on a "
                                    "tensor parameter (a load of its valid region) or a tile",
                                    span=self.span(node), hint="slice a tensor parameter, or compute on tiles "
                                    "(pl.load(..., valid_shapes=[...]) then pl.tile.* ops) and slice the tile")
        return self._finish_call(node, "tile.load", find_op("tile.load"), [src, offsets, shape, valid],
                                 {"target_memory": MemorySpace.Vec}, ())

    def _finish_call(self, node: ast.Call, opname: str, op: OpDef, args: list[Expr], attrs: dict[str, Any],
                     extra: tuple[tuple[str, Any], ...]) -> Expr:
        span = self.span(node)
        if opname in ("tensor.read", "tensor.write") and args and isinstance(args[0].type, TileType):
            opname = "tile." + opname.split(".")[1]  # pl.read / pl.write of a tile: the scalar unit on UB
            op = find_op(opname)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == opname.split(".")[1] \
                and _is_unified(self, node) and args \
                and isinstance(args[0].type, TensorType) and opname.startswith("tile.") \
                and find_op("tensor." + opname.split(".")[1]) is not None:
            # a unified pl.<op> on tensors (in an InCore / Opaque function): the tensor op, which
            # ConvertTensorToTileOps lowers to tile ops
            opname = "tensor." + opname.split(".")[1]
            op = find_op(opname)
        if opname == "tensor.assemble" and len(args) == 3 and isinstance(args[0].type, TensorType) \
                and isinstance(args[1].type, TileType) and args[1].type.dtype is args[0].type.dtype:
            # a tile written into a tensor (a partial tile of pl.slice(..., valid_shape=) included): its store,
            # which writes the tile's valid region only
            opname, op = "tile.store", find_op("tile.store")
            args = [args[1], args[2], args[0]]
        if opname == "tensor.assemble" and len(args) >= 2 and isinstance(args[0].type, TensorType) \
                and isinstance(args[1].type, (TensorType, TileType)) and args[1].type.dtype is DataType.FP32 \
                and args[0].type.dtype in (DataType.BF16, DataType.FP16):
            # PyPTO writes an FP32 result into a BF16 / FP16 tensor, rounding on the way out: the explicit cast
            args = [args[0], make_call("tensor.cast", [args[1]], {"target_type": args[0].type.dtype}, span=span),
                    *args[2:]]
        if opname in ("tile.transpose", "tensor.transpose") and args:
            attrs = _python_axes(attrs, getattr(args[0].type, "rank", 0))
        if len(args) >= 2 and isinstance(args[1].type, ScalarType) and not isinstance(args[0].type, ScalarType):
            form = _scalar_form(opname)  # pl.add(tile, 2.0) is tile.adds (PyPTO's dispatch on the rhs's kind)
            if form is not None:
                opname, op = form, find_op(form)
        try:
            call = make_call(opname, args, attrs)
        except TilefoldError as exc:
            if exc.span is None:
                raise type(exc)(exc.message, span=span, hint=exc.hint) from None
            raise
        except Exception as exc:  # a type-inference function tripped over malformed operands
            raise TypeInferenceError(f"{opname}: {exc}", span=span,
                                     hint=f"signature: {_signature_str(opname, op)}") from None
        # the call was just built and is not shared yet: set its span in place instead of copying it
        object.__setattr__(call, "span", span)
        if extra:
            call = call.with_fields(kwargs=call.kwargs + extra)
        return call

    def _store_with_shapes(self, node: ast.Call, op: OpDef) -> Expr:
        """PyPTO's 4-argument store ``pl.store(tile, offsets, shapes, out)``. ``shapes`` is the GM window
        the tile fills: equal to the tile's shape it is the plain store; an N-D window whose flattening
        ``[prod(leading), last]`` is the 2-D tile's shape becomes ``tile.store(..., shapes=window)``."""
        tile_n, off_n, shapes_n, out_n = node.args
        attrs: dict[str, Any] = {}
        extra: tuple[tuple[str, Any], ...] = ()
        for kw in node.keywords:
            if kw.arg == EXTRA_KWARGS:
                extra = self._attrs_dict(kw.value)
            elif kw.arg == "tiled_op":
                attrs["tiled_op"] = self._attr_value(kw.value, "tiled_op")
            else:
                raise self.error(kw.value if kw.arg else node,
                                 f"pl.store with 4 arguments (tile, offsets, shapes, out) takes no keyword "
                                 f"{kw.arg!r}", hint="write pl.store(tile, offsets, shapes, out)")
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error(a, "*args is not supported", hint="pass the arguments one by one")
        tile = self._expr(tile_n)
        offsets = self._tuple_operand(off_n)
        window = self._tuple_operand(shapes_n)
        out = self._expr(out_n)
        tt = tile.type
        if isinstance(tt, TileType) and isinstance(window, MakeTuple):
            dims = window.elements
            same = len(dims) == len(tt.shape) and all(_same_expr(a, b) for a, b in zip(dims, tt.shape, strict=True))
            if not same:
                ints = [d.value if isinstance(d, ConstInt) else None for d in dims]
                tile_dims = tt.static_shape
                flat: tuple[int, ...] | None = None
                if None not in ints and len(ints) >= 2:
                    rows = 1
                    for v in ints[:-1]:
                        rows *= v  # type: ignore[operator]
                    flat = (rows, ints[-1])  # type: ignore[assignment]
                if flat is None or tt.rank != 2 or tile_dims != flat:
                    raise self.error(
                        shapes_n, f"pl.store: the window shapes {_shape_str(dims)} do not match the stored tile "
                                  f"{_describe(tt)}",
                        hint="the 4-argument store writes the whole tile: shapes must equal the tile's shape, or "
                             "be a constant N-D window whose flattening [prod(leading), last] is the 2-D tile's "
                             "shape; take a pl.tile.slice of the tile to store part of it")
                attrs["shapes"] = tuple(ints)
        elif not isinstance(window, MakeTuple):
            raise self.error(shapes_n, "the shapes of a 4-argument pl.store must be a list", hint="e.g. [16, 64]")
        return self._finish_call(node, "tile.store", op, [tile, offsets, out], attrs, extra)

    def _tuple_operand(self, node: ast.expr) -> Expr:
        if isinstance(node, (ast.List, ast.Tuple)):
            return MakeTuple(tuple(self._index_expr(e) for e in node.elts), span=self.span(node))
        if isinstance(node, ast.Name) and node.id not in self.env:
            value = self._lookup_const(node.id)
            if isinstance(value, tuple):
                return MakeTuple(tuple(self._value_expr(v, node) for v in value), span=self.span(node))
        e = self._expr(node)
        return e

    def _is_option_operand(self, node: ast.expr) -> bool:
        """A positional argument that is an op option (a dtype such as ``pl.FP16``, a memory space, a string),
        not a value: PyPTO passes these positionally (``pl.cast(x, pl.FP16)``, ``pl.create_tensor(shape,
        dtype)``); they bind to the op's attribute parameters, never to its operands."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if not isinstance(node, (ast.Attribute, ast.Name)):
            return False
        try:
            v = self._const_inner(node)
        except (_NotConst, TilefoldError):
            return False
        return isinstance(v, (DataType, MemorySpace, enum.Enum, str))

    def _attr_value(self, node: ast.expr, pname: str) -> Any:
        try:
            return self._const_inner(node)
        except _NotConst:
            pass
        if isinstance(node, (ast.List, ast.Tuple)):
            return tuple(self._attr_value(e, pname) for e in node.elts)
        return self._expr(node)

