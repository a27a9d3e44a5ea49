"""Explicit IR visitor and mutator.

``IRVisitor`` walks every statement and expression in program order. ``IRMutator`` rebuilds a node only
when one of its children changed, so an untouched function comes back as the very same object.
Dispatch is by class: ``visit_<ClassName>`` is looked up along the MRO, so a handler for
``BinaryExpr`` covers ``Add``, ``Mul``, ... unless a more specific one exists.
"""

from __future__ import annotations

from typing import Any

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
    TupleGetItem,
    UnaryExpr,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)


def _dispatch(obj: Any, node: Any, prefix: str) -> Any:
    table = type(obj)._dispatch_table
    fn = table.get(type(node))
    if fn is None:
        for klass in type(node).__mro__:
            fn = getattr(type(obj), f"{prefix}{klass.__name__}", None)
            if fn is not None:
                break
        if fn is None:
            raise TypeError(f"{type(obj).__name__} cannot handle {type(node).__name__}")
        table[type(node)] = fn
    return fn


def _own_dispatch_table(cls: type) -> None:
    # Each visitor / mutator class caches its handlers in a table of its own: a class defined inside a function
    # (a new class per call) takes its table with it when it goes, where one global cache kept every such class.
    cls._dispatch_table = {}  # type: ignore[attr-defined]


class IRVisitor:
    """Read-only walk. Override ``visit_<Class>`` and call the base to keep descending."""

    _dispatch_table: dict[type, Any] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _own_dispatch_table(cls)

    def visit_program(self, program: Program) -> None:
        for fn in program.functions:
            self.visit_function(fn)

    def visit_function(self, fn: Function) -> None:
        for p in fn.params:
            self.visit_expr(p)
        self.visit_stmt(fn.body)

    def visit_stmt(self, stmt: Stmt) -> None:
        _dispatch(self, stmt, "visit_")(self, stmt)

    def visit_expr(self, expr: Expr) -> None:
        _dispatch(self, expr, "visit_")(self, expr)

    # statements
    def visit_SeqStmts(self, stmt: SeqStmts) -> None:
        for s in stmt.stmts:
            self.visit_stmt(s)

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.visit_expr(stmt.value)
        self.visit_expr(stmt.var)

    def visit_EvalStmt(self, stmt: EvalStmt) -> None:
        self.visit_expr(stmt.expr)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        self.visit_expr(stmt.start)
        self.visit_expr(stmt.stop)
        self.visit_expr(stmt.step)
        for ia in stmt.iter_args:
            if ia.init is not None:
                self.visit_expr(ia.init)
        self.visit_expr(stmt.loop_var)
        for ia in stmt.iter_args:
            self.visit_expr(ia)
        self.visit_stmt(stmt.body)
        for rv in stmt.return_vars:
            self.visit_expr(rv)

    def visit_WhileStmt(self, stmt: WhileStmt) -> None:
        for ia in stmt.iter_args:
            if ia.init is not None:
                self.visit_expr(ia.init)
        for ia in stmt.iter_args:
            self.visit_expr(ia)
        self.visit_expr(stmt.condition)
        self.visit_stmt(stmt.body)
        for rv in stmt.return_vars:
            self.visit_expr(rv)

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        self.visit_expr(stmt.condition)
        self.visit_stmt(stmt.then_body)
        if stmt.else_body is not None:
            self.visit_stmt(stmt.else_body)
        for rv in stmt.return_vars:
            self.visit_expr(rv)

    def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
        self.visit_stmt(stmt.body)

    def visit_YieldStmt(self, stmt: YieldStmt) -> None:
        for v in stmt.values:
            self.visit_expr(v)

    def visit_ReturnStmt(self, stmt: ReturnStmt) -> None:
        for v in stmt.values:
            self.visit_expr(v)

    # expressions
    def visit_Var(self, expr: Var) -> None:
        pass

    def visit_GlobalVar(self, expr: GlobalVar) -> None:
        pass

    def visit_ConstInt(self, expr: ConstInt) -> None:
        pass

    def visit_ConstFloat(self, expr: ConstFloat) -> None:
        pass

    def visit_ConstBool(self, expr: ConstBool) -> None:
        pass

    def visit_Call(self, expr: Call) -> None:
        for a in expr.args:
            self.visit_expr(a)
        for _, v in expr.kwargs:
            if isinstance(v, Expr):
                self.visit_expr(v)

    def visit_MakeTuple(self, expr: MakeTuple) -> None:
        for e in expr.elements:
            self.visit_expr(e)

    def visit_TupleGetItem(self, expr: TupleGetItem) -> None:
        self.visit_expr(expr.tuple_value)

    def visit_BinaryExpr(self, expr: BinaryExpr) -> None:
        self.visit_expr(expr.lhs)
        self.visit_expr(expr.rhs)

    def visit_UnaryExpr(self, expr: UnaryExpr) -> None:
        self.visit_expr(expr.operand)


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class IRMutator:
    """Rebuilding walk. ``mutate_<Class>`` returns the (possibly new) node.

    Statement handlers may return a list of statements; ``SeqStmts`` splices lists in, so a pass can
    replace one statement with several. Variables are substituted through ``var_map``.
    """

    _dispatch_table: dict[type, Any] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _own_dispatch_table(cls)

    def __init__(self) -> None:
        self.var_map: dict[Var, Expr] = {}

    def mutate_program(self, program: Program) -> Program:
        fns = tuple(self.mutate_function(fn) for fn in program.functions)
        if _same(fns, program.functions):
            return program
        return program.with_fields(functions=fns)

    def mutate_function(self, fn: Function) -> Function:
        body = self.mutate_stmt(fn.body)
        if isinstance(body, list):
            body = SeqStmts(tuple(body))
        if body is fn.body:
            return fn
        return fn.with_fields(body=body)

    def mutate_stmt(self, stmt: Stmt) -> Stmt | list[Stmt]:
        return _dispatch(self, stmt, "mutate_")(self, stmt)

    def mutate_expr(self, expr: Expr) -> Expr:
        return _dispatch(self, expr, "mutate_")(self, expr)

    def _body(self, stmt: Stmt) -> Stmt:
        out = self.mutate_stmt(stmt)
        if isinstance(out, list):
            return SeqStmts(tuple(out))
        return out

    # statements
    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt | list[Stmt]:
        out: list[Stmt] = []
        changed = False
        for s in stmt.stmts:
            r = self.mutate_stmt(s)
            if isinstance(r, list):
                out.extend(r)
                changed = True
            else:
                out.append(r)
                changed = changed or r is not s
        if not changed:
            return stmt
        return stmt.with_fields(stmts=tuple(out))

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        value = self.mutate_expr(stmt.value)
        if value is stmt.value:
            return stmt
        return stmt.with_fields(value=value)

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        expr = self.mutate_expr(stmt.expr)
        if expr is stmt.expr:
            return stmt
        return stmt.with_fields(expr=expr)

    def _mutate_iter_args(self, iter_args: tuple[IterArg, ...]) -> tuple[IterArg, ...]:
        out = []
        for ia in iter_args:
            init = self.mutate_expr(ia.init) if ia.init is not None else None
            if init is ia.init:
                out.append(ia)
            else:
                new = ia.with_fields(init=init)
                self.var_map[ia] = new
                out.append(new)
        return tuple(out)

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        start = self.mutate_expr(stmt.start)
        stop = self.mutate_expr(stmt.stop)
        step = self.mutate_expr(stmt.step)
        iter_args = self._mutate_iter_args(stmt.iter_args)
        body = self._body(stmt.body)
        if (
            start is stmt.start
            and stop is stmt.stop
            and step is stmt.step
            and _same(iter_args, stmt.iter_args)
            and body is stmt.body
        ):
            return stmt
        return stmt.with_fields(start=start, stop=stop, step=step, iter_args=iter_args, body=body)

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        iter_args = self._mutate_iter_args(stmt.iter_args)
        cond = self.mutate_expr(stmt.condition)
        body = self._body(stmt.body)
        if _same(iter_args, stmt.iter_args) and cond is stmt.condition and body is stmt.body:
            return stmt
        return stmt.with_fields(iter_args=iter_args, condition=cond, body=body)

    def mutate_IfStmt(self, stmt: IfStmt) -> Stmt | list[Stmt]:
        cond = self.mutate_expr(stmt.condition)
        then_body = self._body(stmt.then_body)
        else_body = self._body(stmt.else_body) if stmt.else_body is not None else None
        if cond is stmt.condition and then_body is stmt.then_body and else_body is stmt.else_body:
            return stmt
        return stmt.with_fields(condition=cond, then_body=then_body, else_body=else_body)

    def mutate_ScopeStmt(self, stmt: ScopeStmt) -> Stmt | list[Stmt]:
        body = self._body(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)

    def mutate_YieldStmt(self, stmt: YieldStmt) -> Stmt | list[Stmt]:
        values = tuple(self.mutate_expr(v) for v in stmt.values)
        if _same(values, stmt.values):
            return stmt
        return stmt.with_fields(values=values)

    def mutate_ReturnStmt(self, stmt: ReturnStmt) -> Stmt | list[Stmt]:
        values = tuple(self.mutate_expr(v) for v in stmt.values)
        if _same(values, stmt.values):
            return stmt
        return stmt.with_fields(values=values)

    # expressions
    def mutate_Var(self, expr: Var) -> Expr:
        return self.var_map.get(expr, expr)

    def mutate_GlobalVar(self, expr: GlobalVar) -> Expr:
        return expr

    def mutate_ConstInt(self, expr: ConstInt) -> Expr:
        return expr

    def mutate_ConstFloat(self, expr: ConstFloat) -> Expr:
        return expr

    def mutate_ConstBool(self, expr: ConstBool) -> Expr:
        return expr

    def mutate_Call(self, expr: Call) -> Expr:
        args = tuple(self.mutate_expr(a) for a in expr.args)
        kwargs = tuple((k, self.mutate_expr(v) if isinstance(v, Expr) else v) for k, v in expr.kwargs)
        if _same(args, expr.args) and all(a[1] is b[1] for a, b in zip(kwargs, expr.kwargs, strict=True)):
            return expr
        return expr.with_fields(args=args, kwargs=kwargs)

    def mutate_MakeTuple(self, expr: MakeTuple) -> Expr:
        elements = tuple(self.mutate_expr(e) for e in expr.elements)
        if _same(elements, expr.elements):
            return expr
        return expr.with_fields(elements=elements)

    def mutate_TupleGetItem(self, expr: TupleGetItem) -> Expr:
        t = self.mutate_expr(expr.tuple_value)
        if t is expr.tuple_value:
            return expr
        return expr.with_fields(tuple_value=t)

    def mutate_BinaryExpr(self, expr: BinaryExpr) -> Expr:
        lhs = self.mutate_expr(expr.lhs)
        rhs = self.mutate_expr(expr.rhs)
        if lhs is expr.lhs and rhs is expr.rhs:
            return expr
        return expr.with_fields(lhs=lhs, rhs=rhs)

    def mutate_UnaryExpr(self, expr: UnaryExpr) -> Expr:
        operand = self.mutate_expr(expr.operand)
        if operand is expr.operand:
            return expr
        return expr.with_fields(operand=operand)


def substitute(stmt: Stmt, mapping: dict[Var, Expr]) -> Stmt:
    """Replace uses of variables in ``stmt`` according to ``mapping``."""
    m = IRMutator()
    m.var_map = dict(mapping)
    out = m.mutate_stmt(stmt)
    return SeqStmts(tuple(out)) if isinstance(out, list) else out


class _Uses(IRVisitor):
    """Use counts of the variables a node reads (what collect_uses returns)."""

    def __init__(self) -> None:
        self.counts: dict[Var, int] = {}

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.visit_expr(stmt.value)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        for e in (stmt.start, stmt.stop, stmt.step):
            self.visit_expr(e)
        for ia in stmt.iter_args:
            if ia.init is not None:
                self.visit_expr(ia.init)
        self.visit_stmt(stmt.body)

    def visit_WhileStmt(self, stmt: WhileStmt) -> None:
        for ia in stmt.iter_args:
            if ia.init is not None:
                self.visit_expr(ia.init)
        self.visit_expr(stmt.condition)
        self.visit_stmt(stmt.body)

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        self.visit_expr(stmt.condition)
        self.visit_stmt(stmt.then_body)
        if stmt.else_body is not None:
            self.visit_stmt(stmt.else_body)

    def visit_Var(self, expr: Var) -> None:
        self.counts[expr] = self.counts.get(expr, 0) + 1


def collect_uses(node: Stmt | Expr) -> dict[Var, int]:
    """Use counts of every variable referenced (not defined) in ``node``."""
    v = _Uses()
    if isinstance(node, Stmt):
        v.visit_stmt(node)
    else:
        v.visit_expr(node)
    return v.counts
