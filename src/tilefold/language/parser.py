"""The ``pl`` parser: Python source -> ``ir.Program``, using Python's ``ast`` only.

User code is never executed. Module-level constants (``N = 16``, ``SHAPE = [16, 64]``) are folded
statically in text mode; in decorator mode they are read (not evaluated) from the defining frame.

Scoping and SSA
- Every assignment creates a new ``Var``; rebinding a name in the same body is SSA rebinding.
- Loop / if bodies open a scope. Names defined inside vanish at its end; only the targets of the final
  ``x = pl.yield_(...)`` become visible after the construct (they are its ``return_vars``).
- Assigning, inside a loop or if body, to a name bound outside it is an error: loop-carried values
  go through ``init_values`` and ``pl.yield_``. Loop headers (loop var, iter args) may shadow.

Every error is a ``ParseError`` / ``TypeInferenceError`` carrying a ``Span`` and a hint.
"""

from __future__ import annotations

import ast
import difflib
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tilefold.errors import ParseError, Span, TilefoldError, TypeInferenceError
from tilefold.ir.affine import AffineMap, AffineMapError
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
    IterArg,
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
    Var,
)
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
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
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
    UnknownType,
    canonical_tile_view,
)
from tilefold.ops.registry import OpDef, ParamKind, find_op, make_call

_INDEX = DataType.INDEX
_INDEX_T = ScalarType(DataType.INDEX)
_LOOP_KINDS = {"range": ForKind.Sequential, "pipeline": ForKind.Pipeline, "parallel": ForKind.Parallel,
               "unroll": ForKind.Unroll}
_BINOPS: dict[type, type[BinaryExpr]] = {ast.Add: Add, ast.Sub: Sub, ast.Mult: Mul, ast.FloorDiv: FloorDiv,
                                         ast.Mod: Mod}
_CMPOPS: dict[type, type[BinaryExpr]] = {ast.Eq: Eq, ast.NotEq: Ne, ast.Lt: Lt, ast.LtE: Le, ast.Gt: Gt,
                                         ast.GtE: Ge}
_FOLD = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a ** b,
}
_OP_ALIASES = {"store": "tile.store", "load": "tile.load", "create_tensor": "tensor.create"}
# pl.<name> entries that are DSL constructs, not op aliases
_DSL_NAMES = {"range", "pipeline", "parallel", "unroll", "while_", "yield_", "cond", "min", "max", "const",
              "make_tuple", "affine_map"}
# the reserved call keyword carrying call kwargs an op does not declare (pass markers such as tiled_op)
EXTRA_KWARGS = "ir_attrs"
_PLAIN = (int, float, bool, str, type(None), DataType, MemorySpace, FunctionType, AffineMap)


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector. Parsing and printing build large acyclic trees; collections
    triggered by those allocations rescan every live node and make big inputs superlinear."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _NotConst(Exception):
    """Raised by constant folding when a node is not a compile-time constant."""


_NOT_CONST = _NotConst()


@dataclass
class _Yield:
    values: list[Expr]
    targets: list[str] | None  # None: bare pl.yield_(...)
    annotation: ast.expr | None
    node: ast.stmt
    types: list[ast.expr] | None = None  # pl.yield_(a, b, types=[T1, T2]) for multi-result targets


@dataclass
class _FnSig:
    gvar: GlobalVar
    params: list[tuple[str, Type, ParamDirection]]
    return_types: tuple[Type, ...]
    func_type: FunctionType
    attrs: tuple[tuple[str, Any], ...]
    node: ast.FunctionDef


def _plain_data(value: Any, depth: int = 0) -> Any:
    """Python data acceptable as a DSL constant (lists become tuples), else raise _NotConst."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)) and depth < 8:
        return tuple(_plain_data(v, depth + 1) for v in value)
    try:  # numpy scalars
        import numpy as np

        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            return float(value)
    except ImportError:  # pragma: no cover
        pass
    raise _NOT_CONST


class Parser:
    """Parses one source text. ``consts`` maps names to Python constants (module-level / closure)."""

    def __init__(self, source: str, filename: str = "<string>", *, line_offset: int = 0, col_offset: int = 0,
                 file_lines: list[str] | None = None, consts: dict[str, Any] | None = None,
                 const_lookup: Callable[[str], Any] | None = None, pl_aliases: set[str] | None = None) -> None:
        self.source = source
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.lines = file_lines if file_lines is not None else source.splitlines()
        self.consts: dict[str, Any] = dict(consts or {})
        self.const_lookup = const_lookup
        self.pl = set(pl_aliases or {"pl"})
        self._op_cache: dict[str, tuple[OpDef, dict[str, int]] | None] = {}
        self._spans: dict[tuple[int, int], Span] = {}
        self._release_ast = False
        self._fn_sigs: dict[str, _FnSig] = {}
        # scope state (per function)
        self.env: dict[str, Var] = {}
        self.depth_of: dict[str, int] = {}
        self.depth = 0
        self.scope_stack: list[list[tuple[str, Var | None, int]]] = []
        self.loop_kind: list[str] = []  # "loop" / "if" per open scope

    # ------------------------------------------------------------------ locations & errors

    def span(self, node: ast.AST) -> Span:
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        sp = self._spans.get(key)
        if sp is None:
            line = key[0] + self.line_offset
            col = key[1] + 1 + self.col_offset
            src = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            sp = self._spans[key] = Span(self.filename, line, col, src)
        return sp

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> ParseError:
        return ParseError(message, span=self.span(node), hint=hint)

    # ------------------------------------------------------------------ module / program

    def parse_module(self, program_name: str | None = None) -> Program:
        with no_gc():
            return self._parse_module(program_name)

    def _parse_module(self, program_name: str | None) -> Program:
        self._release_ast = True  # the tree is private to this call
        try:
            tree = ast.parse(self.source, filename=self.filename)
        except SyntaxError as exc:
            line = (exc.lineno or 0) + self.line_offset
            src = self.lines[line - 1] if 0 < line <= len(self.lines) else (exc.text or "")
            raise ParseError(f"invalid Python syntax: {exc.msg}",
                             span=Span(self.filename, line, (exc.offset or 1) + self.col_offset, src),
                             hint="a pl program must be valid Python") from None
        classes: list[ast.ClassDef] = []
        free_functions: list[ast.FunctionDef] = []
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self._note_import(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                self._module_const(stmt)
            elif isinstance(stmt, ast.ClassDef):
                classes.append(stmt)
            elif isinstance(stmt, ast.FunctionDef) and self._function_decorator(stmt) is not None:
                free_functions.append(stmt)
        programs = [c for c in classes if self._is_program_class(c)]
        if program_name is not None:
            programs = [c for c in programs if c.name == program_name]
        if len(programs) == 1:
            return self.parse_class(programs[0])
        if len(programs) > 1:
            names = ", ".join(c.name for c in programs)
            raise self.error(programs[1], f"the source defines several programs ({names})",
                             hint="pass program_name=... to pl.parse to choose one")
        if free_functions:
            return self._parse_program("Module", free_functions, (), free_functions[0])
        raise ParseError("no @pl.program class found", span=Span(self.filename, 1 + self.line_offset, 1, ""),
                         hint="decorate a class with @pl.program and its methods with @pl.function(...)")

    def _note_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.endswith(".language") and alias.asname:
                    self.pl.add(alias.asname)
        else:
            for alias in stmt.names:
                if alias.name == "language":
                    self.pl.add(alias.asname or alias.name)

    def _module_const(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if stmt.value is None:
            return
        try:
            value = self._const(stmt.value)
        except _NotConst:
            return  # not a constant: ignored (a use will report it)
        except ParseError:
            return
        for t in targets:
            if isinstance(t, ast.Name):
                self.consts[t.id] = value

    def _is_pl(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id in self.pl

    def _is_program_class(self, cls: ast.ClassDef) -> bool:
        return _decorator_named(cls.decorator_list, "program") is not None

    def _function_decorator(self, fn: ast.FunctionDef) -> ast.expr | None:
        return _decorator_named(fn.decorator_list, "function")

    def parse_class(self, cls: ast.ClassDef) -> Program:
        attrs: tuple[tuple[str, Any], ...] = ()
        for dec in cls.decorator_list:
            if isinstance(dec, ast.Call) and _is_decorator(dec, "program"):
                for kw in dec.keywords:
                    if kw.arg == "attrs":
                        attrs = self._attrs_dict(kw.value)
                    elif kw.arg == "name":
                        pass
                    else:
                        raise self.error(kw.value, f"unknown @pl.program option {kw.arg!r}",
                                         hint="@pl.program accepts attrs={...}")
                if dec.args:
                    raise self.error(dec, "@pl.program takes keyword options only",
                                     hint="write @pl.program or @pl.program(attrs={...})")
        fns: list[ast.FunctionDef] = []
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef):
                if self._function_decorator(stmt) is None:
                    raise self.error(stmt, f"method {stmt.name!r} of a program must be decorated with @pl.function",
                                     hint="add @pl.function(type=pl.FunctionType.InCore) (or Orchestration, ...)")
                fns.append(stmt)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            elif isinstance(stmt, ast.Pass):
                continue
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                self._module_const(stmt)  # class-level constants behave like module constants
            else:
                raise self.error(stmt, f"unsupported statement in a program class: {type(stmt).__name__}",
                                 hint="a @pl.program class holds @pl.function methods only")
        return self._parse_program(cls.name, fns, attrs, cls)

    def _parse_program(self, name: str, fns: list[ast.FunctionDef], attrs: tuple, node: ast.AST) -> Program:
        self._fn_sigs = {}
        for fn in fns:
            if fn.name in self._fn_sigs:
                raise self.error(fn, f"function {fn.name!r} is defined twice", hint="rename one of the two functions")
            self._fn_sigs[fn.name] = self._signature(fn)
        functions = tuple(self._function(self._fn_sigs[fn.name]) for fn in fns)
        return Program(name, functions, attrs, span=self.span(node))

    # ------------------------------------------------------------------ functions

    def _signature(self, fn: ast.FunctionDef) -> _FnSig:
        dec = self._function_decorator(fn)
        func_type = FunctionType.Opaque
        attrs: tuple[tuple[str, Any], ...] = ()
        if isinstance(dec, ast.Call):
            if dec.args:
                raise self.error(dec, "@pl.function takes keyword options only",
                                 hint="write @pl.function(type=pl.FunctionType.InCore)")
            for kw in dec.keywords:
                if kw.arg == "type":
                    value = self._const(kw.value, allow_error=True)
                    if not isinstance(value, FunctionType):
                        raise self.error(kw.value, "type= must be a pl.FunctionType member",
                                         hint="one of " + ", ".join(f"pl.FunctionType.{t.name}" for t in FunctionType))
                    func_type = value
                elif kw.arg == "attrs":
                    attrs = self._attrs_dict(kw.value)
                else:
                    raise self.error(kw.value if kw.value else dec, f"unknown @pl.function option {kw.arg!r}",
                                     hint="@pl.function accepts type= and attrs=")
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.error(fn, "kernel functions take plain positional parameters only",
                             hint="remove *args, **kwargs, keyword-only and positional-only markers: "
                                  "def kernel(self, x: pl.Tensor[...], ...)")
        params = list(a.args)
        if not params or params[0].arg != "self":
            raise self.error(fn, f"function {fn.name!r} must take 'self' as its first parameter",
                             hint="program functions are methods: def kernel(self, x: pl.Tensor[...], ...)")
        if a.defaults:
            raise self.error(a.defaults[0], "parameters cannot have default values",
                             hint="remove the default; pass the value at every call site")
        self._reset_scope()
        out: list[tuple[str, Type, ParamDirection]] = []
        for p in params[1:]:
            if p.annotation is None:
                raise self.error(p, f"parameter {p.arg!r} needs a type annotation",
                                 hint="e.g. x: pl.Tensor[[16, 128], pl.FP32] or n: pl.Scalar[pl.INDEX]")
            t, direction = self._param_type(p.annotation)
            out.append((p.arg, t, direction))
            self._define(p.arg, Var(p.arg, t, self.span(p)), p)
        returns: tuple[Type, ...] = ()
        if fn.returns is not None and not (isinstance(fn.returns, ast.Constant) and fn.returns.value is None):
            r = fn.returns
            if isinstance(r, ast.Tuple):
                returns = tuple(self._plain_type(e) for e in r.elts)
            elif isinstance(r, ast.Subscript) and isinstance(r.value, ast.Name) and r.value.id in ("tuple", "Tuple"):
                elts = r.slice.elts if isinstance(r.slice, ast.Tuple) else [r.slice]
                returns = tuple(self._plain_type(e) for e in elts)
            else:
                returns = (self._plain_type(r),)
        return _FnSig(GlobalVar(fn.name, span=self.span(fn)), out, returns, func_type, attrs, fn)

    def _function(self, sig: _FnSig) -> Function:
        fn = sig.node
        self._reset_scope()
        self._current_sig = sig
        params = []
        for (name, _t, _d), p in zip(sig.params, fn.args.args[1:], strict=False):
            # re-evaluate the type so symbolic extents refer to this function's parameter Vars
            t2, _ = self._param_type(p.annotation)
            v = Var(name, t2, self.span(p))
            params.append(v)
            self._define(name, v, p)
        body = self._body(fn.body, None, release=self._release_ast)
        return Function(fn.name, tuple(params), tuple(d for _n, _t, d in sig.params), sig.return_types,
                        SeqStmts(tuple(body)), sig.func_type, sig.attrs, span=self.span(fn))

    # ------------------------------------------------------------------ scopes

    def _reset_scope(self) -> None:
        self.env = {}
        self.depth_of = {}
        self.depth = 0
        self.scope_stack = []
        self.loop_kind = []

    def _push(self, kind: str) -> None:
        self.depth += 1
        self.scope_stack.append([])
        self.loop_kind.append(kind)

    def _pop(self) -> None:
        for name, old, old_depth in reversed(self.scope_stack.pop()):
            if old is None:
                self.env.pop(name, None)
                self.depth_of.pop(name, None)
            else:
                self.env[name] = old
                self.depth_of[name] = old_depth
        self.depth -= 1
        self.loop_kind.pop()

    def _define(self, name: str, var: Var, node: ast.AST, *, header: bool = False) -> None:
        """Bind ``name``. ``header``: a loop var / iter arg, which may shadow an outer binding."""
        d = self.depth_of.get(name)
        if d is not None and d < self.depth:
            if not header:
                kind = self.loop_kind[-1] if self.loop_kind else "loop"
                if kind == "if":
                    raise self.error(node, f"cannot rebind {name!r} inside an if branch: it is defined outside",
                                     hint=f"give the new value another name and pass it out with "
                                          f"`{name} = pl.yield_(...)` as the last statement of both branches")
                raise self.error(node, f"cannot rebind {name!r} inside a loop without init_values",
                                 hint=f"carry it through the loop: `for i, ({name}_iter,) in pl.range(..., "
                                      f"init_values=({name},))` and end the body with `{name} = pl.yield_(...)`")
            self.scope_stack[-1].append((name, self.env[name], d))
        elif d is None and self.scope_stack:
            self.scope_stack[-1].append((name, None, 0))
        self.env[name] = var
        self.depth_of[name] = self.depth

    # ------------------------------------------------------------------ statements

    def _body(self, stmts: list[ast.stmt], yield_ctx: str | None, release: bool = False) -> list[Stmt]:
        """Parse a body. ``yield_ctx`` ("loop"/"if"/None) says whether a final pl.yield_ is allowed; the
        parsed yield is stored in ``self._last_yield``. ``release`` drops each statement's AST once parsed
        (the function body of a tree nobody else holds)."""
        out: list[Stmt] = []
        n = len(stmts)
        for i, s in enumerate(stmts):
            y = self._match_yield(s)
            if y is not None:
                if yield_ctx is None:
                    raise self.error(s, "pl.yield_ outside a loop or if body",
                                     hint="pl.yield_ passes values out of a loop body or an if branch")
                if i != n - 1:
                    raise self.error(stmts[i + 1], "pl.yield_ must be the last statement of its body",
                                     hint="move this statement before the pl.yield_, or delete it")
                out.append(YieldStmt(tuple(y.values), span=self.span(s)))
                self._last_yield = y
                return out
            self._stmt(s, out)
            if release:
                stmts[i] = None  # type: ignore[call-overload]  # free the statement's AST early (smaller working set)
        self._last_yield = None
        return out

    def _is_pl_call(self, node: ast.AST, name: str) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
                and self._is_pl(node.func.value))

    def _match_yield(self, s: ast.stmt) -> _Yield | None:
        value = None
        targets: list[str] | None = None
        ann = None
        if isinstance(s, ast.Expr):
            value = s.value
        elif isinstance(s, ast.Assign):
            value = s.value
            if self._is_pl_call(value, "yield_"):
                if len(s.targets) != 1:
                    raise self.error(s, "chained assignment is not supported",
                                     hint="assign the pl.yield_ results once: `a, b = pl.yield_(x, y)`")
                t = s.targets[0]
                if isinstance(t, ast.Name):
                    targets = [t.id]
                elif isinstance(t, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in t.elts):
                    targets = [e.id for e in t.elts]
                else:
                    raise self.error(t, "pl.yield_ results must be assigned to plain names",
                                     hint="write `x = pl.yield_(v)` or `a, b = pl.yield_(x, y)`")
        elif isinstance(s, ast.AnnAssign):
            value = s.value
            if value is not None and self._is_pl_call(value, "yield_"):
                if not isinstance(s.target, ast.Name):
                    raise self.error(s.target, "pl.yield_ results must be assigned to plain names",
                                 hint="write `x: T = pl.yield_(v)` with a plain name on the left")
                targets = [s.target.id]
                ann = s.annotation
        if value is None or not self._is_pl_call(value, "yield_"):
            return None
        assert isinstance(value, ast.Call)
        types = None
        for kw in value.keywords:
            if kw.arg != "types" or not isinstance(kw.value, (ast.List, ast.Tuple)):
                raise self.error(kw.value, "pl.yield_ takes the yielded values (and optionally types=[...])",
                                 hint="remove this keyword; only types=[T1, T2, ...] is accepted")
            types = list(kw.value.elts)
        vals = [self._expr(a) for a in value.args]
        if targets is not None and len(targets) != len(vals):
            raise self.error(s, f"pl.yield_ gives {len(vals)} value(s) but {len(targets)} name(s) are assigned",
                             hint="assign one name per yielded value")
        if types is not None and len(types) != len(vals):
            raise self.error(value, f"types=[...] lists {len(types)} type(s) for {len(vals)} value(s)",
                             hint="give exactly one type per yielded value")
        return _Yield(vals, targets, ann, s, types)

    def _stmt(self, s: ast.stmt, out: list[Stmt]) -> None:
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.error(s, "chained assignment (a = b = ...) is not supported",
                                 hint="assign each name separately")
            t = s.targets[0]
            if isinstance(t, ast.Name):
                self._assign(t, t.id, s.value, None, out, s)
            elif isinstance(t, (ast.Tuple, ast.List)):
                self._assign_tuple(t, s.value, out, s)
            else:
                raise self.error(t, "only plain names can be assigned",
                                 hint="tiles are values: write `x = pl.tile.op(...)` instead of mutating")
        elif isinstance(s, ast.AnnAssign):
            if not isinstance(s.target, ast.Name):
                raise self.error(s.target, "only plain names can be assigned",
                                 hint="assign to a local name, e.g. `y = ...`; attributes, subscripts and "
                                      "starred targets are not supported")
            if s.value is None:
                raise self.error(s, f"declaration of {s.target.id!r} without a value",
                                 hint="every variable is defined by an assignment")
            self._assign(s.target, s.target.id, s.value, s.annotation, out, s)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.error(s.target, "only plain names can be assigned",
                                 hint="assign to a local name, e.g. `y = ...`; attributes, subscripts and "
                                      "starred targets are not supported")
            value = ast.BinOp(left=ast.Name(id=s.target.id, ctx=ast.Load()), op=s.op, right=s.value)
            ast.copy_location(value, s)
            ast.copy_location(value.left, s.target)
            self._assign(s.target, s.target.id, value, None, out, s)
        elif isinstance(s, ast.Expr):
            v = s.value
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                return  # docstring / comment string
            if self._is_pl_call(v, "cond"):
                raise self.error(s, "pl.cond(...) must be the first statement of a pl.while_ body",
                                 hint="move pl.cond(...) to the top of the while body")
            if not isinstance(v, ast.Call):
                raise self.error(s, "an expression statement must be a call",
                                 hint="bare expressions have no effect; assign the value to a name")
            out.append(EvalStmt(self._expr(v), span=self.span(s)))
        elif isinstance(s, ast.For):
            self._for(s, out)
        elif isinstance(s, ast.While):
            self._while(s, out)
        elif isinstance(s, ast.If):
            self._if(s, out)
        elif isinstance(s, ast.Return):
            if s.value is None:
                vals: tuple[Expr, ...] = ()
            elif isinstance(s.value, ast.Tuple):
                vals = tuple(self._expr(e) for e in s.value.elts)
            else:
                vals = (self._expr(s.value),)
            sig = self._current_sig
            if sig.return_types and len(vals) != len(sig.return_types):
                raise self.error(s, f"return gives {len(vals)} value(s) but the function declares "
                                    f"{len(sig.return_types)} return type(s)",
                                 hint="return one value per declared return type, or fix the -> annotation")
            out.append(ReturnStmt(vals, span=self.span(s)))
        elif isinstance(s, ast.Pass):
            return
        else:
            raise self.error(s, f"unsupported Python syntax in a kernel: {type(s).__name__}",
                             hint="kernels use assignments, calls, pl.range/pl.pipeline loops, while, if and return")

    def _assign(self, target: ast.AST, name: str, value_node: ast.expr, ann_node: ast.expr | None,
                out: list[Stmt], s: ast.stmt) -> None:
        ann = self._type(ann_node) if ann_node is not None else None
        value: Expr | None = None
        if isinstance(ann, ScalarType):
            num = self._fold_number(value_node)
            if num is not None:
                value = self._const_of(num, ann.dtype, value_node)
        if value is None:
            value = self._expr(value_node)
        vtype = value.type
        if ann is not None:
            vtype = self._merge_annotation(vtype, ann, ann_node, name)
        var = Var(name, vtype, self.span(target))
        out.append(AssignStmt(var, value, span=self.span(s)))
        self._define(name, var, target)

    def _assign_tuple(self, target: ast.Tuple | ast.List, value_node: ast.expr, out: list[Stmt],
                      s: ast.stmt) -> None:
        names = []
        for e in target.elts:
            if not isinstance(e, ast.Name):
                raise self.error(e, "only plain names can be assigned",
                                 hint="unpack into plain names, e.g. `a, b = ...`")
            names.append(e.id)
        value = self._expr(value_node)
        tt = value.type
        if not isinstance(tt, TupleType):
            raise self.error(value_node, f"cannot unpack a value of type {_describe(tt)} into {len(names)} names",
                             hint="only multi-result custom ops and function calls return several values")
        if len(tt.types) != len(names):
            raise self.error(target, f"the value has {len(tt.types)} results but {len(names)} names are assigned",
                             hint=f"assign exactly {len(tt.types)} names")
        tup = Var("_".join(names) + "_tuple", tt, self.span(target))
        out.append(AssignStmt(tup, value, span=self.span(s)))
        for i, (n, e) in enumerate(zip(names, target.elts, strict=False)):
            item = TupleGetItem(tup, i, span=self.span(e))
            v = Var(n, item.type, self.span(e))
            out.append(AssignStmt(v, item, span=self.span(s)))
            self._define(n, v, e)

    # ------------------------------------------------------------------ control flow

    def _range_args(self, call: ast.Call, kind_name: str) -> tuple[Expr, Expr, Expr]:
        n = len(call.args)
        if n == 0 or n > 3:
            raise self.error(call, f"pl.{kind_name} takes 1 to 3 positional arguments (start, stop, step), got {n}",
                             hint=f"e.g. pl.{kind_name}(4), pl.{kind_name}(0, 64, 16); loop-carried values go "
                                  "in init_values=(...)")
        vals = [self._expr(a) for a in call.args]
        for v, a in zip(vals, call.args, strict=False):
            if not isinstance(v.type, ScalarType):
                raise self.error(a, f"loop bounds must be scalars, got {_describe(v.type)}",
                                 hint="use integers or pl.Scalar[pl.INDEX] expressions for start, stop and step")
        if n == 1:
            return ConstInt(0, _INDEX), vals[0], ConstInt(1, _INDEX)
        if n == 2:
            return vals[0], vals[1], ConstInt(1, _INDEX)
        return vals[0], vals[1], vals[2]

    def _loop_kwargs(self, call: ast.Call, allowed: set[str]) -> dict[str, ast.expr]:
        kws: dict[str, ast.expr] = {}
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in allowed:
                raise self.error(kw.value, f"unknown keyword {kw.arg!r} for pl.{call.func.attr}",  # type: ignore
                                 hint="accepted: " + ", ".join(sorted(allowed)))
            kws[kw.arg] = kw.value
        return kws

    def _init_values(self, node: ast.expr | None) -> list[Expr]:
        if node is None:
            return []
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self._expr(e) for e in node.elts]
        return [self._expr(node)]

    def _for(self, s: ast.For, out: list[Stmt]) -> None:
        if s.orelse:
            raise self.error(s.orelse[0], "for ... else is not supported",
                             hint="move the else block after the loop")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and self._is_pl(it.func.value)
                and (it.func.attr in _LOOP_KINDS or it.func.attr == "while_")):
            raise self.error(it, "a kernel loop must iterate over pl.range / pl.pipeline / pl.parallel / "
                                 "pl.unroll / pl.while_",
                             hint="e.g. `for i in pl.range(0, 4):`")
        if it.func.attr == "while_":
            self._while_iter(s, it, out)
            return
        kind_name = it.func.attr
        kind = _LOOP_KINDS[kind_name]
        start, stop, step = self._range_args(it, kind_name)
        kws = self._loop_kwargs(it, {"init_values", "stage", "attrs", "iter_types"})
        inits = self._init_values(kws.get("init_values"))
        attrs: list[tuple[str, Any]] = []
        if "stage" in kws:
            attrs.append(("stage", self._const(kws["stage"], allow_error=True)))
        if "attrs" in kws:
            attrs.extend(self._attrs_dict(kws["attrs"]))
        iter_types = self._iter_types(kws.get("iter_types"), inits)
        # target: `i` or `i, (a, b)`
        tgt = s.target
        if inits:
            if not (isinstance(tgt, ast.Tuple) and len(tgt.elts) == 2 and isinstance(tgt.elts[0], ast.Name)):
                raise self.error(tgt, "a loop with init_values needs the target `i, (a, b, ...)`",
                                 hint="e.g. `for k, (acc,) in pl.range(4, init_values=(acc0,)):`")
            lv_node = tgt.elts[0]
            ia_names = self._name_list(tgt.elts[1])
        else:
            if isinstance(tgt, ast.Tuple):
                raise self.error(tgt, "loop target unpacks iter args but no init_values=(...) is given",
                                 hint="add init_values=(...) with one initial value per iter arg")
            if not isinstance(tgt, ast.Name):
                raise self.error(tgt, "the loop variable must be a plain name",
                                 hint="write `for i in pl.range(...)` or `for i, (acc,) in pl.range(..., "
                                      "init_values=(...))`")
            lv_node = tgt
            ia_names = []
        if len(ia_names) != len(inits):
            raise self.error(tgt, f"{len(ia_names)} iter arg name(s) for {len(inits)} init value(s)",
                             hint="name one iter arg per init value: `for i, (a, b) in pl.range(..., "
                                  "init_values=(a0, b0))`")
        loop_var = Var(lv_node.id, _INDEX_T, self.span(lv_node))
        self._push("loop")
        self._define(lv_node.id, loop_var, lv_node, header=True)
        iter_args = []
        for (name, node), init, t in zip(ia_names, inits, iter_types, strict=False):
            ia = IterArg(name, t, self.span(node), init)
            iter_args.append(ia)
            self._define(name, ia, node, header=True)
        body = self._body(s.body, "loop")
        y = self._last_yield
        self._pop()
        return_vars = self._bind_yield(y, iter_args, s, "loop")
        out.append(ForStmt(loop_var, start, stop, step, tuple(iter_args), SeqStmts(tuple(body)),
                           tuple(return_vars), kind, tuple(attrs), span=self.span(s)))

    def _iter_types(self, node: ast.expr | None, inits: list[Expr]) -> list[Type]:
        if node is None:
            return [e.type for e in inits]
        if not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) != len(inits):
            raise self.error(node, "iter_types=[...] needs one type per init value",
                             hint=f"give a list of {len(inits)} type(s), one per init value")
        return [self._merge_annotation(e.type, self._type(t), t, "iter arg")
                for e, t in zip(inits, node.elts, strict=True)]

    def _name_list(self, node: ast.expr) -> list[tuple[str, ast.Name]]:
        if isinstance(node, ast.Name):
            return [(node.id, node)]
        if isinstance(node, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in node.elts):
            return [(e.id, e) for e in node.elts]  # type: ignore[union-attr]
        raise self.error(node, "iter args must be a tuple of plain names, e.g. (acc,)",
                         hint="write `for i, (acc,) in pl.range(n, init_values=(acc0,))`")

    def _bind_yield(self, y: _Yield | None, carried: list[Var], s: ast.stmt, what: str) -> list[Var]:
        """Check the final yield of a loop body against its iter args; bind return vars after the loop."""
        n = len(carried)
        got = len(y.values) if y is not None else 0
        if got != n:
            node = y.node if y is not None else s
            raise self.error(node, f"yield count mismatch: the {what} carries {n} value(s) but its body yields {got}",
                             hint="end the body with `a, b = pl.yield_(a_next, b_next)`, one value per init value"
                             if n else "a loop without init_values cannot yield; add init_values=(...)")
        if y is None:
            return []
        for i, (v, ia) in enumerate(zip(y.values, carried, strict=False)):
            if not _same_type_shape(v.type, ia.type):
                raise self.error(y.node, f"yield value #{i} has type {_describe(v.type)} but iter arg "
                                         f"{ia.name!r} has type {_describe(ia.type)}",
                                 hint="a loop-carried value keeps its shape and dtype")
        return self._return_vars(y, [ia.type for ia in carried], [ia.name for ia in carried])

    def _return_vars(self, y: _Yield, types: list[Type], default_names: list[str]) -> list[Var]:
        rvs = []
        ann = self._type(y.annotation) if y.annotation is not None else None
        names = y.targets if y.targets is not None else [n + "_out" for n in default_names]
        target_nodes = self._yield_target_nodes(y)
        for i, (name, t) in enumerate(zip(names, types, strict=False)):
            if ann is not None:
                t = self._merge_annotation(t, ann, y.annotation, name)
            elif y.types is not None:
                t = self._merge_annotation(t, self._type(y.types[i]), y.types[i], name)
            node = target_nodes[i] if target_nodes else y.node
            v = Var(name, t, self.span(node))
            rvs.append(v)
        for i, v in enumerate(rvs):
            if y.targets is not None:
                node = target_nodes[i] if target_nodes else y.node
                self._define(v.name, v, node)
        return rvs

    @staticmethod
    def _yield_target_nodes(y: _Yield) -> list[ast.AST]:
        s = y.node
        if isinstance(s, ast.AnnAssign):
            return [s.target]
        if isinstance(s, ast.Assign):
            t = s.targets[0]
            return list(t.elts) if isinstance(t, (ast.Tuple, ast.List)) else [t]
        return []

    def _while_iter(self, s: ast.For, it: ast.Call, out: list[Stmt]) -> None:
        if it.args:
            raise self.error(it, "pl.while_ takes init_values=(...) only; the condition is the first body "
                                 "statement `pl.cond(...)`",
                             hint="write `for (a,) in pl.while_(init_values=(a0,)):` and start the body with "
                                  "`pl.cond(a < n)`")
        kws = self._loop_kwargs(it, {"init_values", "iter_types"})
        inits = self._init_values(kws.get("init_values"))
        types = self._iter_types(kws.get("iter_types"), inits)
        names = self._name_list(s.target)
        if len(names) != len(inits):
            raise self.error(s.target, f"{len(names)} iter arg name(s) for {len(inits)} init value(s)",
                             hint="name one iter arg per init value: `for (a, b) in pl.while_(init_values=(a0, b0))`")
        if not s.body or not self._is_pl_call(getattr(s.body[0], "value", None), "cond") or not isinstance(
                s.body[0], ast.Expr):
            raise self.error(s.body[0] if s.body else s, "the first statement of a pl.while_ body must be "
                                                         "pl.cond(<condition>)",
                             hint="e.g. `for (i, acc) in pl.while_(init_values=(0, a)):` then `pl.cond(i < n)`")
        self._push("loop")
        iter_args = []
        for (name, node), init, t in zip(names, inits, types, strict=False):
            ia = IterArg(name, t, self.span(node), init)
            iter_args.append(ia)
            self._define(name, ia, node, header=True)
        cond_call = s.body[0].value  # type: ignore[attr-defined]
        if len(cond_call.args) != 1 or cond_call.keywords:
            raise self.error(cond_call, "pl.cond takes exactly one condition",
                             hint="write pl.cond(<scalar condition>), e.g. pl.cond(i < n)")
        cond = self._expr(cond_call.args[0])
        body = self._body(s.body[1:], "loop")
        y = self._last_yield
        self._pop()
        return_vars = self._bind_yield(y, iter_args, s, "while loop")
        out.append(WhileStmt(tuple(iter_args), cond, SeqStmts(tuple(body)), tuple(return_vars), span=self.span(s)))

    def _while(self, s: ast.While, out: list[Stmt]) -> None:
        if s.orelse:
            raise self.error(s.orelse[0], "while ... else is not supported",
                             hint="move the else block after the loop")
        cond = self._expr(s.test)
        self._push("loop")
        body = self._body(s.body, "loop")
        y = self._last_yield
        self._pop()
        self._bind_yield(y, [], s, "while loop")
        out.append(WhileStmt((), cond, SeqStmts(tuple(body)), (), span=self.span(s)))

    def _if_test(self, test: ast.expr) -> tuple[Expr, tuple[tuple[str, Any], ...]]:
        """The condition of an ``if`` and its IfStmt attrs: ``if pl.cond(c, attrs={...}):`` tags the if."""
        if not self._is_pl_call(test, "cond"):
            return self._expr(test), ()
        assert isinstance(test, ast.Call)
        if len(test.args) != 1:
            raise self.error(test, "pl.cond takes exactly one condition",
                             hint='e.g. `if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):`')
        attrs: tuple[tuple[str, Any], ...] = ()
        for kw in test.keywords:
            if kw.arg != "attrs":
                raise self.error(kw.value, f"unknown keyword {kw.arg!r} for pl.cond in an if",
                                 hint='pl.cond(cond, attrs={"name": value}) tags the if statement')
            attrs = self._attrs_dict(kw.value)
        return self._expr(test.args[0]), attrs

    def _if(self, s: ast.If, out: list[Stmt]) -> None:
        cond, if_attrs = self._if_test(s.test)
        self._push("if")
        then = self._body(s.body, "if")
        ty = self._last_yield
        self._pop()
        else_body: list[Stmt] | None = None
        ey = None
        if s.orelse:
            self._push("if")
            else_body = self._body(s.orelse, "if")
            ey = self._last_yield
            self._pop()
        n_then = len(ty.values) if ty else 0
        n_else = len(ey.values) if ey else 0
        return_vars: list[Var] = []
        if ty is not None or ey is not None:
            if else_body is None:
                raise self.error(ty.node if ty else s, "an if that yields values needs an else branch",
                                 hint="add `else:` yielding the value to use when the condition is false")
            if n_then != n_else:
                raise self.error((ey or ty).node, f"yield count mismatch: the then branch yields {n_then} "  # type: ignore
                                                  f"value(s), the else branch {n_else}",
                                 hint="yield the same number of values, in the same order, from both branches")
            assert ty is not None and ey is not None
            for i, (a, b) in enumerate(zip(ty.values, ey.values, strict=False)):
                if not _same_type_shape(a.type, b.type):
                    raise self.error(ey.node, f"yield value #{i}: the branches yield {_describe(a.type)} and "
                                              f"{_describe(b.type)}",
                                     hint="both branches must yield values of the same shape and dtype; cast or "
                                          "slice one of them")
            if ty.targets is not None and ey.targets is not None and ty.targets != ey.targets:
                raise self.error(ey.node, f"the branches bind different names {ty.targets} and {ey.targets}",
                                 hint="use the same names in `x = pl.yield_(...)` in both branches")
            y = ty if ty.targets is not None else ey
            if ty.annotation is None and ty.types is None and (ey.annotation is not None or ey.types is not None):
                y = ey
            return_vars = self._return_vars(y, [v.type for v in ty.values], [f"if_result{i}" for i in range(n_then)])
        out.append(IfStmt(cond, SeqStmts(tuple(then)), SeqStmts(tuple(else_body)) if else_body is not None else None,
                          tuple(return_vars), span=self.span(s), attrs=if_attrs))

    # ------------------------------------------------------------------ types

    def _param_type(self, node: ast.expr) -> tuple[Type, ParamDirection]:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and self._is_pl(
                node.value.value) and node.value.attr in ("Out", "InOut", "In"):
            direction = ParamDirection[node.value.attr]
            return self._plain_type(node.slice), direction
        return self._plain_type(node), ParamDirection.In

    def _plain_type(self, node: ast.expr) -> Type:
        """A declared type (parameter / return): an empty ``pl.TileView()`` just means no view."""
        return _drop_no_view(self._type(node))

    def _type(self, node: ast.expr) -> Type:
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                and self._is_pl(node.value.value)):
            raise self.error(node, "bad type annotation",
                             hint="use pl.Tensor[[r, c], dtype], pl.Tile[[r, c], dtype, pl.Mem.X], "
                                  "pl.Scalar[dtype] or pl.Tuple[...]")
        kind = node.value.attr
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if kind == "Tensor":
            if len(items) != 2:
                raise self.error(node, "pl.Tensor takes [shape, dtype]", hint="e.g. pl.Tensor[[16, 128], pl.FP32]")
            return TensorType(self._shape(items[0]), self._dtype(items[1]))
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
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.error(node, "a shape must be a list of extents", hint="e.g. [16, 128]")
        return tuple(self._index_expr(e) for e in node.elts)

    def _index_expr(self, node: ast.expr) -> Expr:
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

    def _dtype(self, node: ast.expr) -> DataType:
        name = None
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

    # ------------------------------------------------------------------ constants

    def _lookup_const(self, name: str) -> Any:
        if name in self.consts:
            return self.consts[name]
        if self.const_lookup is not None:
            value = self.const_lookup(name)
            if value is not _MISSING:
                try:
                    value = _plain_data(value)
                except _NotConst:
                    return _MISSING
                self.consts[name] = value
                return value
        return _MISSING

    def _fold_number(self, node: ast.expr) -> int | float | None:
        """Value of a constant numeric expression (literals, constant names, + - * // % on them)."""
        t = type(node)
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
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
                return _FOLD[type(node.op)](a, b)  # type: ignore[attr-defined]
            except ZeroDivisionError:
                raise self.error(node, "division by zero in a constant expression",
                                 hint="fix the divisor; the expression is folded at parse time") from None
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

    # ------------------------------------------------------------------ expressions

    def _expr(self, node: ast.expr) -> Expr:
        t = type(node)
        if t is ast.Name:
            v = self.env.get(node.id)  # type: ignore[attr-defined]
            if v is not None:
                return v
            value = self._lookup_const(node.id)  # type: ignore[attr-defined]
            if value is _MISSING:
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
            base = self._expr(node.value)  # type: ignore[attr-defined]
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
        close = difflib.get_close_matches(name, list(self.env), n=1)
        if close:
            return f"did you mean {close[0]!r}? variables must be assigned before use"
        return "assign it before use (module constants must be int / float / list literals)"

    def _value_expr(self, value: Any, node: ast.AST) -> Expr:
        if isinstance(value, bool):
            return ConstBool(value, span=self.span(node))
        if isinstance(value, int):
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

    def _scalar_dtype(self, e: Expr, node: ast.AST) -> DataType:
        t = e.type
        if not isinstance(t, ScalarType):
            raise self.error(node, f"arithmetic needs scalars, got {_describe(t)}",
                             hint="use tile ops such as pl.tile.add / pl.tile.muls for tiles")
        return t.dtype

    def _operands(self, left: ast.expr, right: ast.expr) -> tuple[Expr, Expr, DataType]:
        ln = self._fold_number(left)
        rn = self._fold_number(right)
        if ln is not None and rn is None:
            r = self._expr(right)
            dt = self._scalar_dtype(r, right)
            lhs = self._coerced_literal(ln, dt, left)
            return lhs, r, _common(lhs.type.dtype, dt)  # type: ignore[attr-defined]
        if rn is not None and ln is None:
            lhs = self._expr(left)
            dt = self._scalar_dtype(lhs, left)
            r = self._coerced_literal(rn, dt, right)
            return lhs, r, _common(dt, r.type.dtype)  # type: ignore[attr-defined]
        lhs = self._expr(left)
        r = self._expr(right)
        return lhs, r, _common(self._scalar_dtype(lhs, left), self._scalar_dtype(r, right))

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
        cls = _BINOPS.get(type(node.op))
        if cls is None:
            hint = "use // for integer division" if isinstance(node.op, ast.Div) else None
            raise self.error(node, f"unsupported operator {type(node.op).__name__} in a scalar expression", hint=hint)
        lhs, rhs, dt = self._operands(node.left, node.right)
        return cls(lhs, rhs, dt, span=self.span(node))

    def _unary(self, node: ast.UnaryOp) -> Expr:
        num = self._fold_number(node)
        if num is not None:
            return self._value_expr(num, node)
        operand = self._expr(node.operand)
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

    # ------------------------------------------------------------------ calls

    def _call(self, node: ast.Call) -> Expr:
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in ("min", "max"):
                return self._minmax(node, f.id)
            if f.id == "float":
                num = self._fold_number(node)
                if num is not None:
                    return self._value_expr(num, node)
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
            if name in _LOOP_KINDS or name == "while_":
                raise self.error(node, f"pl.{name}(...) can only be iterated by a for statement",
                                 hint=f"write `for i in pl.{name}(...):`")
            opname = _OP_ALIASES.get(name)
            if opname is None and name not in _DSL_NAMES and find_op(f"tile.{name}") is not None:
                opname = f"tile.{name}"
            if opname is None:
                raise self.error(f, f"unknown op pl.{name}", hint=self._op_hint(name, "tile"))
            return self._op_call(node, opname)
        if isinstance(base, ast.Attribute) and self._is_pl(base.value):
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
        rts = sig.return_types
        rtype: Type = UnknownType() if not rts else rts[0] if len(rts) == 1 else TupleType(rts)
        return Call(sig.gvar, tuple(args), (), rtype, span=self.span(node))

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
            ns, _, short = opname.partition(".")
            raise self.error(node.func, f"unknown op pl.{opname}", hint=self._op_hint(short, ns))
        op, index = info
        if opname == "tile.store" and len(node.args) == 4:
            return self._store_with_shapes(node, op)
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
            bound[i] = a
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(kw.value, "**kwargs is not supported", hint="pass the keywords one by one")
            if kw.arg == EXTRA_KWARGS:
                extra = self._attrs_dict(kw.value)
                continue
            i = index.get(kw.arg)  # type: ignore[assignment]
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
        args: list[Expr] = []
        attrs: dict[str, Any] = {}
        segments: list[int] = []
        skipped: str | None = None
        for p, a in zip(params, bound, strict=False):
            kind = p.kind
            if kind is ParamKind.ATTR:
                if a is not None:
                    attrs[p.name] = self._attr_value(a, p.name)
                elif p.required and p.default is None and p.name != "operand_segment_sizes":
                    raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                     hint=f"signature: {_signature_str(opname, op)}")
            elif kind is ParamKind.TILE_LIST:
                seg: list[Expr] = []
                if a is not None:
                    if not isinstance(a, (ast.List, ast.Tuple)):
                        raise self.error(a, f"{p.name}= must be a list", hint=f"e.g. {p.name}=[x, y]")
                    seg = [self._expr(e) for e in a.elts]
                elif p.required:
                    raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                     hint=f"signature: {_signature_str(opname, op)}")
                args.extend(seg)
                segments.append(len(seg))
            else:
                if a is None:
                    if p.required:
                        raise self.error(node, f"wrong arity: pl.{opname} is missing required argument {p.name!r}",
                                         hint=f"signature: {_signature_str(opname, op)}")
                    skipped = skipped or p.name
                    continue
                if skipped is not None:
                    raise self.error(a, f"pl.{opname}: {p.name!r} needs the optional argument {skipped!r} too",
                                     hint=f"pass {skipped!r} as well (positional arguments cannot skip it)")
                if kind is ParamKind.TUPLE:
                    args.append(self._tuple_operand(a))
                else:
                    args.append(self._expr(a))
        if segments:
            attrs["operand_segment_sizes"] = tuple(segments)
        return self._finish_call(node, opname, op, args, attrs, extra)

    def _finish_call(self, node: ast.Call, opname: str, op: OpDef, args: list[Expr], attrs: dict[str, Any],
                     extra: tuple[tuple[str, Any], ...]) -> Expr:
        span = self.span(node)
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

    def _attr_value(self, node: ast.expr, pname: str) -> Any:
        try:
            return self._const_inner(node)
        except _NotConst:
            pass
        if isinstance(node, (ast.List, ast.Tuple)):
            return tuple(self._attr_value(e, pname) for e in node.elts)
        return self._expr(node)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


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


def _common(a: DataType, b: DataType) -> DataType:
    if a is b:
        return a
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a is DataType.INDEX or b is DataType.INDEX:
        return DataType.INDEX
    return a if a.bits >= b.bits else b


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


def _decorator_named(decorators: list[ast.expr], name: str) -> ast.expr | None:
    """The first decorator that is ``name`` / ``x.name``, called or not (``@pl.function(type=...)``)."""
    return next((dec for dec in decorators if _is_decorator(dec, name)), None)


def _is_decorator(dec: ast.expr, name: str) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(target, ast.Attribute) and target.attr == name) or (
        isinstance(target, ast.Name) and target.id == name)
