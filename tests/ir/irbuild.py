"""Helpers to build IR programmatically in tests (no DSL needed)."""

from __future__ import annotations

from tilefold import ir
from tilefold.ir import (
    AssignStmt,
    ConstFloat,
    ConstInt,
    DataType,
    ForStmt,
    Function,
    FunctionType,
    IterArg,
    MakeTuple,
    MemorySpace,
    ParamDirection,
    Program,
    ReturnStmt,
    SeqStmts,
    Var,
    YieldStmt,
)
from tilefold.ops import make_call

FP32 = DataType.FP32
Vec = MemorySpace.Vec
Mat = MemorySpace.Mat


def c(v: int) -> ConstInt:
    return ConstInt(v, DataType.INDEX)


def tup(*vals) -> MakeTuple:
    return MakeTuple(tuple(ir.as_expr(v) if not isinstance(v, ir.Expr) else v for v in vals))


class Body:
    """Collects statements; ``let`` binds a call result to a fresh Var."""

    def __init__(self) -> None:
        self.stmts: list = []

    def let(self, name: str, value: ir.Expr, type_: ir.Type | None = None) -> Var:
        v = Var(name, type_ if type_ is not None else value.type)
        self.stmts.append(AssignStmt(v, value))
        return v

    def call(self, name: str, op: str, args, attrs=None) -> Var:
        return self.let(name, make_call(op, list(args), attrs or {}))

    def add(self, stmt) -> None:
        self.stmts.append(stmt)

    def seq(self) -> SeqStmts:
        return SeqStmts(tuple(self.stmts))


def kernel_fn(*, names=("x", "out", "t", "hi", "y", "o"), offset: int = 64, mem=Vec, dtype=FP32,
              width: int = 64, scale: float = 0.5, func_type=FunctionType.InCore, name: str = "kernel",
              swap: bool = False) -> Function:
    """kernel(x: [16,128], out: Out [16, width]): t = load; hi = slice(t, [16, width], [0, offset]);
    y = muls(hi, scale); o = store(y, [0, 0], out); return o."""
    nx, nout, nt, nhi, ny, no = names
    x = Var(nx, ir.tensor_type([16, 128], dtype))
    out = Var(nout, ir.tensor_type([16, width], dtype))
    b = Body()
    t = b.call(nt, "tile.load", [x, tup(0, 0), tup(16, 128)], {"target_memory": mem})
    hi = b.call(nhi, "tile.slice", [t, tup(16, width), tup(0, offset)])
    y = b.call(ny, "tile.muls", [hi, ConstFloat(scale, FP32)])
    o = b.call(no, "tile.store", [y, tup(0, 0), out])
    if swap:
        b.stmts[1], b.stmts[0] = b.stmts[0], b.stmts[1]
    b.add(ReturnStmt((o,)))
    return Function(name, (x, out), (ParamDirection.In, ParamDirection.Out), (out.type,), b.seq(), func_type)


def program(*fns: Function, name: str = "Example") -> Program:
    return Program(name, tuple(fns))


def loop_fn(*, names=("x", "out", "i", "acc", "acc_it", "t", "s", "res", "o"), stop: int = 4,
            func_type=FunctionType.InCore, yield_var: str = "s") -> Function:
    """A kernel with a loop carrying a Vec accumulator tile."""
    nx, nout, ni, nacc, nit, nt, ns, nres, no = names
    x = Var(nx, ir.tensor_type([16, 64], FP32))
    out = Var(nout, ir.tensor_type([16, 64], FP32))
    b = Body()
    acc = b.call(nacc, "tile.full", [], {"shape": (16, 64), "dtype": FP32, "value": 0.0})
    i = Var(ni, ir.ScalarType(DataType.INDEX))
    it = IterArg(nit, acc.type, init=acc)
    inner = Body()
    t = inner.call(nt, "tile.load", [x, tup(0, 0), tup(16, 64)])
    s = inner.call(ns, "tile.add", [it, t])
    inner.add(YieldStmt((s if yield_var == "s" else it,)))
    res = Var(nres, acc.type)
    b.add(ForStmt(i, c(0), c(stop), c(1), (it,), inner.seq(), (res,)))
    o = b.call(no, "tile.store", [res, tup(0, 0), out])
    b.add(ReturnStmt((o,)))
    return Function("loop_kernel", (x, out), (ParamDirection.In, ParamDirection.Out), (out.type,), b.seq(),
                    func_type)
