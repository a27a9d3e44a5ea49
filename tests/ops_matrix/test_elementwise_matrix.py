"""Binary, scalar and unary elementwise ops x every dtype PyPTO allows for them x shapes (full, odd, partial valid
shape), at tile level (``pl.tile.<op>`` between load and store) and at tensor level (``out[:] = pl.<op>(...)``).

The oracle is written here from PyPTO's semantics: float results are the float64 value rounded once into the
result dtype, integer results wrap modulo 2**bits (two's complement), as PyPTO's integer arithmetic does.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matrix_support import (
    ALL,
    EXACT,
    FLOATS,
    INTS,
    NP,
    TARGETS,
    as_ints,
    bits,
    check,
    int_bounds,
    is_float,
    load_lines,
    rng,
    round_to,
    to_f64,
    tol_for,
    values,
    wrap,
)

from tilefold.errors import TilefoldError

SHAPES = [(16, 64), (7, 33)]
VALID = ((16, 64), (11, 40))  # a partial tile: the load moves [11, 40] of the [16, 64] window


def _nonzero(g, shape, dt, lo, hi):
    """Divisors: |x| in [lo, hi] with a random sign (floats), or non-zero integers of the dtype."""
    if is_float(dt):
        mag = g.uniform(lo, hi, shape)
        return round_to(np.where(g.random(shape) < 0.5, -mag, mag), dt)
    lo_b, hi_b = int_bounds(dt)
    x = values(g, shape, dt, full_int_range=True)
    x[x == 0] = 1
    return x


def _shift(g, shape, dt):
    return g.integers(0, bits(dt), shape).astype(NP[dt])


def _ref_int(fn):
    def ref(a, b, dt):
        return wrap(fn(as_ints(a), as_ints(b)), dt)
    return ref


def _ref_float(fn):
    def ref(a, b, dt):
        with np.errstate(all="ignore"):
            return round_to(fn(to_f64(a), to_f64(b)), dt)
    return ref


def _both(ffn, ifn):
    fr, ir = _ref_float(ffn), _ref_int(ifn)
    return lambda a, b, dt: fr(a, b, dt) if is_float(dt) else ir(a, b, dt)


def _floor_rem(a, b):  # Python's %: the sign of the divisor
    return np.vectorize(lambda x, y: x % y, otypes=[object])(a, b)


def _float_rem(a, b):
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


#: op -> (dtypes, rhs generator or None (same as lhs), oracle(a, b, dtype), tolerance scale)
BINARY = {
    "add": (ALL, None, _both(np.add, lambda a, b: a + b), 8.0),
    "sub": (ALL, None, _both(np.subtract, lambda a, b: a - b), 8.0),
    "mul": (ALL, None, _both(np.multiply, lambda a, b: a * b), 1.0),
    "div": (FLOATS, lambda g, s, d: _nonzero(g, s, d, 0.25, 4.0), _ref_float(np.divide), 1.0),
    "maximum": (ALL, None, _both(np.maximum, np.maximum), 0.0),
    "minimum": (ALL, None, _both(np.minimum, np.minimum), 0.0),
    "rem": (ALL, lambda g, s, d: _nonzero(g, s, d, 0.5, 3.0), _both(_float_rem, _floor_rem), 4.0),
    "fmod": (FLOATS, lambda g, s, d: _nonzero(g, s, d, 0.5, 3.0), _ref_float(np.fmod), 4.0),
    "and_": (INTS, None, _ref_int(lambda a, b: a & b), 0.0),
    "or_": (INTS, None, _ref_int(lambda a, b: a | b), 0.0),
    "xor": (INTS, None, _ref_int(lambda a, b: a ^ b), 0.0),
    "shl": (INTS, _shift, _ref_int(lambda a, b: a << b), 0.0),
    "shr": (INTS, _shift, _ref_int(lambda a, b: a >> b), 0.0),  # arithmetic on signed: README
}

CMP = ("eq", "ne", "lt", "le", "gt", "ge")  # PyPTO's cmp_type 0..5
CMP_FN = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal}


def _operands(op, dt, shape):
    dts, rhs, ref, scale = BINARY[op]
    g = rng("binary", op, dt, shape)
    a = values(g, shape, dt)
    b = rhs(g, shape, dt) if rhs else values(g, shape, dt)
    if op in ("maximum", "minimum", "add", "sub") and is_float(dt):
        b.flat[:8] = a.flat[:8]  # ties and exact cancellation
    return a, b, ref, tol_for(dt, scale=scale)


def _binary_cases():
    for op, (dts, *_rest) in BINARY.items():
        for dt in dts:
            yield op, dt


@pytest.mark.parametrize("shape", SHAPES, ids=["16x64", "7x33"])
@pytest.mark.parametrize("op,dt", list(_binary_cases()))
def test_binary_tile_level(op, dt, shape):
    a, b, ref, tol = _operands(op, dt, shape)
    params = [("a", shape, dt), ("b", shape, dt)]
    body = load_lines(params) + [f"pl.store(pl.tile.{op}(t_a, t_b), [0, 0], out)"]
    check(params, body, [("out", shape, dt)], {"a": a, "b": b}, {"out": ref(a, b, dt)}, {"out": tol})


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op,dt", list(_binary_cases()))
def test_binary_tensor_level(op, dt, target):
    shape = (7, 33)
    a, b, ref, tol = _operands(op, dt, shape)
    params = [("a", shape, dt), ("b", shape, dt)]
    check(params, [f"out[:] = pl.{op}(a, b)"], [("out", shape, dt)], {"a": a, "b": b}, {"out": ref(a, b, dt)},
          {"out": tol}, target=target)


@pytest.mark.parametrize("op,dt", [(op, dt) for op, dt in _binary_cases() if op in ("add", "mul", "maximum", "and_",
                                                                                    "div", "shl")])
def test_binary_partial_tile(op, dt):
    """Operands loaded with a valid shape: the valid region is the op, the rest of ``out`` keeps its bytes."""
    shape, valid = VALID
    a, b, ref, tol = _operands(op, dt, shape)
    init = values(rng("init", op, dt), shape, dt)
    want = np.array(init, copy=True)
    r, c = valid
    want[:r, :c] = ref(a[:r, :c], b[:r, :c], dt)
    params = [("a", shape, dt), ("b", shape, dt)]
    body = load_lines(params, {"a": valid, "b": valid}) + [f"pl.store(pl.tile.{op}(t_a, t_b), [0, 0], out)"]
    check(params, body, [("out", shape, dt)], {"a": a, "b": b}, {"out": want}, {"out": tol}, init={"out": init})


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("level", ["tile", "tensor"])
def test_cmp_every_kind(dt, level):
    """cmp_type 0..5; the mask is dense: 1 where the comparison holds, 0 elsewhere, in the operands' dtype."""
    shape = (8, 64)
    g = rng("cmp", dt)
    a = values(g, shape, dt, -3, 3, full_int_range=False)
    b = values(g, shape, dt, -3, 3, full_int_range=False)
    b[:, :16] = a[:, :16]  # equal pairs
    params = [("a", shape, dt), ("b", shape, dt)]
    outs = [(f"o_{k}", shape, dt) for k in CMP]
    if level == "tile":
        body = load_lines(params) + [f"pl.store(pl.tile.cmp(t_a, t_b, cmp_type={i}), [0, 0], o_{k})"
                                     for i, k in enumerate(CMP)]
    else:
        body = [f"o_{k}[:] = pl.cmp(a, b, cmp_type={i})" for i, k in enumerate(CMP)]
    want = {f"o_{k}": CMP_FN[k](to_f64(a), to_f64(b)).astype(NP[dt]) for k in CMP}
    check(params, body, outs, {"a": a, "b": b}, want, dict.fromkeys(want, EXACT))


# ------------------------------------------------------------------------------------------------
# scalar forms
# ------------------------------------------------------------------------------------------------

#: scalar op -> (dtypes, scalar for floats, scalar for ints, oracle(a, s, dtype), tensor-level spelling)
SCALAR = {
    "adds": (ALL, 1.5, 100, _both(np.add, lambda a, s: a + s), "pl.add(a, {s})"),
    "subs": (ALL, 1.5, 100, _both(np.subtract, lambda a, s: a - s), "pl.sub(a, {s})"),
    "muls": (ALL, -2.5, 3, _both(np.multiply, lambda a, s: a * s), "pl.mul(a, {s})"),
    "divs": (FLOATS, -2.5, None, _ref_float(np.divide), "pl.div(a, {s})"),
    "maxs": (ALL, 0.5, 7, _both(np.maximum, np.maximum), "pl.maximum(a, {s})"),
    "mins": (ALL, 0.5, 7, _both(np.minimum, np.minimum), "pl.minimum(a, {s})"),
    "rems": (ALL, 1.5, 7, _both(_float_rem, _floor_rem), "pl.rem(a, {s})"),
    "fmods": (FLOATS, 1.5, None, _ref_float(np.fmod), "pl.fmod(a, {s})"),
    "ands": (INTS, None, 0x5A, _ref_int(lambda a, s: a & s), "pl.ands(a, {s})"),
    "ors": (INTS, None, 0x31, _ref_int(lambda a, s: a | s), "pl.ors(a, {s})"),
    "xors": (INTS, None, 0x7F, _ref_int(lambda a, s: a ^ s), "pl.xors(a, {s})"),
    "shls": (INTS, None, 3, _ref_int(lambda a, s: a << s), "pl.shls(a, {s})"),
    "shrs": (INTS, None, 3, _ref_int(lambda a, s: a >> s), "pl.shrs(a, {s})"),
}


def _scalar_cases():
    for op, (dts, *_rest) in SCALAR.items():
        for dt in dts:
            yield op, dt


@pytest.mark.parametrize("level", ["tile", "tensor"])
@pytest.mark.parametrize("op,dt", list(_scalar_cases()))
def test_scalar_forms(op, dt, level):
    dts, fs, is_, ref, spelling = SCALAR[op]
    s = fs if is_float(dt) else is_
    shape = (16, 64) if level == "tile" else (7, 33)
    g = rng("scalar", op, dt)
    a = values(g, shape, dt)
    s_arr = np.full(shape, s, dtype=object) if not is_float(dt) else np.full(shape, s)
    want = ref(a, s_arr, dt)
    params = [("a", shape, dt)]
    if level == "tile":
        body = load_lines(params) + [f"pl.store(pl.tile.{op}(t_a, {s}), [0, 0], out)"]
    else:
        body = [f"out[:] = {spelling.format(s=s)}"]
    check(params, body, [("out", shape, dt)], {"a": a}, {"out": want}, {"out": tol_for(dt, scale=4.0)})


@pytest.mark.parametrize("dt", ALL)
def test_cmps_every_kind(dt):
    shape = (8, 64)
    g = rng("cmps", dt)
    a = values(g, shape, dt, -3, 3, full_int_range=False)
    s = 1.0 if is_float(dt) else 1
    a[:, :8] = s
    params = [("a", shape, dt)]
    outs = [(f"o_{k}", shape, dt) for k in CMP]
    body = load_lines(params) + [f"pl.store(pl.tile.cmps(t_a, {s}, cmp_type={i}), [0, 0], o_{k})"
                                 for i, k in enumerate(CMP)]
    want = {f"o_{k}": CMP_FN[k](to_f64(a), float(s)).astype(NP[dt]) for k in CMP}
    check(params, body, outs, {"a": a}, want, dict.fromkeys(want, EXACT))


# ------------------------------------------------------------------------------------------------
# unary
# ------------------------------------------------------------------------------------------------


def _f(fn):
    return lambda a, dt: round_to(fn(to_f64(a)), dt)


def _i(fn):
    return lambda a, dt: wrap(fn(as_ints(a)), dt)


#: op -> (dtypes, input range for floats, oracle(a, dtype), tolerance: (extra rtol for FP32, abs scale))
UNARY = {
    "exp": (FLOATS, (-4.0, 4.0), _f(np.exp), (8e-6, 1.0)),
    "log": (FLOATS, (0.05, 8.0), _f(np.log), (8e-6, 1.0)),
    "sqrt": (FLOATS, (0.0, 8.0), _f(np.sqrt), (0.0, 1.0)),
    "rsqrt": (FLOATS, (0.05, 8.0), _f(lambda x: 1.0 / np.sqrt(x)), (4e-6, 1.0)),
    "recip": (FLOATS, (0.25, 4.0), _f(lambda x: 1.0 / x), (0.0, 1.0)),
    "neg": (ALL, (-4.0, 4.0), lambda a, dt: _f(np.negative)(a, dt) if is_float(dt) else _i(lambda x: -x)(a, dt),
            (0.0, 1.0)),
    "abs": (ALL, (-4.0, 4.0), lambda a, dt: _f(np.abs)(a, dt) if is_float(dt) else _i(np.abs)(a, dt), (0.0, 1.0)),
    "relu": (ALL, (-4.0, 4.0),
             lambda a, dt: _f(lambda x: np.maximum(x, 0.0))(a, dt) if is_float(dt) else
             _i(lambda x: np.maximum(x, 0))(a, dt), (0.0, 1.0)),
    "not_": (INTS, None, _i(lambda x: ~x), (0.0, 0.0)),
    # FP32 only (PyPTO refuses FP16 / BF16 / integers); PyPTO's own bound: abs error <= ~1e-5
    "sin": (("FP32",), (-6.0, 6.0), _f(np.sin), (0.0, 5.0)),
    "cos": (("FP32",), (-6.0, 6.0), _f(np.cos), (0.0, 5.0)),
}


def _unary_cases():
    for op, (dts, *_rest) in UNARY.items():
        for dt in dts:
            yield op, dt


def _unary_input(op, dt, shape):
    dts, rng_range, ref, (extra, scale) = UNARY[op]
    g = rng("unary", op, dt, shape)
    if is_float(dt):
        lo, hi = rng_range
        a = values(g, shape, dt, lo, hi)
        if op == "recip":
            a = np.where(g.random(shape) < 0.5, -a, a).astype(NP[dt])
    else:
        a = values(g, shape, dt)
    tol = tol_for(dt, scale=scale, extra_rtol=extra if dt == "FP32" else 0.0)
    return a, ref(a, dt), tol


@pytest.mark.parametrize("shape", SHAPES, ids=["16x64", "7x33"])
@pytest.mark.parametrize("op,dt", list(_unary_cases()))
def test_unary_tile_level(op, dt, shape):
    a, want, tol = _unary_input(op, dt, shape)
    params = [("a", shape, dt)]
    body = load_lines(params) + [f"pl.store(pl.tile.{op}(t_a), [0, 0], out)"]
    check(params, body, [("out", shape, dt)], {"a": a}, {"out": want}, {"out": tol})


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op,dt", list(_unary_cases()))
def test_unary_tensor_level(op, dt, target):
    shape = (7, 33)
    a, want, tol = _unary_input(op, dt, shape)
    check([("a", shape, dt)], [f"out[:] = pl.{op}(a)"], [("out", shape, dt)], {"a": a}, {"out": want}, {"out": tol},
          target=target)


@pytest.mark.parametrize("op,dt", [(op, dt) for op, dt in _unary_cases() if op in ("exp", "neg", "abs", "sqrt")])
def test_unary_partial_tile(op, dt):
    shape, valid = VALID
    a, _, tol = _unary_input(op, dt, shape)
    init = values(rng("init-u", op, dt), shape, dt)
    want = np.array(init, copy=True)
    r, c = valid
    want[:r, :c] = UNARY[op][2](a[:r, :c], dt)
    params = [("a", shape, dt)]
    body = load_lines(params, {"a": valid}) + [f"pl.store(pl.tile.{op}(t_a), [0, 0], out)"]
    check(params, body, [("out", shape, dt)], {"a": a}, {"out": want}, {"out": tol}, init={"out": init})


# ------------------------------------------------------------------------------------------------
# the dtypes outside an op's domain are refused (with a located tilefold error), never given a made-up meaning
# ------------------------------------------------------------------------------------------------

_REFUSED = [(op, dt) for table in (BINARY, UNARY) for op, (dts, *_r) in table.items() for dt in ALL if dt not in dts]


@pytest.mark.parametrize("op,dt", _REFUSED)
def test_outside_the_domain_is_refused(op, dt):
    shape = (8, 64)
    unary = op in UNARY
    params = [("a", shape, dt)] if unary else [("a", shape, dt), ("b", shape, dt)]
    call = f"pl.tile.{op}(t_a)" if unary else f"pl.tile.{op}(t_a, t_b)"
    body = load_lines(params) + [f"pl.store({call}, [0, 0], out)"]
    inputs = {n: np.zeros(shape, NP[dt]) for n, _, _ in params}
    with pytest.raises(TilefoldError) as info:
        check(params, body, [("out", shape, dt)], inputs, {}, {})
    assert dt in str(info.value) or "dtype" in str(info.value) or "float" in str(info.value).lower(), info.value


def test_fp16_overflow_is_inf_and_int_extremes_wrap():
    """FP16 products past 65504 round to inf (65520 is the first value that does); INT32 extremes wrap."""
    shape = (8, 64)
    a = np.full(shape, 300.0, np.float16)
    b = np.full(shape, 300.0, np.float16)
    b[:, 1] = 218.375  # 300 * 218.375 = 65512.5 -> 65504 (below the 65520 midpoint)
    want = round_to(to_f64(a) * to_f64(b), "FP16")
    assert math.isinf(float(want[0, 0])) and float(want[0, 1]) == 65504.0
    params = [("a", shape, "FP16"), ("b", shape, "FP16")]
    check(params, load_lines(params) + ["pl.store(pl.tile.mul(t_a, t_b), [0, 0], out)"], [("out", shape, "FP16")],
          {"a": a, "b": b}, {"out": want}, {"out": EXACT})
