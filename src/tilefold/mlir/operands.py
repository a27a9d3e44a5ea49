"""Small queries on MLIR values shared by the lowerings (``lower.py``, ``lower_ops.py``): the operand of a keyword
attribute of an hivm op, and (re-exported from ``shapes.py``, where they live) the static shape of a shaped type
and the tile shape of an MLIR shape."""

from __future__ import annotations

from xdsl.ir import SSAValue

from tilefold.mlir.dialect import HivmOp
from tilefold.mlir.shapes import shape_of, tile_shape  # noqa: F401 - re-exported for the op lowerings


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
