"""Shapes of MLIR values as tilefold tiles (shared by the lowering, its window helpers and the MLIR rewrite)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute, SSAValue


def shape_of(t: Attribute) -> list[int] | None:
    if isinstance(t, MemRefType | TensorType):
        return [int(d) for d in t.get_shape()]
    return None


def tile_shape(shape: list[int]) -> list[int]:
    return [1, shape[0]] if len(shape) == 1 else list(shape)


def _prod(shape: list[int]) -> int:
    out = 1
    for x in shape:
        out *= x
    return out


def kept_axes(sizes: list[int], part: list[int]) -> list[int] | None:
    """The axes of a slice's ``sizes`` that ``part`` (the slice's value, possibly rank-reduced) keeps, in order:
    a rank-reducing slice drops unit sizes. None when ``part`` is not ``sizes`` with unit sizes dropped."""
    kept: list[int] = []
    j = 0
    for i, s in enumerate(sizes):
        if j < len(part) and s == part[j] and (s != 1 or len(sizes) - i == len(part) - j or len(part) == len(sizes)):
            kept.append(i)
            j += 1
        elif s != 1:
            return None
    return kept if j == len(part) else None


@dataclass
class LocalView:
    base: SSAValue  # the local buffer (memref.alloc / view) the subview is a window of
    offsets: list[str]  # tile offsets (pl expressions)
    sizes: list[int]  # tile sizes of the window
    shape: list[int]  # the tile shape of the subview's value (a rank-reducing subview drops unit sizes)
    valid: list[str | None] | None = None  # run-time sizes (tile axes) of a window bounded by ``sizes``
