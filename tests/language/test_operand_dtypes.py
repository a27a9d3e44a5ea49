"""dtype legality declared once per op (``OpDef.operand_dtypes``) and checked by one function for every op:
float math refuses integer and bool operands with a located error, in the @pl.program and the @pl.jit form."""

from __future__ import annotations

import pytest

import tilefold.language as pl
from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstFloat, ConstInt, Var
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType
from tilefold.ops import all_ops, make_call
from tilefold.ops.registry import DTypeClass, OpKind, ParamKind, operand_dtype_classes


def _jit(dtype: str, expr: str) -> str:
    return f"""import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[16, 64], pl.{dtype}], out: pl.Out[pl.Tensor[[16, 64], pl.{dtype}]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = {expr}
    return out
"""


def _program(dtype: str, expr: str) -> str:
    return f"""import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.{dtype}],
               out: pl.Out[pl.Tensor[[16, 64], pl.{dtype}]]) -> pl.Tensor[[16, 64], pl.{dtype}]:
        t: pl.Tile[[16, 64], pl.{dtype}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 64], pl.{dtype}, pl.Mem.Vec] = {expr}
        o = pl.tile.store(e, [0, 0], out)
        return o
"""


@pytest.mark.parametrize("dtype", ["INT32", "BOOL", "INT8"])
@pytest.mark.parametrize("form,expr,line", [("jit", "pl.exp(x)", 6), ("program", "pl.exp(t)", 9),
                                            ("program", "pl.tile.exp(t)", 9)])
def test_exp_of_integers_and_bools_is_refused_where_it_is_written(form, expr, line, dtype):
    src = (_jit if form == "jit" else _program)(dtype, expr)
    with pytest.raises(TypeInferenceError) as info:
        pl.parse(src, "<exp>")
    exc = info.value
    assert exc.span is not None and exc.span.line == line
    assert "floating-point operands only" in exc.message and dtype in exc.message
    assert "cast" in exc.hint


@pytest.mark.parametrize("form,expr", [("jit", "pl.exp(x)"), ("program", "pl.exp(t)"), ("jit", "pl.add(x, x)")])
def test_float_exp_and_integer_add_still_parse(form, expr):
    pl.parse((_jit if form == "jit" else _program)("FP16" if "exp" in expr else "INT32", expr), "<ok>")


def test_sin_is_fp32_only_as_in_pypto():
    with pytest.raises(TypeInferenceError, match="FP32 operands only"):
        pl.parse(_jit("FP16", "pl.sin(x)"), "<sin>")
    pl.parse(_jit("FP32", "pl.sin(x)"), "<sin>")


def _operand(op, kind: ParamKind, name: str, dtype: DataType):
    shape = (16, 64)
    if name == "vector":  # a broadcast's row / column vector
        shape = (16, 1) if op.kind is OpKind.ROW_BROADCAST else (1, 64)
    if kind is ParamKind.TILE:
        return Var(name, TileType(make_shape(shape), dtype, MemorySpace.Vec))
    if kind is ParamKind.SCALAR:
        return ConstFloat(2.0)
    return Var(name, TensorType(make_shape(shape), dtype))


def _uniform(op) -> bool:
    """Every tile / tensor parameter of ``op`` declares the same dtypes, and any [16, 64] operands build it. The
    index / sort ops of issue 19 (an integer index beside a data operand; sort structures whose row must hold whole
    runs) have their dtype rules tested in tests/sim/test_index_ops.py and tests/reference instead."""
    from tilefold.ops.registry import _value_params

    return len({p.dtypes for p in _value_params(op)}) == 1 and op.infer.__module__ != "tilefold.ops.index_ops"


#: the ops declared on floating-point operands only (the bitwise ops declare integers: INT_RESTRICTED)
RESTRICTED = sorted(n for n, op in all_ops().items() if operand_dtype_classes(op) and _uniform(op)
                    and DTypeClass.INT not in operand_dtype_classes(op))
INT_RESTRICTED = sorted(n for n, op in all_ops().items() if operand_dtype_classes(op) and _uniform(op)
                        and DTypeClass.INT in operand_dtype_classes(op))


def test_the_float_math_ops_are_restricted():
    names = {n.split(".", 1)[1] for n in RESTRICTED}
    assert {"exp", "log", "sqrt", "rsqrt", "recip", "div", "divs", "sin", "cos", "fmod"} <= names
    assert {"add", "abs", "neg", "rem", "row_sum", "maximum"}.isdisjoint(names)
    assert all(f"tensor.{n}" in RESTRICTED for n in ("exp", "sqrt", "div"))  # inherited from the tile form


@pytest.mark.parametrize("name", RESTRICTED)
def test_every_restricted_op_refuses_integer_and_bool_operands(name):
    op = all_ops()[name]
    allowed = operand_dtype_classes(op)
    good = DataType.FP32
    assert any(c.holds(good) for c in allowed)
    for bad in (DataType.INT32, DataType.BOOL, DataType.UINT8):
        args = [_operand(op, p.kind, p.name, bad) for p in op.operand_params]
        with pytest.raises(TypeInferenceError, match="operands only") as info:
            make_call(name, args)
        assert bad.name in info.value.message and info.value.hint
    args = [_operand(op, p.kind, p.name, good) for p in op.operand_params]
    make_call(name, args)  # the legal dtype builds
    if DTypeClass.FLOAT in allowed:
        make_call(name, [_operand(op, p.kind, p.name, DataType.FP16) for p in op.operand_params])


def test_the_verifier_applies_the_same_check_to_calls_a_pass_built():
    from tilefold.ir.expr import Call, MakeTuple
    from tilefold.ir.shapes import make_shape as shape
    from tilefold.ir.stmt import AssignStmt, Function, FunctionType, ParamDirection, Program, SeqStmts
    from tilefold.passes.base import IRProperty
    from tilefold.passes.verifier import check_properties

    x = Var("x", TensorType(shape((16, 64)), DataType.INT32))
    load = make_call("tile.load", [x, MakeTuple((ConstInt(0), ConstInt(0))), MakeTuple((ConstInt(16), ConstInt(64)))])
    t = Var("t", load.type)
    forged = Call("tile.exp", (t,), (), load.type)  # built without make_call
    body = SeqStmts((AssignStmt(t, load), AssignStmt(Var("e", load.type), forged)))
    fn = Function("kernel", (x,), (ParamDirection.In,), (), body, FunctionType.InCore)
    found = check_properties(Program("p", (fn,)), [IRProperty.TypeChecked])
    assert any("tile.exp" in v.message and "floating-point operands only" in v.message for v in found)


def test_the_bitwise_ops_declare_integer_operands():
    names = {n.split(".", 1)[1] for n in INT_RESTRICTED}
    assert {"and_", "or_", "xor", "shl", "shr", "ands", "shrs", "not_"} <= names
    assert all(f"tensor.{n}" in INT_RESTRICTED for n in ("and_", "shl", "xors"))  # inherited from the tile form


@pytest.mark.parametrize("name", INT_RESTRICTED)
def test_every_bitwise_op_refuses_float_operands_with_its_reason(name):
    op = all_ops()[name]
    for bad in (DataType.FP32, DataType.FP16):
        args = [ConstInt(2) if p.kind is ParamKind.SCALAR else _operand(op, p.kind, p.name, bad)
                for p in op.operand_params]
        with pytest.raises(TypeInferenceError, match="bitwise ops need an integer dtype") as info:
            make_call(name, args)
        assert bad.name in info.value.message and "INT32" in info.value.hint
    make_call(name, [ConstInt(2) if p.kind is ParamKind.SCALAR else _operand(op, p.kind, p.name, DataType.INT32)
                     for p in op.operand_params])
