"""Statements: assignments (SSA rebinding), tuple unpacking, ``for`` over ``pl.range`` / ``pl.pipeline`` /
``pl.parallel`` / ``pl.unroll`` / ``pl.while_``, ``while``, ``if``, ``pl.yield_`` and ``return``, with the scope
rules of the module docstring of ``tilefold.frontend.parser``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from tilefold.frontend.annotations import _describe, _same_type_shape
from tilefold.frontend.escaping import FutureUses, outer_tensor, trip_count, unread_init
from tilefold.frontend.parse_base import _INDEX, _INDEX_T, _MISSING
from tilefold.frontend.split_aiv import is_split_aiv_loop, parse_split_aiv, refuse_scope
from tilefold.ir.expr import (
    Call,
    ConstFloat,
    ConstInt,
    Expr,
    IterArg,
    MakeTuple,
    TupleGetItem,
    Var,
)
from tilefold.ir.hierarchy import ON_CHIP
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    FunctionType,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import (
    ScalarType,
    TensorType,
    TileType,
    TupleType,
    Type,
)

_LOOP_KINDS = {"range": ForKind.Sequential, "pipeline": ForKind.Pipeline, "parallel": ForKind.Parallel,
               "unroll": ForKind.Unroll}


_SYSTEM_STATEMENTS = ("system.syncall", "system.fence", "system.cacheinvalid")


@dataclass
class _Yield:
    values: list[Expr]
    targets: list[str] | None  # None: bare pl.yield_(...)
    annotation: ast.expr | None
    node: ast.stmt
    types: list[ast.expr] | None = None  # pl.yield_(a, b, types=[T1, T2]) for multi-result targets




def _first_step_matmul(s: ast.If) -> ast.Assign | None:
    """PyPTO's K-loop idiom ``if c: acc = pl.matmul(a, b)`` / ``else: acc = pl.matmul_acc(acc, a, b)`` (either order)
    as one ``acc = pl.matmul_acc(acc, a, b, init_cond=c)``: the MMAD's init flag, where two branches would each
    need their own accumulator (and a copy between them that L0C cannot make)."""
    def single(body: list[ast.stmt], attr: str) -> tuple[str, ast.Call] | None:
        if len(body) != 1 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1:
            return None
        t, v = body[0].targets[0], body[0].value
        ok = isinstance(t, ast.Name) and isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) \
            and v.func.attr == attr and not v.keywords
        return (t.id, v) if ok else None

    for fresh_body, acc_body, negate in ((s.body, s.orelse, False), (s.orelse, s.body, True)):
        fresh, acc = single(fresh_body, "matmul"), single(acc_body, "matmul_acc")
        if fresh is None or acc is None or fresh[0] != acc[0] or len(fresh[1].args) != 2 or len(acc[1].args) != 3:
            continue
        name, mm, mma = fresh[0], fresh[1], acc[1]
        if not (isinstance(mma.args[0], ast.Name) and mma.args[0].id == name
                and [ast.dump(a) for a in mm.args] == [ast.dump(a) for a in mma.args[1:]]):
            continue
        cond = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=s.test), s.test) if negate else s.test
        call = ast.copy_location(ast.Call(func=mma.func, args=list(mma.args),
                                          keywords=[ast.keyword(arg="init_cond", value=cond)]), mma)
        return ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=call), s)
    return None


#: the most iterations of an orchestration loop the front end unrolls (each may hold launches and scopes)
MAX_PARSE_UNROLL = 1024
_UNSET = object()


def _holds_at_scope(p: Any, loop: ast.For) -> bool:
    """Does ``loop``'s body hold a ``with pl.at(...)`` (at any depth, not inside a nested def)?"""
    todo: list[ast.AST] = list(loop.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.With) and any(p._is_pl_call(item.context_expr, "at") for item in n.items):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.expr)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _ends_in_continue(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Continue)


def lower_continue(p: Any, loop: ast.For) -> ast.For:
    """``continue`` as the last statement of an if branch at the top of a loop body: the rest of the body runs
    only on the other branch (``if c: a; continue`` then ``b`` is ``if c: a`` else ``b``); the carried values of
    the skipped iteration are the ones it had. Any other ``continue`` (and every ``break``) is refused."""

    def rewrite(body: list[ast.stmt]) -> list[ast.stmt]:
        for i, st in enumerate(body):
            if isinstance(st, ast.If) and (_ends_in_continue(st.body) or _ends_in_continue(st.orelse)):
                then, other = list(st.body), list(st.orelse)
                rest = rewrite(body[i + 1:])
                if _ends_in_continue(then):
                    then, other = then[:-1] or [ast.copy_location(ast.Pass(), st)], other + rest
                else:
                    then, other = then + rest, other[:-1]
                other = other or [ast.copy_location(ast.Pass(), st)]
                new = ast.copy_location(ast.If(test=st.test, body=rewrite(then), orelse=rewrite(other)), st)
                return body[:i] + [new]
            if isinstance(st, ast.Continue):
                return body[:i]  # the rest of the body never runs
        return body

    def own(nodes: list[ast.stmt]) -> list[ast.stmt]:
        """This loop's continue / break statements (not those of nested loops)."""
        found = []
        for node in nodes:
            if isinstance(node, (ast.Continue, ast.Break)):
                found.append(node)
            elif isinstance(node, ast.If):
                found += own(node.body) + own(node.orelse)
            elif isinstance(node, ast.With):
                found += own(node.body)
        return found

    def check(nodes: list[ast.stmt]) -> None:
        for sub in own(nodes):
            raise p.error(sub, f"unsupported Python syntax in a kernel: {type(sub).__name__} here",
                          hint="`continue` is supported as the last statement of an if branch in a loop body; "
                               "write the rest of the body in the other branch instead of break")

    if not own(list(loop.body)):
        return loop
    body = rewrite(list(loop.body))
    check(body)
    return ast.copy_location(ast.For(target=loop.target, iter=loop.iter, body=body, orelse=loop.orelse,
                                     type_comment=None), loop)


class StatementsMixin:
    """Parses statement lists into ``ir`` statements, tracking scopes and loop-carried values."""

    #: Python's meaning of rebinding a name bound before a loop / if in its body (the value carried out, PyPTO's
    #: ConvertToSSA): rewritten to init_values / pl.yield_. The jit form applies it itself, where it applies.
    python_rebinding = True

    def _reset_scope(self) -> None:
        self._dyn_dims: dict[str, Var] = {}  # pl.dynamic extents of the function being parsed (annotations)
        self._dyn_names: dict[str, Var] = {}
        self.env = {}
        self.depth_of = {}
        self.depth = 0
        self.scope_stack = []
        self.loop_kind = []
        self._future = FutureUses()  # which names the statements after the current one read (escaping names)
        self._param_vars: set[Var] = set()  # the parameters of the function being parsed

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
        if not header and name in getattr(self, "_if_merged", ()) and self.loop_kind and self.loop_kind[-1] == "if":
            header = True  # rebinding inside a branch of an if that merges the name (restored after the branch)
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

    def _carry_rebound_names(self, s: ast.For) -> ast.For:
        """PyPTO's loops carry a value by plain reassignment (``t = pl.add(t, a)`` in the body). Rewrite such a
        loop to the explicit form: ``for i, (t,) in pl.range(..., init_values=(t,)):`` ending with
        ``t = pl.yield_(t)``, for every name bound before the loop that the body rebinds."""
        it = s.iter
        if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute)
                and self._is_pl(it.func.value) and it.func.attr in ("range", "pipeline", "unroll", "parallel")
                and not any(kw.arg == "init_values" for kw in it.keywords)):
            return s
        carried: list[str] = []
        for node in s.body:
            for sub in ast.walk(node):
                name = None
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    name = sub.id
                elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                        and isinstance(sub.targets[0], ast.Subscript) and isinstance(sub.targets[0].value, ast.Name):
                    name = sub.targets[0].value.id  # out[...] = v rebinds out
                if name is not None and name in self.env and name != s.target.id and name not in carried:
                    carried.append(name)
        if not carried:
            return s

        def names(ctx: ast.expr_context) -> ast.Tuple:
            return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in carried], ctx=ctx)

        init = ast.keyword(arg="init_values", value=names(ast.Load()))
        new_iter = ast.Call(func=it.func, args=it.args, keywords=[*it.keywords, init])
        target = ast.Tuple(elts=[s.target, names(ast.Store())], ctx=ast.Store())
        pl_name = it.func.value.id if isinstance(it.func.value, ast.Name) else next(iter(self.pl))
        yield_call = ast.Call(func=ast.Attribute(value=ast.Name(id=pl_name, ctx=ast.Load()), attr="yield_",
                                                 ctx=ast.Load()),
                              args=[ast.Name(id=n, ctx=ast.Load()) for n in carried], keywords=[])
        yield_target: ast.expr = ast.Name(id=carried[0], ctx=ast.Store()) if len(carried) == 1 \
            else names(ast.Store())
        last = s.body[-1]
        yield_stmt = ast.Assign(targets=[yield_target], value=yield_call)
        for n in ast.walk(yield_stmt):
            ast.copy_location(n, last)
            if hasattr(n, "end_lineno"):
                n.end_lineno, n.end_col_offset = last.end_lineno, last.end_col_offset
        for n in (init, new_iter, target, *ast.walk(init.value), *ast.walk(target)):
            ast.copy_location(n, it)
        return ast.For(target=target, iter=new_iter, body=[*s.body, yield_stmt], orelse=s.orelse,
                       lineno=s.lineno, col_offset=s.col_offset, end_lineno=s.end_lineno,
                       end_col_offset=s.end_col_offset)

    def _merge_rebound_names(self, s: ast.If) -> tuple[ast.If, frozenset[str]]:
        """Python's meaning of ``if c: out[i:j, :] = v`` (or ``t = f(t)``) for a name bound before the if: after
        the if the name holds the branch's value. Rewrite to the explicit merge: both branches end with
        ``t = pl.yield_(t)`` (the untouched branch yields the value from before). Only for ifs that yield
        nothing themselves; a branch ending in ``pl.yield_`` keeps PyPTO's explicit form."""
        def ends_in_yield(body: list[ast.stmt]) -> bool:
            last = body[-1] if body else None
            value = getattr(last, "value", None)
            return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "yield_"

        if ends_in_yield(s.body) or ends_in_yield(s.orelse):
            return s, frozenset()
        rebound: list[str] = []
        for node in [*s.body, *s.orelse]:
            for sub in ast.walk(node):
                name = None
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    name = sub.id
                elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                        and isinstance(sub.targets[0], ast.Subscript) and isinstance(sub.targets[0].value, ast.Name):
                    name = sub.targets[0].value.id  # out[...] = v rebinds out
                if name is not None and name in self.env and name not in rebound:
                    rebound.append(name)
        rebound += self._escaping_branch_names(s)
        if not rebound:
            return s, frozenset()
        pl_name = next(iter(self.pl))

        def merge(anchor: ast.AST) -> ast.Assign:
            call = ast.Call(func=ast.Attribute(value=ast.Name(id=pl_name, ctx=ast.Load()), attr="yield_",
                                               ctx=ast.Load()),
                            args=[ast.Name(id=n, ctx=ast.Load()) for n in rebound], keywords=[])
            target: ast.expr = ast.Name(id=rebound[0], ctx=ast.Store()) if len(rebound) == 1 else ast.Tuple(
                elts=[ast.Name(id=n, ctx=ast.Store()) for n in rebound], ctx=ast.Store())
            stmt = ast.Assign(targets=[target], value=call)
            for n in ast.walk(stmt):
                ast.copy_location(n, anchor)
                if hasattr(anchor, "end_lineno"):
                    n.end_lineno, n.end_col_offset = anchor.end_lineno, anchor.end_col_offset
            return stmt

        orelse = [*s.orelse, merge(s.orelse[-1] if s.orelse else s)]
        merged = ast.If(test=s.test, body=[*s.body, merge(s.body[-1])], orelse=orelse, lineno=s.lineno,
                        col_offset=s.col_offset, end_lineno=s.end_lineno, end_col_offset=s.end_col_offset)
        return merged, frozenset(rebound)

    def _escaping_branch_names(self, s: ast.If) -> list[str]:
        """Names first bound inside the branches of ``s`` and read after it: bound in both branches, they are
        merged (both yield them); bound in one branch only, there is no value on the other path (an error)."""
        def stores(body: list[ast.stmt]) -> dict[str, ast.Name]:
            found: dict[str, ast.Name] = {}
            for node in body:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id not in self.env:
                        found.setdefault(sub.id, sub)
            return found

        then, other = stores(s.body), stores(s.orelse)
        merged = []
        for name, node in {**other, **then}.items():
            if not self._future.read_after(name):
                continue
            if name in then and name in other:
                merged.append(name)
                continue
            branch, missing = ("then", "else") if name in then else ("else", "then")
            raise self.error(node, f"{name!r} is first defined in the {branch} branch of this if and used after "
                                   f"it, but the {missing} branch does not define it: on that path {name!r} "
                                   "has no value",
                             hint=f"define {name!r} before the if, or assign it in both branches")
        return merged

    def _body(self, stmts: list[ast.stmt], yield_ctx: str | None, release: bool = False) -> list[Stmt]:
        """Parse a body. ``yield_ctx`` ("loop"/"if"/None) says whether a final pl.yield_ is allowed; the
        parsed yield is stored in ``self._last_yield``. ``release`` drops each statement's AST once parsed
        (the function body of a tree nobody else holds)."""
        out: list[Stmt] = []
        n = len(stmts)
        found: list[_Yield] = []

        def each(i: int, s: ast.stmt) -> None:
            with self._splice_into(out):  # a helper called in a yielded value lands before the yield
                y = self._match_yield(s)
            if y is not None:
                if yield_ctx is None:
                    raise self.error(s, "pl.yield_ outside a loop or if body",
                                     hint="pl.yield_ passes values out of a loop body or an if branch")
                if i != n - 1:
                    raise self.error(stmts[i + 1], "pl.yield_ must be the last statement of its body",
                                     hint="move this statement before the pl.yield_, or delete it")
                out.append(YieldStmt(tuple(y.values), span=self.span(s)))
                found.append(y)
                return
            self._stmt(s, out)
            if release:
                stmts[i] = None  # type: ignore[call-overload]  # free the statement's AST early (smaller working set)

        self._future.run(stmts, each, isolated=yield_ctx is None)
        self._last_yield = found[0] if found else None
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
        """One statement; the statements of the inline helpers it calls land just before it (no extra call
        frame per statement: deeply nested kernels keep their stack)."""
        with self._splice_into(out):
            if isinstance(s, ast.Assign) and not self._on_chip():
                from tilefold.frontend import jit_scopes

                if jit_scopes.task_array_stmt(self, s) or jit_scopes.task_dummy_stmt(self, s):
                    return  # tids = pl.array.create(n, pl.TASK_ID); tids[i] = tid; j = pl.system.task_dummy(deps=...)
            if isinstance(s, ast.Assign):
                if len(s.targets) != 1:
                    raise self.error(s, "chained assignment (a = b = ...) is not supported",
                                     hint="assign each name separately")
                t = s.targets[0]
                if isinstance(t, ast.Name):
                    self._assign(t, t.id, s.value, None, out, s)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    self._assign_tuple(t, s.value, out, s)
                elif isinstance(t, ast.Subscript):
                    self._subscript_assign(t, s.value, out, s)
                else:
                    raise self.error(t, "only plain names can be assigned",
                                     hint="tiles are values: write `x = pl.tile.op(...)` instead of mutating; a "
                                          "tensor takes `out[lo:hi, ...] = value` (or pl.assemble)")
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
                self._expr_stmt(s, out)
            elif isinstance(s, ast.For) and not self._on_chip() and _holds_at_scope(self, s):
                self._unroll_orchestration_loop(s, out)  # its pl.at scopes are outlined one per iteration
            elif isinstance(s, ast.For):
                s = lower_continue(self, s)
                self._for(self._carry_rebound_names(s) if self.python_rebinding else s, out)
            elif isinstance(s, ast.While):
                self._while(s, out)
            elif isinstance(s, ast.If) and not self.python_rebinding:
                self._if(s, out)
            elif isinstance(s, ast.If) and (fused := _first_step_matmul(s)) is not None:
                self._stmt(fused, out)
            elif isinstance(s, ast.If):
                s, merged = self._merge_rebound_names(s)
                saved, self._if_merged = getattr(self, "_if_merged", frozenset()), merged
                try:
                    self._if(s, out)
                finally:
                    self._if_merged = saved
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
            elif isinstance(s, ast.With):
                self._at_scope(s, out)
            else:
                raise self.error(s, f"unsupported Python syntax in a kernel: {type(s).__name__}",
                                 hint="kernels use assignments, calls, pl.range/pl.pipeline loops, while, if and "
                                      "return")

    def _unroll_orchestration_loop(self, s: ast.For, out: list[Stmt]) -> None:
        """A ``pl.range`` loop of orchestration code (control plane: kernel launches, scopes) with constant bounds
        is unrolled: each iteration's statements are parsed with the loop variable as a constant, so launches
        and scopes repeat with their own offsets (tilefold's orchestration is straight-line). The jit entry's
        loops, and a program-form orchestration loop holding a ``pl.at`` scope (its scopes are outlined one per
        iteration); names the body binds keep their last iteration's value after it, as in Python."""
        from tilefold.errors import NotSupportedError

        it = s.iter
        if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute)
                and self._is_pl(it.func.value) and it.func.attr in ("range", "unroll", "parallel") and not it.keywords
                and 1 <= len(it.args) <= 3 and not s.orelse):
            raise self.error(s, "a loop of the orchestration code must be `for i in pl.range(...)` with constant "
                                "bounds (it is unrolled at parse time)",
                             hint="carry values by rebinding names in the body (no init_values / pl.yield_), or put "
                                  "the loop inside a pl.at scope or a kernel")
        bounds = [self._fold_number(a) for a in it.args]
        if not all(isinstance(b, int) for b in bounds):
            raise NotSupportedError("an orchestration loop needs constant bounds (it is unrolled)",
                                    span=self.span(it), hint="use constants, or move the loop inside a pl.at scope")
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        if step == 0:
            raise self.error(it, "pl.range step must not be zero", hint="use a positive or negative step")
        trips = range(start, stop, step)
        if len(trips) > MAX_PARSE_UNROLL:
            raise NotSupportedError(f"an orchestration loop of {len(trips)} iterations is too long to unroll",
                                    span=self.span(it),
                                    hint=f"at most {MAX_PARSE_UNROLL}; loop inside a pl.at scope instead")
        name = s.target.id
        if name in self.env:
            raise self.error(s.target, f"the loop variable {name!r} is already defined", hint="use a fresh name")
        saved = self.consts.get(name, _UNSET)
        try:
            for i in trips:
                self.consts[name] = i
                self._future.run(s.body, lambda _i, b: self._stmt(b, out))
        finally:
            if saved is _UNSET:
                self.consts.pop(name, None)
            else:
                self.consts[name] = saved
        if saved is not _UNSET or self._lookup_const(name) is not _MISSING:
            self._loop_var_read_after(s.target, it.func.attr)

    def _subscript_assign(self, target: ast.Subscript, value_node: ast.expr, out: list[Stmt], s: ast.stmt) -> None:
        """PyPTO's subscript write ``dst[lo:hi, ...] = value``: ``dst = pl.tensor.assemble(dst, value, [lo, ...])``
        for a tensor value, ``dst = pl.tile.store(value, [lo, ...], dst)`` for a tile (it rebinds ``dst``)."""
        if not isinstance(target.value, ast.Name):
            raise self.error(target, "only `name[...] = value` subscript writes are supported",
                             hint="write into a tensor parameter: out[:] = value")
        dst = self._expr(target.value)
        from tilefold.frontend import arrays

        if isinstance(dst.type, TileType) and arrays.is_element_subscript(target):
            arrays.element_write(self, target, value_node, out, s)  # arr[i] = v: a functional update, rebinding
            return
        if not isinstance(dst.type, TensorType):
            raise self.error(target, f"{target.value.id!r} is not a tensor: only tensors take subscript writes (a "
                                     "tile or an array takes one element: t[i, j] = v)",
                             hint="tiles are values: bind a new name instead")
        value = self._expr(value_node)
        self.__dict__.setdefault("_pre", {})[id(value_node)] = value  # parsed once: _expr takes it from _pre
        vshape = value.type.shape if isinstance(value.type, (TensorType, TileType)) else None
        if vshape is None:
            raise self.error(value_node, "the value written by a subscript must be a tensor or tile",
                             hint="e.g. out[:] = pl.add(a, b)")
        offsets = self._subscript_window(target, dst.type, vshape)
        offs = ast.List(elts=offsets, ctx=ast.Load())
        ast.copy_location(offs, target)
        name = target.value.id
        pl_name = next(iter(self.pl))
        ns = "tensor" if isinstance(value.type, TensorType) else "tile"
        func = ast.Attribute(value=ast.Attribute(value=ast.Name(id=pl_name, ctx=ast.Load()), attr=ns,
                                                 ctx=ast.Load()), attr="assemble" if ns == "tensor" else "store",
                             ctx=ast.Load())
        args = [target.value, value_node, offs] if ns == "tensor" else [value_node, offs, target.value]
        call = ast.Call(func=func, args=args, keywords=[])
        for n in (func, func.value, func.value.value, call):
            ast.copy_location(n, s)
        self._assign(target.value, name, call, None, out, s)

    def _subscript_window(self, target: ast.Subscript, t: TensorType, vshape: tuple[Any, ...]) -> list[ast.expr]:
        sl = target.slice
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        rank = len(t.shape)
        if len(items) > rank:
            raise self.error(target, f"{len(items)} subscripts for a rank-{rank} tensor", hint="one per axis")
        offsets: list[ast.expr] = []
        for axis, item in enumerate(items + [ast.Slice(lower=None, upper=None, step=None)] * (rank - len(items))):
            if not isinstance(item, ast.Slice) or item.step is not None:
                raise self.error(item if hasattr(item, "lineno") else target,
                                 "tensor subscripts are slices `lo:hi` (or `:`) without a step",
                                 hint="e.g. out[0:16, :] = value")
            lower = item.lower if item.lower is not None else ast.Constant(value=0)
            ast.copy_location(lower, target)
            offsets.append(lower)
            self._check_window_extent(target, item, axis, t, vshape)
        return offsets

    def _check_window_extent(self, target: ast.Subscript, item: ast.Slice, axis: int, t: TensorType,
                             vshape: tuple[Any, ...]) -> None:
        """``out[lo:hi] = value`` writes exactly the window: its extent on each axis (``hi - lo``; ``:`` is the
        whole axis) must be the value's. Checked where both are known at parse time (constants, ``lo + c``);
        a value of another shape would write only part of the window (or past it) and still look right."""
        want = vshape[axis] if axis < len(vshape) else None
        want = want.value if isinstance(want, ConstInt) else None
        if want is None:
            return
        lo = 0 if item.lower is None else self._fold_number(item.lower)
        extent: Any = None
        if item.upper is None:
            dim = t.shape[axis]
            if isinstance(dim, ConstInt) and isinstance(lo, int):
                extent = dim.value - lo
        else:
            hi = self._fold_number(item.upper)
            if isinstance(hi, int) and isinstance(lo, int):
                extent = hi - lo
            elif (item.lower is not None and isinstance(item.upper, ast.BinOp) and isinstance(item.upper.op, ast.Add)
                  and ast.dump(item.upper.left) == ast.dump(item.lower)):
                extent = self._fold_number(item.upper.right)  # lo:lo + c
        if isinstance(extent, int) and not isinstance(extent, bool) and extent != want:
            shown = ", ".join(str(e.value) if isinstance(e, ConstInt) else "?" for e in vshape)
            raise self.error(item if hasattr(item, "lineno") else target,
                             f"the window {ast.unparse(target)} has extent {extent} on axis {axis}, but the value "
                             f"written into it is [{shown}]",
                             hint="write a value of the window's shape, or name the window it fills, e.g. "
                                  f"{ast.unparse(target.value)}[0:{want}, ...] = value")

    def _static_directive(self, v: ast.Call) -> None:
        """PyPTO's parse-time directives, which leave nothing in the IR: ``pl.static_print(*values)`` prints what
        the parser knows of each value (a constant, or a value's type); ``pl.static_assert(cond, "msg")`` checks a
        compile-time condition."""
        from tilefold.frontend.annotations import _describe

        name = v.func.attr  # type: ignore[attr-defined]
        if v.keywords:
            raise self.error(v.keywords[0].value, f"pl.{name} takes no keyword arguments",
                             hint="pass the values positionally")
        if name == "static_print":
            parts = []
            for a in v.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    parts.append(a.value)
                    continue
                e = self._expr(a)
                value = _static_value(e)
                parts.append(repr(value) if value is not None else _describe(e.type))
            print(*parts)
            return
        if len(v.args) != 2 or not (isinstance(v.args[1], ast.Constant) and isinstance(v.args[1].value, str)):
            raise self.error(v, "pl.static_assert takes a condition and a string literal message",
                             hint='write pl.static_assert(cond, "message") with the message written inline')
        value = _static_value(self._expr(v.args[0]))
        if value is None:
            raise self.error(v.args[0], "pl.static_assert: the condition is not a compile-time constant",
                             hint="use shapes, literals and closure constants; run-time values are checked in "
                                  "host code")
        if not value:
            raise self.error(v, f"static assertion failed: {v.args[1].value}",
                             hint="the condition is checked when the kernel is parsed")

    def _expr_stmt(self, s: ast.Expr, out: list[Stmt]) -> None:
        """A call as a statement (an ``EvalStmt``; an in-place spelling rebinds its operand's name)."""
        v = s.value
        if isinstance(v, ast.Constant) and (isinstance(v.value, str) or v.value is Ellipsis):
            return  # docstring / comment string; `...` (a stub body) does nothing, as in Python
        if self._is_pl_call(v, "cond"):
            raise self.error(s, "pl.cond(...) must be the first statement of a pl.while_ body",
                             hint="move pl.cond(...) to the top of the while body")
        if not isinstance(v, ast.Call):
            raise self.error(s, "an expression statement must be a call",
                             hint="bare expressions have no effect; assign the value to a name")
        f = v.func
        if isinstance(f, ast.Attribute) and f.attr == "update_element" and isinstance(f.value, ast.Attribute) \
                and f.value.attr == "array" and self._is_pl(f.value.value):
            raise self.error(s, "pl.array.update_element returns the updated array: its result is lost here",
                             hint="write arr[i] = v, or arr = pl.array.update_element(arr, i, v)")
        if self._is_pl_call(v, "func_attr"):
            raise self.error(s, "pl.func_attr(...) must precede every other statement of the function body",
                             hint="move it to the top of the body (an attribute describes the whole function)")
        if self._is_pl_call(v, "static_print") or self._is_pl_call(v, "static_assert"):
            self._static_directive(v)
            return
        if self._is_pl_call(v, "dump_tag") or (isinstance(v.func, ast.Attribute) and v.func.attr == "dump_tag"
                                                and isinstance(v.func.value, ast.Attribute)
                                                and v.func.value.attr == "tensor" and self._is_pl(v.func.value.value)):
            from tilefold.frontend.dump_tags import dump_tag_stmt

            dump_tag_stmt(self, v, out)
            return
        from tilefold.ops.catalog_ops import IN_PLACE_SPELLINGS

        at = IN_PLACE_SPELLINGS.get(getattr(v.func, "attr", ""))
        if at is not None and at < len(v.args) and isinstance(v.args[at], ast.Name):
            # an in-place update as a statement: the operand's name now holds the result
            self._assign(v.args[at], v.args[at].id, v, None, out, s)
            return
        self._statement_call = v  # a system op (barrier, fence, pipe sync) may be called here only
        out.append(EvalStmt(self._expr(v), span=self.span(s)))

    def _submit(self, target: ast.Tuple | ast.List, call: ast.Call, out: list[Stmt], s: ast.stmt) -> None:
        """PyPTO's ``out, tid = pl.submit(self.kernel, *args, deps=[...])`` in an Orchestration function: the
        kernel's launch, its results bound to the leading names and the last name its task id (usable in later
        ``deps=``). tilefold runs the orchestration in program order, so the dependencies are checked, not
        needed. ``pl.spmd_submit(self.kernel, *args, core_num=N)`` is its SPMD sibling (dev/01): the launch runs
        on ``N`` blocks, as ``with pl.spmd(N): out = self.kernel(...)`` does."""
        from tilefold.frontend import jit_scopes

        what = call.func.attr  # type: ignore[attr-defined]  # "submit" | "spmd_submit"
        if not call.args or not (isinstance(call.args[0], ast.Attribute) and isinstance(call.args[0].value, ast.Name)
                                 and call.args[0].value.id == "self"):
            if self.__dict__.get("kind") is not None:  # the @pl.jit form has no self.<kernel> (tutorials/04)
                raise self.error(call, f"pl.{what} dispatches a self.<kernel> of a @pl.program class",
                                 hint="in a @pl.jit entry use `with pl.spmd(N, deps=[...]) as tid:` or "
                                      "`with pl.at(level=..., deps=[...]) as tid:` blocks")
            raise self.error(call, f"pl.{what} takes the kernel as self.<kernel> first",
                             hint=f"out, tid = pl.{what}(self.kernel, a, out"
                                  + (", core_num=4)" if what == "spmd_submit" else ")"))
        blocks = self._submit_options(call, what)
        tid = target.elts[-1]
        if len(target.elts) < 2 or not isinstance(tid, ast.Name):
            raise self.error(target, f"pl.{what} returns the kernel's result(s) and a task id",
                             hint=f"out, tid = pl.{what}(self.kernel, a, out"
                                  + (", core_num=4)" if what == "spmd_submit" else ")"))
        launch = ast.copy_location(ast.Call(func=call.args[0], args=list(call.args[1:]), keywords=[]), call)
        results = target.elts[:-1]
        dumps = next((kw for kw in call.keywords if kw.arg == "dumps"), None)
        if dumps is not None:  # dumps=[...]: the tensors this one task dumps (frontend/dump_tags.py)
            from tilefold.frontend.dump_tags import dumps_option, next_launch_tags

            out.extend(next_launch_tags(self, dumps_option(self, dumps.value, f"pl.{what}"), dumps.value))
        marker = len(out)
        if len(results) == 1:
            self._assign(results[0], results[0].id, launch, None, out, s)  # type: ignore[attr-defined]
        else:
            tup = ast.copy_location(ast.Tuple(elts=list(results), ctx=ast.Store()), target)
            self._assign_tuple(tup, launch, out, s)
        if blocks is not None:
            self._mark_spmd_launches(out[marker:], blocks)
        t = jit_scopes.tasks(self)
        t.ids.add(tid.id)
        t.count += 1
        t.current[tid.id] = f"{tid.id}#{t.count}"

    def _submit_options(self, call: ast.Call, what: str) -> int | str | None:
        """The keywords of ``pl.submit`` / ``pl.spmd_submit``: ``deps=`` (checked), the timing-only hints, and
        ``core_num=`` (the block count, required by ``pl.spmd_submit`` and refused by ``pl.submit``)."""
        from tilefold.errors import NotSupportedError
        from tilefold.frontend import jit_scopes

        blocks = None
        for kw in call.keywords:
            if kw.arg == "deps":
                jit_scopes.deps_option(self, kw.value)
            elif kw.arg == "predicate":
                raise NotSupportedError(f"pl.{what}(predicate=...) (a task skipped on a run-time value) is not "
                                        "supported", span=self.span(kw.value),
                                        hint="guard the work inside the kernel with an if on the value")
            elif kw.arg == "core_num" and what == "spmd_submit":
                n = jit_scopes.launch_count(self, kw.value)
                if n is None:
                    raise self.error(kw.value, "core_num= must be one positive compile-time integer",
                                     hint="e.g. pl.spmd_submit(self.kernel, a, out, core_num=4)")
                blocks = n
            elif kw.arg == "sync_start" and what == "spmd_submit":
                # all blocks launch at once: every block of a tilefold launch starts with the launch already
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    raise self.error(kw.value, "sync_start= must be True or False", hint="sync_start=True")
            elif kw.arg not in ("allow_early_resolve", "dumps"):
                extra = ", core_num=N, sync_start=" if what == "spmd_submit" else ""
                raise self.error(kw.value, f"unknown keyword argument {kw.arg!r} for pl.{what}",
                                 hint=f"pl.{what}(self.kernel, *args{extra}, deps=[tid, ...])")
        if what == "spmd_submit" and blocks is None:
            raise self.error(call, "pl.spmd_submit needs core_num=N, the number of blocks",
                             hint="out, tid = pl.spmd_submit(self.kernel, a, out, core_num=4)")
        return blocks

    def _mark_spmd_launches(self, stmts: list[Stmt], blocks: int | str) -> int:
        """Record each kernel launch among ``stmts`` as running on ``blocks`` blocks (its ``block_dim``, checked
        for agreement by ``_spmd_block_dims``); the number of launches."""
        from tilefold.ir.expr import Call, GlobalVar

        launches = 0
        for st in stmts:
            value = getattr(st, "value", None) if isinstance(st, AssignStmt) else getattr(st, "expr", None)
            if isinstance(value, Call) and isinstance(value.op, GlobalVar):
                self.__dict__.setdefault("_spmd_calls", {})[id(value)] = blocks
                launches += 1
        return launches

    def _spmd_dispatch(self, s: ast.With, call: ast.Call, out: list[Stmt]) -> None:
        """PyPTO's dispatch form ``with pl.spmd(n): out = self.kernel(...)`` in an Orchestration / Opaque function:
        the body's kernel launches run on ``n`` blocks (each block reads its index with pl.tile.get_block_idx()).
        The count becomes the launched kernel's ``block_dim`` (``_parse_program`` checks every launch of it
        agrees)."""

        if getattr(getattr(self, "_current_sig", None), "func_type", None) is FunctionType.InCore:
            raise self.error(s, "with pl.spmd(...) in an InCore function",
                             hint="dispatch the kernel with pl.spmd from the Orchestration function")
        from tilefold.frontend import jit_scopes

        n = jit_scopes.launch_count(self, call.args[0]) if len(call.args) == 1 else None
        if n is None:
            raise self.error(call, "with pl.spmd(n): n must be one positive compile-time integer (or a device query "
                                   "written inline, pl.system.available_aiv_count())",
                             hint="e.g. with pl.spmd(4): out = self.kernel(a, out)")
        for kw in call.keywords:  # ordering is program order here: deps are checked, hints change timing only
            if kw.arg == "deps":
                jit_scopes.deps_option(self, kw.value)
            elif kw.arg == "allow_early_resolve":
                jit_scopes._bool_literal(self, kw.value, "allow_early_resolve")
            else:
                raise self.error(kw.value if kw.arg else call, f"unknown pl.spmd option {kw.arg!r} of a dispatch",
                                 hint="with pl.spmd(n, deps=[tid], allow_early_resolve=True) [as tid]:")
        body: list[Stmt] = []
        for b in s.body:
            self._stmt(b, body)
        launches = self._mark_spmd_launches(body, n)
        if not launches:
            raise self.error(s, "a with pl.spmd(n) body launches no kernel",
                             hint="call the kernel inside it: out = self.kernel(a, out)")
        jit_scopes.bind_task_id(self, s)  # the capture form `... as tid`: the dispatch's task id
        out.extend(body)

    def _at_scope(self, s: ast.With, out: list[Stmt]) -> None:
        """``with pl.at(level=...):`` in a ``@pl.program`` function (PyPTO's Opaque / Orchestration functions mix
        orchestration code and scopes): the body becomes a ``ScopeStmt``, which OutlineIncoreScopes turns into an
        InCore function and its call. Names the body binds stay visible after it (the outliner returns them)."""
        from tilefold.errors import NotSupportedError
        from tilefold.frontend import jit_scopes

        call = s.items[0].context_expr if len(s.items) == 1 else None
        if call is not None and self._is_pl_call(call, "spmd"):
            self._spmd_dispatch(s, call, out)
            return
        if call is not None and self._is_pl_call(call, "cluster"):
            self._cluster_scope(s, out)
            return
        for name in ("split_aiv", "incore"):
            if call is not None and self._is_pl_call(call, name):
                raise refuse_scope(self, call, name)
        if call is None or not self._is_pl_call(call, "at"):
            raise self.error(s, "unsupported Python syntax in a kernel: With (other than `with pl.at(...)`)",
                             hint="the with statement of a kernel is `with pl.at(level=pl.Level.CORE_GROUP):`, "
                                  "one pl.at(...) item (optionally `as tid`)")
        if call.args:
            raise self.error(call, "pl.at takes keyword arguments only", hint="pl.at(level=pl.Level.CORE_GROUP)")
        level, attrs = jit_scopes.at_options(self, call)
        if level not in ON_CHIP:
            self._hierarchy_scope(s, level, attrs, out)
            return
        if getattr(getattr(self, "_current_sig", None), "func_type", None) is FunctionType.InCore:
            raise self.error(s, "a pl.at scope in an InCore function: the function already runs on the chip",
                             hint="drop the with, or declare the function Opaque / Orchestration")
        if getattr(self, "_in_at_scope", False) or self.loop_kind:
            raise NotSupportedError("a pl.at scope inside a loop, an if or another scope is not supported",
                                    span=self.span(s), hint="put the loop inside the scope")
        body: list[Stmt] = []
        self._in_at_scope = True
        try:
            self._future.run(s.body, lambda _i, b: self._stmt(b, body))
        finally:
            self._in_at_scope = False
        jit_scopes.bind_task_id(self, s, attrs)
        out.extend(jit_scopes.scope_dumps(self, s, attrs, body))
        out.append(ScopeStmt(level, SeqStmts(tuple(body)), attrs=tuple(attrs.items()), span=self.span(s)))

    def _cluster_scope(self, s: ast.With, out: list[Stmt]) -> None:
        """``with pl.cluster():`` in an Orchestration / Opaque function (frontend/cluster.py): one kernel launch."""
        from tilefold.errors import NotSupportedError
        from tilefold.frontend.cluster import cluster_scope

        kernels = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV, FunctionType.Group)
        if getattr(getattr(self, "_current_sig", None), "func_type", None) in kernels \
                or getattr(self, "_in_at_scope", False):
            raise self.error(s, "with pl.cluster() inside kernel code: the code already runs on one cluster",
                             hint="open pl.cluster() in orchestration code, around the kernel's launch")
        if self.loop_kind:
            raise NotSupportedError("a pl.cluster() scope inside a loop or an if is not supported",
                                    span=self.span(s), hint="put the loop inside the kernel")
        sigs = getattr(self, "_fn_sigs", {})

        def is_kernel(name: str) -> bool:
            sig = sigs.get(name)
            return sig is not None and sig.func_type in kernels

        cluster_scope(self, s, out, self._stmt, is_kernel)

    def _hierarchy_scope(self, s: ast.With, level: str, attrs: dict[str, Any], out: list[Stmt]) -> None:
        """``with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):`` (frontend/hierarchy.py): orchestration
        code, kept as a ScopeStmt that OutlineHierarchyScopes outlines; it may hold further hierarchy scopes and
        on-chip ones, as the function around it may."""
        from tilefold.errors import NotSupportedError

        if getattr(getattr(self, "_current_sig", None), "func_type", None) is FunctionType.InCore \
                or getattr(self, "_in_at_scope", False):
            raise self.error(s, f"a pl.Level.{level} scope inside on-chip code: the code already runs on the chip",
                             hint="put the hierarchy scope in orchestration code, around the on-chip scopes")
        if self.loop_kind:
            raise NotSupportedError("a hierarchy pl.at scope inside a loop or an if is not supported",
                                    span=self.span(s), hint="put the loop inside the scope")
        for bad in ("deps", "no_dep_args", "dumps", "optimizations", "task_key"):
            if bad in attrs or (bad == "optimizations" and ("sub_block_split" in attrs or "cross_core_slot" in attrs)):
                raise self.error(s.items[0].context_expr, f"{bad}= is an option of an on-chip pl.at scope",
                                 hint="give it to the pl.at(level=pl.Level.CORE_GROUP) scope inside")
        if s.items[0].optional_vars is not None:
            raise self.error(s.items[0].optional_vars, "a hierarchy scope binds no task id",
                             hint="bind `as tid` on the on-chip pl.at scope inside it")
        body: list[Stmt] = []
        self._future.run(s.body, lambda _i, b: self._stmt(b, body))
        attrs = {"role": attrs.get("role"), **({"name_hint": attrs["name_hint"]} if "name_hint" in attrs else {})}
        out.append(ScopeStmt(level, SeqStmts(tuple(body)), attrs=tuple(attrs.items()), span=self.span(s)))

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
        if isinstance(value, Call) and value.op_name in _SYSTEM_STATEMENTS:  # a token nothing may read
            raise self.error(value_node, f"pl.{value.op_name} gives no value: it is a statement",
                             hint=f"write pl.{value.op_name}(...) on a line of its own, without '{name} ='")
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
        if self._is_pl_call(value_node, "submit") or self._is_pl_call(value_node, "spmd_submit"):
            self._submit(target, value_node, out, s)  # type: ignore[arg-type]
            return
        if isinstance(value_node, (ast.Tuple, ast.List)):  # a, b = x, y: every value first, then the names
            if len(value_node.elts) != len(names):
                raise self.error(target, f"{len(names)} names but {len(value_node.elts)} values",
                                 hint="assign one value per name")
            values = [self._expr(e) for e in value_node.elts]
            for n, e, v in zip(names, target.elts, values, strict=True):
                var = Var(n, v.type, self.span(e))
                out.append(AssignStmt(var, v, span=self.span(s)))
                self._define(n, var, e)
            return
        value = self._expr(value_node)
        tt = value.type
        if not isinstance(tt, TupleType):
            raise self.error(value_node, f"cannot unpack a value of type {_describe(tt)} into {len(names)} names",
                             hint="only multi-result custom ops and function calls return several values")
        if len(tt.types) != len(names):
            raise self.error(target, f"the value has {len(tt.types)} results but {len(names)} names are assigned",
                             hint=f"assign exactly {len(tt.types)} names")
        if isinstance(value, MakeTuple):  # an inline helper's `return a, b`: the names take its values
            for n, e, v in zip(names, target.elts, value.elements, strict=True):
                var = Var(n, v.type, self.span(e))
                out.append(AssignStmt(var, v, span=self.span(s)))
                self._define(n, var, e)
            return
        tup = Var("_".join(names) + "_tuple", tt, self.span(target))
        out.append(AssignStmt(tup, value, span=self.span(s)))
        for i, (n, e) in enumerate(zip(names, target.elts, strict=False)):
            item = TupleGetItem(tup, i, span=self.span(e))
            v = Var(n, item.type, self.span(e))
            out.append(AssignStmt(v, item, span=self.span(s)))
            self._define(n, v, e)

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
            if v.type.dtype.is_float:  # as Python's range: a trip count is never rounded
                what = repr(v.value) if isinstance(v, ConstFloat) else f"a {v.type.dtype.name} scalar"
                raise self.error(a, f"loop bounds must be integers, got {what}",
                                 hint="pass integers (or pl.Scalar[pl.INDEX] expressions) for start, stop and step; "
                                      "convert a float explicitly, e.g. int(n) in the caller")
        if n == 1:
            return ConstInt(0, _INDEX), vals[0], ConstInt(1, _INDEX)
        if n == 2:
            return vals[0], vals[1], ConstInt(1, _INDEX)
        if isinstance(vals[2], ConstInt) and vals[2].value == 0:
            raise self.error(call.args[2], f"pl.{kind_name} with step 0 never terminates",
                             hint="use a non-zero step, e.g. pl.range(0, 10, 1)")
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
        if is_split_aiv_loop(self, s):  # a mixed kernel's AIV-lane region (frontend/split_aiv.py)
            parse_split_aiv(self, s, out)
            return
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
        escaping = self._escaping_names({lv_node.id, *(n for n, _ in ia_names)})
        self._pop()
        self._loop_var_read_after(lv_node, kind_name)
        return_vars = self._bind_yield(y, iter_args, s, "loop")
        trips = trip_count(start, stop, step)
        body, return_vars = self._promote_escaping(s, escaping, body, iter_args, return_vars, {loop_var},
                                                   trips, out, f"pl.{kind_name} loop")
        out.append(ForStmt(loop_var, start, stop, step, tuple(iter_args), SeqStmts(tuple(body)),
                           tuple(return_vars), kind, tuple(attrs), span=self.span(s)))

    def _loop_var_read_after(self, lv_node: ast.Name, kind_name: str) -> None:
        """A loop variable lives in its loop. Read after the loop, its name would resolve to a module constant of
        the same name (Python would give the last iteration's value): refused where the loop binds it."""
        name = lv_node.id
        if self.env.get(name) is None and self._lookup_const(name) is not _MISSING and self._future.read_after(name):
            raise self.error(lv_node, f"the loop variable {name!r} is read after its pl.{kind_name} loop, where the "
                                      f"name {name!r} is the module constant of that name, not the loop's last value",
                             hint=f"rename the loop variable, or keep the value you need in a variable of its own "
                                  f"(e.g. `last = {name}` in the loop body, carried with init_values)")

    def _on_chip(self) -> bool:
        """Whether the statement being parsed is kernel code (a pl.at scope, a jit kernel, an InCore function)."""
        if getattr(self, "in_scope", False) or getattr(self, "_in_at_scope", False) \
                or getattr(self, "kind", "entry") != "entry":
            return True
        return getattr(getattr(self, "_current_sig", None), "func_type", None) not in (
            None, FunctionType.Orchestration, FunctionType.Opaque)

    def _escaping_names(self, header: set[str]) -> list[tuple[str, Var]]:
        """Names the body being closed bound first (not before it, not in its header) and the statements after
        it read (``tilefold.frontend.escaping``), with their last value in the body."""
        found = []
        for name, old, _d in self.scope_stack[-1]:
            if old is None and name not in header and isinstance(self.env.get(name), Var) \
                    and self._future.read_after(name):
                found.append((name, self.env[name]))
        return found

    def _promote_escaping(self, s: ast.stmt, escaping: list[tuple[str, Var]], body: list[Stmt],
                          iter_args: list[Var], return_vars: list[Var], header: set[Var], trips: int | None,
                          out: list[Stmt], what: str) -> tuple[list[Stmt], list[Var]]:
        """One more iter arg (init: the written-through tensor, else an unread value when the loop runs at least
        once) and return var per escaping name; the body yields the name's last value. Extends ``iter_args``."""
        if not escaping:
            return body, return_vars
        extra_ia, extra_values, extra_rvs = [], [], []
        for name, var in escaping:
            init: Expr | None = outer_tensor(var, body, header | set(iter_args))
            if init is None and trips is not None and trips >= 1:
                made = unread_init(var.type, name, var.span, self._on_chip())
                if made is None:
                    raise self.error(s, f"{name!r} is first defined inside this {what} (line {var.span.line}) and "
                                        f"used after it, but no initial value of its type {_describe(var.type)} "
                                        "can be made", hint=f"define {name!r} before the loop")
                out.extend(made[0])
                init = made[1]
            if init is None:
                runs = "a while loop may run zero times" if trips is None and what.startswith("while") else (
                    "its trip count is not known to be at least 1" if trips is None else "it runs zero times")
                raise self.error(s, f"{name!r} is first defined inside this {what} (line {var.span.line}) and used "
                                    f"after it, but {runs}: after zero trips {name!r} would have no value",
                                 hint=f"define {name!r} before the loop (e.g. {name} = pl.tile.full(...) or "
                                      f"{name} = 0) so it has a value when the body does not run, or give the "
                                      "loop constant bounds")
            extra_ia.append(IterArg(f"{name}_iter", var.type, var.span, init))
            extra_values.append(var)
            rv = Var(name, var.type, self.span(s))
            extra_rvs.append(rv)
            self._define(name, rv, s)
        iter_args.extend(extra_ia)
        if body and isinstance(body[-1], YieldStmt):
            last = body[-1]
            body = [*body[:-1], YieldStmt((*last.values, *extra_values), span=last.span)]
        else:
            body = [*body, YieldStmt(tuple(extra_values), span=self.span(s))]
        return body, [*return_vars, *extra_rvs]

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
        cond = self._no_splicing("a pl.while_ condition", lambda: self._expr(cond_call.args[0]))
        body = self._body(s.body[1:], "loop")
        y = self._last_yield
        escaping = self._escaping_names({n for n, _ in names})
        self._pop()
        return_vars = self._bind_yield(y, iter_args, s, "while loop")
        body, return_vars = self._promote_escaping(s, escaping, body, iter_args, return_vars, set(), None, out,
                                                   "while loop")
        out.append(WhileStmt(tuple(iter_args), cond, SeqStmts(tuple(body)), tuple(return_vars), span=self.span(s)))

    def _while(self, s: ast.While, out: list[Stmt]) -> None:
        if s.orelse:
            raise self.error(s.orelse[0], "while ... else is not supported",
                             hint="move the else block after the loop")
        cond = self._no_splicing("a while condition", lambda: self._expr(s.test))
        self._push("loop")
        body = self._body(s.body, "loop")
        y = self._last_yield
        escaping = self._escaping_names(set())
        self._pop()
        self._bind_yield(y, [], s, "while loop")
        iter_args: list[Var] = []
        body, return_vars = self._promote_escaping(s, escaping, body, iter_args, [], set(), None, out, "while loop")
        out.append(WhileStmt(tuple(iter_args), cond, SeqStmts(tuple(body)), tuple(return_vars), span=self.span(s)))

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


def _static_value(e: Any) -> Any:
    """The value of a parse-time constant expression (literals and arithmetic / comparisons of them), or None."""
    from tilefold.ir.expr import And, BinaryExpr, ConstBool, ConstFloat, ConstInt, Neg, Not, Or

    if isinstance(e, (ConstInt, ConstFloat, ConstBool)):
        return e.value
    if isinstance(e, (Neg, Not)):
        x = _static_value(e.operand)
        return None if x is None else (-x if isinstance(e, Neg) else not x)
    if not isinstance(e, BinaryExpr):
        return None
    a, b = _static_value(e.lhs), _static_value(e.rhs)
    if a is None or b is None:
        return None
    if isinstance(e, (And, Or)):
        return (a and b) if isinstance(e, And) else (a or b)
    ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b if b else None,
           "%": lambda: a % b if b else None, "min": lambda: min(a, b), "max": lambda: max(a, b),
           "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
           ">": lambda: a > b, ">=": lambda: a >= b}
    f = ops.get(e.symbol)
    return f() if f is not None else None
