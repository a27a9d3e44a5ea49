"""Arrays at the runtime boundary: numpy arrays, and torch tensors when torch is installed (never required)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


def _torch() -> Any:
    return sys.modules.get("torch")  # only if the caller already imported it: tilefold never imports torch


def is_array(a: Any) -> bool:
    if isinstance(a, np.ndarray):
        return True
    torch = _torch()
    return torch is not None and isinstance(a, torch.Tensor)


def as_numpy(a: Any) -> np.ndarray:
    """A numpy view / copy of ``a`` (torch tensors are detached and moved to the CPU; bfloat16 via ml_dtypes)."""
    if isinstance(a, np.ndarray):
        return a
    torch = _torch()
    if torch is not None and isinstance(a, torch.Tensor):
        t = a.detach().cpu()
        if t.dtype == torch.bfloat16:
            import ml_dtypes

            return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return t.numpy()
    raise TypeError(f"not an array: {type(a).__name__}")


def write_back(dst: Any, value: np.ndarray) -> None:
    """Write ``value`` into the caller's array in place (``pl.Out`` / ``pl.InOut`` semantics)."""
    if isinstance(dst, np.ndarray):
        dst[...] = value.astype(dst.dtype, copy=False)
        return
    torch = _torch()
    if torch is not None and isinstance(dst, torch.Tensor):
        src = np.ascontiguousarray(value)
        if dst.dtype == torch.bfloat16:
            with torch.no_grad():
                dst.copy_(torch.from_numpy(src.view(np.int16).copy()).view(torch.bfloat16))
            return
        with torch.no_grad():
            dst.copy_(torch.from_numpy(np.array(src, copy=True)).to(dst.dtype))
        return
    raise TypeError(f"cannot write into a {type(dst).__name__}")
