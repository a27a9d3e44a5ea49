"""Small queries on MLIR values shared by the lowerings (``lower.py``, ``lower_ops.py``): the static shape of a
shaped type, the tile shape of an MLIR shape (a rank-1 value is the tile ``[1, n]``), and the operand of a keyword
attribute of an hivm op."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute, SSAValue

from tilefold.mlir.dialect import HivmOp


def shape_of(t: Attribute) -> list[int] | None:
    if isinstance(t, MemRefType | TensorType):
        return [int(d) for d in t.get_shape()]
    return None


def tile_shape(shape: list[int]) -> list[int]:
    return [1, shape[0]] if len(shape) == 1 else list(shape)


def keyword_operand(op: HivmOp, keyword: str) -> SSAValue | None:
    """The operand of a keyword attribute written ``keyword = %v : t`` (``pad_value``, ``left_padding_num``)."""
    idx = 0
    for p in op.layout():
        if p.kind == "operands":
            idx += p.count
        elif p.kind == "attr" and p.text == "%":
            if p.keyword == keyword:
                return op.operands[idx]
            idx += 1
        elif p.kind == "group":
            idx += sum(1 for item in p.items if item[0] == "operand")
    return None
