"""``cast`` from every dtype to every dtype, with every rounding mode of a float -> integer conversion.

The oracle, from PyPTO's cast modes (``round``: nearest, ties away from zero, the default; ``rint``: ties to
even; ``floor``; ``ceil``; ``trunc``) and its precision guide (INT32 -> FP16 rounds once, 65520 and above is
inf): float -> float and int -> float round once to nearest even from the exact value; float -> int applies the
mode to the exact value and saturates to the integer range; int -> int wraps (two's complement). The last two
are choices the docs leave open: see README.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matrix_support import (
    ALL,
    EXACT,
    NP,
    TARGETS,
    as_ints,
    check,
    int_bounds,
    is_float,
    load_lines,
    rng,
    round_to,
    to_f64,
    values,
    wrap,
)

MODES = {
    "round": lambda x: math.copysign(math.floor(abs(x) + 0.5), x) if abs(x) % 1 != 0.5 else
    math.copysign(abs(x) + 0.5, x),
    "rint": lambda x: float(np.rint(x)),
    "floor": math.floor,
    "ceil": math.ceil,
    "trunc": math.trunc,
}
SHAPE = (8, 64)


def _source(src):
    g = rng("cast", src)
    if not is_float(src):
        return values(g, SHAPE, src)
    lim = {"FP32": 1e6, "FP16": 6e4, "BF16": 1e6}[src]
    a = g.uniform(-300, 300, SHAPE)
    a[0, :18] = [k + 0.5 for k in range(-9, 9)]  # ties, both signs
    a[1, :8] = [0.4999999, -0.4999999, 2.5000001, -2.5000001, 1e-3, -1e-3, 0.0, -0.0]
    a[2, :6] = [lim, -lim, 70000.0 if src != "FP16" else 6e4, 65519.0, 40000.5, -129.5]
    if src != "FP16":  # past INT32: saturation at both ends, and the largest FP32 below 2**31
        a[3, :5] = [3e9, -3e9, 2.0**31, -(2.0**31), 2147483520.0]
    return round_to(a, src)


def _float_to_int(x, dst, mode):
    lo, hi = int_bounds(dst)
    f = MODES[mode]
    out = [min(max(int(f(float(v))), lo), hi) for v in to_f64(x).ravel()]
    return np.array(out, dtype=NP[dst]).reshape(x.shape)


def _reference(a, src, dst, mode):
    if is_float(dst):
        return round_to(to_f64(a) if is_float(src) else as_ints(a).astype(np.float64), dst)
    if is_float(src):
        return _float_to_int(a, dst, mode)
    return wrap(as_ints(a), dst)


PAIRS = [(s, d) for s in ALL for d in ALL if s != d]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("src,dst", PAIRS)
def test_cast_default_mode_tensor_level(src, dst, target):
    a = _source(src)
    check([("a", SHAPE, src)], [f"out[:] = pl.cast(a, pl.{dst})"], [("out", SHAPE, dst)], {"a": a},
          {"out": _reference(a, src, dst, "round")}, {"out": EXACT}, target=target)


@pytest.mark.parametrize("src,dst", [(s, d) for s, d in PAIRS if is_float(s) and not is_float(d)])
def test_cast_float_to_int_every_mode(src, dst):
    a = _source(src)
    params = [("a", SHAPE, src)]
    outs = [(f"o_{m}", SHAPE, dst) for m in MODES]
    body = load_lines(params) + [f"pl.store(pl.tile.cast(t_a, target_type=pl.{dst}, mode=\"{m}\"), [0, 0], o_{m})"
                                 for m in MODES]
    want = {f"o_{m}": _reference(a, src, dst, m) for m in MODES}
    check(params, body, outs, {"a": a}, want, dict.fromkeys(want, EXACT))


def test_int32_to_fp16_boundaries_of_the_precision_guide():
    """PyPTO's precision guide, checked bit for bit: 65519 -> 65504, 65520 -> inf, past 2**24 one rounding."""
    a = np.zeros(SHAPE, np.int32)
    a[0, :16] = [0, 1, 2048, 65504, 65505, 65519, 65520, 70000, 1 << 20, 1 << 24, (1 << 24) + 1, 1 << 25,
                 -65504, -65519, -65520, -70000]
    want = round_to(a.astype(np.float64), "FP16")
    assert float(want[0, 5]) == 65504.0 and math.isinf(float(want[0, 6]))
    check([("a", SHAPE, "INT32")], ["out[:] = pl.cast(a, pl.FP16)"], [("out", SHAPE, "FP16")], {"a": a},
          {"out": want}, {"out": EXACT})
