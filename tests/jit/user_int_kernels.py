"""A jit kernel whose shape constant is an int subclass that records every method call (test_call_boundary.py):
compiling and running must read its value without calling any of them. Annotations stay unevaluated text."""

from __future__ import annotations

import tilefold.language as pl

CALLED: list[str] = []


class Recording(int):
    def __eq__(self, other):
        CALLED.append("__eq__")
        return int.__eq__(self, other)

    def __hash__(self):
        return int.__hash__(self)

    def __mul__(self, other):
        CALLED.append("__mul__")
        return Recording(int.__mul__(self, other) + 1)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        CALLED.append("__floordiv__")
        return int.__floordiv__(self, other)

    def __add__(self, other):
        CALLED.append("__add__")
        return int.__add__(self, other)

    def __index__(self):
        CALLED.append("__index__")
        return int.__index__(self)

    def __int__(self):
        CALLED.append("__int__")
        return 999


ROWS = Recording(16)


@pl.jit
def blocks(a: pl.Tensor[[ROWS * 2, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
           out: pl.Out[pl.Tensor[[ROWS * 2, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(n):
            out[i * ROWS : i * ROWS + ROWS, :] = pl.exp(a[i * ROWS : i * ROWS + ROWS, :])
    return out
