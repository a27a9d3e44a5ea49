"""The precision-path analysis (tilefold.analysis.precision_path) and the tolerances derived from it."""

from __future__ import annotations

import math

import numpy as np

import tilefold.language as pl
from tilefold.analysis.precision_path import EXACT, PrecisionPath, precision_paths
from tilefold.ir import DataType
from tilefold.testing import run_and_compare
from tilefold.testing.precision import compare, tolerance_for

CAST_THEN_MATMUL = """
import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[32, 64], pl.FP16], w1: pl.Tensor[[64, 48], pl.FP16], w2: pl.Tensor[[48, 32], pl.FP16],
      vout: pl.Out[pl.Tensor[[32, 48], pl.FP32]], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
      copy: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        h = pl.matmul(x, w1, out_dtype=pl.FP32)
        v = pl.mul(h, 0.125)
        g = pl.cast(pl.mul(v, 0.25), target_type=pl.FP16)
        y = pl.matmul(g, w2, out_dtype=pl.FP32)
        vout[:] = v
        out[:] = pl.add(y, v[:, 0:32])
        copy[:] = x
    return vout, out, copy
"""


def test_paths_follow_the_narrowest_rounding_and_the_reductions_after_it():
    paths = precision_paths(pl.parse(CAST_THEN_MATMUL, "<cast then matmul>"))
    assert paths["vout"] == PrecisionPath(DataType.FP32, 64)  # FP32 sums over K = 64 from exact FP16 inputs
    assert paths["out"] == PrecisionPath(DataType.FP16, 48)  # the cast to FP16, then the second K = 48
    assert paths["copy"] == EXACT  # a copy of an input: nothing was rounded


def test_tolerance_grows_from_the_path_not_from_the_output_dtype():
    assert tolerance_for(DataType.FP32, EXACT) == tolerance_for(DataType.FP32)
    rtol, atol = tolerance_for(DataType.FP32, PrecisionPath(DataType.FP16, 48))
    assert (rtol, atol) == (tolerance_for(DataType.FP16)[0], tolerance_for(DataType.FP16)[1] * math.sqrt(48))
    # a narrow output type bounds the path from below; integers stay exact whatever the path
    assert tolerance_for(DataType.FP16, PrecisionPath(DataType.FP32, 1)) == tolerance_for(DataType.FP16)
    assert tolerance_for(DataType.INT32, PrecisionPath(DataType.FP16, 64)) == (0.0, 0.0)


def test_selecting_reductions_and_copies_add_no_terms():
    src = """
import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[16, 64], pl.FP32], mx: pl.Out[pl.Tensor[[16, 1], pl.FP32]],
      s: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        mx[:] = pl.row_max(pl.exp(x))
        s[:] = pl.row_sum(pl.exp(x))
    return mx, s
"""
    paths = precision_paths(pl.parse(src, "<reductions>"))
    assert paths["mx"] == PrecisionPath(DataType.FP32, 1)
    assert paths["s"] == PrecisionPath(DataType.FP32, 64)


def test_cast_then_matmul_matches_and_a_real_error_is_still_caught():
    program = pl.parse(CAST_THEN_MATMUL, "<cast then matmul>")
    for seed in range(3):
        report = run_and_compare(program, "random", seed=seed)
        assert report.fault is None and report.matches, report.summary()
    report = run_and_compare(program, "random", seed=0)
    paths = precision_paths(program)
    golden, device = report.golden_outputs["out"], report.outputs["out"]
    wrong = device.copy()
    wrong[3, 5] = wrong[3, 5] * np.float32(1.05) + np.float32(0.01)  # a 5 % slip on one element
    res = compare(wrong, golden, path=paths["out"])
    assert not res.matches and res.first_mismatch == (3, 5) and res.mismatches == 1


def test_a_loop_accumulator_counts_the_terms_of_every_trip():
    src = """
import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[16, 256], pl.FP16], w: pl.Tensor[[256, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
      last: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
        for i in pl.range(8):
            k0 = i * 32
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + 32], w[k0 : k0 + 32, :])
            last[:] = pl.matmul(x[:, k0 : k0 + 32], w[k0 : k0 + 32, :], out_dtype=pl.FP32)
        out[:] = acc
    return out, last
"""
    program = pl.parse(src, "<k-blocked loop>")
    paths = precision_paths(program)
    assert paths["out"] == PrecisionPath(DataType.FP32, 256)  # 8 trips of 32 terms into one accumulator
    assert paths["last"] == PrecisionPath(DataType.FP32, 32)  # rewritten every trip: one block's terms
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()
