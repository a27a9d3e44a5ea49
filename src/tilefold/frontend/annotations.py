"""Annotations and types: ``pl.Tensor`` / ``pl.Tile`` / ``pl.Scalar`` / ``pl.Tuple`` / ``pl.Out`` ...,
shapes, dtypes, memory spaces, ``pl.MemRef`` and ``pl.TileView``, and how a declared annotation merges with an
inferred type.
"""

from __future__ import annotations

import ast
import copy
import difflib
from typing import Any

from tilefold.frontend.parse_base import _INDEX
from tilefold.ir.expr import (
    BinaryExpr,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    Var,
)
from tilefold.ir.stmt import (
    ParamDirection,
)
from tilefold.ir.types import (
    DataType,
    MemorySpace,
    MemRef,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    canonical_tile_view,
)

_MEM_NAMES = {m.name: m for m in MemorySpace}

NO_VIEW = TileView()  # `pl.TileView()` in an annotation: the variable explicitly has no tile view


def _drop_no_view(t: Type) -> Type:
    """A declared type in canonical form: ``pl.TileView()`` and views of only implicit facts become None."""
    if isinstance(t, TileType) and t.tile_view is not None:
        view = None if t.tile_view is NO_VIEW else canonical_tile_view(t.shape, t.memory_space, t.tile_view)
        if view is not t.tile_view:
            return TileType(t.shape, t.dtype, t.memory_space, t.memref, view)
    if isinstance(t, TupleType):
        return TupleType(tuple(_drop_no_view(x) for x in t.types))
    return t


def _same_expr(a: Expr, b: Expr) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (ConstInt, ConstFloat, ConstBool)):
        return a.value == b.value  # type: ignore[attr-defined]
    if isinstance(a, BinaryExpr):
        return _same_expr(a.lhs, b.lhs) and _same_expr(a.rhs, b.rhs)  # type: ignore[attr-defined]
    return False


def _same_type_shape(a: Type, b: Type) -> bool:
    if isinstance(a, (TileType, TensorType)) and type(a) is type(b):
        return a.dtype is b.dtype and len(a.shape) == len(b.shape) and all(  # type: ignore[attr-defined]
            _same_expr(x, y) for x, y in zip(a.shape, b.shape, strict=False))  # type: ignore[attr-defined]
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        return a.dtype is b.dtype
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(
            _same_type_shape(x, y) for x, y in zip(a.types, b.types, strict=True))
    return type(a) is type(b)


def _shape_str(shape: tuple[Expr, ...]) -> str:
    return "[" + ", ".join(str(e.value) if isinstance(e, ConstInt) else "?" for e in shape) + "]"


def _describe(t: Type) -> str:
    if isinstance(t, TileType):
        mem = f", {t.memory_space.name}" if t.memory_space else ""
        return f"Tile[{_shape_str(t.shape)}, {t.dtype.name}{mem}]"
    if isinstance(t, TensorType):
        return f"Tensor[{_shape_str(t.shape)}, {t.dtype.name}]"
    if isinstance(t, ScalarType):
        return f"Scalar[{t.dtype.name}]"
    if isinstance(t, TupleType):
        return "Tuple[" + ", ".join(_describe(x) for x in t.types) + "]"
    return "no value"




class AnnotationSource:
    """What a module-level annotation alias of parsed text (``T = pl.Tensor[...]``, ``V = pl.TensorView(...)``)
    stands for, handed to a parser through its ``const_lookup``: the value's ast (text is never run)."""

    __slots__ = ("node",)

    def __init__(self, node: ast.expr) -> None:
        self.node = node


def annotation_sources(stmts: dict[str, Any]) -> dict[str, AnnotationSource]:
    """name -> AnnotationSource for the module-level assignments (``_nonconst_names``) whose value can be an
    annotation (a subscript or a call)."""
    return {name: AnnotationSource(st.value) for name, st in stmts.items()
            if isinstance(getattr(st, "value", None), (ast.Subscript, ast.Call))}


def _marker_ast(value: Any, pl_name: str) -> ast.expr | None:
    """The annotation a run-time value of ``pl.Tensor[...]`` / ``pl.Out[...]`` / ``pl.TensorView(...)`` ...
    (``frontend.dsl.TypeMarker``) was written as, rebuilt from its constants; None when it holds anything else
    (a ``pl.dynamic`` extent, a user object)."""
    import enum

    from tilefold.frontend.dsl import DynamicDim, TypeMarker

    def pl_attr(*names: str) -> ast.expr:
        out: ast.expr = ast.Name(id=pl_name, ctx=ast.Load())
        for n in names:
            out = ast.Attribute(value=out, attr=n, ctx=ast.Load())
        return out

    def build(v: Any) -> ast.expr | None:
        if isinstance(v, TypeMarker):
            if v.kind == "TensorView":
                args, kwargs = v.item
                kws = [ast.keyword(arg=k, value=build(x)) for k, x in kwargs.items()]
                return None if args or any(k.value is None for k in kws) else ast.Call(
                    func=pl_attr("TensorView"), args=[], keywords=kws)
            if v.kind == "layout":
                return pl_attr(v.item) if isinstance(v.item, str) else None
            items = v.item if isinstance(v.item, tuple) else (v.item,)
            elts = [build(x) for x in items]
            if any(e is None for e in elts):
                return None
            return ast.Subscript(value=pl_attr(v.kind), slice=ast.Tuple(elts=elts, ctx=ast.Load())
                                 if len(elts) > 1 else elts[0], ctx=ast.Load())
        if type(v) in (int, float, bool, str):
            return ast.Constant(value=v)
        if isinstance(v, DynamicDim):  # the inline spelling, which a jit entry reads as its hidden extent
            return ast.Call(func=pl_attr("dynamic"), args=[ast.Constant(value=v.name)], keywords=[])
        if isinstance(v, list):
            elts = [build(x) for x in v]
            return None if any(e is None for e in elts) else ast.List(elts=elts, ctx=ast.Load())
        if isinstance(v, DataType):
            return pl_attr(v.name)
        if isinstance(v, MemorySpace):
            return pl_attr("Mem", v.name)
        if isinstance(v, enum.Enum) and type(v).__name__ == "TensorLayout":
            return pl_attr("TensorLayout", v.name)
        return None

    return build(value)


class AnnotationsMixin:
    """Parses type annotations into ``ir`` types and checks them against inferred types."""

    def _annotation_alias(self, node: ast.expr) -> ast.expr | None:
        """A module-level or closure name bound to an annotation (``T = pl.Tensor[[16, 64], pl.FP32]``, used as
        ``x: T``): the annotation it stands for, as ast, placed at the use. In text, the assignment's own value;
        in decorator mode, rebuilt from the constants the value holds (``_marker_ast``). None otherwise."""
        if not isinstance(node, ast.Name) or node.id in self.env:
            return None
        stmt = self.__dict__.get("_nonconst_names", {}).get(node.id)
        found: ast.expr | None = None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, (ast.Subscript, ast.Call)):
            found = copy.deepcopy(stmt.value)
        elif self.const_lookup is not None:
            from tilefold.frontend.dsl import TypeMarker

            value = self.const_lookup(node.id)
            if isinstance(value, AnnotationSource):
                found = copy.deepcopy(value.node)
            elif isinstance(value, TypeMarker):
                found = _marker_ast(value, next(iter(self.pl)))
        if found is not None:
            for n in ast.walk(found):
                ast.copy_location(n, node)
        return found

    def _param_type(self, node: ast.expr) -> tuple[Type, ParamDirection]:
        node = self._annotation_alias(node) or node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and self._is_pl(
                node.value.value) and node.value.attr in ("Out", "InOut", "In"):
            direction = ParamDirection[node.value.attr]
            return self._plain_type(node.slice), direction
        return self._plain_type(node), ParamDirection.In

    def _plain_type(self, node: ast.expr) -> Type:
        """A declared type (parameter / return): an empty ``pl.TileView()`` just means no view."""
        return _drop_no_view(self._type(node))

    def _type(self, node: ast.expr) -> Type:
        node = self._annotation_alias(node) or node
        if isinstance(node, ast.Attribute) and node.attr == "TaskId" and self._is_pl(node.value):
            raise self.error(node, "pl.TaskId (pl.Scalar[pl.TASK_ID]) names a task of the orchestration code; "
                                   "a task id is bound by `with pl.at(...) as tid:`, not annotated",
                             hint="drop the annotation: with pl.at(level=pl.Level.CORE_GROUP) as tid: ...")
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                and self._is_pl(node.value.value)):
            raise self.error(node, "bad type annotation",
                             hint="use pl.Tensor[[r, c], dtype], pl.Tile[[r, c], dtype, pl.Mem.X], "
                                  "pl.Scalar[dtype] or pl.Tuple[...]")
        kind = node.value.attr
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if kind == "Tensor":
            if len(items) == 3:
                self._tensor_view(items[2], items[0])
                items = items[:2]
            if len(items) != 2:
                raise self.error(node, "pl.Tensor takes [shape, dtype]", hint="e.g. pl.Tensor[[16, 128], pl.FP32]")
            shape = self._shape(items[0])
            for e, n in zip(shape, getattr(items[0], "elts", ()), strict=False):
                if isinstance(e, ConstInt) and e.value <= 0:
                    raise self.error(n, f"tensor extent {e.value} is not positive",
                                     hint="every tensor extent must be at least 1")
            return TensorType(shape, self._dtype(items[1]))
        if kind == "Tile":
            if len(items) < 2:
                raise self.error(node, "pl.Tile takes [shape, dtype, memory space]",
                                 hint="e.g. pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]")
            shape = self._shape(items[0])
            dtype = self._dtype(items[1])
            mem = memref = view = None
            for extra in items[2:]:
                if isinstance(extra, ast.Constant) and extra.value is None:
                    continue
                if self._slotted_memref(extra):
                    continue  # a placement hint: tilefold's memory planner places (and double-buffers) tiles
                if isinstance(extra, ast.Call) and isinstance(extra.func, ast.Attribute) and self._is_pl(
                        extra.func.value) and extra.func.attr in ("MemRef", "TileView"):
                    if extra.func.attr == "MemRef":
                        memref = self._memref(extra)
                    else:
                        view = self._tile_view(extra)
                    continue
                if mem is not None:
                    raise self.error(extra, "pl.Tile annotation has two memory spaces",
                                     hint="keep one pl.Mem.X entry")
                mem = self._mem(extra)
            return TileType(shape, dtype, mem, memref, view)
        if kind == "Scalar":
            if len(items) != 1:
                raise self.error(node, "pl.Scalar takes one dtype", hint="e.g. pl.Scalar[pl.INDEX]")
            return ScalarType(self._dtype(items[0]))
        if kind == "Tuple":
            return TupleType(tuple(self._type(e) for e in items))
        if kind == "Array":  # kept as the rank-1 Vec tile pl.array.create makes (frontend/arrays.py)
            if len(items) != 2:
                raise self.error(node, "pl.Array takes [extent, dtype]", hint="e.g. pl.Array[16, pl.INT32]")
            dtype = self._dtype(items[1])
            return TileType((self._index_expr(items[0]),), DataType.INT64 if dtype is DataType.INDEX else dtype,
                            MemorySpace.Vec)
        if kind == "DistributedTensor":
            from tilefold.errors import NotSupportedError

            raise NotSupportedError("pl.DistributedTensor (a tensor spread over the ranks of a distributed "
                                    "program) is not supported: tilefold simulates one chip", span=self.span(node),
                                    hint="use pl.Tensor[...] for the one chip's part")
        if kind in ("Out", "InOut", "In"):
            raise self.error(node, f"pl.{kind}[...] is only allowed on function parameters",
                             hint="annotate locals with the inner type only, e.g. pl.Tensor[[16, 64], pl.FP32]")
        raise self.error(node.value, f"unknown type constructor pl.{kind}",
                         hint="use pl.Tensor, pl.Tile, pl.Scalar or pl.Tuple")

    def _shape(self, node: ast.expr) -> tuple[Expr, ...]:
        if isinstance(node, ast.Name) and node.id not in self.env:
            value = self._lookup_const(node.id)
            if isinstance(value, tuple):
                return tuple(self._const_of(v, _INDEX, node) for v in value)
            if node.id in self.__dict__.get("_nonconst_names", {}):
                raise self.error(node, f"{node.id!r} is not a compile-time constant",
                                 hint="a shape must be a list literal or a module-level list of int literals")
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.error(node, "a shape must be a list of extents", hint="e.g. [16, 128]")
        return tuple(self._index_expr(e) for e in node.elts)

    def _index_expr(self, node: ast.expr) -> Expr:
        dim = self._dynamic_dim(node)
        if dim is not None:
            return dim
        num = self._fold_number(node)
        if num is not None:
            if not isinstance(num, int) or isinstance(num, bool):
                raise self.error(node, f"extents and indices must be integers, got {num!r}",
                                 hint=f"write an integer here, e.g. {int(num)}" if isinstance(num, float)
                                 else "write an integer or a pl.Scalar[pl.INDEX] expression here")
            return ConstInt(num, _INDEX)
        e = self._expr(node)
        if not isinstance(e.type, ScalarType):
            raise self.error(node, f"expected a scalar index, got {_describe(e.type)}",
                             hint="extents and offsets are integers or scalar index expressions (e.g. i * 16), "
                                  "not tiles or tensors")
        return e

    def _tensor_view(self, node: ast.expr, shape_node: ast.expr) -> None:
        """The third element of ``pl.Tensor[shape, dtype, X]``: a layout (``pl.ND``) or a ``pl.TensorView``.

        The runtime hands a kernel the logical tensor (a strided caller view is read element by element), so a
        row-major ``stride=`` changes no value: it is checked and accepted. A view narrower than its shape
        (``valid_shape``), padding and the DN / NZ layouts are refused."""
        from tilefold.errors import NotSupportedError
        from tilefold.frontend.dsl import TypeMarker

        def layout_name(n: ast.expr) -> str | None:
            if isinstance(n, ast.Attribute) and (self._is_pl(n.value) or (
                    isinstance(n.value, ast.Attribute) and n.value.attr == "TensorLayout")):
                return n.attr if n.attr in ("ND", "DN", "NZ") else None
            return None

        def refuse_layout(name: str, where: ast.AST) -> None:
            if name != "ND":
                raise NotSupportedError(f"a pl.{name} layout on a pl.Tensor annotation is not supported",
                                        span=self.span(where),
                                        hint="write the row-major shape; for a transposed matmul operand pass "
                                             "b_trans=True (pl.NZ is a tile layout)")

        name = layout_name(node)
        if name is not None:
            refuse_layout(name, node)
            return
        if isinstance(node, ast.Attribute) and node.attr in ("MX_A_ZZ", "MX_B_NN") and self._is_pl(node.value):
            raise NotSupportedError(f"the MX scale layout pl.{node.attr} is not supported: tilefold does not model "
                                    "the MX scale packs (ops/mx_ops.py)", span=self.span(node),
                                    hint="MX (microscaling) matmuls with LeftScale / RightScale operands are not "
                                         "simulated")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "TensorView" \
                and self._is_pl(node.func.value):
            if node.args:
                raise self.error(node, "pl.TensorView takes keyword arguments",
                                 hint="pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)")
            opts = {}
            for kw in node.keywords:
                if kw.arg == "layout":
                    lname = layout_name(kw.value)
                    if lname is None:
                        raise self.error(kw.value, "layout= must be a pl.TensorLayout member",
                                         hint="layout=pl.TensorLayout.ND")
                    refuse_layout(lname, kw.value)
                    opts["layout"] = lname
                elif kw.arg in ("stride", "valid_shape", "pad"):
                    opts[kw.arg] = self._const(kw.value, allow_error=True)
                else:
                    raise self.error(kw.value, f"unknown pl.TensorView option {kw.arg!r}",
                                     hint="pl.TensorView takes stride=, layout=, valid_shape=, pad=")
        elif isinstance(node, ast.Name) and isinstance(self._annotation_alias(node), ast.Call):
            self._tensor_view(self._annotation_alias(node), shape_node)  # STRIDED = pl.TensorView(...) in text
            return
        elif isinstance(node, ast.Name) and node.id not in self.env and self.const_lookup is not None \
                and isinstance(self.const_lookup(node.id), TypeMarker) \
                and self.const_lookup(node.id).kind == "TensorView":
            args, kwargs = self.const_lookup(node.id).item
            opts = {}
            for k, v in kwargs.items():
                if k == "layout":
                    lname = getattr(v, "name", None)
                    refuse_layout(lname or "?", node)
                    opts["layout"] = lname
                else:
                    opts[k] = self._plain_view_value(v, node)
        else:
            raise self.error(node, "the third element of pl.Tensor[...] is a layout or a pl.TensorView",
                             hint="e.g. pl.Tensor[[32, 64], pl.FP32, pl.TensorView(stride=[128, 1], "
                                  "layout=pl.TensorLayout.ND)]")
        if any(k in opts for k in ("stride", "valid_shape", "pad")) and "layout" not in opts:
            raise self.error(node, "pl.TensorView needs layout= whenever stride=, valid_shape= or pad= is given",
                             hint="add layout=pl.TensorLayout.ND")
        if opts.get("pad") is not None:
            raise NotSupportedError("pl.TensorView(pad=...) is not supported", span=self.span(node),
                                    hint="pad the tile with pl.tile.fillpad after loading it")
        try:
            shape = [int(e.value) for e in self._shape(shape_node)]
        except AttributeError:
            shape = None  # symbolic extents: only the form of the view is checked
        valid = opts.get("valid_shape")
        if valid is not None and (shape is None or list(valid) != shape):
            raise NotSupportedError("a pl.TensorView whose valid_shape is smaller than the tensor is not supported",
                                    span=self.span(node),
                                    hint="load the window with pl.load(..., valid_shapes=[...]) instead")
        stride = opts.get("stride")
        if stride is not None and shape is not None:
            ok = len(stride) == len(shape) and all(isinstance(x, int) for x in stride) and stride[-1] == 1 and all(
                stride[i] >= stride[i + 1] * shape[i + 1] for i in range(len(shape) - 1))
            if not ok:
                raise NotSupportedError(f"pl.TensorView(stride={list(stride)}) is not a row-major stride of a "
                                        f"{shape} tensor", span=self.span(node),
                                        hint="rows may be padded (stride[i] >= stride[i+1] * shape[i+1]) and the "
                                             "last stride must be 1")

    def _plain_view_value(self, value: Any, node: ast.AST) -> Any:
        from tilefold.frontend.constants import _NotConst, _plain_data

        try:
            return _plain_data(value)
        except _NotConst:
            raise self.error(node, f"pl.TensorView field {value!r} is not a constant",
                             hint="use lists of int literals") from None

    def _dynamic_dim(self, node: ast.expr) -> Var | None:
        """A ``pl.dynamic`` extent (``M`` bound to ``pl.dynamic("M")``, or written inline) in a signature of the
        program form: one INDEX variable per dimension name and function, a hidden parameter of the function
        (its value comes from the arguments' shapes at every call)."""
        from tilefold.frontend.dsl import DynamicDim

        if not getattr(self, "hidden_dynamic_params", True):  # the jit form binds its pl.dynamic dims itself
            return None
        name = None
        if isinstance(node, ast.Name) and node.id not in self.env:
            value = self._lookup_const(node.id)
            name = value.name if isinstance(value, DynamicDim) else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dynamic" \
                and self._is_pl(node.func.value) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            name = node.args[0].value
        if name is None:
            return None
        dims = self.__dict__.setdefault("_dyn_dims", {})
        var = dims.get(name)
        if var is None:
            var = dims[name] = Var(name, ScalarType(_INDEX), self.span(node))
        if isinstance(node, ast.Name):
            self.__dict__.setdefault("_dyn_names", {})[node.id] = var
        return var

    def _dtype(self, node: ast.expr) -> DataType:
        name = None
        if isinstance(node, ast.Name) and node.id not in self.env:  # a module / closure constant: dt = pl.FP16
            value = self._lookup_const(node.id)
            if isinstance(value, DataType):
                return value
        if isinstance(node, ast.Attribute):
            base = node.value
            if self._is_pl(base) or (isinstance(base, ast.Attribute) and base.attr == "DataType"):
                name = node.attr
        if name is None:
            raise self.error(node, "expected a dtype such as pl.FP32",
                             hint="known: " + ", ".join(f"pl.{d.name}" for d in DataType))
        try:
            return DataType[name]
        except KeyError:
            close = difflib.get_close_matches(name, [d.name for d in DataType], n=1)
            raise self.error(node, f"unknown dtype pl.{name}",
                             hint=(f"did you mean pl.{close[0]}? " if close else "")
                             + "known: " + ", ".join(d.name for d in DataType)) from None

    def _mem(self, node: ast.expr) -> MemorySpace:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr in (
                "Mem", "MemorySpace") and self._is_pl(node.value.value):
            space = _MEM_NAMES.get(node.attr)
            if space is not None:
                return space
            try:
                return MemorySpace.from_name(node.attr)
            except ValueError:
                close = difflib.get_close_matches(node.attr, [m.name for m in MemorySpace], n=1)
                raise self.error(node, f"unknown memory space pl.Mem.{node.attr}",
                                 hint=(f"did you mean pl.Mem.{close[0]}? " if close else "")
                                 + "known: " + ", ".join(m.name for m in MemorySpace)) from None
        raise self.error(node, "expected a memory space such as pl.Mem.Vec",
                         hint="known: " + ", ".join(f"pl.Mem.{m.name}" for m in MemorySpace))

    def _slotted_memref(self, node: ast.expr) -> bool:
        """PyPTO's slot placement ``pl.MemRef("name", slots=N)[index]`` in a ``pl.Tile`` annotation of a jit kernel:
        validated, then left to the memory planner (it only removes a same-buffer hazard, never changes a
        value; tilefold plans every address itself)."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "MemRef"
                and self._is_pl(node.value.func.value)):
            return False
        call = node.value
        slots = [kw.value for kw in call.keywords if kw.arg == "slots"]
        if len(call.args) != 1 or not (isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)) \
                or len(slots) != 1 or len(call.keywords) != 1:
            raise self.error(call, 'slot placement is written pl.MemRef("name", slots=N)[index]',
                             hint='e.g. pl.Tile[[64, 128], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec]')
        n = self._fold_number(slots[0])
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise self.error(slots[0], "slots= must be a positive integer constant", hint="e.g. slots=2")
        self._expr(node.slice)  # the slot index must be a valid expression of the kernel
        return True

    def _memref(self, call: ast.Call) -> MemRef:
        fields = ["memory_space", "base", "byte_offset", "size", "address"]
        bound: dict[str, ast.expr] = {}
        if len(call.args) > len(fields):
            raise self.error(call, "pl.MemRef takes (memory_space, base, byte_offset, size, address=None)",
                             hint='e.g. pl.MemRef(pl.Mem.Vec, "buf0", 0, 4096)')
        for f, a in zip(fields, call.args, strict=False):
            bound[f] = a
        for kw in call.keywords:
            if kw.arg not in fields or kw.arg in bound:
                raise self.error(kw.value, f"bad pl.MemRef argument {kw.arg!r}",
                                 hint="pl.MemRef(memory_space, base, byte_offset, size, address=None)")
            bound[kw.arg] = kw.value
        for f in fields[:4]:
            if f not in bound:
                raise self.error(call, f"pl.MemRef is missing {f}",
                                 hint='write pl.MemRef(space, base, byte_offset, size), e.g. '
                                      'pl.MemRef(pl.Mem.Vec, "buf0", 0, 4096)')
        space = self._mem(bound["memory_space"])
        base = self._const(bound["base"], allow_error=True)
        if not isinstance(base, str):
            raise self.error(bound["base"], "MemRef base must be a string naming the root allocation",
                             hint='quote the name, e.g. "buf0"')
        off_node = bound["byte_offset"]
        offset = None if isinstance(off_node, ast.Constant) and off_node.value is None else self._index_expr(off_node)
        size = self._const(bound["size"], allow_error=True)
        address = self._const(bound["address"], allow_error=True) if "address" in bound else None
        return MemRef(space, base, offset, size, address)

    def _tile_view(self, call: ast.Call) -> TileView:
        if call.args:
            raise self.error(call, "pl.TileView takes keywords only",
                             hint="e.g. pl.TileView(valid_shape=[8, 64]); fields: valid_shape, blayout, slayout, "
                                  "fractal, pad")
        kw: dict[str, Any] = {}
        for k in call.keywords:
            if k.arg == "valid_shape":
                kw["valid_shape"] = self._shape(k.value)
            elif k.arg in ("blayout", "slayout", "fractal", "pad"):
                kw[k.arg] = self._const(k.value, allow_error=True)
            else:
                raise self.error(k.value, f"unknown pl.TileView field {k.arg!r}",
                                 hint="fields: valid_shape, blayout, slayout, fractal, pad")
        return TileView(**kw) if kw else NO_VIEW

    def _merge_annotation(self, inferred: Type, ann: Type, node: ast.AST, name: str) -> Type:
        """The type a variable gets: the inferred type checked against the annotation, with the
        annotation filling a missing memory space and supplying memref / tile_view facts."""
        if isinstance(ann, TileType):
            if not isinstance(inferred, TileType):
                raise self.error(node, f"{name!r} is annotated as a tile but the value is {_describe(inferred)}",
                                 hint="fix the annotation, or load the tensor into a tile with pl.tile.load")
            self._check_shape(inferred.shape, ann.shape, inferred.dtype, ann.dtype, node, name, inferred)
            mem = inferred.memory_space
            if ann.memory_space is not None:
                if mem is None:
                    mem = ann.memory_space
                elif mem is not ann.memory_space:
                    raise self.error(node, f"{name!r} is annotated in pl.Mem.{ann.memory_space.name} but the value "
                                           f"lives in pl.Mem.{mem.name}",
                                     hint=f"change the annotation to pl.Mem.{mem.name} or move the tile with "
                                          f"pl.tile.move / target_memory=")
            # the annotation states the storage: its memref is authoritative; a view fills an inferred None
            # and `pl.TileView()` (no fields) says explicitly that there is none. Views are canonical for the
            # final memory space: an annotated view that spells only implicit facts also means "no view".
            memref = ann.memref
            if ann.tile_view is NO_VIEW:
                view = None
            else:
                view = canonical_tile_view(inferred.shape, mem, ann.tile_view if ann.tile_view is not None
                                           else inferred.tile_view)
            if (mem is inferred.memory_space and memref is inferred.memref and view is inferred.tile_view):
                return inferred
            return TileType(inferred.shape, inferred.dtype, mem, memref, view)
        if isinstance(ann, TensorType):
            if not isinstance(inferred, TensorType):
                raise self.error(node, f"{name!r} is annotated as a tensor but the value is {_describe(inferred)}",
                                 hint="fix the annotation, or write the tile to a tensor with pl.store")
            self._check_shape(inferred.shape, ann.shape, inferred.dtype, ann.dtype, node, name, inferred)
            return inferred
        if isinstance(ann, ScalarType):
            if not isinstance(inferred, ScalarType) or inferred.dtype is not ann.dtype:
                raise self.error(node, f"{name!r} is annotated as {_describe(ann)} but the value is "
                                       f"{_describe(inferred)}",
                                 hint=f"annotate it as {_describe(inferred)}, or give a value of the annotated type "
                                      "(pl.const(v, dtype) for a constant)")
            return inferred
        if isinstance(ann, TupleType):
            if not isinstance(inferred, TupleType) or len(inferred.types) != len(ann.types):
                raise self.error(node, f"{name!r} is annotated as {_describe(ann)} but the value is "
                                       f"{_describe(inferred)}",
                                 hint="give the pl.Tuple[...] annotation one entry per result of the value")
            return TupleType(tuple(self._merge_annotation(i, a, node, name)
                                   for i, a in zip(inferred.types, ann.types, strict=False)))
        return inferred  # pragma: no cover

    def _check_shape(self, got: tuple[Expr, ...], want: tuple[Expr, ...], got_dt: DataType, want_dt: DataType,
                     node: ast.AST, name: str, inferred: Type) -> None:
        if len(got) != len(want) or not all(_same_expr(a, b) for a, b in zip(got, want, strict=False)):
            raise self.error(node, f"shape mismatch: {name!r} is annotated with shape {_shape_str(want)} but the "
                                   f"value has shape {_shape_str(got)}",
                             hint=f"the value is {_describe(inferred)}; fix the annotation or the op arguments")
        if got_dt is not want_dt:
            raise self.error(node, f"dtype mismatch: {name!r} is annotated as {want_dt.name} but the value is "
                                   f"{got_dt.name}",
                             hint="convert with pl.tile.cast(tile, target_type=...)")

