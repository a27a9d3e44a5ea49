"""A tiny programmatic IR builder for the golden tests (every op goes through ``ops.make_call``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilefold.ir import (
    AssignStmt,
    Call,
    DataType,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    Function,
    FunctionType,
    GlobalVar,
    IfStmt,
    IterArg,
    MakeTuple,
    ParamDirection,
    Program,
    ReturnStmt,
    ScalarType,
    SeqStmts,
    TupleGetItem,
    Var,
    WhileStmt,
    YieldStmt,
    as_expr,
    tensor_type,
    tile_type,
)
from tilefold.ops import make_call

FP32, FP16, BF16, INT8, INT32, INDEX = (DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT8,
                                        DataType.INT32, DataType.INDEX)
IN, OUT, INOUT = ParamDirection.In, ParamDirection.Out, ParamDirection.InOut


def tensor(shape, dtype=FP32):
    return tensor_type(shape, dtype)


def tile(shape, dtype=FP32, mem=None):
    return tile_type(shape, dtype, mem)


def scalar(dtype=INDEX):
    return ScalarType(dtype)


def tup(*values) -> MakeTuple:
    return MakeTuple(tuple(as_expr(v) for v in values))


def _arg(a: Any) -> Expr:
    if isinstance(a, (list, tuple)):
        return tup(*a)
    return as_expr(a)


class Body:
    """Collects the statements of one body."""

    def __init__(self) -> None:
        self.stmts: list = []
        self._n = 0

    def _name(self, base: str) -> str:
        self._n += 1
        return f"{base}{self._n}"

    def call(self, op: str, *args, **attrs) -> Call:
        return make_call(op, [_arg(a) for a in args], attrs)

    def let(self, name: str, op: str, *args, **attrs) -> Var:
        return self.assign(name, self.call(op, *args, **attrs))

    def assign(self, name: str, expr: Expr) -> Var:
        var = Var(name, expr.type)
        self.stmts.append(AssignStmt(var, expr))
        return var

    def do(self, op: str, *args, **attrs) -> None:
        self.stmts.append(EvalStmt(self.call(op, *args, **attrs)))

    def custom(self, name: str, symbol: str, ins: Sequence[Expr], outs: Sequence[Expr], *, macro: bool = False,
               **attrs) -> Var:
        op = "tile.custom_macro" if macro else "tile.custom"
        sizes = (len(ins), len(outs), 0, 0) if macro else (len(ins), len(outs), 0)
        call = make_call(op, [_arg(a) for a in [*ins, *outs]],
                         {"symbol": symbol, "operand_segment_sizes": sizes, **attrs})
        return self.assign(name, call)

    def get(self, name: str, tuple_value: Expr, index: int) -> Var:
        return self.assign(name, TupleGetItem(tuple_value, index))

    def call_fn(self, name: str, fn: Function, *args) -> Var:
        ret = fn.return_types[0] if len(fn.return_types) == 1 else None
        call = Call(GlobalVar(fn.name), tuple(_arg(a) for a in args), (), ret) if ret is not None else \
            Call(GlobalVar(fn.name), tuple(_arg(a) for a in args))
        return self.assign(name, call)

    def loop(self, var_name: str, start, stop, step, inits: Sequence[tuple[str, Expr]],
             body: Callable[[Body, Var, list[IterArg]], Sequence[Expr]], kind: ForKind = ForKind.Sequential
             ) -> list[Var]:
        loop_var = Var(var_name, scalar())
        iter_args = [IterArg(n, e.type, init=e) for n, e in inits]
        inner = Body()
        yields = body(inner, loop_var, iter_args)
        if iter_args:
            inner.stmts.append(YieldStmt(tuple(yields)))
        results = [Var(f"{ia.name}_final", ia.type) for ia in iter_args]
        self.stmts.append(ForStmt(loop_var, as_expr(start), as_expr(stop), as_expr(step), tuple(iter_args),
                                  SeqStmts(tuple(inner.stmts)), tuple(results), kind))
        return results

    def while_(self, inits: Sequence[tuple[str, Expr]], cond: Callable[[list[IterArg]], Expr],
               body: Callable[[Body, list[IterArg]], Sequence[Expr]]) -> list[Var]:
        iter_args = [IterArg(n, e.type, init=e) for n, e in inits]
        inner = Body()
        yields = body(inner, iter_args)
        inner.stmts.append(YieldStmt(tuple(yields)))
        results = [Var(f"{ia.name}_final", ia.type) for ia in iter_args]
        self.stmts.append(WhileStmt(tuple(iter_args), cond(iter_args), SeqStmts(tuple(inner.stmts)),
                                    tuple(results)))
        return results

    def if_(self, cond: Expr, then: Callable[[Body], Sequence[Expr]], else_: Callable[[Body], Sequence[Expr]] | None,
            names: Sequence[str] = ()) -> list[Var]:
        tb, eb = Body(), Body()
        ty = then(tb)
        ey = else_(eb) if else_ is not None else ()
        results = []
        if names:
            tb.stmts.append(YieldStmt(tuple(ty)))
            eb.stmts.append(YieldStmt(tuple(ey)))
            results = [Var(n, v.type) for n, v in zip(names, ty, strict=True)]
        self.stmts.append(IfStmt(cond, SeqStmts(tuple(tb.stmts)),
                                 SeqStmts(tuple(eb.stmts)) if else_ is not None else None, tuple(results)))
        return results

    def ret(self, *values: Expr) -> None:
        self.stmts.append(ReturnStmt(tuple(values)))


def function(name: str, params: Sequence[tuple[str, Any, ParamDirection]], body: Callable[..., None], *,
             func_type: FunctionType = FunctionType.InCore, attrs: dict | None = None) -> Function:
    """``body(b, *param_vars)`` fills the body; the return types come from the ReturnStmt."""
    pvars = [Var(n, t) for n, t, _ in params]
    b = Body()
    body(b, *pvars)
    ret_types: tuple = ()
    for s in b.stmts:
        if isinstance(s, ReturnStmt):
            ret_types = tuple(v.type for v in s.values)
    return Function(name, tuple(pvars), tuple(d for _, _, d in params), ret_types, SeqStmts(tuple(b.stmts)),
                    func_type, tuple((attrs or {}).items()))


def program(*functions: Function, name: str = "test") -> Program:
    return Program(name, tuple(functions))


def kernel_program(params, body, *, func_type=FunctionType.InCore, attrs=None) -> Program:
    return program(function("kernel", params, body, func_type=func_type, attrs=attrs))
