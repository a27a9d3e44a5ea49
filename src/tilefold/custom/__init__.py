"""User custom-op kernels: the analog of registering a compiled kernel.

``register_custom_op(symbol, kernel, cost=None)`` binds a symbol used by ``pl.tile.custom(symbol, ...)``
to a numpy function. ``kernel(*ins)`` receives the tile-local arrays (and Python scalars) in ``ins``
order and returns the output array, or a tuple of arrays in ``outs`` order. The golden interpreter and
the simulator both call it. ``cost(*in_shapes) -> cycles`` prices one call; by default a call costs
like a vector instruction over the bytes it touches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilefold.errors import CustomOpError


@dataclass(frozen=True)
class CustomKernel:
    symbol: str
    kernel: Callable[..., Any]
    cost: Callable[..., float] | None = None


_KERNELS: dict[str, CustomKernel] = {}


def register_custom_op(symbol: str, kernel: Callable[..., Any], cost: Callable[..., float] | None = None,
                       *, replace: bool = False) -> CustomKernel:
    """Register ``kernel`` under ``symbol``. Registering a symbol twice is an error unless
    ``replace=True`` (meant for interactive sessions and tests)."""
    if not isinstance(symbol, str) or not symbol:
        raise CustomOpError("a custom op symbol must be a non-empty string")
    if not callable(kernel):
        raise CustomOpError(f"kernel for custom op {symbol!r} is not callable")
    if symbol in _KERNELS and not replace:
        raise CustomOpError(
            f"custom op {symbol!r} is already registered",
            hint="pick another symbol, call unregister_custom_op first, or pass replace=True",
        )
    entry = CustomKernel(symbol, kernel, cost)
    _KERNELS[symbol] = entry
    return entry


def unregister_custom_op(symbol: str) -> None:
    _KERNELS.pop(symbol, None)


def get_custom_op(symbol: str) -> CustomKernel:
    try:
        return _KERNELS[symbol]
    except KeyError:
        known = ", ".join(sorted(_KERNELS)) or "none"
        raise CustomOpError(
            f"custom op {symbol!r} has no registered kernel",
            hint=f"call tilefold.register_custom_op({symbol!r}, kernel) before running; registered: {known}",
        ) from None


def is_registered(symbol: str) -> bool:
    return symbol in _KERNELS


def registered_symbols() -> list[str]:
    return sorted(_KERNELS)
