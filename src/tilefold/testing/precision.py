"""Element-wise comparison of device results with golden ones, and random inputs for a program.

An element matches when (as numpy / torch ``allclose``)

    |actual - expected| <= atol + rtol * |expected|

with ``(rtol, atol)`` from the *precision path* of the output (``tilefold.analysis.precision_path``): the
narrowest float type a value on its way was rounded to (or the output's own type, if narrower) gives the base
pair, and the absolute part grows with the square root of the number of terms the reductions after that
rounding summed. NaN / infinity policy: an expected NaN matches only a NaN, an actual NaN only an expected NaN;
an infinity matches only the infinity of the same sign; -0 equals +0. A float reference that is NaN
everywhere checks nothing and is reported as a mismatch unless ``allow_all_nan=True``. Integers and
booleans must be equal. The model is stated in ``docs/precision.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from tilefold.analysis.precision_path import PrecisionPath, float_eps
from tilefold.errors import TilefoldError
from tilefold.ir.expr import ConstInt, Var
from tilefold.ir.stmt import ParamDirection, Program
from tilefold.ir.types import DataType, ScalarType, TensorType, TileType, dtype_from_numpy

_TOLERANCES: dict[DataType, tuple[float, float]] = {
    DataType.FP64: (1e-12, 1e-12),
    DataType.FP32: (1e-5, 1e-5),
    DataType.FP16: (1e-3, 1e-3),
    DataType.BF16: (8e-3, 8e-3),
    DataType.FP8E4M3: (6.25e-2, 6.25e-2),
    DataType.FP8E5M2: (1.25e-1, 1.25e-1),
    DataType.FP8E8M0: (5e-1, 5e-1),  # powers of two: a rounding may halve or double
    DataType.FP4: (2.5e-1, 2.5e-1),  # E2M1: one mantissa bit
}


def _data_type(dtype: DataType | np.dtype | type | str) -> DataType:
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, str):
        try:
            return DataType.from_name(dtype)
        except ValueError:
            pass
    np_dtype = np.dtype(dtype)
    dt = dtype_from_numpy(np_dtype)
    if dt is not None:
        return dt
    raise TilefoldError(f"no tilefold data type for numpy dtype {np_dtype}",
                        hint="pass a tilefold DataType (e.g. DataType.FP32)")


def tolerance_for(dtype: DataType | np.dtype | type | str, path: PrecisionPath | None = None) -> tuple[float, float]:
    """``(rtol, atol)`` for results of ``dtype`` reached along ``path`` (None: computed directly in ``dtype``);
    integers and booleans compare exactly (0, 0).

    The narrower of ``dtype`` and ``path.dtype`` gives the base pair; ``atol`` is multiplied by
    ``sqrt(path.reduction)``: after a rounding, each of the reduction's terms may differ by one unit in the last
    place of the narrow type between two correct evaluations, and such independent differences add up like a
    random walk. ``atol`` is absolute: the model assumes terms of order one (as ``random_inputs`` draws them);
    for data of another scale pass ``atol=`` to ``compare``."""
    dt = _data_type(dtype)
    if not dt.is_float:
        return (0.0, 0.0)
    base = dt
    if path is not None and path.dtype is not None and float_eps(path.dtype) > float_eps(dt):
        base = path.dtype
    rtol, atol = _TOLERANCES[base]
    reduction = path.reduction if path is not None and path.dtype is not None else 1
    return (rtol, atol * math.sqrt(max(1, reduction)))


@dataclass(frozen=True)
class Comparison:
    """Outcome of ``compare``. ``first_mismatch`` is the index (tuple) of the first element, in C order,
    outside tolerance, or None. ``reason`` explains a structural mismatch (shape) when there is one."""

    matches: bool
    max_abs_error: float
    first_mismatch: tuple[int, ...] | None
    mismatches: int = 0
    reason: str = ""
    rtol: float = 0.0  # the tolerance the elements were held to: |actual - expected| <= atol + rtol * |expected|
    atol: float = 0.0

    def __bool__(self) -> bool:
        return self.matches

    def _bound(self) -> str:
        if not (self.rtol or self.atol):
            return "exact"
        return f"|a - e| <= {self.atol:.3g} + {self.rtol:.3g} * |e|"

    def describe(self) -> str:
        if self.matches:
            return f"match (max abs error {self.max_abs_error:.3g}; {self._bound()})"
        if self.reason:
            return self.reason
        return (f"{self.mismatches} element(s) outside tolerance ({self._bound()}), first at "
                f"{list(self.first_mismatch or ())}, max abs error {self.max_abs_error:.3g}")


def _as_wide(x: Any, is_float: bool) -> np.ndarray:
    arr = np.asarray(x)
    if is_float or arr.dtype in (np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e4m3fn),
                                 np.dtype(ml_dtypes.float8_e5m2)):
        return arr.astype(np.float64)
    if arr.dtype == np.bool_:
        return arr.astype(np.int64)
    if arr.dtype == np.uint64:
        return arr.astype(np.float64)
    return arr.astype(np.float64) if arr.dtype.kind == "f" else arr.astype(np.int64)  # ints (incl. int4)


def compare(actual: Any, expected: Any, dtype: DataType | np.dtype | type | str | None = None, *,
            rtol: float | None = None, atol: float | None = None, path: PrecisionPath | None = None,
            allow_all_nan: bool = False) -> Comparison:
    """Compare ``actual`` with ``expected`` element-wise under the tolerances of ``dtype`` (default: the dtype
    of ``expected``) reached along ``path``; ``rtol`` / ``atol`` override them. ``allow_all_nan``: a reference
    that is NaN everywhere matches an all-NaN result (by default such a comparison is refused: it checks
    nothing)."""
    expected_arr = np.asarray(expected)
    actual_arr = np.asarray(actual)
    dt = _data_type(expected_arr.dtype if dtype is None else dtype)
    d_rtol, d_atol = tolerance_for(dt, path)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    if actual_arr.shape != expected_arr.shape:
        return Comparison(False, float("inf"), None, int(max(actual_arr.size, expected_arr.size)),
                          f"shape {list(actual_arr.shape)} differs from expected {list(expected_arr.shape)}")
    if expected_arr.size == 0:
        return Comparison(True, 0.0, None)
    is_float = dt.is_float
    a = _as_wide(actual_arr, is_float)
    e = _as_wide(expected_arr, is_float)
    if is_float:
        with np.errstate(invalid="ignore", over="ignore"):
            nan_a, nan_e = np.isnan(a), np.isnan(e)
            if nan_e.all() and not allow_all_nan:
                return Comparison(False, float("nan"), (0,) * expected_arr.ndim, int(expected_arr.size),
                                  "the reference is NaN everywhere, so the comparison would check nothing "
                                  "(pass allow_all_nan=True where that is the expected result)")
            inf_pair = np.isinf(a) | np.isinf(e)
            diff = np.abs(a - e)
            tol = atol + rtol * np.abs(e)
            ok = np.where(nan_a | nan_e, nan_a & nan_e,
                          np.where(inf_pair, a == e, diff <= tol))
            finite_diff = diff[~(nan_a | nan_e | inf_pair)]
            max_err = float(finite_diff.max()) if finite_diff.size else 0.0
            if (~ok & (nan_a | nan_e | inf_pair)).any():
                max_err = float("inf")
    else:
        diff = np.abs(a - e)
        ok = diff <= atol + rtol * np.abs(e) if (rtol or atol) else a == e
        max_err = float(np.max(diff)) if diff.size else 0.0
    bad = np.flatnonzero(~np.asarray(ok, dtype=bool).reshape(-1))
    if bad.size == 0:
        return Comparison(True, max_err, None, rtol=rtol, atol=atol)
    first = tuple(int(i) for i in np.unravel_index(int(bad[0]), expected_arr.shape))
    return Comparison(False, max_err, first, int(bad.size), rtol=rtol, atol=atol)


def compare_outputs(actual: Mapping[str, Any], expected: Mapping[str, Any],
                    dtypes: Mapping[str, DataType] | None = None,
                    paths: Mapping[str, PrecisionPath] | None = None) -> dict[str, Comparison]:
    """``compare`` for every name of ``expected`` (with its precision path from ``paths``, when given); a name
    missing from ``actual`` does not match."""
    result = {}
    for name, exp in expected.items():
        if name not in actual:
            result[name] = Comparison(False, float("inf"), None, 0, f"output {name!r} is missing")
            continue
        result[name] = compare(actual[name], exp, (dtypes or {}).get(name), path=(paths or {}).get(name))
    return result


# ----------------------------------------------------------------------------------------------
# random inputs
# ----------------------------------------------------------------------------------------------


def _entry(program: Program, entry: str | None):
    from tilefold.golden import select_entry

    return select_entry(program, entry)


def _random_array(rng: np.random.Generator, shape: tuple[int, ...], dt: DataType) -> np.ndarray:
    if dt.is_float:
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32).astype(dt.np_dtype)
    if dt.is_bool:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    lo, hi = (0, 8) if dt.value[2] == "u" else (-8, 8)
    if dt is DataType.INT4:
        lo, hi = -4, 4
    return rng.integers(lo, hi, size=shape).astype(dt.np_dtype)


def random_inputs(program: Program, entry: str | None = None, seed: int = 0, *,
                  scalars: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Random inputs for the entry function's parameters, by type: floats uniform in [-1, 1], integers
    small (in [-8, 8), unsigned [0, 8)), Out parameters zero-filled, InOut random, scalars small ints in
    [0, 4) (float scalars get that value as a float). ``scalars`` fixes chosen scalar parameters (e.g.
    offsets that must stay in range); symbolic extents may refer to scalar parameters."""
    fn = _entry(program, entry)
    rng = np.random.default_rng(seed)
    fixed = dict(scalars or {})
    values: dict[str, Any] = {}
    scalar_by_var: dict[Var, Any] = {}
    for param in fn.params:
        t = param.type
        if isinstance(t, ScalarType):
            if param.name in fixed:
                value = fixed[param.name]
            elif t.dtype.is_bool:
                value = bool(rng.integers(0, 2))
            else:
                value = int(rng.integers(0, 4))
                if t.dtype.is_float:
                    value = float(value)
            values[param.name] = value
            scalar_by_var[param] = value
    for param, direction in zip(fn.params, fn.param_directions, strict=False):
        t = param.type
        if not isinstance(t, (TensorType, TileType)):
            continue
        shape = []
        for extent in t.shape:
            if isinstance(extent, ConstInt):
                shape.append(extent.value)
            elif isinstance(extent, Var) and extent in scalar_by_var:
                shape.append(int(scalar_by_var[extent]))
            else:
                raise TilefoldError(f"cannot build a random input for {param.name!r}: its shape is symbolic",
                                    hint=f"pass {param.name!r} explicitly or fix the scalar it depends on "
                                         "with scalars={...}")
        if direction is ParamDirection.Out:
            values[param.name] = np.zeros(shape, dtype=t.dtype.np_dtype)
        else:
            values[param.name] = _random_array(rng, tuple(shape), t.dtype)
    return values


__all__ = ["Comparison", "compare", "compare_outputs", "random_inputs", "tolerance_for"]
