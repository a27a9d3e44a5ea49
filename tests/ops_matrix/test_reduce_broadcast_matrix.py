"""Reductions (row / col sum, max, min, prod, argmax, argmin) and broadcasts (row / col expand and its fused forms)
x every dtype x shapes, tile and tensor level, against a numpy / Python oracle written here.

Float sums are referenced by ``math.fsum`` (exact, so no summation order of the reference machine matters) and
accepted within the rounding an FP32 accumulation may add (n * 2**-24 * sum |x|) plus one rounding into the
result dtype; integer sums and products wrap modulo 2**bits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matrix_support import (
    ALL,
    EXACT,
    FLOATS,
    NP,
    RTOL,
    Tol,
    as_ints,
    check,
    is_float,
    load_lines,
    rng,
    round_to,
    to_f64,
    tol_for,
    values,
    wrap,
)

SHAPES = [(16, 64), (5, 40)]
REDUCE = ("sum", "max", "min", "prod", "argmax", "argmin")


def _rows(a, axis):
    """The reduced lines of ``a``: rows for a row reduction (axis 1), columns for a column one."""
    return list(a) if axis == 1 else list(a.T)


def _reduce_ref(kind, a, dt, axis):
    lines = _rows(a, axis)
    n = len(lines[0])
    if kind in ("argmax", "argmin"):
        pick = max if kind == "argmax" else min
        idx = [pick(range(n), key=lambda j, r=r: (float(r[j]), -j if kind == "argmax" else j)) for r in lines]
        return np.array(idx, np.int32), EXACT
    if is_float(dt):
        f = [to_f64(r) for r in lines]
        if kind == "sum":
            ref = np.array([math.fsum(r) for r in f])
            acc = np.array([n * 2.0**-24 * math.fsum(np.abs(r)) for r in f])
        elif kind == "prod":
            ref = np.array([math.prod(r) for r in f])
            acc = np.abs(ref) * n * 2.0**-23
        else:
            ref = np.array([(np.max if kind == "max" else np.min)(r) for r in f])
            acc = np.zeros(len(f))
        return round_to(ref, dt), Tol(RTOL[dt], acc + RTOL[dt] * 1e-3)
    ints = [as_ints(r) for r in lines]
    if kind == "sum":
        ref = [sum(r) for r in ints]
    elif kind == "prod":
        ref = [math.prod(r) for r in ints]
    else:
        ref = [(max if kind == "max" else min)(r) for r in ints]
    return wrap(np.array(ref, dtype=object), dt), EXACT


def _input(kind, dt, shape):
    g = rng("reduce", kind, dt, shape)
    if kind == "prod":
        if is_float(dt):
            return values(g, shape, dt, 0.8, 1.25)
        return values(g, shape, dt) | np.array(1, NP[dt])  # odd: the wrapped product is not simply 0
    if kind.startswith("arg"):  # small integers (floats too): ties, where the first index must win
        return values(g, shape, dt, -6, 6, full_int_range=False) if not is_float(dt) else \
            round_to(g.integers(-6, 7, shape).astype(np.float64), dt)
    return values(g, shape, dt)


@pytest.mark.parametrize("level", ["tile", "tensor"])
@pytest.mark.parametrize("shape", SHAPES, ids=["16x64", "5x40"])
@pytest.mark.parametrize("axis", [1, 0], ids=["row", "col"])
@pytest.mark.parametrize("dt", ALL)
def test_reductions(dt, axis, shape, level):
    prefix = "row" if axis == 1 else "col"
    a = {k: _input(k, dt, shape) for k in REDUCE}
    params = [(f"a_{k}", shape, dt) for k in REDUCE]
    out_shape = (shape[0], 1) if axis == 1 else (1, shape[1])
    outs = [(f"o_{k}", out_shape, "INT32" if k.startswith("arg") else dt) for k in REDUCE]
    if level == "tile":
        body = load_lines(params) + [f"pl.store(pl.tile.{prefix}_{k}(t_a_{k}), [0, 0], o_{k})" for k in REDUCE]
    else:
        body = [f"o_{k}[:] = pl.{prefix}_{k}(a_{k})" for k in REDUCE]
    want, tols = {}, {}
    for k in REDUCE:
        ref, tol = _reduce_ref(k, a[k], dt, axis)
        want[f"o_{k}"] = ref.reshape(out_shape)
        tols[f"o_{k}"] = Tol(tol.rtol, np.reshape(tol.atol, out_shape) if np.ndim(tol.atol) else tol.atol)
    check(params, body, outs, {f"a_{k}": a[k] for k in REDUCE}, want, tols)


@pytest.mark.parametrize("dt", ALL)
def test_reductions_of_a_padded_partial_tile(dt):
    """PyPTO's pattern for a partial tile: fill the padding with the reduction's neutral value, then reduce.
    Row max over [16, 64] with 11 x 40 valid, padded with PadValue.min; row sum padded with zero."""
    shape, (r, c) = (16, 64), (11, 40)
    g = rng("padded", dt)
    lo, hi = (50, 200) if dt.startswith("UINT") else (-6, -1)  # signed: all negative, a zero pad would win the max
    a = values(g, shape, dt, lo, hi, full_int_range=False)
    params = [("a", shape, dt)]
    body = [f"t = pl.load(a, [0, 0], [16, 64], valid_shapes=[{r}, {c}])",
            "m = pl.tile.fillpad(t, pad_value=pl.PadValue.min)",
            "z = pl.tile.fillpad(t, pad_value=pl.PadValue.zero)",
            "pl.store(pl.tile.row_max(m), [0, 0], omax)", "pl.store(pl.tile.row_sum(z), [0, 0], osum)"]
    valid = a[:r, :c]
    mx = np.max(to_f64(valid), axis=1)
    sums, tol = _reduce_ref("sum", valid, dt, 1)
    lo = (-math.inf if is_float(dt) else int(np.iinfo(NP[dt]).min))
    want_max = np.full((16, 1), lo, dtype=np.float64 if is_float(dt) else object)
    want_max[:r, 0] = mx
    want_max = round_to(want_max, dt) if is_float(dt) else wrap(want_max, dt)
    want_sum = np.zeros((16, 1), NP[dt])
    want_sum[:r, 0] = sums
    atol = np.zeros((16, 1))
    if np.ndim(tol.atol):
        atol[:r, 0] = tol.atol
    outs = [("omax", (16, 1), dt), ("osum", (16, 1), dt)]
    check(params, body, outs, {"a": a}, {"omax": want_max, "osum": want_sum},
          {"omax": EXACT, "osum": Tol(tol.rtol, atol)})


# ------------------------------------------------------------------------------------------------
# broadcasts
# ------------------------------------------------------------------------------------------------

EXPAND = {
    "": (ALL, lambda t, v: np.broadcast_to(v, t.shape), lambda t, v: np.broadcast_to(v, t.shape)),
    "_add": (ALL, np.add, lambda t, v: t + v),
    "_sub": (ALL, np.subtract, lambda t, v: t - v),
    "_mul": (ALL, np.multiply, lambda t, v: t * v),
    "_div": (FLOATS, np.divide, None),
    "_max": (ALL, np.maximum, np.maximum),
    "_min": (ALL, np.minimum, np.minimum),
    "_expdif": (FLOATS, lambda t, v: np.exp(t - v), None),
}


def _expand_cases():
    for suffix, (dts, _f, _i) in EXPAND.items():
        for dt in dts:
            yield suffix, dt


@pytest.mark.parametrize("level", ["tile", "tensor"])
@pytest.mark.parametrize("axis", [1, 0], ids=["row", "col"])
@pytest.mark.parametrize("suffix,dt", list(_expand_cases()), ids=lambda x: x or "plain")
def test_broadcasts(suffix, dt, axis, level):
    shape = (16, 64) if level == "tile" else (7, 40)
    vshape = (shape[0], 1) if axis == 1 else (1, shape[1])
    dts, ffn, ifn = EXPAND[suffix]
    g = rng("expand", suffix, dt, axis, level)
    if suffix == "_expdif":
        t, v = values(g, shape, dt, -3, 0), values(g, vshape, dt, -1, 1)
    else:
        t, v = values(g, shape, dt), values(g, vshape, dt)
        if suffix == "_div":
            v = np.where(np.abs(to_f64(v)) < 0.25, 1.0, to_f64(v)).astype(NP[dt])
    if is_float(dt):
        with np.errstate(all="ignore"):
            want = round_to(ffn(to_f64(t), to_f64(v)), dt)
    else:
        want = wrap(ifn(as_ints(t), as_ints(v)), dt)
    op = f"{'row' if axis == 1 else 'col'}_expand{suffix}"
    params = [("t", shape, dt), ("v", vshape, dt)]
    if level == "tile":
        body = load_lines(params) + [f"pl.store(pl.tile.{op}(t_t, t_v), [0, 0], out)"]
    else:
        body = [f"out[:] = pl.{op}(t, v)"]
    extra = 8e-6 if suffix == "_expdif" and dt == "FP32" else 0.0
    check(params, body, [("out", shape, dt)], {"t": t, "v": v}, {"out": want},
          {"out": tol_for(dt, scale=8.0, extra_rtol=extra)})
