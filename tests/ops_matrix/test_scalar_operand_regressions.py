"""Regressions found by the matrix: a constant scalar combined with an integer operand must be a value of the
operand's dtype, for every op that takes one, not only adds / muls / maxs (which already refused).

Before the fix these were silent wrong answers (golden and simulator agreed, so ``tilefold run`` said MATCH):
``cmps(int8 x, 300, GT)`` said 127 > 300 (300 wrapped to 44 first); ``ands(int8, 300)`` masked with 44;
``shls(x, 1.5)`` shifted by 1; ``rems(int8, 2.5)`` and ``expands`` / ``sels`` with 2.5 or 300 truncated or wrapped;
``addsc`` / ``subsc`` crashed with a raw numpy OverflowError (or saturated a fraction); ``lrelu`` / ``prelu``
on integers gave a truncated product PyPTO does not define.
"""

from __future__ import annotations

import numpy as np
import pytest
from matrix_support import EXACT, NP, check, load_lines, rng, values, wrap

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

SHAPE = (8, 64)

REFUSED_TILE = [
    ("INT8", "pl.tile.cmps(t_a, 300, cmp_type=4)", "does not fit"),
    ("INT8", "pl.tile.cmps(t_a, 1.5, cmp_type=0)", "not an integer"),
    ("INT8", "pl.tile.ands(t_a, 300)", "does not fit"),
    ("UINT8", "pl.tile.ors(t_a, -1)", "does not fit"),
    ("INT16", "pl.tile.xors(t_a, 70000)", "does not fit"),
    ("INT8", "pl.tile.shls(t_a, 1.5)", "not an integer"),
    ("INT8", "pl.tile.shls(t_a, 8)", "shift"),
    ("INT32", "pl.tile.shrs(t_a, -1)", "shift"),
    ("INT8", "pl.tile.rems(t_a, 2.5)", "not an integer"),
    ("INT8", "pl.tile.rems(t_a, 0)", "zero"),
    ("INT8", "pl.tile.addsc(t_a, 300, t_a)", "does not fit"),
    ("INT8", "pl.tile.subsc(t_a, 2.5, t_a)", "not an integer"),
    ("INT8", "pl.tile.sels(pl.tile.cmps(t_a, 0, cmp_type=4), t_a, 300)", "does not fit"),
    ("INT8", "pl.tile.sels(pl.tile.cmps(t_a, 0, cmp_type=4), t_a, 2.5)", "not an integer"),
    ("INT8", "pl.tile.expands(t_a, 300)", "does not fit"),
    ("UINT8", "pl.tile.expands(t_a, 2.5)", "not an integer"),
    ("INT8", "pl.tile.lrelu(t_a, 0.5)", "floating-point"),
    ("INT32", "pl.tile.prelu(t_a, t_a)", "floating-point"),
]


@pytest.mark.parametrize("dt,expr,words", REFUSED_TILE)
def test_out_of_domain_scalar_is_refused_at_tile_level(dt, expr, words):
    params = [("a", SHAPE, dt)]
    with pytest.raises(TilefoldError) as info:
        check(params, load_lines(params) + [f"pl.store({expr}, [0, 0], out)"], [("out", SHAPE, dt)],
              {"a": np.zeros(SHAPE, NP[dt])}, {}, {})
    assert words in str(info.value), str(info.value)
    assert info.value.hint, "the refusal says what to write instead"


REFUSED_TENSOR = [
    ("INT8", "pl.cmps(a, 300, cmp_type=4)"),
    ("INT8", "pl.ands(a, 300)"),
    ("INT16", "pl.shls(a, 16)"),
    ("INT8", "pl.rem(a, 2.5)"),
    ("INT8", "pl.expands(a, 300)"),
]


@pytest.mark.parametrize("dt,expr", REFUSED_TENSOR)
def test_out_of_domain_scalar_is_refused_at_tensor_level(dt, expr):
    with pytest.raises(TilefoldError) as info:
        check([("a", SHAPE, dt)], [f"out[:] = {expr}"], [("out", SHAPE, dt)], {"a": np.zeros(SHAPE, NP[dt])}, {}, {})
    assert "scalar" in str(info.value) or "shift" in str(info.value), str(info.value)


def test_in_range_scalars_still_compute():
    """The bounds themselves are accepted: 127 > 127 is false, ands with -128, a shift by 7, xors with -1."""
    dt = "INT8"
    a = values(rng("edge-scalars"), SHAPE, dt)
    params = [("a", SHAPE, dt)]
    body = load_lines(params) + ["pl.store(pl.tile.cmps(t_a, 127, cmp_type=4), [0, 0], o_gt)",
                                 "pl.store(pl.tile.ands(t_a, -128), [0, 0], o_and)",
                                 "pl.store(pl.tile.shls(t_a, 7), [0, 0], o_shl)",
                                 "pl.store(pl.tile.xors(t_a, -1), [0, 0], o_xor)",
                                 "pl.store(pl.tile.addsc(t_a, 127, t_a), [0, 0], o_addsc)"]
    ai = a.astype(object)
    want = {"o_gt": np.zeros(SHAPE, np.int8), "o_and": wrap(ai & -128, dt), "o_shl": wrap(ai << 7, dt),
            "o_xor": wrap(ai ^ -1, dt), "o_addsc": wrap(ai + 127 + ai, dt)}
    check(params, body, [(k, SHAPE, dt) for k in want], {"a": a}, want, dict.fromkeys(want, EXACT))


def test_run_time_scalar_of_addsc_wraps_instead_of_crashing():
    """A run-time scalar (not judged at compile time) reaches the vector unit as a register value of the tile's
    dtype: an INT8 addsc with s = 300 is a + 44 + c modulo 256, not a numpy OverflowError."""
    src = ("import tilefold.language as pl\n\n\n@pl.jit\n"
           "def k(a: pl.Tensor[[8, 64], pl.INT8], c: pl.Tensor[[8, 64], pl.INT8], s: pl.Scalar[pl.INT32],\n"
           "      out: pl.Out[pl.Tensor[[8, 64], pl.INT8]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
           "        x = pl.load(a, [0, 0], [8, 64])\n"
           "        y = pl.load(c, [0, 0], [8, 64])\n"
           "        pl.store(pl.tile.addsc(x, s, y), [0, 0], out)\n"
           "        pl.store(pl.tile.subsc(x, s, y), [0, 0], out2)\n"
           "    return out\n")
    src = src.replace("out: pl.Out[pl.Tensor[[8, 64], pl.INT8]]):",
                      "out: pl.Out[pl.Tensor[[8, 64], pl.INT8]], out2: pl.Out[pl.Tensor[[8, 64], pl.INT8]]):")
    g = rng("runtime-addsc")
    a, c = values(g, SHAPE, "INT8"), values(g, SHAPE, "INT8")
    report = run_and_compare(pl.parse(src, "<addsc>"), {"a": a, "c": c, "s": 300, "out": np.zeros(SHAPE, np.int8),
                                                        "out2": np.zeros(SHAPE, np.int8)})
    assert report.fault is None, report.summary()
    ai, ci = a.astype(object), c.astype(object)
    for got in (report.outputs, report.golden_outputs):
        np.testing.assert_array_equal(got["out"], wrap(ai + 300 + ci, "INT8"))
        np.testing.assert_array_equal(got["out2"], wrap(ai - 300 + ci, "INT8"))
