"""Summation-order modes for the golden reference: prove that a verdict does not hang on one summation order.

numpy sums a matmul's K terms and a row / column sum in an order that depends on the BLAS build and on the
array's layout; the simulator sums K block by block. Two correct evaluations therefore differ in their last
bits, and a tolerance that only passes for one particular order would make the verdict machine-dependent.
Under a mode other than ``"as-is"`` the golden interpreter (and only it: the simulator is untouched) permutes
the summed axis of every order-sensitive reduction before evaluating it. The mathematical result is the same;
the floating-point order of the terms is different:

- ``"reversed"``: the terms in reverse order;
- ``"shuffled"``: a fixed pseudo-random permutation of the terms (seed 0, per axis length).

Select a mode with ``summation_order("reversed")`` (a context manager) or, for a whole test run, the
environment variable ``TILEFOLD_GOLDEN_SUMMATION=reversed``. Max / min / arg-extremum reductions select an
element and are left alone (a permutation would change an argmax's index); integer reductions are exact.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from tilefold.analysis.precision_path import selects_an_element
from tilefold.errors import TilefoldError
from tilefold.ops.registry import OpDef, OpKind

MODES = ("as-is", "reversed", "shuffled")
ENV_VAR = "TILEFOLD_GOLDEN_SUMMATION"


def _checked(mode: str) -> str:
    if mode not in MODES:
        raise TilefoldError(f"unknown golden summation order {mode!r}",
                            hint=f"use one of {', '.join(MODES)} (e.g. {ENV_VAR}=reversed)")
    return mode


_mode = _checked(os.environ.get(ENV_VAR, "as-is") or "as-is")


def current_mode() -> str:
    return _mode


@contextmanager
def summation_order(mode: str) -> Iterator[None]:
    """Run the golden interpreter with the terms of its sums in order ``mode`` inside the ``with`` block."""
    global _mode
    previous, _mode = _mode, _checked(mode)
    try:
        yield
    finally:
        _mode = previous


def _summed_axes(op: OpDef, n_args: int, attrs: dict[str, Any]) -> list[tuple[int, int]]:
    """(operand index, axis) pairs that one order-sensitive reduction sums over (the same terms, in order)."""
    if op.extra.get("fixed_summation_order"):  # MX: the K blocks carry their scales, one order only
        return []
    if op.kind is OpKind.MATMUL:
        names = [p.name for p in op.operand_params]
        if "lhs" not in names or "rhs" not in names or max(names.index("lhs"), names.index("rhs")) >= n_args:
            return []
        return [(names.index("lhs"), -2 if attrs.get("a_trans") else -1),
                (names.index("rhs"), -1 if attrs.get("b_trans") else -2)]
    if op.kind in (OpKind.ROW_REDUCTION, OpKind.COL_REDUCTION) and n_args and not selects_an_element(op):
        return [(0, -1 if op.kind is OpKind.ROW_REDUCTION else -2)]
    return []


def reorder_operands(op: OpDef, args: Sequence[Any], attrs: dict[str, Any]) -> Sequence[Any]:
    """``args`` with the summed axis of ``op`` permuted per the current mode (``args`` itself under "as-is")."""
    if _mode == "as-is":
        return args
    axes = _summed_axes(op, len(args), attrs)
    if not axes:
        return args
    arrays = [np.asarray(args[i]) for i, _ in axes]
    if any(a.ndim < 2 or not _is_float(a) for a in arrays):
        return args  # integer sums are exact in any order
    length = arrays[0].shape[axes[0][1]]
    if length < 2 or any(a.shape[ax] != length for a, (_, ax) in zip(arrays, axes, strict=True)):
        return args
    order = np.arange(length)[::-1] if _mode == "reversed" else np.random.default_rng(0).permutation(length)
    out = list(args)
    for (i, axis), arr in zip(axes, arrays, strict=True):
        out[i] = np.take(arr, order, axis=axis)
    return out


def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")


__all__ = ["ENV_VAR", "MODES", "current_mode", "reorder_operands", "summation_order"]
