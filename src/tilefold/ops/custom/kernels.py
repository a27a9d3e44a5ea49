"""The custom-op kernel registry: the analog of registering a compiled kernel.

``register_custom_op(symbol, kernel, cost=None)`` binds a symbol used by ``pl.tile.custom(symbol, ...)``
to a numpy function. ``kernel(*ins)`` receives the tile-local arrays (and Python scalars) in ``ins``
order and returns the output array, or a tuple of arrays in ``outs`` order. The golden interpreter and
the simulator both call it. ``cost(*in_shapes) -> cycles`` prices one call; ``cost`` may also be a
mapping from target name to such a function (chips differ: ``{"Ascend910B": f, "Ascend950": g}``, with an
optional ``"default"`` entry). Without a cost for the target, a call is priced like one vector pass over
the bytes it touches plus a start-up -- a guess, not a measurement (docs/backend.md).
"""

from __future__ import annotations

import inspect
import math
import os
import sysconfig
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.errors import CustomOpError, Span, TilefoldError


@dataclass(frozen=True)
class CustomKernel:
    symbol: str
    kernel: Callable[..., Any]
    cost: Callable[..., float] | Mapping[str, Callable[..., float]] | None = None

    def cost_for(self, target_name: str | None) -> Callable[..., float] | None:
        """The cost function for ``target_name`` (None: the default bytes-proportional guess applies)."""
        cost = self.cost
        if cost is None or callable(cost):
            return cost
        by_name = {str(k).lower(): v for k, v in cost.items()}
        if target_name is not None and target_name.lower() in by_name:
            return by_name[target_name.lower()]
        return by_name.get("default")


_KERNELS: dict[str, CustomKernel] = {}


def register_custom_op(symbol: str, kernel: Callable[..., Any],
                       cost: Callable[..., float] | Mapping[str, Callable[..., float]] | None = None,
                       *, replace: bool = False) -> CustomKernel:
    """Register ``kernel`` under ``symbol``. Registering a symbol twice is an error unless
    ``replace=True`` (meant for interactive sessions and tests)."""
    if not isinstance(symbol, str) or not symbol:
        raise CustomOpError("a custom op symbol must be a non-empty string")
    if not callable(kernel):
        raise CustomOpError(f"kernel for custom op {symbol!r} is not callable")
    if isinstance(cost, Mapping):
        bad = [k for k, v in cost.items() if not callable(v)]
        if bad:
            raise CustomOpError(f"cost of custom op {symbol!r} for target(s) {bad} is not a function",
                                hint="pass cost={'Ascend910B': lambda *in_shapes: cycles, ...}")
    elif cost is not None and not callable(cost):
        raise CustomOpError(f"cost of custom op {symbol!r} is a {type(cost).__name__}, not a function",
                            hint="pass cost=lambda *in_shapes: cycles, a function of the input tile shapes")
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


# ------------------------------------------------------------------------------------------------
# calling user code: failures blame the user's kernel, not tilefold
# ------------------------------------------------------------------------------------------------


def source_location(fn: Callable[..., Any]) -> str | None:
    """``file:line`` where a Python function is defined, when known."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else None


def _describe(fn: Callable[..., Any], role: str) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    where = source_location(fn)
    return f"{role} {name}" + (f" (defined at {where})" if where else "")


_LIBRARY_DIRS = tuple(os.path.realpath(d) for d in {
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),  # tilefold itself
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


def describe_kernel(entry: CustomKernel) -> str:
    """``kernel <name> (defined at file:line)`` for messages about what a user kernel returned."""
    return _describe(entry.kernel, "kernel")


def _raised_at(exc: BaseException) -> str | None:
    """``file:line`` of the innermost frame of ``exc`` in user code (not tilefold, numpy or the stdlib)."""
    for fr in reversed(traceback.extract_tb(exc.__traceback__)):
        path = os.path.realpath(fr.filename)
        if not path.startswith(_LIBRARY_DIRS):
            return f"{fr.filename}:{fr.lineno}" + (f" ({fr.line.strip()})" if fr.line else "")
    return None


def call_kernel(entry: CustomKernel, args: Sequence[Any], span: Span | None = None) -> Any:
    """Run the user's kernel of ``entry``; an exception it raises becomes a ``CustomOpError`` naming the
    symbol, the kernel, the line that raised and (``span``) the custom op in the program."""
    try:
        return entry.kernel(*args)
    except TilefoldError:
        raise
    except Exception as exc:
        where = _raised_at(exc)
        shapes = [list(a.shape) if hasattr(a, "shape") else type(a).__name__ for a in args]
        raise CustomOpError(
            f"the kernel registered for custom op {entry.symbol!r} raised {type(exc).__name__}: {exc}"
            + (f"\n  raised at {where}" if where else "")
            + f"\n  {_describe(entry.kernel, 'kernel')}, called with inputs {shapes}",
            span=span, hint="this is an error in the registered kernel function, not in tilefold: fix the kernel "
                            "(it receives one tile-local numpy array or scalar per ins operand, in order)",
        ) from exc


def call_cost(entry: CustomKernel, shapes: Sequence[tuple[int, ...]], span: Span | None = None,
              target: Any = None) -> float | None:
    """Cycles of one call of ``entry`` on ``target`` (a ``Target`` or its name) by its user cost function
    ``cost(*in_shapes)``; None when it registered no cost for that target. A wrong signature, an exception
    or a non-number result becomes a ``CustomOpError``."""
    cost = entry.cost_for(getattr(target, "name", target))
    if cost is None:
        return None
    desc = _describe(cost, "cost function")
    hint = ("a cost function takes one shape tuple per ins operand and returns the cycles of one call, e.g. "
            "cost=lambda *in_shapes: 10 + sum(math.prod(s) for s in in_shapes) / 64")
    try:
        inspect.signature(cost).bind(*shapes)
    except TypeError as exc:
        raise CustomOpError(f"cost function of custom op {entry.symbol!r} cannot be called with the "
                            f"{len(shapes)} input shape(s) {[list(s) for s in shapes]}: {exc}\n  {desc}",
                            span=span, hint=hint) from None
    except ValueError:  # no introspectable signature (some builtins): just call it
        pass
    try:
        value = cost(*shapes)
    except TilefoldError:
        raise
    except Exception as exc:
        where = _raised_at(exc)
        raise CustomOpError(f"cost function of custom op {entry.symbol!r} raised {type(exc).__name__}: {exc}"
                            + (f"\n  raised at {where}" if where else "") + f"\n  {desc}",
                            span=span, hint=hint) from exc
    try:
        cycles = float(value)
    except (TypeError, ValueError):
        cycles = math.nan
    if not math.isfinite(cycles) or cycles < 0:
        raise CustomOpError(f"cost function of custom op {entry.symbol!r} returned {value!r}, expected a "
                            f"non-negative number of cycles\n  {desc}", span=span, hint=hint)
    return cycles
