"""The ``@pl.jit`` form: plain functions (no class, no ``self``) specialised on the types of a call's arguments.

``JitParser.parse_entry(entry, arg_types)`` parses one ``@pl.jit`` function and every ``@pl.jit.incore`` /
``@pl.jit.inline`` function it calls (found by name in the entry's module) into a tensor-level ``ir.Program``:

- the entry becomes an Orchestration function; ``with pl.at(level=...)`` blocks become ``ScopeStmt`` (a level
  above the core group: a hierarchy scope, which OutlineHierarchyScopes outlines; on-chip levels:
  OutlineIncoreScopes outlines them); a tensor or tile op outside an on-chip scope is an error;
- ``@pl.jit.incore`` functions become InCore functions, specialised per distinct argument types;
- ``@pl.jit.inline`` functions are spliced into the caller;
- ``pl.<op>(...)`` dispatches on its operands (ops__00-dispatch): tensors -> ``tensor.<op>``, tiles ->
  ``tile.<op>``, a scalar second operand -> the ``*s`` form;
- ``out[...] = value`` becomes ``out = pl.tensor.assemble(out, value, offsets)`` (a tile value: ``pl.store``);
  ``a[i:j, :]`` on a tensor is ``pl.tensor.slice``.

Nothing is executed: bodies are read with ``ast``; shapes come from annotations, module constants, closures and
the call's arguments.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from tilefold.errors import NotSupportedError, ParseError
from tilefold.frontend.call_results import bind_call_results
from tilefold.frontend.inline import JitSource
from tilefold.frontend.parser import Parser
from tilefold.frontend.statements import lower_continue
from tilefold.ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Var
from tilefold.ir.hierarchy import ON_CHIP
from tilefold.ir.stmt import (
    AssignStmt,
    Function,
    FunctionType,
    ParamDirection,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
)
from tilefold.ir.types import DataType, ScalarType, TensorType, TileType, TupleType, Type, UnknownType
from tilefold.ops.catalog_ops import UNSUPPORTED as CATALOG_UNSUPPORTED
from tilefold.ops.registry import ParamKind, all_ops, find_op

#: ``pl.<name>`` operators that dispatch on operand kinds (ops__00-dispatch): every tensor-level op of the
#: registry, mapped to the op its scalar-operand form dispatches to (``scalar_form``, e.g. add -> adds). The
#: creation / element-access ops have forms of their own in ``JitParser._call``.
_SPECIAL_FORMS = ("create", "full", "read", "write")
DISPATCHED = {name[len("tensor."):]: op.extra.get("scalar_form") for name, op in all_ops().items()
              if name.startswith("tensor.") and name[len("tensor."):] not in _SPECIAL_FORMS}
#: tensor-level generators, ops that take no tensor / tile operand (``pl.random``, ``pl.arange`` = ``tensor.ci``):
#: ``pl.<name>`` builds the tensor form, ``pl.tile.<name>`` the tile form, whatever the operands
GENERATORS = {name for name in DISPATCHED if not any(
    p.kind in (ParamKind.TILE, ParamKind.TENSOR, ParamKind.TILE_OR_TENSOR, ParamKind.TILE_LIST)
    for p in all_ops()[f"tensor.{name}"].operand_params)}
DISPATCHED.setdefault("arange", None)  # PyPTO's name of tensor.ci (a registry spelling)
GENERATORS.add("arange")
#: the on-chip levels of ``pl.at`` (an InCore scope); the levels above are hierarchy scopes (_hierarchy_with)
LEVELS = ON_CHIP


class JitParser(Parser):
    """Parses one jit function. ``resolve(name)`` returns the JitSource of a sub-function or None."""

    python_rebinding = False  # _jit_stmt rewrites loops / ifs itself (not in the straight-line orchestration)
    hidden_dynamic_params = False  # pl.dynamic extents: the entry's hidden parameters (_dynamic_dims)

    def __init__(self, *args: Any, resolve: Callable[[str], JitSource | None], registry: dict, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.resolve = resolve
        self.registry = registry  # (name, arg types) -> Function, shared by the parsers of one program
        self.order: list[str] = registry.setdefault("__order__", [])
        self.kind = "entry"
        self.in_scope = False
        self._pre: dict[int, Expr] = {}
        self._scalar_defs: dict[Var, Expr] = {}
        self._if_merged: frozenset[str] = frozenset()  # names the if being parsed merges (see _merge_rebound_names)

    # ------------------------------------------------------------------ functions

    def parse_function(self, src: JitSource, arg_types: list[Type] | None, fname: str) -> Function:
        fn = src.node
        self.kind = src.kind
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            raise self.error(fn, "jit functions take plain positional parameters without defaults",
                             hint="remove *args, **kwargs, keyword-only markers and default values")
        self._reset_scope()
        params, dirs = [], []
        if src.kind == "entry":
            self._entry_top = {id(s) for s in fn.body}  # statements of the entry's top level (declarations)
            # pl.dynamic extents: hidden scalar parameters the runtime fills from the arrays' shapes
            for dim_var in self._dynamic_dims(fn).values():
                params.append(dim_var)
                dirs.append(ParamDirection.In)
        for i, p in enumerate(a.args):
            if p.annotation is None:
                raise self.error(p, f"Parameter {p.arg!r} missing type annotation",
                                 hint="annotate it: a: pl.Tensor[[128, 128], pl.FP32] (or bare pl.Tensor), "
                                      "out: pl.Out[pl.Tensor[...]], n: pl.Scalar[pl.INDEX]")
            given = arg_types[i] if arg_types is not None and i < len(arg_types) else None  # None: not given
            t, d = self._jit_param_type(p.annotation, given, p.arg)
            t = self._bound_dynamic_axes(p, t)
            v = Var(p.arg, t, self.span(p))
            self._param_vars.add(v)
            params.append(v)
            dirs.append(d)
            self._define(p.arg, v, p)
        self._current_sig = _NoSig()
        body: list[Stmt] = []
        self._future.run(fn.body, lambda _i, s: self._stmt(s, body), isolated=True)
        rets = [s for s in body if isinstance(s, ReturnStmt)]
        rtypes = tuple(v.type for v in rets[-1].values) if rets else ()
        ftype = FunctionType.Orchestration if src.kind == "entry" else FunctionType.InCore
        return bind_call_results(Function(fname, tuple(params), tuple(dirs), rtypes, SeqStmts(tuple(body)), ftype,
                                          span=self.span(fn)))

    def _dynamic_dims(self, fn: ast.FunctionDef) -> dict[str, Var]:
        """``pl.dynamic`` extents named in the parameter annotations (by module / closure name, or inline
        ``pl.dynamic("M")``): one INDEX variable per distinct dimension name, bound under the Python name."""
        from tilefold.frontend.dsl import DynamicDim

        self._dyn_vars: dict[str, Var] = {}
        for p in fn.args.args:
            if p.annotation is None:
                continue
            for node in self._annotation_nodes(p.annotation):
                dim = None
                if isinstance(node, ast.Name) and self.const_lookup is not None:
                    value = self.const_lookup(node.id)
                    dim = value if isinstance(value, DynamicDim) else None
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "dynamic" and node.args and isinstance(node.args[0], ast.Constant) \
                        and isinstance(node.args[0].value, str):
                    dim = DynamicDim(node.args[0].value)
                if dim is None:
                    continue
                var = self._dyn_vars.get(dim.name)
                if var is None:
                    var = self._dyn_vars[dim.name] = Var(dim.name, ScalarType(DataType.INDEX), self.span(node))
                if isinstance(node, ast.Name) and node.id not in self.env:
                    self._define(node.id, var, node)
        self._bindings = self._dynamic_bindings(fn)
        return self._dyn_vars

    def _annotation_nodes(self, annotation: ast.expr) -> list[ast.AST]:
        """The nodes of ``annotation``, an annotation alias's (``x: T`` with ``T = pl.Tensor[[N, 64], ...]``)
        expanded in place."""
        out: list[ast.AST] = []
        for node in ast.walk(annotation):
            out.append(node)
            alias = self._annotation_alias(node) if isinstance(node, ast.Name) else None
            if alias is not None:
                out.extend(self._annotation_nodes(alias))
        return out

    def _dynamic_bindings(self, fn: ast.FunctionDef) -> dict[str, list[Any]]:
        """``x.bind_dynamic(axis, M)`` declarations of the entry (``tilefold.frontend.bind_dynamic``): parameter
        -> its bindings; each dim gets its hidden extent variable, and a local ``M = pl.dynamic("M")`` its name."""
        from tilefold.frontend import bind_dynamic

        found: dict[str, list[Any]] = {}
        for b in bind_dynamic.bindings(fn, self.const_lookup, self.error):
            if b.dim not in self._dyn_vars:
                self._dyn_vars[b.dim] = Var(b.dim, ScalarType(DataType.INDEX), self.span(b.node))
            if b.py_name is not None and b.py_name not in self.env:
                self._define(b.py_name, self._dyn_vars[b.dim], b.node)
            found.setdefault(b.param, []).append(b)
        for py_name, dim in bind_dynamic.local_dims(fn).items():
            if dim not in self._dyn_vars:
                self._dyn_vars[dim] = Var(dim, ScalarType(DataType.INDEX), self.span(fn))
            if py_name not in self.env:
                self._define(py_name, self._dyn_vars[dim], fn)
        return found

    def _bound_dynamic_axes(self, p: ast.arg, t: Type) -> Type:
        """The type of parameter ``p`` with its ``bind_dynamic`` axes replaced by their dims' variables."""
        binds = getattr(self, "_bindings", {}).get(p.arg, []) if self.kind == "entry" else []
        if not binds:
            return t
        if not isinstance(t, TensorType):
            raise self.error(binds[0].node, f"bind_dynamic on {p.arg!r}, which is not a tensor",
                             hint="bind an axis of a pl.Tensor parameter")
        ann = p.annotation
        if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Attribute) \
                and ann.value.attr in ("Out", "InOut", "In"):
            ann = ann.slice
        bare = isinstance(ann, ast.Attribute) and ann.attr == "Tensor"
        shape = list(t.shape)
        done: dict[int, str] = {}
        for b in binds:
            axis = b.axis + len(shape) if b.axis < 0 else b.axis
            if not 0 <= axis < len(shape):
                raise self.error(b.node, f"bind_dynamic axis {b.axis} of {p.arg!r}, a tensor of rank {len(shape)}",
                                 hint=f"use an axis in [0, {len(shape)})")
            if done.get(axis, b.dim) != b.dim:
                raise self.error(b.node, f"axis {axis} of {p.arg!r} is bound to {done[axis]!r} and {b.dim!r}",
                                 hint="bind each axis once")
            var = self._dyn_vars[b.dim]
            if not bare and shape[axis] is not var:
                raise self.error(b.node, f"axis {axis} of {p.arg!r} is annotated with the extent "
                                         f"{_describe_dim(shape[axis])}: bind_dynamic cannot make it dynamic",
                                 hint=f"annotate the axis with {b.dim} (a pl.dynamic dim), or annotate a bare "
                                      "pl.Tensor and bind its axes")
            shape[axis] = var
            done[axis] = b.dim
        return TensorType(tuple(shape), t.dtype)

    def _jit_param_type(self, node: ast.expr, given: Type | None, name: str) -> tuple[Type, ParamDirection]:
        node = self._annotation_alias(node) or node  # x: T, T = pl.Tensor[...] at module level
        direction = ParamDirection.In
        inner = node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and self._is_pl(
                node.value.value) and node.value.attr in ("Out", "InOut", "In"):
            direction = ParamDirection[node.value.attr]
            inner = self._annotation_alias(node.slice) or node.slice
        if isinstance(inner, ast.Attribute) and self._is_pl(inner.value) and inner.attr == "Tensor":
            if given is None:
                raise self.error(inner, f"parameter {name!r} is a bare pl.Tensor: its shape comes from the call",
                                 hint="call the kernel with arrays (kernel(a, b, out)) or kernel.compile(a, b, out), "
                                      "or annotate pl.Tensor[[rows, cols], pl.FP32]")
            return given, direction
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Attribute) and self._is_pl(
                inner.value.value) and inner.value.attr == "Tensor" and _has_dynamic(self, inner):
            if self.kind != "entry" and given is not None:
                return given, direction  # a helper takes the (possibly symbolic) types of its call
            t, _ = self._param_type(inner)  # symbolic in the pl.dynamic extents: one program for all of them
            if given is not None and isinstance(t, TensorType) and isinstance(given, TensorType):
                ok = len(t.shape) == len(given.shape) and t.dtype is given.dtype and all(
                    not isinstance(a, ConstInt) or (isinstance(b, ConstInt) and a.value == b.value)
                    for a, b in zip(t.shape, given.shape, strict=False))
                if not ok:
                    raise self.error(node, f"argument {name!r} is {_tstr(given)} but the annotation says "
                                           f"{_tstr(t)}",
                                     hint="pass an array of the annotated rank, dtype and constant extents")
            return t, direction
        t, _ = self._param_type(inner)
        if given is not None and isinstance(t, TensorType) and isinstance(given, TensorType):
            if t.static_shape != given.static_shape or t.dtype is not given.dtype:
                raise self.error(node, f"argument {name!r} is {_tstr(given)} but the annotation says {_tstr(t)}",
                                 hint="pass an array of the annotated shape and dtype, or annotate a bare pl.Tensor")
        return t, direction

    # ------------------------------------------------------------------ statements

    def _stmt(self, s: ast.stmt, out: list[Stmt]) -> None:
        marker = len(out)
        with self._splice_into(out):  # inline helpers' statements go first
            self._jit_stmt(s, out)
        # one op per statement: later passes (memory inference, tiling) place each call's result
        out[marker:] = [x for s2 in out[marker:] for x in _one_op_per_statement(s2)]
        for s2 in out[marker:]:  # scalar definitions: slice extents like k0 : k0 + K are proved through them
            if isinstance(s2, AssignStmt) and isinstance(s2.var.type, ScalarType) and not isinstance(s2.value, Call):
                self._scalar_defs[s2.var] = s2.value

    def _jit_stmt(self, s: ast.stmt, out: list[Stmt]) -> None:
        from tilefold.frontend import bind_dynamic, jit_scopes

        top = self.kind == "entry" and id(s) in getattr(self, "_entry_top", ())
        if top and (bind_dynamic.binding_call(s) is not None or bind_dynamic.is_local_dim(s)):
            return  # declarations, applied to the signature (_dynamic_bindings)
        nested = bind_dynamic.nested_binding(s) if not isinstance(s, (ast.For, ast.While, ast.If, ast.With)) \
            else None
        if nested is not None:
            raise self.error(nested, "bind_dynamic is a declaration of the @pl.jit entry: a statement at the top "
                                     "of its body", hint="move `x.bind_dynamic(axis, M)` to the top of the entry")

        if self.kind == "entry" and not self.in_scope and (
                (isinstance(s, ast.For) and jit_scopes.spmd_loop(self, s, out)) or jit_scopes.task_array_stmt(self, s)
                or jit_scopes.task_dummy_stmt(self, s)):
            return
        if isinstance(s, ast.For) and self.kind == "entry" and not self.in_scope:
            self._unroll_orchestration_loop(s, out)
            return
        if isinstance(s, ast.For):  # `continue` first: the branch it skips to must see the rebound names carried
            s = self._carry_rebound_names(lower_continue(self, s))
        if isinstance(s, ast.If) and (self.in_scope or self.kind != "entry"):  # orchestration code is straight-line
            s, merged = self._merge_rebound_names(s)
            saved, self._if_merged = self._if_merged, merged  # only this if's own branches may rebind them
            try:
                super()._stmt(s, out)
            finally:
                self._if_merged = saved
            return
        if isinstance(s, ast.With):
            self._with(s, out)
            return
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Subscript):
            self._subscript_assign(s.targets[0], s.value, out, s)
            return
        if isinstance(s, ast.Return) and s.value is not None:
            values = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
            exprs = []
            for i, v in enumerate(values):
                e = self._expr(v)
                if isinstance(e, Call):  # orchestration launches are statements: bind the result first
                    var = Var(f"ret{i}" if len(values) > 1 else "ret", e.type, self.span(v))
                    out.append(AssignStmt(var, e, span=self.span(v)))
                    e = var
                exprs.append(e)
            out.append(ReturnStmt(tuple(exprs), span=self.span(s)))
            return
        super()._stmt(s, out)

    def _with(self, s: ast.With, out: list[Stmt]) -> None:
        from tilefold.frontend import jit_scopes

        if jit_scopes.other_with(self, s, out):  # pl.manual_scope() / pl.scope() / pl.spmd(n)
            return
        if len(s.items) != 1:
            raise self.error(s, "a jit kernel's with statement is `with pl.at(level=pl.Level.CORE_GROUP):`",
                             hint="one pl.at(...) item (optionally `as tid`)")
        call = s.items[0].context_expr
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "at"
                and self._is_pl(call.func.value)):
            raise self.error(call, "only `with pl.at(level=...)` scopes are supported in a jit kernel",
                             hint="write `with pl.at(level=pl.Level.CORE_GROUP):`")
        level, attrs = jit_scopes.at_options(self, call)
        if call.args:
            raise self.error(call, "pl.at takes keyword arguments only", hint="pl.at(level=pl.Level.CORE_GROUP)")
        if level not in LEVELS:
            self._hierarchy_with(s, level, attrs, out)
            return
        if self.kind != "entry":
            raise self.error(s, "pl.at scopes belong in the @pl.jit entry",
                             hint="an @pl.jit.incore function already runs on the chip: drop the with")
        if self.in_scope:
            raise self.error(s, "pl.at scopes do not nest", hint="merge the inner scope into the outer one")
        body: list[Stmt] = []
        before = jit_scopes.env_mark(self)
        self.in_scope = True
        try:
            self._future.run(s.body, lambda _i, b: self._stmt(b, body))
        finally:
            self.in_scope = False
        jit_scopes.forget_scope_locals(self, before)
        jit_scopes.check_no_dep_args(self, s, attrs, body)
        jit_scopes.bind_task_id(self, s, attrs)
        out.extend(jit_scopes.scope_dumps(self, s, attrs, body))
        out.append(ScopeStmt(level, SeqStmts(tuple(body)), attrs=tuple(attrs.items()), span=self.span(s)))

    def _hierarchy_with(self, s: ast.With, level: str, attrs: dict[str, Any], out: list[Stmt]) -> None:
        """``with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):`` in the entry (frontend/hierarchy.py):
        orchestration code placed at a hierarchy level, holding on-chip scopes (and further hierarchy scopes). It
        becomes a hierarchy ``ScopeStmt``, which OutlineHierarchyScopes outlines and InlineOrchestrationCalls
        splices back, so it runs in program order with the code around it."""
        from tilefold.frontend import jit_scopes

        if self.kind != "entry":
            raise self.error(s, f"a pl.Level.{level} scope in an @pl.jit.{self.kind} function",
                             hint="hierarchy scopes are orchestration code: put them in the @pl.jit entry")
        if self.in_scope:
            raise self.error(s, f"a pl.Level.{level} scope inside an on-chip pl.at scope: the code there already "
                                "runs on the chip",
                             hint="put the hierarchy scope around the on-chip scopes, in the entry's code")
        jit_scopes.check_hierarchy_options(self, s, attrs)
        ret = next((n for b in s.body for n in ast.walk(b) if isinstance(n, ast.Return)), None)
        if ret is not None:
            raise self.error(ret, f"return inside a pl.Level.{level} scope",
                             hint="the scope is outlined into a function of its own: return after the with block")
        body: list[Stmt] = []
        self._future.run(s.body, lambda _i, b: self._stmt(b, body))
        kept = {"role": attrs.get("role"), **({"name_hint": attrs["name_hint"]} if "name_hint" in attrs else {})}
        out.append(ScopeStmt(level, SeqStmts(tuple(body)), attrs=tuple(kept.items()), span=self.span(s)))

    # ------------------------------------------------------------------ expressions

    def _expr(self, node: ast.expr) -> Expr:
        pre = self._pre.pop(id(node), None)
        if pre is not None:
            return pre
        if isinstance(node, ast.Subscript):
            extent = self._shape_extent(node)  # x.shape[i]
            if extent is not None:
                return extent
            base = self._expr(node.value)
            if isinstance(base.type, TensorType):
                return self._tensor_slice(node, base)
            self._pre[id(node.value)] = base
        return super()._expr(node)

    def _tensor_slice(self, node: ast.Subscript, base: Expr) -> Expr:
        """``a[lo:hi, ...]``: a window of static extent at offsets that may be scalar expressions (loop
        variables, scalar parameters). The extent ``hi - lo`` must be the same integer whatever the variables
        are (``k0 : k0 + K`` is K); ConvertTensorToTileOps checks the window against the tensor."""
        t = base.type
        assert isinstance(t, TensorType)
        shape = [e.value if isinstance(e, ConstInt) else e for e in t.shape]  # a pl.dynamic extent: its variable
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(shape):
            raise self.error(node, f"{len(items)} subscripts for a rank-{len(shape)} tensor", hint="one per axis")
        offs: list[Expr] = []
        exts: list[int] = []
        for axis, extent in enumerate(shape):
            item = items[axis] if axis < len(items) else ast.Slice(lower=None, upper=None, step=None)
            if not isinstance(item, ast.Slice) or item.step is not None:
                raise self.error(node, "tensor subscripts are slices `lo:hi` without a step",
                                 hint="e.g. a[0:16, :]")
            lo = self._bound(item.lower, 0, node)
            hi = self._bound(item.upper, extent, node) if isinstance(extent, int) or item.upper is not None \
                else extent
            ext = self._static_extent(hi, lo, item, node)
            offs.append(lo)
            exts.append(ext)
        self._check_scope(node, "tensor.slice")
        span = self.span(node)
        return self._make(node, "tensor.slice", [base, _tuple(exts, span), MakeTuple(tuple(offs), span=span)])

    def _bound(self, node: ast.expr | None, default: int, where: ast.AST) -> Expr:
        """A slice bound: a ConstInt when it folds to an integer, else an integer scalar expression."""
        from tilefold.ir.types import DataType

        if node is None:
            return ConstInt(default, DataType.INDEX, span=self.span(where))
        v = self._fold_number(node)
        if isinstance(v, int) and not isinstance(v, bool):
            return ConstInt(v, DataType.INDEX, span=self.span(node))
        e = self._expr(node)  # e.g. pl.tensor.dim(a, 0), a loop variable, k * K_CHUNK
        if isinstance(e, ConstInt):
            return e
        if not isinstance(e.type, ScalarType) or e.type.dtype.is_float:
            raise self.error(node, "tensor slice bounds must be integers (constants or integer scalar expressions)",
                             hint="e.g. a[i * 64 : (i + 1) * 64, :] with i a loop variable")
        return e

    def _static_extent(self, hi: Expr, lo: Expr, item: ast.Slice, where: ast.AST) -> int:
        from tilefold.analysis.affine import constant_difference

        ext = constant_difference(hi, lo, self._scalar_defs)
        node = item if hasattr(item, "lineno") else where
        if ext is None:
            raise self.error(node, "tensor slice extent must be a compile-time constant: cannot prove that hi - lo "
                                   "is the same for every value of the variables",
                             hint="write the window as `lo : lo + EXTENT` with a constant EXTENT (e.g. "
                                  "a[k0 : k0 + 128, :]), or use pl.slice(a, [rows, cols], [row_off, col_off])")
        if ext <= 0:
            raise self.error(node, f"tensor slice extent hi - lo = {ext} is not positive",
                             hint="write lo < hi")
        return ext

    def _make(self, node: ast.AST, opname: str, args: list[Expr], attrs: dict[str, Any] | None = None) -> Expr:
        from tilefold.ops.registry import make_call

        try:
            return make_call(opname, args, attrs or {}, span=self.span(node))
        except ParseError:
            raise
        except Exception as exc:  # TypeInferenceError: attach the location
            from tilefold.errors import TypeInferenceError

            if isinstance(exc, TypeInferenceError):
                raise TypeInferenceError(exc.message, span=self.span(node), hint=exc.hint) from None
            raise

    def _check_scope(self, node: ast.AST, opname: str) -> None:
        if self.kind == "entry" and not self.in_scope:
            raise self.error(node, f"Misplaced tensor op {opname!r} in Orchestration function (should be inside "
                                   "an InCore scope)",
                             hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):` or move it into a "
                                  "@pl.jit.incore function")

    def _call(self, node: ast.Call) -> Expr:
        f = node.func
        if isinstance(f, ast.Name) and f.id not in ("min", "max", "float"):
            return self._sub_call(node, f.id)
        if isinstance(f, ast.Attribute):
            base = f.value
            name = f.attr
            if self._is_pl(base):
                if name in CATALOG_UNSUPPORTED and _unregistered(name):
                    raise NotSupportedError(f"pl.{name}: {CATALOG_UNSUPPORTED[name]}", span=self.span(node),
                                            hint="docs/ops.md lists the catalog operators tilefold refuses")
                if name == "dim":
                    return self._dim(node)
                if name == "dynamic" and node.args and isinstance(node.args[0], ast.Constant) \
                        and node.args[0].value in getattr(self, "_dyn_vars", {}):
                    return self._dyn_vars[node.args[0].value]
                if name == "full":  # whole-array creation: a tensor-level op (ops__00-dispatch)
                    self._check_scope(node, "tensor.full")
                    return self._checked_op(node, "tensor.full")
                if name == "create_tile":
                    return self._checked_op(node, "tile.create")
                if name == "read":
                    return self._checked_op(node, "tensor.read")
                if name == "write":  # into a GM tensor, or into a staged tile (one store afterwards)
                    return self._element_write(node)
                if name == "fillpad":
                    return self._fillpad(node)
                if name == "set_validshape" and len(node.args) == 3:  # PyPTO: (tile, valid_rows, valid_cols)
                    node = ast.copy_location(ast.Call(func=node.func, args=[node.args[0], ast.copy_location(
                        ast.List(elts=node.args[1:], ctx=ast.Load()), node.args[1])], keywords=node.keywords), node)
                    return self._checked_op(node, "tile.set_validshape")
                if name in DISPATCHED:
                    return self._dispatch(node, name, None)
            if isinstance(base, ast.Attribute) and self._is_pl(base.value) and base.attr in ("tensor", "tile"):
                if name in CATALOG_UNSUPPORTED and _unregistered(name):
                    raise NotSupportedError(f"pl.{base.attr}.{name}: {CATALOG_UNSUPPORTED[name]}",
                                            span=self.span(node),
                                            hint="docs/ops.md lists the catalog operators tilefold refuses")
                if base.attr == "tensor" and name == "dim":
                    return self._dim(node)
                if name == "full":
                    if base.attr == "tensor":
                        self._check_scope(node, "tensor.full")
                    return self._checked_op(node, f"{base.attr}.full")
                if base.attr == "tensor" and name in ("read", "write"):
                    return self._checked_op(node, f"tensor.{name}")
                if base.attr == "tile" and name == "fillpad":
                    return self._fillpad(node)
                if name in DISPATCHED:
                    return self._dispatch(node, name, base.attr)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and f.value.attr == "system" \
                and self._is_pl(f.value.value):
            return super()._call(node)  # PyPTO's runtime primitives: refused there, by name
        if isinstance(f, ast.Attribute) and (self._is_pl(f.value) or (
                isinstance(f.value, ast.Attribute) and self._is_pl(f.value.value))):
            return self._checked_op(node, None)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in self.env \
                and f.value.id != "self" and self.resolve(f"{f.value.id}.{f.attr}") is not None:
            return self._sub_call(node, f.attr, f"{f.value.id}.{f.attr}")  # helpers.rmsnorm(x, w): a module's
        return super()._call(node)

    def _checked_op(self, node: ast.Call, opname: str | None) -> Expr:
        """A tile-level op call (load, store, create_tile, ...): legal in an InCore scope / function."""
        f = node.func
        assert isinstance(f, ast.Attribute)
        if f.attr not in ("range", "pipeline", "parallel", "unroll", "while_", "yield_", "cond", "min", "max",
                          "const", "make_tuple", "create_tensor", "create") and self.kind == "entry" \
                and not self.in_scope:
            raise self.error(node, f"Misplaced tile op 'pl.{f.attr}' in Orchestration function (should be inside "
                                   "an InCore scope)",
                             hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):` or move it into a "
                                  "@pl.jit.incore function")
        if opname is not None:
            return self._op_call(node, opname)
        return super()._call(node)

    def _element_write(self, node: ast.Call) -> Expr:
        """``pl.write(target, indices, value)``: ``tensor.write`` into a GM tensor, ``tile.write`` into a tile."""
        opname = "tensor.write"
        if node.args:
            target = self._expr(node.args[0])
            self._pre[id(node.args[0])] = target
            if isinstance(target.type, TileType):
                opname = "tile.write"
        return self._checked_op(node, opname)

    def _scalar_cast(self, node: ast.Call, value: Expr) -> Expr:
        """``pl.cast(i, pl.INT32)`` of a scalar: an integer keeps its value in any integer or float dtype (the
        consumer — an element write, a scalar operand — converts it); float -> int truncation is not modelled."""
        for a in node.args:
            self._pre.pop(id(a), None)
        target = None
        for a in node.args[1:]:
            target = self._dtype_operand(a)
        for kw in node.keywords:
            if kw.arg in ("target_type", "dtype"):
                target = self._dtype_operand(kw.value)
        if not isinstance(target, DataType):
            raise self.error(node, "pl.cast of a scalar needs a target dtype", hint="e.g. pl.cast(i, pl.INT32)")
        src = value.type.dtype  # type: ignore[union-attr]
        if src.is_float and not target.is_float:
            raise NotSupportedError("pl.cast of a float scalar to an integer dtype is not supported",
                                    span=self.span(node), hint="compute the index with integer arithmetic")
        return value

    def _dtype_operand(self, node: ast.expr) -> DataType | None:
        if isinstance(node, ast.Attribute) and self._is_pl(node.value):
            dt = getattr(DataType, node.attr, None)
            return dt if isinstance(dt, DataType) else None
        return None

    def _fillpad(self, node: ast.Call) -> Expr:
        """``pl.fillpad`` / ``pl.tile.fillpad``: fills a tile's invalid region. Tensors carry no valid shape here."""
        if node.args:
            value = self._expr(node.args[0])
            self._pre[id(node.args[0])] = value
            if isinstance(value.type, TensorType):
                self._pre.pop(id(node.args[0]), None)
                raise self.error(node.args[0], "pl.fillpad pads a tile; tensors carry no valid shape in tilefold",
                                 hint="load the block with pl.load(tensor, offsets, shapes, valid_shapes=[...]) "
                                      "and fillpad the tile")
        return self._checked_op(node, "tile.fillpad")

    def _dispatch(self, node: ast.Call, name: str, ns: str | None) -> Expr:
        if name in GENERATORS:  # no operand to dispatch on: the namespace decides (pl. is the tensor level)
            opname = f"{ns or 'tensor'}.{name}"
            if opname.startswith("tensor."):
                self._check_scope(node, opname)
            return self._checked_op(node, opname)
        value_nodes = [a for a in node.args
                       if not isinstance(a, (ast.List, ast.Tuple)) and not self._is_option_operand(a)]
        args = [self._expr(a) for a in value_nodes]
        for a, e in zip(value_nodes, args, strict=True):
            self._pre[id(a)] = e
        if not args:
            raise self.error(node, f"pl.{name} needs operands", hint="pass the tensors / tiles to combine")
        first = args[0].type
        if name == "cast" and ns is None and isinstance(first, ScalarType):
            return self._scalar_cast(node, args[0])
        level = ns or ("tensor" if isinstance(first, TensorType) else "tile" if isinstance(first, TileType) else None)
        if level is None:
            raise self.error(node.args[0], f"pl.{name}: the first operand must be a tensor or a tile, got "
                                           f"{type(first).__name__}",
                             hint="scalar arithmetic uses Python operators")
        op = name
        scalar_form = DISPATCHED.get(name)
        if scalar_form and len(args) > 1 and isinstance(args[1].type, ScalarType):
            op = scalar_form
        if name in ("sqrt", "rsqrt"):  # recip's high_precision= is an attribute of the op (ops/reciprocal.py)
            node = self._precision_option(node, name, level)
        if level == "tile" and name in ("row_sum", "row_max", "row_min", "row_prod", "sqrt", "rsqrt") \
                and len(args) == 2:
            # PyPTO's tile reductions take a scratch tile; tilefold's reductions need none
            self._pre.pop(id(node.args[1]), None)
            node = ast.Call(func=node.func, args=node.args[:1], keywords=node.keywords)
            ast.copy_location(node, node.func)
        opname = f"{level}.{op}"
        if find_op(opname) is None:
            for a in node.args:
                self._pre.pop(id(a), None)
            raise self.error(node.func, f"pl.{name} has no {level}-level form in tilefold",
                             hint="the tensor-level operators are listed in docs/dsl.md (jit form)")
        if level == "tensor":
            self._check_scope(node, opname)
        elif self.kind == "entry" and not self.in_scope:
            raise self.error(node, f"Misplaced tile op {opname!r} in Orchestration function (should be inside an "
                                   "InCore scope)", hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):`")
        return self._op_call(node, opname)

    def _precision_option(self, node: ast.Call, name: str, level: str) -> ast.Call:
        """PyPTO's ``high_precision=`` on sqrt / rsqrt (tensor level only): tilefold computes these in FP32 already
        (the precise path), so the option is accepted and has no further effect; on a tile, sqrt / rsqrt choose
        precision by a scratch tile instead, and a true ``high_precision=`` raises, as in PyPTO."""
        options = [kw for kw in node.keywords if kw.arg == "high_precision"]
        if not options:
            return node
        value = self._fold_number(options[0].value) if not isinstance(options[0].value, ast.Constant) \
            else options[0].value.value
        if level == "tile" and value not in (False, 0, None):
            raise self.error(options[0].value, f"high_precision= is tensor-only: pl.{name} on a tile takes the "
                                               "precision from a scratch tile",
                             hint=f"pass the scratch tile instead: pl.tile.{name}(src, tmp)")
        new = ast.Call(func=node.func, args=node.args, keywords=[kw for kw in node.keywords if kw not in options])
        return ast.copy_location(new, node)

    # ------------------------------------------------------------------ calls of other jit functions

    def _sub_call(self, node: ast.Call, name: str, lookup: str | None = None) -> Expr:
        """A call of an ``@pl.jit.incore`` / ``@pl.jit.inline`` function ``name`` (``lookup``: how the entry's
        module reaches it, ``module.name`` for a function of an imported module)."""
        src = self.resolve(lookup or name)
        if src is None:
            raise self.error(node.func, f"unknown function {name!r}",
                             hint="decorate it with @pl.jit.incore or @pl.jit.inline in the entry's module "
                                  "(a plain @pl.jit entry does not call other @pl.jit entries)")
        if src.kind == "inline":
            return self._inline_call(node, src)
        if node.keywords:
            raise self.error(node, f"{name}(...) takes positional arguments", hint="pass the arguments in order")
        args = [self._expr(a) for a in node.args]
        if len(args) != len(src.node.args.args):
            raise self.error(node, f"{name} takes {len(src.node.args.args)} argument(s) but {len(args)} were given",
                             hint="pass one value per parameter")
        if self.in_scope:
            raise self.error(node, f"calling @pl.jit.incore {name!r} inside a pl.at scope",
                             hint="call InCore functions from the entry's body, outside the scope")
        if self.kind != "entry":
            raise self.error(node, f"an InCore function cannot launch {name!r}",
                             hint="launch it from the @pl.jit entry")
        types = [a.type for a in args]
        key = (lookup or name, tuple(_type_key(t) for t in types))
        fn = self.registry.get(key)
        if fn is None:
            from tilefold.ir.names import unique_name

            fname = unique_name({v.name for k, v in self.registry.items() if isinstance(k, tuple)}, name)
            sub = JitParser(**src.parser_args, resolve=self.resolve, registry=self.registry)
            fn = sub.parse_function(src, types, fname)
            self.registry[key] = fn
            self.order.append(key)
        rts = fn.return_types
        rtype: Type = UnknownType() if not rts else rts[0] if len(rts) == 1 else TupleType(rts)
        return Call(GlobalVar(fn.name, span=self.span(node)), tuple(args), (), rtype, span=self.span(node))

    def _inline_sub_parser(self, src: JitSource) -> JitParser:
        return JitParser(**src.parser_args, resolve=self.resolve, registry=self.registry)

    def _inline_context(self, sub: Any) -> None:
        """A helper's body is parsed in its caller's place: the same kind of function and scope, the same task
        ids."""
        super()._inline_context(sub)
        sub.kind, sub.in_scope = self.kind, self.in_scope
        from tilefold.frontend import jit_scopes

        sub._tf_tasks = jit_scopes.tasks(self)


def _unregistered(name: str) -> bool:
    """No registry op of that name at either level (a refused catalog operator someone registers is no longer
    refused)."""
    return find_op(f"tile.{name}") is None and find_op(f"tensor.{name}") is None


def _one_op_per_statement(s: Stmt) -> list[Stmt]:
    """``s`` with op calls nested in its call's operands bound to variables first (in evaluation order)."""
    from tilefold.ir.stmt import EvalStmt

    if not isinstance(s, (AssignStmt, EvalStmt, ReturnStmt)):
        return [s]
    before: list[Stmt] = []

    def flat(e: Expr, top: bool) -> Expr:
        if not isinstance(e, Call) or isinstance(e.op, GlobalVar):
            return e
        args = tuple(flat(a, False) for a in e.args)
        if any(x is not y for x, y in zip(args, e.args, strict=True)):
            e = e.with_fields(args=args)
        if top:
            return e
        v = Var(f"{e.op_name.split('.')[-1]}_t", e.type, e.span)
        before.append(AssignStmt(v, e, span=e.span))
        return v

    if isinstance(s, AssignStmt):
        value = flat(s.value, True)
        s = s if value is s.value else s.with_fields(value=value)
    elif isinstance(s, EvalStmt):
        value = flat(s.expr, True)
        s = s if value is s.expr else s.with_fields(expr=value)
    else:
        values = tuple(flat(v, True) for v in s.values)
        s = s.with_fields(values=values)
    return [*before, s]


class _NoSig:
    return_types: tuple = ()


def _tuple(values: list[int], span) -> MakeTuple:
    from tilefold.ir.types import DataType

    return MakeTuple(tuple(ConstInt(v, DataType.INDEX, span=span) for v in values), span=span)


def _type_key(t: Type) -> Any:
    if isinstance(t, TensorType):
        return ("tensor", t.static_shape, t.dtype.name)
    if isinstance(t, ScalarType):
        return ("scalar", t.dtype.name)
    return (type(t).__name__, str(t))


def _tstr(t: TensorType) -> str:
    dims = ", ".join(str(e.value) if isinstance(e, ConstInt) else getattr(e, "name", "?") for e in t.shape)
    return f"Tensor[[{dims}], {t.dtype.name}]"


def _has_dynamic(parser: Parser, node: ast.Subscript) -> bool:
    """Does the shape list of ``pl.Tensor[[...], dtype]`` name a ``pl.dynamic`` extent?"""
    from tilefold.frontend.dsl import DynamicDim

    sl = node.slice
    shape = sl.elts[0] if isinstance(sl, ast.Tuple) and sl.elts else None
    if not isinstance(shape, (ast.List, ast.Tuple)):
        return False
    for e in shape.elts:
        if isinstance(e, ast.Name) and parser.const_lookup is not None \
                and isinstance(parser.const_lookup(e.id), DynamicDim):
            return True
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "dynamic":
            return True
    return False


__all__ = ["DISPATCHED", "LEVELS", "JitParser", "JitSource"]


def _describe_dim(e: Expr) -> str:
    return str(e.value) if isinstance(e, ConstInt) else getattr(e, "name", "?")
