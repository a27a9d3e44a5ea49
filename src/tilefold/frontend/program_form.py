"""The ``@pl.program`` form: a module holding one class of ``@pl.function`` methods, transcribed one to
one into an ``ir.Program`` (module constants, imports that name ``pl``, function signatures, the functions).
"""

from __future__ import annotations

import ast
from typing import Any

from tilefold.errors import ParseError, Span
from tilefold.frontend.call_results import bind_call_results
from tilefold.frontend.constants import _NotConst
from tilefold.frontend.inline import JitSource
from tilefold.frontend.parse_base import _FnSig, parse_python, too_deep_error
from tilefold.ir.expr import (
    GlobalVar,
    Var,
)
from tilefold.ir.stmt import (
    Function,
    FunctionType,
    ParamDirection,
    Program,
    SeqStmts,
)
from tilefold.ir.types import (
    Type,
)
from tilefold.util.gc import no_gc


def _decorator_named(decorators: list[ast.expr], name: str) -> ast.expr | None:
    """The first decorator that is ``name`` / ``x.name``, called or not (``@pl.function(type=...)``)."""
    return next((dec for dec in decorators if _is_decorator(dec, name)), None)


def _is_decorator(dec: ast.expr, name: str) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(target, ast.Attribute) and target.attr == name) or (
        isinstance(target, ast.Name) and target.id == name)




def _is_inline_helper(fn: ast.FunctionDef) -> bool:
    """``@pl.inline`` / ``@pl.inline()`` (not ``@pl.jit.inline``, a helper of the jit form)."""
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "inline" and isinstance(target.value, ast.Name):
            return True
        if isinstance(target, ast.Name) and target.id == "inline":
            return True
    return False


def _self_params(fn: ast.FunctionDef) -> int:
    """1 when the function's first parameter is the method's ``self`` (named so, or not annotated), else 0."""
    args = fn.args.args
    return int(bool(args) and (args[0].arg == "self" or args[0].annotation is None))


def bare_name_calls(nodes: list[ast.AST]) -> set[str]:
    """Names called as ``name(...)`` anywhere in ``nodes`` (candidates for module-level ``@pl.function``s)."""
    return {n.func.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def relocate(node: ast.AST, lines: int, cols: int) -> None:
    """Shift the positions of ``node``'s tree (a function taken from the whole file) into the coordinates of a
    parser whose source starts at line ``lines + 1``, column ``cols + 1`` of that file."""
    for n in ast.walk(node):
        for attr in ("lineno", "end_lineno"):
            if getattr(n, attr, None) is not None:
                setattr(n, attr, getattr(n, attr) - lines)
        for attr in ("col_offset", "end_col_offset"):
            if getattr(n, attr, None) is not None:
                setattr(n, attr, getattr(n, attr) - cols)


class ProgramFormMixin:
    """Parses a module / ``@pl.program`` class into an ``ir.Program``."""

    def parse_module(self, program_name: str | None = None) -> Program:
        with no_gc():
            return self._parse_module(program_name)

    def _parse_module(self, program_name: str | None) -> Program:
        try:
            return self._parse_module_tree(program_name)
        except RecursionError:
            raise self._too_deep_in_source() from None

    def _parse_module_tree(self, program_name: str | None) -> Program:
        self._release_ast = True  # the tree is private to this call
        tree = parse_python(self.source, self.filename, line_offset=self.line_offset, col_offset=self.col_offset,
                            lines=self.lines)
        if not self.source.isascii():
            self._check_ascii_names(tree)
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
            elif isinstance(stmt, ast.FunctionDef) and _is_inline_helper(stmt):
                self.__dict__.setdefault("_text_inlines", {})[stmt.name] = stmt
        programs = [c for c in classes if self._is_program_class(c)]
        if program_name is not None:
            programs = [c for c in programs if c.name == program_name]
        if len(programs) == 1:
            self.module_functions = {**(self.__dict__.get("module_functions") or {}),
                                     **{f.name: f for f in free_functions}}
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
            # not a constant: ignored (a use reports "is not a compile-time constant")
            nonconst = self.__dict__.setdefault("_nonconst_names", {})
            for t in targets:
                if isinstance(t, ast.Name):
                    nonconst[t.id] = stmt
            return
        except ParseError as exc:
            if "too large" in exc.message or "overflows" in exc.message or "nested too deeply" in exc.message:
                raise  # an unbounded constant is reported where it is written, program or not
            return
        for t in targets:
            if isinstance(t, ast.Name):
                self.consts[t.id] = value
            elif isinstance(t, ast.Tuple) and isinstance(value, tuple) and len(t.elts) == len(value):
                for elt, v in zip(t.elts, value, strict=True):  # ROWS, COLS = 512, 128
                    if isinstance(elt, ast.Name):
                        self.consts[elt.id] = v

    # ------------------------------------------------------------------ @pl.inline helpers (frontend/inline.py)

    def _find_inline(self, name: str) -> JitSource | None:
        """The ``@pl.inline`` helper ``name`` names: one defined in the parsed text, or (a decorated class) one the
        defining scope holds, found by ``inline_resolver`` (set by ``pl.program``)."""
        node = self.__dict__.get("_text_inlines", {}).get(name)
        if node is not None:
            return JitSource(name, "inline", node, self._own_parser_args())
        resolve = self.__dict__.get("inline_resolver")
        return resolve(name) if resolve is not None else None

    def _own_parser_args(self) -> dict[str, Any]:
        return dict(source=self.source, filename=self.filename, line_offset=self.line_offset,
                    col_offset=self.col_offset, file_lines=self.lines, consts=self.consts,
                    const_lookup=self.const_lookup, pl_aliases=set(self.pl))

    def _inline_sub_parser(self, src: JitSource) -> Any:
        sub = type(self)(**src.parser_args)
        sub.__dict__["_text_inlines"] = self.__dict__.get("_text_inlines", {}) if src.resolve is None else {}
        sub.inline_resolver = src.resolve if src.resolve is not None else self.__dict__.get("inline_resolver")
        return sub

    def _inline_context(self, sub: Any) -> None:
        """The program's functions, launch records and the enclosing loops / scope are the caller's."""
        super()._inline_context(sub)  # type: ignore[misc]
        for shared in ("_fn_sigs", "_call_edges", "_spmd_calls", "_fn_hidden", "_fn_dim_vars", "module_functions",
                       "_in_at_scope", "_tf_tasks"):
            if shared in self.__dict__:
                sub.__dict__[shared] = self.__dict__[shared]
        sub.loop_kind = list(self.loop_kind)  # a pl.at scope in the helper is still inside the caller's loop

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
        fns = self._with_module_functions(fns)
        self._fn_sigs = {}
        self._call_edges: list[tuple[str, str, ast.AST]] = []  # (caller, callee, call node), from _fn_call
        for fn in fns:
            if fn.name in self._fn_sigs:
                raise self.error(fn, f"function {fn.name!r} is defined twice", hint="rename one of the two functions")
            self._fn_sigs[fn.name] = self._signature(fn)
        self._spmd_calls: dict[int, int] = {}
        functions = tuple(self._function(self._fn_sigs[fn.name]) for fn in fns)
        self._reject_recursion()
        if self._spmd_calls:
            functions = self._spmd_block_dims(functions, node)
        return Program(name, functions, attrs, span=self.span(node))

    def _spmd_block_dims(self, functions: tuple[Any, ...], node: ast.AST) -> tuple[Any, ...]:
        """Each kernel launched under ``with pl.spmd(n)`` runs on ``n`` blocks: its ``block_dim``. Every launch of
        one kernel must agree (a kernel launched with and without pl.spmd would need two compiled forms)."""
        from tilefold.ir.expr import GlobalVar
        from tilefold.ir.visitor import IRVisitor

        counts: dict[str, set[int | str]] = {}
        spmd = self._spmd_calls

        class _Launches(IRVisitor):
            def visit_Call(self, expr: Any) -> None:
                if isinstance(expr.op, GlobalVar):
                    counts.setdefault(expr.op.name, set()).add(spmd.get(id(expr), 1))
                super().visit_Call(expr)

        for fn in functions:
            _Launches().visit_stmt(fn.body)
        out = []
        for fn in functions:
            n = counts.get(fn.name, {1})
            if len(n) > 1:
                # a literal and a device query (pl.system.available_aiv_count()) may agree on one chip and not on
                # another; parsing knows no target, so they count as different
                query = any(isinstance(c, str) for c in n)
                raise self.error(node, f"kernel {fn.name!r} is launched with different pl.spmd block counts "
                                       f"({', '.join(sorted(map(str, n)))}; 1 = a launch outside pl.spmd)",
                                 hint="launch each kernel with one block count, or split it into two kernels"
                                      + ("; a literal count and a pl.system.available_*_count() query differ on "
                                         "some chip, so write every launch of the kernel the same way" if query
                                         else ""))
            out.append(fn.with_attr("block_dim", n.pop()) if n != {1} else fn)
        return tuple(out)

    def _with_module_functions(self, fns: list[ast.FunctionDef]) -> list[ast.FunctionDef]:
        """``fns`` plus the module-level ``@pl.function``s they call by bare name (``kernel(a, out)``), transitively:
        PyPTO programs call functions defined outside the class that way."""
        extra = self.__dict__.get("module_functions") or {}
        if not extra:
            return fns
        out = list(fns)
        names = {f.name for f in fns}
        todo = list(fns)
        while todo:
            called = bare_name_calls([todo.pop()])
            for n in sorted(called):
                if n in extra and n not in names:
                    names.add(n)
                    out.append(extra[n])
                    todo.append(extra[n])
        return out

    def _reject_recursion(self) -> None:
        """A function may not call itself, directly or through others (kernels and orchestration code run
        to completion on the device: there is no call stack). Iterative DFS over the call graph."""
        callees: dict[str, list[tuple[str, ast.AST]]] = {}
        for caller, callee, call in self._call_edges:
            callees.setdefault(caller, []).append((callee, call))
        state: dict[str, int] = {}  # 1: on the DFS path, 2: done
        for root in callees:
            if state.get(root):
                continue
            path: list[str] = [root]
            stack = [iter(callees.get(root, ()))]
            state[root] = 1
            while stack:
                nxt = next(stack[-1], None)
                if nxt is None:
                    state[path.pop()] = 2
                    stack.pop()
                    continue
                callee, call = nxt
                if state.get(callee) == 1:
                    cycle = path[path.index(callee):] + [callee]
                    what = (f"function {callee!r} calls itself" if len(cycle) == 2 else
                            "functions call each other in a cycle: " + " -> ".join(cycle))
                    raise self.error(call, f"recursion is not supported: {what}",
                                     hint="kernels and orchestration functions have no call stack; write the "
                                          "repetition as a pl.range loop")
                if not state.get(callee):
                    state[callee] = 1
                    path.append(callee)
                    stack.append(iter(callees.get(callee, ())))

    def _check_ascii_names(self, tree: ast.AST) -> None:
        """Identifiers must be ASCII: a Cyrillic 'о' in ``pl.tile.lоad`` looks like 'o' but names nothing."""
        import unicodedata

        for node in ast.walk(tree):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
                node.name if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else node.arg if isinstance(
                    node, ast.arg) else None
            if name is None or name.isascii():
                continue
            k, ch = next((k, c) for k, c in enumerate(name) if not c.isascii())
            raise self.error(node, f"name {name!r} contains a character that is not ASCII: {ch!r} "
                                   f"(U+{ord(ch):04X} {unicodedata.name(ch, 'unknown')}) at position {k}",
                             hint="it may look like a Latin letter; retype the name in plain ASCII")

    def _too_deep_in_source(self) -> ParseError:
        """The stack ran out while walking the tree (see ``parse_python`` for ``ast.parse`` itself)."""
        return too_deep_error(self.source, self.filename, line_offset=self.line_offset, col_offset=self.col_offset,
                              lines=self.lines)

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
                    attrs = self._attrs_dict(kw.value) + tuple((k, v) for k, v in attrs if k in ("level", "role"))
                elif kw.arg in ("level", "role"):
                    attrs = attrs + ((kw.arg, self._placement(kw.arg, kw.value)),)
                else:
                    raise self.error(kw.value if kw.value else dec, f"unknown @pl.function option {kw.arg!r}",
                                     hint="@pl.function accepts type=, level=, role= and attrs=")
            placed = dict(attrs)
            if "level" in placed or "role" in placed:
                from tilefold.frontend.hierarchy import check_placement

                check_placement(self, dec, placed.get("level", "HOST"), placed.get("role"), scope=False)
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.error(fn, "kernel functions take plain positional parameters only",
                             hint="remove *args, **kwargs, keyword-only and positional-only markers: "
                                  "def kernel(self, x: pl.Tensor[...], ...)")
        params = [None, *a.args[_self_params(fn):]]  # PyPTO's text form may leave out ``self``
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
        # pl.dynamic extents: hidden parameters, bound at each call from the shapes of the arguments
        hidden = []
        for dim_name, var in self._dyn_dims.items():
            where = [(i, axis) for i, (_n, t, _d) in enumerate(out)
                     for axis, e in enumerate(getattr(t, "shape", ())) if e is var]
            hidden.append((dim_name, where))
        self.__dict__.setdefault("_fn_hidden", {})[fn.name] = hidden
        self.__dict__.setdefault("_fn_dim_vars", {})[fn.name] = list(self._dyn_dims.values())
        returns: tuple[Type, ...] = ()
        if fn.returns is not None and not (isinstance(fn.returns, ast.Constant) and fn.returns.value is None):
            r = fn.returns
            if isinstance(r, ast.Tuple):
                returns = tuple(self._plain_type(e) for e in r.elts)
            elif isinstance(r, ast.Subscript) and (
                    (isinstance(r.value, ast.Name) and r.value.id in ("tuple", "Tuple"))
                    or (isinstance(r.value, ast.Attribute) and r.value.attr == "Tuple" and self._is_pl(r.value.value))):
                # -> pl.Tuple[T1, T2] / tuple[T1, T2]: one return value per element
                elts = r.slice.elts if isinstance(r.slice, ast.Tuple) else [r.slice]
                returns = tuple(self._plain_type(e) for e in elts)
            else:
                returns = (self._plain_type(r),)
        return _FnSig(GlobalVar(fn.name, span=self.span(fn)), out, returns, func_type, attrs, fn)

    def _placement(self, key: str, node: ast.expr) -> str:
        """``level=pl.Level.X`` (canonical name) or ``role=pl.Role.X`` of ``@pl.function`` (frontend/hierarchy.py)."""
        from tilefold.frontend import hierarchy

        if key == "role":
            return hierarchy.role_of(self, node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "Level":
            return hierarchy.canonical_level(self, node, node.attr)
        raise self.error(node, "level= must be a pl.Level member", hint="e.g. level=pl.Level.HOST")

    def _function(self, sig: _FnSig) -> Function:
        fn = sig.node
        self._reset_scope()
        self._current_sig = sig
        params = []
        for (name, _t, _d), p in zip(sig.params, fn.args.args[_self_params(fn):], strict=False):
            # re-evaluate the type so symbolic extents refer to this function's parameter Vars
            t2, _ = self._param_type(p.annotation)
            v = Var(name, t2, self.span(p))
            params.append(v)
            self._param_vars.add(v)
            self._define(name, v, p)
        dims = list(self._dyn_dims.values())  # the hidden pl.dynamic parameters come first
        for py_name, var in self._dyn_names.items():
            if py_name not in self.env:
                self._define(py_name, var, fn)
        stmts, attrs = self._func_attrs(fn.body, sig)
        body = self._body(stmts, None, release=self._release_ast)
        directions = (ParamDirection.In,) * len(dims) + tuple(d for _n, _t, d in sig.params)
        return bind_call_results(Function(fn.name, tuple(dims + params), directions, sig.return_types,
                                          SeqStmts(tuple(body)), sig.func_type, attrs, span=self.span(fn)))

    def _func_attrs(self, stmts: list[ast.stmt], sig: _FnSig) -> tuple[list[ast.stmt], tuple[tuple[str, Any], ...]]:
        """PyPTO's ``pl.func_attr({...})`` prologue (the body's first statements): its entries join the
        function's attributes; a bare name is a parameter (recorded by name). Returns the rest of the body."""
        attrs = list(sig.attrs)
        rest = list(stmts)
        while rest and isinstance(rest[0], ast.Expr) and self._is_pl_call(rest[0].value, "func_attr"):
            call = rest.pop(0).value
            if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Dict):  # type: ignore
                raise self.error(call, "pl.func_attr takes one dict literal",
                                 hint='e.g. pl.func_attr({"split": pl.SplitMode.UP_DOWN})')
            d = call.args[0]  # type: ignore[attr-defined]
            params = {n for n, _t, _d in sig.params}
            for k, v in zip(d.keys, d.values, strict=True):
                key = self._const(k, allow_error=True) if k is not None else None
                if not isinstance(key, str):
                    raise self.error(k or v, "pl.func_attr keys must be string literals", hint='e.g. {"split": ...}')
                if any(key == have for have, _v in attrs):
                    raise self.error(k, f"function attribute {key!r} is declared twice",
                                     hint="declare each key once")
                if isinstance(v, ast.Name) and v.id in params:
                    attrs.append((key, v.id))
                elif isinstance(v, ast.Name):
                    raise self.error(v, f"{v.id!r} in pl.func_attr is not a parameter of {sig.node.name!r}",
                                     hint="a bare name is always a parameter; write Python constants as literals")
                elif isinstance(v, ast.Attribute) and isinstance(v.value, ast.Attribute) \
                        and v.value.attr == "SplitMode" and self._is_pl(v.value.value):
                    from tilefold.frontend.dsl import SplitMode

                    if v.attr not in SplitMode.__members__:
                        raise self.error(v, f"unknown pl.SplitMode.{v.attr}",
                                         hint="one of " + ", ".join(f"pl.SplitMode.{m}" for m in SplitMode.__members__))
                    attrs.append((key, SplitMode[v.attr]))  # recorded; tilefold's split is chosen per pl.at scope
                else:
                    attrs.append((key, self._const(v, allow_error=True)))
        return rest, tuple(attrs)

