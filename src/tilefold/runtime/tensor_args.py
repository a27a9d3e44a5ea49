"""``TensorSpec``: an argument described by shape and dtype only (for ``compile`` / ``lower``)."""

from __future__ import annotations

from typing import Any

from tilefold.errors import ParseError
from tilefold.ir.types import DataType
from tilefold.runtime.call_boundary import exact_value


class TensorSpec:
    """Shape and dtype of an argument, without data (``tilefold.runtime.TensorSpec``)."""

    def __init__(self, shape: Any, dtype: DataType = DataType.FP32, name: str | None = None) -> None:
        dims = exact_value(shape)  # read without calling the user's methods (an int subclass's __index__ ...)
        if type(dims) not in (list, tuple) or not all(type(d) is int and d >= 0 for d in dims):
            raise ParseError(f"TensorSpec shape must be a list of non-negative ints, got a {type(shape).__name__}",
                             hint="e.g. TensorSpec([16, 64], pl.FP32)")
        self.shape = tuple(dims)
        self.dtype = dtype
        self.name = name

    def __repr__(self) -> str:
        return f"TensorSpec({list(self.shape)}, {self.dtype.name})"


__all__ = ["TensorSpec"]
