"""PyPTO's ``runtime.tensor_spec.TensorSpec``: a named argument of a test case (shape, dtype, how to fill it,
whether it is an output), which ``runtime.runner.run`` turns into arrays.

It is also tilefold's shape-and-dtype ``TensorSpec`` (``kernel.compile(spec, ...)``): ``TensorSpec([64, 128],
pl.FP32)`` without a name is accepted as before.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tilefold.errors import TilefoldError
from tilefold.ir.types import DataType
from tilefold.runtime.jit import TensorSpec as _ShapeSpec


def to_datatype(dtype: Any, where: str = "TensorSpec") -> DataType:
    """A ``pl`` dtype (``pl.FP32``), a numpy dtype or a torch dtype -> tilefold's ``DataType``."""
    if isinstance(dtype, DataType):
        return dtype
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dtype, torch.dtype):
        from tilefold.runtime.arrays import as_numpy

        dtype = as_numpy(torch.zeros(1, dtype=dtype)).dtype
    try:
        npd = np.dtype(dtype)
    except TypeError:
        npd = None
    if npd is not None:
        for d in DataType:
            try:
                if d is not DataType.INDEX and d.encoded and d.np_dtype == npd:
                    return d
            except (AttributeError, TypeError):
                continue
    raise TilefoldError(f"{where}: unsupported dtype {dtype!r}",
                        hint="use pl.FP32 / pl.FP16 / pl.BF16 / pl.INT32 ..., or the numpy / torch dtype")

_MAX_BYTES = 1 << 28


class TensorSpec(_ShapeSpec):
    """``TensorSpec(name, shape, dtype, init_value=None, is_output=False)``.

    ``init_value``: None (zeros), a number (filled with it), an array / tensor (copied), or a callable taking the
    shape (``torch.randn``, ``np.random.default_rng(0).standard_normal``) whose result is cast to ``dtype``."""

    def __init__(self, name: Any, shape: Any = None, dtype: Any = DataType.FP32, init_value: Any = None,
                 is_output: bool = False) -> None:
        if not isinstance(name, str):  # tilefold's form: TensorSpec(shape, dtype=pl.FP32, name=None)
            given_dtype = shape if shape is not None else DataType.FP32
            name, shape, dtype = (dtype if isinstance(dtype, str) else None), name, given_dtype
        if shape is None:
            raise TilefoldError(f"TensorSpec({name!r}) needs a shape", hint="TensorSpec(name, [rows, cols], pl.FP32)")
        try:
            dims = tuple(int(s) for s in shape)
        except (TypeError, ValueError):
            raise TilefoldError(f"TensorSpec({name!r}): shape {shape!r} is not a list of ints",
                                hint="e.g. [128, 128]") from None
        if any(d < 0 for d in dims):
            raise TilefoldError(f"TensorSpec({name!r}): negative extent in {list(dims)}", hint="extents are >= 0")
        super().__init__(dims, to_datatype(dtype, f"TensorSpec({name!r})"), name)
        self.user_dtype = dtype
        self.init_value = init_value
        self.is_output = bool(is_output)

    def __repr__(self) -> str:
        out = ", is_output=True" if self.is_output else ""
        return f"TensorSpec({self.name!r}, {list(self.shape)}, {self.dtype.name}{out})"

    def create_array(self) -> np.ndarray:
        """The argument as a numpy array of the spec's dtype."""
        from tilefold.runtime.arrays import as_numpy, is_array

        npd = self.dtype.np_dtype
        if int(np.prod(self.shape, dtype=object)) * npd.itemsize > _MAX_BYTES:  # before anything is allocated
            raise TilefoldError(f"TensorSpec({self.name!r}) {list(self.shape)} is larger than 256 MiB",
                                hint="the simulator holds every argument in host memory: use a smaller shape")
        v = self.init_value
        if v is None:
            return np.zeros(self.shape, npd)
        if isinstance(v, (bool, int, float, np.number)):
            return np.full(self.shape, v, npd)
        if callable(v) and not is_array(v):
            v = v(self.shape)  # the harness runs the user's initialiser (this is run time, not parsing)
        arr = as_numpy(v, f"TensorSpec({self.name!r}).init_value") if is_array(v) else np.asarray(v)
        if tuple(arr.shape) != self.shape:
            try:
                arr = np.broadcast_to(arr, self.shape)
            except ValueError:
                raise TilefoldError(f"TensorSpec({self.name!r}): init_value has shape {list(arr.shape)}, the spec "
                                    f"{list(self.shape)}", hint="give an init_value of the spec's shape") from None
        return np.array(arr, dtype=npd, copy=True)

    def create_tensor(self) -> Any:
        """The argument as the caller's array type: a torch tensor when torch is imported, else numpy."""
        arr = self.create_array()
        torch = sys.modules.get("torch")
        if torch is None:
            return arr
        if self.dtype is DataType.BF16:
            return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
        return torch.from_numpy(arr)


__all__ = ["TensorSpec", "to_datatype"]
