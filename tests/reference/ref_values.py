"""Edge values, rounding and element-wise comparison for the op reference table (``op_reference.py``).

Written apart from ``tilefold.ops`` and ``tilefold.golden``: only numpy and ml_dtypes. The reference computes in
float64 (floats) or Python / int64 integers, then rounds once to the result dtype with the helpers here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)

#: per float dtype: (significand bits incl. the implicit one, minimum normal exponent, largest finite value)
FLOAT_FORMAT = {
    np.dtype(np.float32): (24, -126, float(np.finfo(np.float32).max)),
    np.dtype(np.float16): (11, -14, 65504.0),
    BF16: (8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
}

RNG_SEED = 20261202


def is_float(dtype: np.dtype) -> bool:
    """FP32 / FP16 / BF16: the dtypes arithmetic is checked in (the FP8 types are storage only, see to_fp8)."""
    return np.dtype(dtype) in FLOAT_FORMAT


def is_fp8(dtype: np.dtype) -> bool:
    return np.dtype(dtype) in (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2))


def int_bits(dtype: np.dtype) -> int:
    return np.dtype(dtype).itemsize * 8


def int_min_max(dtype: np.dtype) -> tuple[int, int]:
    bits = int_bits(dtype)
    if np.dtype(dtype).kind == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def wrap(values, dtype: np.dtype) -> np.ndarray:
    """Two's-complement wrap of (Python / int64) integers into ``dtype``, written with integer arithmetic."""
    lo, _ = int_min_max(dtype)
    span = 1 << int_bits(dtype)
    arr = np.asarray(values, dtype=object)
    out = np.vectorize(lambda v: (int(v) - lo) % span + lo, otypes=[object])(arr)
    return out.astype(np.int64 if lo < 0 else np.uint64).astype(dtype)


def bf16_rne_bits(x32: np.ndarray) -> np.ndarray:
    """FP32 -> BF16 by the bit rule: add 0x7FFF plus the kept LSB, drop 16 bits (round to nearest, ties to even);
    NaN stays a (quiet) NaN. Independent of ml_dtypes' own conversion."""
    bits = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x32, np.float32))
    rounded[nan] = 0x7FC0
    return rounded.view(BF16)


FP8E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
FP8E5M2 = np.dtype(ml_dtypes.float8_e5m2)
#: FP8 formats (storage only): (significand bits, minimum normal exponent, largest finite value, has infinities)
FP8_FORMAT = {FP8E4M3: (4, -6, 448.0, False), FP8E5M2: (3, -14, 57344.0, True)}


def to_fp8(x64, dtype: np.dtype) -> np.ndarray:
    """float64 -> FP8 by rounding the significand to nearest even at the format's precision (subnormals below the
    normal range); a result beyond the largest finite value is +-inf (E5M2) or NaN (E4M3FN, which has no
    infinity: ml_dtypes' model; PyPTO is silent, Ascend's saturating mode would clamp instead)."""
    p, emin, big, has_inf = FP8_FORMAT[np.dtype(dtype)]
    x = np.asarray(x64, np.float64)
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.where(np.isfinite(x) & (x != 0), x, 1.0))
        quantum = np.exp2(np.maximum(e - 1, emin) - (p - 1))
        r = np.rint(x / quantum) * quantum  # x / quantum is exact: a power-of-two scaling
        over = np.abs(r) > big
        r = np.where(over, np.copysign(np.inf, x) if has_inf else np.nan, r)
        r = np.where(np.isinf(x), x if has_inf else np.nan, r)
    return r.astype(dtype)  # every value is representable now: the conversion is exact


def to_float(x64, dtype: np.dtype) -> np.ndarray:
    """float64 values rounded once to ``dtype`` (nearest, ties to even; overflow to +-inf)."""
    dtype = np.dtype(dtype)
    x64 = np.asarray(x64, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == BF16:
            # through FP32: innocuous double rounding for results of +, -, *, /, sqrt of BF16 operands (24 >= 2*8+2)
            return bf16_rne_bits(x64.astype(np.float32))
        return x64.astype(dtype)


def f64(x) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # a signalling NaN raises the invalid flag when widened
        return np.asarray(x).astype(np.float64)


def f32r(x64) -> np.ndarray:
    """One FP32 rounding of float64 values, as float64 (an FP32 intermediate the vector unit keeps)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x64, np.float64).astype(np.float32).astype(np.float64)


def ulp(values, dtype: np.dtype) -> np.ndarray:
    """Spacing of ``dtype`` at each value's magnitude (subnormal spacing below the normal range)."""
    p, emin = (FLOAT_FORMAT[np.dtype(dtype)] if is_float(dtype) else FP8_FORMAT[np.dtype(dtype)])[:2]
    mag = np.abs(np.asarray(values, np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    e = np.maximum(np.where(mag > 0, e, emin), emin)
    return np.exp2(e - (p - 1))


def float_edges(dtype: np.dtype, n: int = 32, *, finite_only: bool = False, lo: float = -10.0,
                hi: float = 10.0) -> np.ndarray:
    """``n`` values of ``dtype``: signed zeros, ones, halves, ties, the largest finite values, subnormals, the
    smallest normal, +-inf and NaN, then random values in [lo, hi)."""
    dtype = np.dtype(dtype)
    p, emin, big = FLOAT_FORMAT[dtype]
    sub, minnorm = 2.0 ** (emin - p + 1), 2.0 ** emin
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.5, -3.0, 7.0, 0.1, -0.3, 1e-3, 100.0, -250.0, big, -big, sub, -sub,
            3 * sub, minnorm, -minnorm]
    if not finite_only:
        vals += [math.inf, -math.inf, math.nan]
    rng = np.random.default_rng(RNG_SEED)
    vals += list(rng.uniform(lo, hi, n - len(vals)))
    return to_float(np.array(vals[:n]), dtype)


def int_edges(dtype: np.dtype, n: int = 32) -> np.ndarray:
    lo, hi = int_min_max(dtype)
    vals = [0, 1, -1, 2, -2, 3, -3, 7, -7, 5, -5, hi, lo, hi - 1, lo + 1, hi // 2, lo // 2, 100, -100, 13, -13]
    vals = [v for v in vals if lo <= v <= hi]  # unsigned types: the negative ones drop out
    rng = np.random.default_rng(RNG_SEED)
    vals += [int(v) for v in rng.integers(lo, hi, n - len(vals), endpoint=True)]
    return np.array(vals[:n], dtype=object).astype(np.int64 if lo < 0 else np.uint64).astype(dtype)


def edges(dtype: np.dtype, n: int = 32, **kw) -> np.ndarray:
    return float_edges(dtype, n, **kw) if is_float(dtype) else int_edges(dtype, n)


def grid(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of ``values``: a[i, j] = values[i], b[i, j] = values[j]."""
    n = len(values)
    return (np.ascontiguousarray(np.broadcast_to(values[:, None], (n, n))),
            np.ascontiguousarray(np.broadcast_to(values[None, :], (n, n))))


# ------------------------------------------------------------------------------------------------
# element-wise comparison
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tol:
    """How a reference output is compared, element by element.

    ``ulps``: allowed distance in units in the last place of the output dtype (0: exact); ``atol``: an extra
    per-element bound (reductions: the rounding error bound of the reduction); ``signed_zero``: -0.0 and +0.0
    differ (False where the sign of a zero result is not defined, e.g. max(-0, +0)). NaN must meet NaN and an
    infinity the same infinity, whatever the tolerance."""

    ulps: int = 0
    atol: np.ndarray | float | None = None
    signed_zero: bool = True
    bitwise: bool = False  # data movement: the bytes themselves (NaN payloads, signed zeros) are compared

    def describe(self) -> str:
        if self.bitwise:
            return "identical bytes"
        if not self.ulps and self.atol is None:
            return "exact" + ("" if self.signed_zero else " (zero sign free)")
        if not self.ulps:
            return "reduction bound"
        return f"{self.ulps} ulp" + (" + reduction bound" if self.atol is not None else "")


EXACT = Tol()
BYTES = Tol(bitwise=True)
EXACT_ZERO_SIGN_FREE = Tol(signed_zero=False)


def mismatches(got: np.ndarray, want: np.ndarray, tol: Tol) -> list[str]:
    """Readable descriptions of the first few elements where ``got`` is not ``want`` within ``tol``."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return [f"shape {got.shape} != reference shape {want.shape}"]
    if got.dtype != want.dtype:
        return [f"dtype {got.dtype} != reference dtype {want.dtype}"]
    if tol.bitwise:
        width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
        bad = np.ascontiguousarray(got).view(width) != np.ascontiguousarray(want).view(width)
    elif not is_float(want.dtype) and not is_fp8(want.dtype):
        bad = got != want
    else:
        g, w = f64(got), f64(want)
        gn, wn = np.isnan(g), np.isnan(w)
        with np.errstate(invalid="ignore"):
            bad = gn != wn
            inf = np.isinf(w) | np.isinf(g)
            bad |= inf & ~wn & ~gn & (g != w)
            fin = ~gn & ~wn & ~inf
            bound = tol.ulps * ulp(w, want.dtype)
            if tol.atol is not None:
                bound = bound + np.broadcast_to(np.asarray(tol.atol, np.float64), w.shape)
            bad |= fin & (np.abs(g - w) > bound)
            if tol.signed_zero:
                bad |= fin & (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    idx = np.argwhere(bad)
    out = [f"at {tuple(int(i) for i in ix)}: got {got[tuple(ix)]!r}, reference {want[tuple(ix)]!r}"
           for ix in idx[:5]]
    if len(idx) > 5:
        out.append(f"... {len(idx)} elements differ in total")
    return out
