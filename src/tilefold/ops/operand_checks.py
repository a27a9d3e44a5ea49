"""What the ops' type inference says about an operand: the shared wording of operand-check errors."""

from __future__ import annotations

from typing import Any

from tilefold.ir.expr import ConstInt
from tilefold.ir.types import ScalarType, TensorType, TileType


def shape_repr(shape) -> list:
    """A shape for a message: static extents as ints, dynamic ones as "?"."""
    return [e.value if isinstance(e, ConstInt) else "?" for e in shape]


def describe(t: Any) -> str:
    """``Tile[16, 32] FP32`` / ``Tensor[...] ...`` / ``Scalar INDEX``: an operand type in a message."""
    if isinstance(t, TileType):
        return f"Tile{list(shape_repr(t.shape))} {t.dtype.name}"
    if isinstance(t, TensorType):
        return f"Tensor{list(shape_repr(t.shape))} {t.dtype.name}"
    if isinstance(t, ScalarType):
        return f"Scalar {t.dtype.name}"
    return type(t).__name__
