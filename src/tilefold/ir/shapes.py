"""Building shapes and shaped types from ints and expressions (``ConstInt`` for the static extents)."""

from __future__ import annotations

import numpy as np

from tilefold.ir.expr import ConstInt, Expr
from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType


def make_shape(dims) -> tuple[Expr, ...]:
    """Build a shape tuple from ints and expressions."""
    out = []
    for dim in dims:
        if isinstance(dim, Expr):
            out.append(dim)
        elif isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
            out.append(ConstInt(int(dim), DataType.INDEX))
        else:
            raise TypeError(f"shape extent must be an int or an expression, got {dim!r}")
    return tuple(out)


def tile_type(shape, dtype: DataType, memory_space: MemorySpace | None = None, **kw) -> TileType:
    return TileType(make_shape(shape), dtype, memory_space, **kw)


def tensor_type(shape, dtype: DataType) -> TensorType:
    return TensorType(make_shape(shape), dtype)
