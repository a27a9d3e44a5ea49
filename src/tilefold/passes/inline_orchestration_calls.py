"""InlineOrchestrationCalls: splice every call of an orchestration-level function (Opaque, Orchestration or Graph:
a hierarchy function OutlineHierarchyScopes made, a ``@pl.function(level=pl.Level.HOST, ...)``, a
``pl.FunctionType.Graph`` fragment) into its caller, so the entry is one orchestration function of kernel launches,
which is what the backend lowers. See docs/passes/inline_orchestration_calls.md.

Values do not change: the callee's statements run where the call was, in program order, with its parameters bound
to the call's arguments; its results are the values its final ``return`` names. Each inlined copy gets fresh
variables, so a function called twice (or from two places) keeps both results apart. A callee whose ``return`` is
not its last top-level statement (an early return inside a loop or if) is refused. Inlined functions no caller
reaches any more are dropped; kernels (InCore, AIC, AIV, Group) are left as they are.
"""

from __future__ import annotations

from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call, Expr, GlobalVar, IterArg, MakeTuple, TupleGetItem, Var
from tilefold.ir.hierarchy import ON_CHIP
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    Program,
    ReturnStmt,
    Stmt,
    WhileStmt,
    flatten_stmts,
)
from tilefold.ir.visitor import IRMutator, IRVisitor
from tilefold.passes.base import Pass

#: the most callee bodies one run of the pass splices in (each call site is one copy; a loop body's call is one)
MAX_INLINED_COPIES = 4096
#: function types whose body is orchestration code (inlined into a caller)
ORCHESTRATION_TYPES = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)


class _Fresh(IRMutator):
    """A copy of a callee body: parameters -> the call's arguments, every variable it defines -> a fresh one."""

    def __init__(self, mapping: dict[Var, Expr]) -> None:
        super().__init__()
        self.var_map = dict(mapping)

    def fresh(self, v: Var) -> Var:
        if v not in self.var_map:
            self.var_map[v] = Var(v.name, v.type, v.span)
        return self.var_map[v]  # type: ignore[return-value]

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        value = self.mutate_expr(stmt.value)
        return stmt.with_fields(var=self.fresh(stmt.var), value=value)

    def _mutate_iter_args(self, iter_args: tuple[IterArg, ...]) -> tuple[IterArg, ...]:
        out = []
        for ia in iter_args:
            new = ia.with_fields(init=self.mutate_expr(ia.init) if ia.init is not None else None)
            self.var_map[ia] = new
            out.append(new)
        return tuple(out)

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        loop_var = self.fresh(stmt.loop_var)
        out = super().mutate_ForStmt(stmt)
        return out.with_fields(loop_var=loop_var, return_vars=tuple(self.fresh(v) for v in stmt.return_vars))

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        out = super().mutate_WhileStmt(stmt)
        return out.with_fields(return_vars=tuple(self.fresh(v) for v in stmt.return_vars))

    def mutate_IfStmt(self, stmt: IfStmt) -> Stmt | list[Stmt]:
        out = super().mutate_IfStmt(stmt)
        return out.with_fields(return_vars=tuple(self.fresh(v) for v in stmt.return_vars))


class _Inliner(IRMutator):
    """Replaces the statements that call an orchestration-level function by the callee's (inlined) body."""

    def __init__(self, functions: dict[str, Function], stack: tuple[str, ...],
                 copies: list[int] | None = None) -> None:
        super().__init__()
        self.functions = functions
        self.stack = stack
        self.copies = [0] if copies is None else copies  # inlined copies so far, shared by the nested inliners

    def callee(self, expr: Expr) -> Function | None:
        if isinstance(expr, Call) and isinstance(expr.op, GlobalVar):
            fn = self.functions.get(expr.op.name)
            if fn is not None and is_orchestration_callee(fn):
                return fn
        return None

    def mutate_TupleGetItem(self, expr: TupleGetItem) -> Expr:
        t = self.mutate_expr(expr.tuple_value)
        if isinstance(t, MakeTuple):  # an element of an inlined call's results
            return t.elements[expr.index]
        return expr if t is expr.tuple_value else expr.with_fields(tuple_value=t)

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        value = self.mutate_expr(stmt.value)
        fn = self.callee(value)
        if fn is None:
            return stmt if value is stmt.value else stmt.with_fields(value=value)
        body, results = self.inline(fn, value)  # type: ignore[arg-type]
        result = results[0] if len(results) == 1 else None
        if result is None:
            result = MakeTuple(tuple(results), span=stmt.span)
        self.var_map[stmt.var] = result  # later statements read the callee's result itself
        return body

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        expr = self.mutate_expr(stmt.expr)
        fn = self.callee(expr)
        if fn is None:
            return stmt if expr is stmt.expr else stmt.with_fields(expr=expr)
        return self.inline(fn, expr)[0]  # type: ignore[arg-type]

    def inline(self, fn: Function, call: Call) -> tuple[list[Stmt], tuple[Expr, ...]]:
        if fn.name in self.stack:
            raise NotSupportedError(f"orchestration function {fn.name!r} calls itself (through "
                                    f"{' -> '.join(self.stack)})", span=call.span if call.span.line else None,
                                    hint="orchestration code is inlined into its caller: write the repetition as "
                                         "a pl.range loop")
        self.copies[0] += 1
        if self.copies[0] > MAX_INLINED_COPIES:  # calls that fan out double per level: 2**30 copies would never end
            raise NotSupportedError(f"inlining orchestration calls made more than {MAX_INLINED_COPIES:,} copies of "
                                    f"callee bodies (at {' -> '.join((*self.stack, fn.name))})",
                                    span=call.span if call.span.line else None,
                                    hint="each call of an orchestration function is spliced into its caller: call "
                                         "a helper from a pl.range loop instead of from many call sites")
        inner = _Inliner(self.functions, (*self.stack, fn.name), self.copies)
        stmts = flatten_stmts(inner.mutate_function(fn).body)
        ret = stmts[-1] if stmts and isinstance(stmts[-1], ReturnStmt) else None
        if _has_return(stmts[:-1] if ret is not None else stmts):
            raise NotSupportedError(f"{fn.name!r} returns from inside a loop or if; tilefold inlines orchestration "
                                    "functions into their caller and needs one final return",
                                    span=fn.span if fn.span.line else None,
                                    hint="bind the result in the branches and return it once, at the end")
        copy = _Fresh(dict(zip(fn.params, call.args, strict=True)))
        body = [s for s in (copy.mutate_stmt(s) for s in (stmts[:-1] if ret is not None else stmts))
                for s in (s if isinstance(s, list) else [s])]
        results = tuple(copy.mutate_expr(v) for v in ret.values) if ret is not None else ()
        return body, results


def is_orchestration_callee(fn: Function) -> bool:
    """Orchestration code a caller splices in: an Orchestration or Graph function, or an Opaque one placed at a
    hierarchy level (``level`` attribute). Any other Opaque function is left to the rules for kernels."""
    return fn.func_type in (FunctionType.Orchestration, FunctionType.Graph) or (
        fn.func_type is FunctionType.Opaque and fn.attr("level") not in (None, *ON_CHIP))


def _has_return(stmts: list[Stmt]) -> bool:
    class _Find(IRVisitor):
        found = False

        def visit_ReturnStmt(self, stmt: ReturnStmt) -> None:
            self.found = True

    f = _Find()
    for s in stmts:
        f.visit_stmt(s)
    return f.found


def _called(program: Program) -> set[str]:
    names: set[str] = set()

    class _Calls(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if isinstance(expr.op, GlobalVar):
                names.add(expr.op.name)
            super().visit_Call(expr)

    for fn in program.functions:
        _Calls().visit_function(fn)
    return names


def needs_inlining(program: Program) -> bool:
    """Does an orchestration-level function of ``program`` call another one?"""
    called = _called(program)
    return any(f.name in called and is_orchestration_callee(f) for f in program.functions)


def _run(program: Program) -> Program:
    if not needs_inlining(program):
        return program
    functions = {f.name: f for f in program.functions}
    called = _called(program)
    kept: list[Function] = []
    for fn in program.functions:
        if not (fn.func_type in ORCHESTRATION_TYPES and (fn.name not in called or is_orchestration_callee(fn))):
            kept.append(fn)
        elif fn.name not in called:  # an entry: its orchestration callees are spliced in
            new = _Inliner(functions, (fn.name,)).mutate_function(fn)
            if new.func_type is FunctionType.Opaque and new is not fn:
                new = new.with_fields(func_type=FunctionType.Orchestration)
            kept.append(new)
    return program.with_fields(functions=tuple(kept))


def inline_orchestration_calls() -> Pass:
    """The InlineOrchestrationCalls pass."""
    return Pass("InlineOrchestrationCalls", _run)




__all__ = ["MAX_INLINED_COPIES", "ORCHESTRATION_TYPES", "inline_orchestration_calls", "is_orchestration_callee",
           "needs_inlining"]
