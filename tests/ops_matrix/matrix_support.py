"""Shared pieces of the op x dtype x shape matrix: the dtype table, input generators, the independent oracle's
rounding / wrapping helpers, tolerances derived from the dtypes on a value's path, and the kernel runner.

Nothing here calls tilefold's op semantics (``tilefold.ops`` goldens, ``tilefold.testing.precision``): the oracle
is numpy / Python arithmetic written from PyPTO's docs, so a wrong golden cannot vouch for itself.

Machine independence: every input comes from a fixed-seed generator; float references are computed in float64
with elementwise IEEE operations (or ``math.fsum``, exact) and rounded once to the result dtype; integer
references are Python integers reduced modulo 2**bits. No BLAS call, no pairwise-summation order is relied on.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

import tilefold.language as pl
from tilefold.testing import run_and_compare

#: the chips the tensor-level sweeps run on (TILEFOLD_MATRIX_TARGET=<chip> runs every case on that chip instead)
TARGETS = ("Ascend910B", "Ascend950")

FLOATS = ("FP32", "FP16", "BF16")
INTS = ("INT32", "INT16", "INT8", "UINT8")
ALL = FLOATS + INTS

NP = {"FP32": np.dtype(np.float32), "FP16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16),
      "INT32": np.dtype(np.int32), "INT16": np.dtype(np.int16), "INT8": np.dtype(np.int8),
      "UINT8": np.dtype(np.uint8), "UINT16": np.dtype(np.uint16), "UINT32": np.dtype(np.uint32)}

#: bits of the significand after the point: one ulp relative is 2**-MANT
MANT = {"FP32": 23, "FP16": 10, "BF16": 7}

#: relative tolerance of a value rounded once into the dtype, plus what the op's own approximation may add:
#: FP16 ~1e-3, BF16 ~8e-3 (one ulp each), FP32 a few ulps
RTOL = {"FP32": 2e-6, "FP16": 1e-3, "BF16": 8e-3}


def is_float(dt: str) -> bool:
    return dt in FLOATS


def int_bounds(dt: str) -> tuple[int, int]:
    info = np.iinfo(NP[dt])
    return int(info.min), int(info.max)


def bits(dt: str) -> int:
    return NP[dt].itemsize * 8


def wrap(values: Any, dt: str) -> np.ndarray:
    """Python integers (an object array or ints) reduced modulo 2**bits into ``dt``'s range: two's complement."""
    lo, _ = int_bounds(dt)
    span = 1 << bits(dt)
    flat = [((int(v) - lo) % span) + lo for v in np.asarray(values, dtype=object).ravel()]
    return np.array(flat, dtype=NP[dt]).reshape(np.shape(values))


def as_ints(a: np.ndarray) -> np.ndarray:
    """An integer array as Python ints (object dtype): arithmetic on it never overflows."""
    return np.asarray(a).astype(object)


def to_f64(a: Any) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def round_to(x: np.ndarray, dt: str) -> np.ndarray:
    """float64 values rounded once into the float dtype ``dt`` (round to nearest even; past the range: inf).
    BF16 goes through an explicit bit-level rounding of the float64 value, so no double rounding via FP32."""
    x = np.asarray(x, dtype=np.float64)
    if dt == "BF16":
        return _f64_to_bf16(x)
    return x.astype(NP[dt])


def _f64_to_bf16(x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=NP["BF16"])
    flat_in, flat_out = x.ravel(), out.ravel()
    for i, v in enumerate(flat_in):
        if not math.isfinite(v) or v == 0.0:
            flat_out[i] = np.float32(v)
            continue
        m, e = math.frexp(abs(v))  # v = m * 2**e, m in [0.5, 1)
        e = max(e, -125)  # below: BF16 subnormals, 2**-133 per step
        step = math.ldexp(1.0, e - 8)  # 8 significant bits
        q = abs(v) / step
        r = math.floor(q)
        frac = q - r
        if frac > 0.5 or (frac == 0.5 and r % 2 == 1):
            r += 1
        mag = r * step
        flat_out[i] = np.float32(math.copysign(mag, v)) if mag < 3.3961e38 else np.float32(math.copysign(math.inf, v))
    return out


@dataclass(frozen=True)
class Tol:
    """``|actual - expected| <= atol + rtol * |expected|`` elementwise (floats); 0 / 0 means exact. ``atol`` may be
    an array (a per-element bound, e.g. a reduction's accumulated rounding)."""
    rtol: float = 0.0
    atol: Any = 0.0


EXACT = Tol()


def tol_for(dt: str, *, scale: float = 1.0, extra_rtol: float = 0.0) -> Tol:
    """The tolerance of a result of dtype ``dt`` rounded once (ints: exact). ``scale``: the magnitude below which
    an absolute error of one ulp of ``scale`` is accepted (cancellation, values near 0)."""
    if not is_float(dt):
        return EXACT
    r = RTOL[dt] + extra_rtol
    return Tol(r, r * scale)


def rng(*key: Any) -> np.random.Generator:
    """A generator seeded from the case's key (stable across runs and machines: no ``hash()``)."""
    seed = 0
    for ch in repr(key).encode():
        seed = (seed * 131 + ch) % (2**63)
    return np.random.default_rng(seed)


def floats(g: np.random.Generator, shape, dt: str, lo: float = -4.0, hi: float = 4.0) -> np.ndarray:
    return round_to(g.uniform(lo, hi, shape), dt)


def ints(g: np.random.Generator, shape, dt: str, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    blo, bhi = int_bounds(dt)
    lo = blo if lo is None else max(lo, blo)
    hi = bhi if hi is None else min(hi, bhi)
    vals = g.integers(lo, hi, shape, endpoint=True, dtype=np.int64)
    return vals.astype(NP[dt])


def values(g: np.random.Generator, shape, dt: str, lo: float = -4.0, hi: float = 4.0,
           full_int_range: bool = True) -> np.ndarray:
    """Inputs of ``dt``: floats in [lo, hi]; integers over the whole range (overflow happens) or in [lo, hi]."""
    if is_float(dt):
        return floats(g, shape, dt, lo, hi)
    if full_int_range:
        a = ints(g, shape, dt)
        lo_b, hi_b = int_bounds(dt)
        a.flat[:4] = [lo_b, hi_b, lo_b, 0][: a.size]  # the extremes, where wrap-around shows
        return a
    return ints(g, shape, dt, int(lo), int(hi))


def assert_close(actual: Any, expected: Any, tol: Tol, what: str) -> None:
    """Element by element; NaN matches NaN, inf matches the same inf; reports the first few mismatches."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != expected {e.shape}"
    if e.dtype.kind in "iub" and a.dtype.kind in "iub":
        bad = a.astype(object) != e.astype(object)
    else:
        af, ef = to_f64(a), to_f64(e)
        with np.errstate(invalid="ignore", over="ignore"):
            both_nan = np.isnan(af) & np.isnan(ef)
            inf = np.isinf(af) | np.isinf(ef)
            ok = both_nan | np.where(inf, af == ef, np.abs(af - ef) <= tol.atol + tol.rtol * np.abs(ef))
        bad = ~ok
    if bad.any():
        idx = list(zip(*np.nonzero(bad), strict=True))[:5]
        shown = ", ".join(f"{tuple(int(i) for i in ix)}: got {a[ix]!r} want {e[ix]!r}" for ix in idx)
        raise AssertionError(f"{what}: {int(bad.sum())} of {e.size} elements wrong (rtol {tol.rtol}): {shown}")


# ------------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------------

Spec = tuple[str, tuple[int, ...], str]  # (name, shape, dtype name)


def kernel_text(params: list[Spec], body: list[str], outs: list[Spec]) -> str:
    def ty(shape, dt):
        return f"pl.Tensor[[{', '.join(str(s) for s in shape)}], pl.{dt}]"
    sig = ", ".join([f"{n}: {ty(s, d)}" for n, s, d in params] + [f"{n}: pl.Out[{ty(s, d)}]" for n, s, d in outs])
    lines = "\n".join(f"        {b}" for b in body)
    ret = ", ".join(n for n, _, _ in outs)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({sig}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return {ret}\n")


def load_lines(params: list[Spec], valid: dict[str, tuple[int, ...]] | None = None) -> list[str]:
    """``t_<name> = pl.load(<name>, ...)`` for every parameter (with ``valid_shapes`` where given)."""
    out = []
    for n, shape, _ in params:
        zeros = ", ".join("0" for _ in shape)
        extra = f", valid_shapes={list(valid[n])}" if valid and n in valid else ""
        out.append(f"t_{n} = pl.load({n}, [{zeros}], {list(shape)}{extra})")
    return out


def run(params: list[Spec], body: list[str], outs: list[Spec], inputs: dict[str, Any],
        init: dict[str, np.ndarray] | None = None, target: str = "Ascend910B") -> tuple[dict, dict, str]:
    target = os.environ.get("TILEFOLD_MATRIX_TARGET", target)
    """Compile and simulate the kernel, and run the golden interpreter on it. Returns (simulated outputs, golden
    outputs, kernel text). Out tensors start at ``init`` (default: zeros). The environment variable
    ``TILEFOLD_MATRIX_TARGET`` overrides ``target`` (to sweep the whole matrix on another chip)."""
    src = kernel_text(params, body, outs)
    program = pl.parse(src, "<ops matrix kernel>")
    full = dict(inputs)
    for n, shape, dt in outs:
        full[n] = np.array(init[n], copy=True) if init and n in init else np.zeros(shape, NP[dt])
    report = run_and_compare(program, full, target=target)
    assert report.fault is None, f"device fault: {report.summary()}\n{src}"
    return report.outputs, report.golden_outputs, src


def check(params: list[Spec], body: list[str], outs: list[Spec], inputs: dict[str, Any],
          expected: dict[str, np.ndarray], tols: dict[str, Tol], init: dict[str, np.ndarray] | None = None,
          target: str = "Ascend910B") -> None:
    """Run the kernel; both the simulator's and the golden interpreter's outputs must equal the oracle."""
    sim, golden, src = run(params, body, outs, inputs, init, target)
    for name, want in expected.items():
        assert_close(sim[name], want, tols[name], f"simulator {name}\n{src}")
        assert_close(golden[name], want, tols[name], f"golden {name}\n{src}")
