"""``matmul`` (and its transposed-operand, accumulate and bias forms) x every operand dtype the cube takes
(FP16, BF16, FP32 -> FP32 accumulator; INT8 -> INT32, wrapping) x shapes.

Two kinds of inputs: (1) values on a coarse grid (multiples of 1/8, small), for which every product and partial
sum is exact in FP32, so the result is compared exactly, independent of the accumulation order; (2) random
values, compared against ``math.fsum`` of the exact float64 products within K * 2**-24 * sum |a_ik * b_kj|.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matrix_support import (
    EXACT,
    NP,
    TARGETS,
    Tol,
    as_ints,
    check,
    is_float,
    rng,
    round_to,
    to_f64,
    values,
    wrap,
)

DTYPES = ("FP16", "BF16", "FP32", "INT8")
SHAPES = [(16, 32, 64), (7, 48, 20)]  # (M, K, N)


def _acc(dt):
    return "INT32" if dt == "INT8" else "FP32"


def _grid(g, shape, dt):
    if is_float(dt):
        return round_to(g.integers(-16, 17, shape) / 8.0, dt)
    return values(g, shape, dt)  # INT8 over its whole range: the INT32 sums of K products stay exact


def _exact_product(a, b, dt):
    """a @ b with Python-int / math.fsum arithmetic: no BLAS, no order dependence."""
    m, k = a.shape
    n = b.shape[1]
    if not is_float(dt):
        ai, bi = as_ints(a), as_ints(b)
        return wrap(np.array([[sum(ai[i, t] * bi[t, j] for t in range(k)) for j in range(n)] for i in range(m)],
                             dtype=object), "INT32"), None
    af, bf = to_f64(a), to_f64(b)
    ref = np.array([[math.fsum(af[i, :] * bf[:, j]) for j in range(n)] for i in range(m)])
    mag = np.array([[math.fsum(np.abs(af[i, :] * bf[:, j])) for j in range(n)] for i in range(m)])
    return ref, k * 2.0**-24 * mag + 2.0**-23 * np.abs(ref)


@pytest.mark.parametrize("mkn", SHAPES, ids=["16x32x64", "7x48x20"])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("inputs", ["grid", "random"])
@pytest.mark.parametrize("target", TARGETS)
def test_matmul(dt, mkn, inputs, target):
    m, k, n = mkn
    g = rng("matmul", dt, mkn, inputs)
    if inputs == "grid" or not is_float(dt):
        a, b = _grid(g, (m, k), dt), _grid(g, (k, n), dt)
    else:
        a, b = values(g, (m, k), dt, -2, 2), values(g, (k, n), dt, -2, 2)
    ref, bound = _exact_product(a, b, dt)
    acc = _acc(dt)
    want = ref.astype(NP[acc]) if is_float(dt) else ref
    tol = EXACT if inputs == "grid" or bound is None else Tol(0.0, bound)
    params = [("a", (m, k), dt), ("b", (k, n), dt)]
    check(params, [f"out[:] = pl.matmul(a, b, out_dtype=pl.{acc})"], [("out", (m, n), acc)], {"a": a, "b": b},
          {"out": want}, {"out": tol}, target=target)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("flag", ["a_trans", "b_trans"])
def test_matmul_transposed_operand(dt, flag):
    m, k, n = 16, 32, 64
    g = rng("matmul-t", dt, flag)
    a, b = _grid(g, (m, k), dt), _grid(g, (k, n), dt)
    ref, _ = _exact_product(a, b, dt)
    acc = _acc(dt)
    stored_a, stored_b = (a.T.copy(), b) if flag == "a_trans" else (a, b.T.copy())
    params = [("a", stored_a.shape, dt), ("b", stored_b.shape, dt)]
    check(params, [f"out[:] = pl.matmul(a, b, {flag}=True, out_dtype=pl.{acc})"], [("out", (m, n), acc)],
          {"a": stored_a, "b": stored_b}, {"out": ref.astype(NP[acc]) if is_float(dt) else ref}, {"out": EXACT})


@pytest.mark.parametrize("dt", DTYPES)
def test_matmul_acc_and_bias_tile_level(dt):
    """acc = a0 @ b0; acc += a1 @ b1 (tile.matmul_acc); and a0 @ b0 + bias (tile.matmul_bias)."""
    m, k, n = 16, 32, 32
    acc = _acc(dt)
    g = rng("matmul-acc", dt)
    a0, b0, a1, b1 = (_grid(g, s, dt) for s in ((m, k), (k, n), (m, k), (k, n)))
    bias = round_to(g.integers(-8, 9, (1, n)) / 4.0, acc) if is_float(dt) else values(g, (1, n), acc, -1000, 1000,
                                                                                       full_int_range=False)
    p0, _ = _exact_product(a0, b0, dt)
    p1, _ = _exact_product(a1, b1, dt)
    if is_float(dt):
        want_acc = (p0 + p1).astype(np.float32)
        want_bias = (p0 + to_f64(bias)).astype(np.float32)
    else:
        want_acc = wrap(as_ints(p0) + as_ints(p1), "INT32")
        want_bias = wrap(as_ints(p0) + as_ints(bias), "INT32")
    params = [("a0", (m, k), dt), ("b0", (k, n), dt), ("a1", (m, k), dt), ("b1", (k, n), dt), ("bias", (1, n), acc)]
    mat = "target_memory=pl.Mem.Mat"
    body = [f"l{i} = pl.load({v}, [0, 0], {list(s)}, {mat})" for i, (v, s, _) in enumerate(params[:4])]
    body += [f"bb = pl.load(bias, [0, 0], [1, {n}], {mat})"]
    body += [f"x{i} = pl.move(l{i}, target_memory=pl.Mem.{'Left' if i % 2 == 0 else 'Right'})" for i in range(4)]
    body += ["bv = pl.move(bb, target_memory=pl.Mem.Bias)",
             f"c = pl.tile.matmul(x0, x1, out_dtype=pl.{acc})",
             "c = pl.tile.matmul_acc(c, x2, x3)",
             "pl.store(c, [0, 0], oacc)",
             f"d = pl.tile.matmul_bias(x0, x1, bv, out_dtype=pl.{acc})",
             "pl.store(d, [0, 0], obias)"]
    outs = [("oacc", (m, n), acc), ("obias", (m, n), acc)]
    check(params, body, outs, {"a0": a0, "b0": b0, "a1": a1, "b1": b1, "bias": bias},
          {"oacc": want_acc, "obias": want_bias}, {"oacc": EXACT, "obias": EXACT})
