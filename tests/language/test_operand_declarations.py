"""Operand checks declared per parameter (kind, memory spaces, rank, dtypes) and enforced in one generic place,
``registry.check_operands``, from ``make_call`` and from the verifier (issue 16)."""

from __future__ import annotations

import pytest

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt, MakeTuple, Var
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType
from tilefold.ops import all_ops, make_call
from tilefold.ops.registry import ParamKind, check_operands


def _tile(shape=(16, 64), mem=MemorySpace.Vec, dtype=DataType.FP32) -> Var:
    return Var("t", TileType(make_shape(shape), dtype, mem))


def _dummy(param):
    """An operand of the parameter's kind and declared dtype (the checks before the one under test pass)."""
    kind = param.kind
    dtype = DataType.INT32 if param.dtypes and not any(c.holds(DataType.FP32) for c in param.dtypes) \
        else DataType.FP32
    if kind is ParamKind.TENSOR:
        return Var("x", TensorType(make_shape((16, 64)), DataType.FP32))
    if kind is ParamKind.SCALAR:
        return ConstInt(1)
    if kind is ParamKind.TUPLE:
        return MakeTuple((ConstInt(0), ConstInt(0)))
    return _tile(dtype=dtype)


def _first_value_param(kind: ParamKind):
    for name, op in sorted(all_ops().items()):
        params = op.operand_params
        if any(p.kind is ParamKind.TILE_LIST for p in params):
            continue
        for i, p in enumerate(params):
            if p.kind is kind:
                yield name, op, i
                break


@pytest.mark.parametrize("name,op,index", list(_first_value_param(ParamKind.TILE)), ids=lambda v: str(v))
def test_a_scalar_where_a_tile_is_declared_is_refused_with_a_hint(name, op, index):
    args = [_dummy(p) for p in op.operand_params[:index]] + [ConstInt(1)]
    with pytest.raises(TypeInferenceError) as info:
        check_operands(op, args)
    assert f"operand #{index} must be a tile" in info.value.message and info.value.hint


@pytest.mark.parametrize("name,op,index", list(_first_value_param(ParamKind.TENSOR)), ids=lambda v: str(v))
def test_a_tile_where_a_tensor_is_declared_is_refused_with_a_hint(name, op, index):
    args = [_dummy(p) for p in op.operand_params[:index]] + [_tile()]
    with pytest.raises(TypeInferenceError) as info:
        check_operands(op, args)
    assert f"operand #{index} must be a tensor" in info.value.message and "pl." in info.value.hint


def test_memory_declaration_refuses_a_tile_in_another_space():
    with pytest.raises(TypeInferenceError) as info:
        make_call("tile.fillpad", [_tile(mem=MemorySpace.Mat)])
    assert "operand 'tile' is a Mat tile; tile.fillpad takes it in Vec only" in info.value.message
    assert "target_memory=pl.Mem.Vec" in info.value.hint
    make_call("tile.fillpad", [_tile()])  # the declared space builds


def test_rank_declaration_refuses_another_rank():
    with pytest.raises(TypeInferenceError) as info:
        make_call("tile.transpose_view", [_tile((2, 16, 64))])
    assert "tile.transpose_view: tile must be a 2-D tile, got rank 3" in info.value.message
    assert "reshape" in info.value.hint


def test_a_tensor_op_takes_the_dtype_declaration_of_its_tile_op():
    x = Var("x", TensorType(make_shape((16, 64)), DataType.INT32))
    with pytest.raises(TypeInferenceError, match="floating-point operands only"):
        make_call("tensor.exp", [x])


def test_missing_required_operand_is_named():
    with pytest.raises(TypeInferenceError) as info:
        check_operands(all_ops()["tile.add"], [_tile()])
    assert "missing operand #1 ('rhs')" in info.value.message and info.value.hint


def test_tuple_and_attribute_parameters_are_left_to_the_op():
    op = all_ops()["tile.load"]
    x = Var("x", TensorType(make_shape((16, 64)), DataType.FP32))
    check_operands(op, [x, MakeTuple((ConstInt(0), ConstInt(0))), MakeTuple((ConstInt(16), ConstInt(64)))])
