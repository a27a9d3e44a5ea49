"""tilefold.testing.precision: tolerances, comparison and random inputs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from golden_irbuild import BF16, FP16, FP32, IN, INOUT, INT8, OUT, kernel_program, scalar, tensor

from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.ir import DataType, Var
from tilefold.testing.precision import compare, random_inputs, tolerance_for


def test_tolerances_follow_dtype_precision():
    assert tolerance_for(DataType.FP32) == (1e-5, 1e-5)
    assert tolerance_for(DataType.FP16) == (1e-3, 1e-3)
    assert tolerance_for(DataType.BF16) == (8e-3, 8e-3)
    assert tolerance_for(DataType.INT32) == (0.0, 0.0)
    assert tolerance_for(np.float16) == tolerance_for(DataType.FP16)
    assert tolerance_for(ml_dtypes.bfloat16) == tolerance_for(DataType.BF16)
    assert tolerance_for("int8") == (0.0, 0.0)
    r32, r16, rbf = (tolerance_for(d)[0] for d in (FP32, FP16, BF16))
    assert r32 < r16 < rbf


def test_compare_match_and_first_mismatch():
    e = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    assert compare(e.copy(), e, DataType.FP32).matches
    a = e.copy()
    a[2, 3] += 1e-3
    a[3, 1] += 1e-2
    res = compare(a, e, DataType.FP32)
    assert not res.matches and res.first_mismatch == (2, 3) and res.mismatches == 2
    assert res.max_abs_error == pytest.approx(1e-2, rel=1e-3)
    # the same error is inside FP16 / BF16 tolerance
    assert compare(e + np.float32(5e-4), e, DataType.FP16).matches
    assert not compare(e + np.float32(5e-3), e, DataType.FP16).matches
    assert compare(e + np.float32(5e-3), e, DataType.BF16).matches


def test_compare_is_element_wise_not_scaled_by_the_largest_element():
    # a large element elsewhere in the tensor does not widen the tolerance of the small ones
    assert not compare(np.array([1e6, 10, -5], np.float32), np.array([1e6, 1, 2], np.float32)).matches
    res = compare(np.array([[300, 1.25], [1, 0.8]], np.float16), np.array([[300, 1], [1, 1]], np.float16))
    assert not res.matches and res.first_mismatch == (0, 1) and res.mismatches == 2
    # the relative part still scales with the element itself: 5e-3 next to 1000 is inside FP32's 1e-5
    e = np.array([1000.0, 0.001, -1000.0], dtype=np.float32)
    assert compare(e + np.array([5e-3, 0.0, -5e-3], np.float32), e, DataType.FP32).matches
    assert not compare(e + np.array([0.0, 5e-3, 0.0], np.float32), e, DataType.FP32).matches


def test_compare_is_allclose():
    rng = np.random.default_rng(7)
    e = rng.uniform(-3, 3, 200).astype(np.float32)
    a = e + rng.normal(0, 3e-5, 200).astype(np.float32)
    rtol, atol = tolerance_for(DataType.FP32)
    want = np.isclose(a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol)
    res = compare(a, e)
    assert 0 < (~want).sum() < 200  # the sample has elements on both sides of the bound
    assert res.mismatches == int((~want).sum())
    assert res.first_mismatch == (int(np.flatnonzero(~want)[0]),)


def test_compare_nan_and_infinity_policy():
    nan, inf = np.nan, np.inf
    e = np.array([nan, inf, -inf, 1.0, 0.0], np.float32)
    assert compare(e.copy(), e).matches
    assert compare(np.array([nan, inf, -inf, 1.0, -0.0], np.float32), e).matches  # -0 equals +0
    assert not compare(np.array([1.0, inf, -inf, 1.0, 0.0], np.float32), e).matches  # NaN expected
    assert not compare(np.array([nan, inf, -inf, nan, 0.0], np.float32), e).matches  # NaN not expected
    assert not compare(np.array([nan, -inf, -inf, 1.0, 0.0], np.float32), e).matches  # sign of inf
    assert not compare(np.array([nan, 3e38, -inf, 1.0, 0.0], np.float32), e).matches  # finite vs inf
    # a reference that is NaN everywhere checks nothing: refused unless asked for
    all_nan = np.full((2, 3), nan, np.float32)
    res = compare(all_nan.copy(), all_nan)
    assert not res.matches and "NaN everywhere" in res.describe()
    assert compare(all_nan.copy(), all_nan, allow_all_nan=True).matches
    assert not compare(np.zeros((2, 3), np.float32), all_nan, allow_all_nan=True).matches


def test_compare_ints_exact_and_special_values():
    e = np.array([1, 2, 3], np.int32)
    assert compare(e.copy(), e).matches
    res = compare(np.array([1, 2, 4], np.int32), e)
    assert not res.matches and res.first_mismatch == (2,) and res.max_abs_error == 1
    f = np.array([np.nan, np.inf, 1.0], np.float32)
    assert compare(f.copy(), f).matches
    assert not compare(np.array([0.0, np.inf, 1.0], np.float32), f).matches
    assert not compare(np.array([np.nan, -np.inf, 1.0], np.float32), f).matches


def test_compare_shape_mismatch_and_bf16():
    res = compare(np.zeros((2, 3)), np.zeros((3, 2)), DataType.FP32)
    assert not res.matches and "shape" in res.reason
    x = np.linspace(-1, 1, 8).astype(ml_dtypes.bfloat16)
    assert compare(x, x.copy()).matches


def test_random_inputs_by_type_and_determinism():
    def body(b, x, q, io, k, s, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 8])
        b.let("o", "tile.store", t, [0, 0], out)

    p = kernel_program([("x", tensor([4, 8], FP16), IN), ("q", tensor([4, 8], INT8), IN),
                        ("io", tensor([2, 2]), INOUT), ("k", scalar(), IN), ("s", scalar(DataType.FP32), IN),
                        ("out", tensor([4, 8], FP16), OUT)], body)
    inp = random_inputs(p, seed=3)
    assert inp["x"].dtype == np.float16 and inp["x"].shape == (4, 8)
    assert np.abs(inp["x"].astype(np.float32)).max() <= 1.0 and inp["x"].any()
    assert inp["q"].dtype == np.int8 and np.abs(inp["q"].astype(int)).max() <= 8
    assert inp["io"].any() and not inp["out"].any()
    assert isinstance(inp["k"], int) and 0 <= inp["k"] < 4
    assert isinstance(inp["s"], float)
    again = random_inputs(p, seed=3)
    assert all(np.array_equal(inp[n], again[n]) for n in ("x", "q", "io"))
    assert not np.array_equal(random_inputs(p, seed=4)["x"], inp["x"])
    got = run_program(p, inp)
    np.testing.assert_array_equal(got["out"], inp["x"])


def test_random_inputs_symbolic_shape_uses_scalar():
    n = Var("n", scalar())

    def body(b, nn, x):
        b.ret(nn)

    from golden_irbuild import function, program

    fn = function("kernel", [("n", scalar(), IN), ("x", tensor([n, 8]), IN)], body)
    # rebuild with the same Var object as the shape's extent
    fn = fn.with_fields(params=(n, fn.params[1]))
    inp = random_inputs(program(fn), scalars={"n": 3})
    assert inp["x"].shape == (3, 8)
    fn2 = fn.with_fields(params=(Var("m", scalar()), fn.params[1]))
    with pytest.raises(TilefoldError, match="symbolic"):
        random_inputs(program(fn2))


def test_a_comparison_states_the_tolerance_it_applied():
    e = np.array([1.0, 2.0], np.float32)
    res = compare(e + np.float32(1e-2), e)
    assert (res.rtol, res.atol) == tolerance_for(DataType.FP32)
    assert "|a - e| <= 1e-05 + 1e-05 * |e|" in res.describe()
    assert "exact" in compare(np.array([1, 2]), np.array([1, 2])).describe()
