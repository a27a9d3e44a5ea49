"""Tensor-level ops inside if / else of a pl.at scope, values leaving the branches through pl.yield_ (merged into
one result), alone and inside loops. References are numpy, computed here."""

import loop_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import ParseError

RNG = np.random.default_rng(5)


def r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_if_in_a_loop_merges_the_branches_and_carries_the_result():
    x, out = r(128, 64), np.zeros((32, 64), np.float32)
    k.if_in_loop_running_max(x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 32, 64).max(axis=0))


@pytest.mark.parametrize("n", [3, 0])
def test_if_on_a_scalar_parameter_takes_the_branch_of_the_call(n):
    a, out = r(16, 64), np.zeros((16, 64), np.float32)
    k.if_on_scalar(a, n, out)
    np.testing.assert_allclose(out, -np.exp(a) if n > 0 else np.exp(a), rtol=1e-5)


@pytest.mark.parametrize("n", [1, 2])
def test_a_branch_yielding_a_parameter_merges_with_a_computed_one(n):
    a, out = r(16, 64), np.zeros((16, 64), np.float32)
    k.if_param_or_computed(a, n, out)
    np.testing.assert_allclose(out, (a if n == 1 else a + 10.0) * 2.0, rtol=1e-6)


def test_a_yielding_if_needs_both_branches():
    src = ("import tilefold.language as pl\n\n@pl.jit\n"
           "def kern(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
           "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
           "        if n > 0:\n            t = pl.yield_(pl.exp(a))\n"
           "        out[:] = t\n    return out\n")
    with pytest.raises(ParseError, match="an if that yields values needs an else branch") as info:
        pl.parse(src, "kern.py")
    assert info.value.span.line == 7 and info.value.hint


def test_a_name_rebound_in_a_branch_holds_the_branch_value_after_the_if():
    x, out = r(128, 64), np.zeros((128, 64), np.float32)
    k.if_rebinds_like_python(x, out)
    ref = np.concatenate([np.exp(x[i * 32:i * 32 + 32]) if i % 2 == 0 else -x[i * 32:i * 32 + 32] for i in range(4)])
    acc = np.zeros((32, 64), np.float32)
    for i in range(4):
        t = x[i * 32:i * 32 + 32]
        if i % 2 == 0:
            acc = acc + t
        elif i == 3:
            acc = np.maximum(acc, t)
    ref[0:32] = acc
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_rebinding_an_outer_name_in_a_branch_of_a_yielding_if_is_refused():
    src = ("import tilefold.language as pl\n\n@pl.jit\n"
           "def kern(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
           "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.exp(a)\n"
           "        if n > 0:\n            t = pl.neg(t)\n            u = pl.yield_(t)\n"
           "        else:\n            u = pl.yield_(t)\n"
           "        out[:] = u\n    return out\n")
    with pytest.raises(ParseError, match="cannot rebind 't' inside an if branch") as info:
        pl.parse(src, "kern.py")
    assert info.value.span.line == 8 and "pl.yield_" in info.value.hint


@pytest.mark.parametrize("n", [1, 5])
def test_a_window_written_in_a_branch_leaves_the_scope_through_the_output(n):
    x, out = r(64, 64), np.zeros((64, 64), np.float32)
    k.if_writes_a_window(x, n, out)
    ref = np.exp(x)
    if n > 2:
        ref[:32] = -x[:32]
    np.testing.assert_allclose(out, ref, rtol=1e-5)
