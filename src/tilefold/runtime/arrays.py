"""Arrays at the runtime boundary: numpy arrays, and torch tensors when torch is installed (never required).

Inputs are read as they are (any strides: transposed views and slices are read through numpy's view of them, made
contiguous by the caller of ``as_numpy``); a ``requires_grad`` tensor is read detached. Outputs (``pl.Out`` /
``pl.InOut``) are written into the caller's own object, element by element through its strides, so a non-contiguous
output (a slice or a transposed view of a larger tensor) changes the tensor it views. The simulator runs on the
host: a torch tensor on another device is refused, not silently copied (its write-back would be lost).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tilefold.errors import TilefoldError


def _torch() -> Any:
    return sys.modules.get("torch")  # only if the caller already imported it: tilefold never imports torch


def is_array(a: Any) -> bool:
    if isinstance(a, np.ndarray):
        return True
    torch = _torch()
    return torch is not None and isinstance(a, torch.Tensor)


def _check_host(t: Any, what: str) -> None:
    device = getattr(t, "device", None)
    kind = getattr(device, "type", "cpu")
    if kind != "cpu":
        raise TilefoldError(f"{what} is a torch tensor on device {str(device)!r}: tilefold's simulator runs on the "
                            "host and reads / writes CPU memory",
                            hint="pass tensor.cpu() (and copy the output back to the device yourself); an "
                                 "output must be a CPU tensor for the in-place write to reach it")


def as_numpy(a: Any, what: str = "an argument") -> np.ndarray:
    """A numpy view / copy of ``a`` (torch tensors are detached, on the CPU; bfloat16 via ml_dtypes)."""
    if isinstance(a, np.ndarray):
        return a
    torch = _torch()
    if torch is not None and isinstance(a, torch.Tensor):
        _check_host(a, what)
        t = a.detach()
        if hasattr(t, "resolve_conj"):  # lazily negated / conjugated views have no numpy form until resolved
            t = t.resolve_conj().resolve_neg()
        if t.dtype == torch.bfloat16:
            import ml_dtypes

            return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return t.numpy()
    raise TypeError(f"not an array: {type(a).__name__}")


def write_back(dst: Any, value: np.ndarray, what: str = "an output") -> None:
    """Write ``value`` into the caller's array in place (``pl.Out`` / ``pl.InOut`` semantics)."""
    if isinstance(dst, np.ndarray):
        if not dst.flags.writeable:
            raise TilefoldError(f"{what} is a read-only numpy array: the kernel's result cannot be written into it",
                                hint="pass a writable array (np.zeros(...), or arr.copy() of a broadcast view)")
        dst[...] = value.astype(dst.dtype, copy=False)
        return
    torch = _torch()
    if torch is not None and isinstance(dst, torch.Tensor):
        _check_host(dst, what)
        src = np.ascontiguousarray(value)
        if dst.dtype == torch.bfloat16:
            import ml_dtypes

            src = src.astype(ml_dtypes.bfloat16, copy=False)
            new = torch.from_numpy(src.view(np.int16).copy()).view(torch.bfloat16)
        else:
            new = torch.from_numpy(np.array(src, copy=True)).to(dst.dtype)
        try:
            with torch.no_grad():
                dst.copy_(new)  # through dst's strides: a view writes into the tensor it views
        except RuntimeError as exc:
            raise TilefoldError(f"cannot write the result into {what}: {exc}",
                                hint="pass an output whose elements are distinct memory (not an .expand() view)") \
                from None
        return
    raise TypeError(f"cannot write into a {type(dst).__name__}")
