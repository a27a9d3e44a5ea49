"""Differential corpus: each @pl.jit program of diff_kernels.py runs on the simulator and is compared element by
element with a numpy reference written here (never the registry's golden). Tolerances come from the dtypes on
the value's path (``tilefold.testing.precision.tolerance_for``): the narrowest float type a value was rounded to,
and the number of terms the reductions after that rounding summed. Every program runs on both targets, with
sub-block splitting on and off (the split changes which unit computes what, never the answer)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import diff_kernels as k
import ml_dtypes
import numpy as np
import pytest

from tilefold.analysis.precision_path import PrecisionPath
from tilefold.ir.types import DataType, dtype_from_numpy
from tilefold.runtime import RunConfig
from tilefold.testing.precision import tolerance_for

BF16 = ml_dtypes.bfloat16
F32, F16, I32 = np.float32, np.float16, np.int32
CONFIGS = {
    "910B-split": RunConfig(platform="a2a3sim"),
    "910B-nosplit": RunConfig(platform="a2a3sim", pass_options={"enable_auto_bind_sub_block": False}),
    "950-split": RunConfig(platform="a5sim"),
    "950-nosplit": RunConfig(platform="a5sim", pass_options={"enable_auto_bind_sub_block": False}),
}


@dataclass
class Case:
    """``inputs(rng)``: the arguments in call order (outputs included, as zero arrays); ``reference(*args)``: the
    expected outputs in float64 (or ints), one per entry of ``outs`` (indices of the output arguments);
    ``path``: per output, the narrowest float type on its way and the reduction length after it."""

    kernel: Any
    inputs: Callable[[np.random.Generator], list[Any]]
    reference: Callable[..., Any]
    outs: tuple[int, ...]
    path: tuple[tuple[DataType | None, int], ...] = ((DataType.FP32, 1),)
    configs: tuple[str, ...] = tuple(CONFIGS)
    extra: dict[str, Any] = field(default_factory=dict)


def _n(rng, *shape, dtype=F32, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _w(x):
    """An input as float64 (the reference computes wide)."""
    return np.asarray(x).astype(np.float64)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _bf16(x):
    return np.asarray(x, np.float64).astype(np.float32).astype(BF16).astype(np.float64)


def _f16(x):
    return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


def _round_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _layer_norm(x, g, b):
    mu = x.mean(axis=1, keepdims=True)
    c = x - mu
    return c / np.sqrt((c * c).mean(axis=1, keepdims=True) + k.EPS) * g + b


def _rms(x, g):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + k.EPS) * g


def _flash(q, kk, v):
    s = _w(q) @ _w(kk).T * k.SCALE
    return _softmax(s) @ _w(v)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def _partial_softmax(x):
    return _softmax(_w(x))


FP = DataType.FP32
H = DataType.FP16
B = DataType.BF16
CASES: dict[str, Case] = {
    "ew_chain": Case(k.ew_chain, lambda r: [_n(r, 32, 64), _n(r, 32, 64), _n(r, 32, 64), np.zeros((32, 64), F32)],
                     lambda a, b, c, o: np.maximum(_w(a) * _w(b) + _w(c), 0) - _w(a) / (np.abs(_w(b)) + 1), (3,)),
    "ew_scalars": Case(k.ew_scalars, lambda r: [_n(r, 48, 64), np.zeros((48, 64), F32)],
                       lambda a, o: np.minimum(np.maximum((_w(a) + 1.5) * 0.25 - 0.5, -0.2), 0.3), (1,)),
    "ew_unary": Case(k.ew_unary, lambda r: [_n(r, 16, 128, scale=2.0), np.zeros((16, 128), F32)],
                     lambda a, o: (np.sqrt(np.abs(_w(a)) + 0.5) + np.exp(-np.abs(_w(a)))
                                   - (np.log(np.abs(_w(a)) + 0.5) + 1 / (np.abs(_w(a)) + 0.5))
                                   / np.sqrt(np.abs(_w(a)) + 0.5)), (1,)),
    "ew_operators": Case(k.ew_operators, lambda r: [_n(r, 32, 32), _n(r, 32, 32), np.zeros((32, 32), F32)],
                         lambda a, b, o: (_w(a) + _w(b)) * _w(a) - _w(b) / 4 - _w(a), (2,)),
    "ew_fp16": Case(k.ew_fp16, lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 32, 64, dtype=F16),
                                          np.zeros((32, 64), F16)],
                    lambda a, b, o: _f16(_w(a) * _w(b)) + np.maximum(_w(a), _w(b)), (2,), ((H, 1),)),
    "bf16_exp_roundtrip": Case(k.bf16_exp_roundtrip, lambda r: [_n(r, 32, 64, dtype=BF16), np.zeros((32, 64), BF16)],
                               lambda a, o: np.exp(_w(a)) * 0.5, (1,), ((B, 1),)),
    "fp16_to_fp32_mix": Case(k.fp16_to_fp32_mix, lambda r: [_n(r, 16, 64, dtype=F16), _n(r, 16, 64),
                                                            np.zeros((16, 64), F32)],
                             lambda a, b, o: _w(b) - 2 * _w(a), (2,)),
    "int32_arith": Case(k.int32_arith, lambda r: [r.integers(-1000, 1000, (16, 64)).astype(I32),
                                                  r.integers(-1000, 1000, (16, 64)).astype(I32),
                                                  np.zeros((16, 64), I32)],
                        lambda a, b, o: np.maximum(a.astype(np.int64) * b + a, b.astype(np.int64) - a), (2,),
                        ((None, 1),)),
    "float_to_int_round": Case(k.float_to_int_round,
                               lambda r: [(r.integers(-400, 400, (16, 64)) / 8).astype(F32), np.zeros((16, 64), I32)],
                               lambda a, o: _round_away(_w(a) * 4).astype(np.int64), (1,), ((None, 1),)),
    "float_to_int_floor": Case(k.float_to_int_floor,
                               lambda r: [(r.integers(-400, 400, (16, 64)) / 8).astype(F32), np.zeros((16, 64), I32)],
                               lambda a, o: np.floor(_w(a) * 4).astype(np.int64), (1,), ((None, 1),)),
    "int_to_float_scale": Case(k.int_to_float_scale, lambda r: [r.integers(-(2**20), 2**20, (16, 64)).astype(I32),
                                                                np.zeros((16, 64), F32)],
                               lambda a, o: a.astype(np.float64) * 0.5, (1,)),
    "int_bitwise": Case(k.int_bitwise, lambda r: [r.integers(0, 2**20, (16, 64)).astype(I32),
                                                  r.integers(0, 2**20, (16, 64)).astype(I32), np.zeros((16, 64), I32)],
                        lambda a, b, o: (a & b) ^ ((a | b) << 2), (2,), ((None, 1),)),
    "compare_select": Case(k.compare_select, lambda r: [_n(r, 16, 64), _n(r, 16, 64), np.zeros((16, 64), F32)],
                           lambda a, b, o: np.where(a > b, _w(a), _w(b)), (2,)),
    "row_reductions": Case(k.row_reductions, lambda r: [_n(r, 32, 128)] + [np.zeros((32, 1), F32) for _ in range(3)],
                           lambda x, *o: (_w(x).sum(1, keepdims=True), _w(x).max(1, keepdims=True),
                                          _w(x).min(1, keepdims=True)), (1, 2, 3),
                           ((FP, 128), (None, 1), (None, 1))),
    "col_reductions": Case(k.col_reductions, lambda r: [_n(r, 64, 64), np.zeros((1, 64), F32), np.zeros((1, 64), F32)],
                           lambda x, *o: (_w(x).sum(0, keepdims=True), np.abs(_w(x)).max(0, keepdims=True)), (1, 2),
                           ((FP, 64), (None, 1))),
    "row_mean_centre": Case(k.row_mean_centre, lambda r: [_n(r, 40, 64), np.zeros((40, 64), F32)],
                            lambda x, o: _w(x) - _w(x).mean(1, keepdims=True), (1,), ((FP, 64),)),
    "row_argmax": Case(k.row_argmax_kernel, lambda r: [_n(r, 16, 64), np.zeros((16, 1), I32)],
                       lambda x, o: np.argmax(x, axis=1).reshape(16, 1), (1,), ((None, 1),)),
    "softmax_rows": Case(k.softmax_rows, lambda r: [_n(r, 96, 256, scale=3.0), np.zeros((96, 256), F32)],
                         lambda a, o: _softmax(_w(a)), (1,), ((FP, 256),)),
    "softmax_tiles": Case(k.softmax_tiles, lambda r: [_n(r, 64, 64), np.zeros((64, 64), F32)],
                          lambda a, o: _softmax(_w(a)), (1,), ((FP, 64),)),
    "softmax_fp16": Case(k.softmax_fp16, lambda r: [_n(r, 32, 64, dtype=F16), np.zeros((32, 64), F16)],
                         lambda a, o: _softmax(_w(a)), (1,), ((H, 1),)),
    "layer_norm": Case(k.layer_norm, lambda r: [_n(r, 64, k.HID), _n(r, 1, k.HID), _n(r, 1, k.HID),
                                                np.zeros((64, k.HID), F32)],
                       lambda x, g, b, o: _layer_norm(_w(x), _w(g), _w(b)), (3,), ((FP, k.HID),)),
    "rms_norm_bf16": Case(k.rms_norm_bf16, lambda r: [_n(r, 32, k.HID, dtype=BF16), _n(r, 1, k.HID),
                                                      np.zeros((32, k.HID), BF16)],
                          lambda x, g, o: _rms(_w(x), _w(g)), (2,), ((B, 1),)),
    "rms_norm_blocks": Case(k.rms_norm_blocks, lambda r: [_n(r, 128, k.HID), _n(r, 1, k.HID),
                                                          np.zeros((128, k.HID), F32)],
                            lambda x, g, o: _rms(_w(x), _w(g)), (2,), ((FP, k.HID),)),
    "gelu_sigmoid": Case(k.gelu_sigmoid, lambda r: [_n(r, 64, 96, scale=2.0), np.zeros((64, 96), F32)],
                         lambda x, o: _w(x) / (1 + np.exp(-1.702 * _w(x))), (1,)),
    "gelu_tanh": Case(k.gelu_tanh, lambda r: [_n(r, 32, 128, scale=2.0), np.zeros((32, 128), F32)],
                      lambda x, o: _gelu_tanh(_w(x)), (1,)),
    "silu_fp16": Case(k.silu_fp16, lambda r: [_n(r, 32, 64, dtype=F16, scale=3.0), np.zeros((32, 64), F16)],
                      lambda x, o: _w(x) / (1 + np.exp(-_w(x))), (1,), ((H, 1),)),
    "matmul_fp16": Case(k.matmul_fp16, lambda r: [_n(r, 64, 64, dtype=F16), _n(r, 64, 64, dtype=F16),
                                                  np.zeros((64, 64), F32)],
                        lambda a, b, o: _w(a) @ _w(b), (2,), ((FP, 64),)),
    "matmul_bias_relu": Case(k.matmul_bias_relu, lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 64, 128, dtype=F16),
                                                            _n(r, 1, 128), np.zeros((32, 128), F32)],
                             lambda a, w, b, o: np.maximum(_w(a) @ _w(w) + _w(b), 0), (3,), ((FP, 64),)),
    "matmul_bf16_gelu": Case(k.matmul_bf16_gelu, lambda r: [_n(r, 32, 64, dtype=BF16, scale=0.3),
                                                            _n(r, 64, 64, dtype=BF16, scale=0.3),
                                                            np.zeros((32, 64), F32)],
                             lambda a, w, o: (lambda y: y / (1 + np.exp(-1.702 * y)))(_w(a) @ _w(w)), (2,),
                             ((FP, 64),)),
    "matmul_k_blocked": Case(k.matmul_k_blocked, lambda r: [_n(r, 64, 256, dtype=F16), _n(r, 256, 64, dtype=F16),
                                                            np.zeros((64, 64), F32)],
                             lambda a, b, o: _w(a) @ _w(b), (2,), ((FP, 256),)),
    "matmul_b_trans": Case(k.matmul_b_trans, lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 48, 64, dtype=F16),
                                                        np.zeros((32, 48), F32)],
                           lambda a, b, o: _w(a) @ _w(b).T * k.SCALE, (2,), ((FP, 64),)),
    "matmul_row_blocks": Case(k.matmul_row_blocks, lambda r: [_n(r, 128, 64, dtype=F16), _n(r, 64, 64, dtype=F16),
                                                              np.zeros((128, 64), F32)],
                              lambda a, b, o: _w(a) @ _w(b), (2,), ((FP, 64),)),
    "split_k_atomic": Case(k.split_k_atomic, lambda r: [_n(r, 32, 128, dtype=F16), _n(r, 128, 32, dtype=F16),
                                                        np.full((32, 32), 7.0, F32)],
                           lambda a, b, o: _w(a) @ _w(b), (2,), ((FP, 128),)),
    "flash_online_softmax": Case(k.flash_online_softmax,
                                 lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 128, 64, dtype=F16),
                                            _n(r, 128, 64, dtype=F16), np.zeros((32, 64), F32)],
                                 lambda q, kk, v, o: _flash(q, kk, v), (3,), ((H, 128),)),
    "carried_column_sum": Case(k.carried_column_sum, lambda r: [_n(r, 16, 256), np.zeros((16, 64), F32)],
                               lambda x, o: sum(_w(x)[:, j * 64:(j + 1) * 64] ** 2 for j in range(4)), (1,),
                               ((FP, 4),)),
    "carried_running_max": Case(k.carried_running_max, lambda r: [_n(r, 128, 64), np.zeros((16, 64), F32)],
                                lambda x, o: _w(x).reshape(8, 16, 64).max(0), (1,), ((None, 1),)),
    "loop_step_windows": Case(k.loop_step_windows, lambda r: [_n(r, 96, 64), np.zeros((96, 64), F32)],
                              lambda x, o: np.where((np.arange(96) // 16 % 2 == 0)[:, None], 2 * _w(x), -_w(x)),
                              (1,)),
    "nested_tiles": Case(k.nested_tiles, lambda r: [_n(r, 64, 128), np.zeros((64, 128), F32)],
                         lambda x, o: _w(x) * ((np.arange(64) // 16 + 1)[:, None] * (np.arange(128) // 64 + 2)),
                         (1,)),
    "if_on_flag_true": Case(k.if_on_flag, lambda r: [_n(r, 16, 64), 1, np.zeros((16, 64), F32)],
                            lambda x, f, o: np.exp(_w(x)) + 1, (2,)),
    "if_on_flag_false": Case(k.if_on_flag, lambda r: [_n(r, 16, 64), 0, np.zeros((16, 64), F32)],
                             lambda x, f, o: 1 - _w(x), (2,)),
    "if_in_loop": Case(k.if_in_loop, lambda r: [_n(r, 64, 64), np.zeros((64, 64), F32)],
                       lambda x, o: np.where((np.arange(64) // 16 % 2 == 0)[:, None], _w(x) ** 2, _w(x) / 2), (1,)),
    "if_yield_carried": Case(k.if_yield_carried, lambda r: [_n(r, 64, 32), np.zeros((16, 32), F32)],
                             lambda x, o: _w(x)[0:16] + sum(np.exp(_w(x)[i * 16:(i + 1) * 16]) for i in (1, 2, 3)),
                             (1,), ((FP, 4),)),
    "scalar_trip_count": Case(k.scalar_trip_count, lambda r: [_n(r, 64, 64), 3, np.zeros((16, 64), F32)],
                              lambda x, n, o: _w(x).reshape(4, 16, 64)[:n].sum(0), (2,), ((FP, 3),)),
    "scalar_fp_params": Case(k.scalar_fp_params, lambda r: [_n(r, 16, 64), 1.75, -0.5, np.zeros((16, 64), F32)],
                             lambda x, a, b, o: _w(x) * a + b, (3,)),
    "scalar_offset_window": Case(k.scalar_offset_window, lambda r: [_n(r, 64, 64), 37, np.zeros((16, 64), F32)],
                                 lambda x, row, o: np.exp(_w(x)[row:row + 16]), (2,)),
    "assemble_swapped_halves": Case(k.assemble_transposed_blocks, lambda r: [_n(r, 32, 64), np.zeros((32, 64), F32)],
                                    lambda x, o: np.concatenate([_w(x)[:, 32:], _w(x)[:, :32]], axis=1) + 1, (1,)),
    "concat_cols": Case(k.concat_cols, lambda r: [_n(r, 16, 32), _n(r, 16, 32), np.zeros((16, 64), F32)],
                        lambda a, b, o: np.concatenate([np.exp(_w(a)), -_w(b)], axis=1), (2,)),
    "transpose": Case(k.transpose_kernel, lambda r: [_n(r, 32, 64), np.zeros((64, 32), F32)],
                      lambda a, o: _w(a).T * 3, (1,)),
    "two_scopes_workspace": Case(k.two_scopes_workspace, lambda r: [_n(r, 32, 64), np.zeros((32, 64), F32)],
                                 lambda x, o: np.exp(_w(x)) / np.exp(_w(x)).sum(1, keepdims=True), (1,), ((FP, 64),)),
    "partial_row_max": Case(k.partial_row_max, lambda r: [_n(r, 16, 64) - 5, 23, np.zeros((16, 1), F32)],
                            lambda x, n, o: _w(x)[:, :n].max(1, keepdims=True), (2,), ((None, 1),)),
    "partial_static_sum": Case(k.partial_static_sum, lambda r: [_n(r, 16, 64), np.zeros((16, 1), F32)],
                               lambda x, o: _w(x)[:, :40].sum(1, keepdims=True), (1,), ((FP, 40),)),
    "partial_block_softmax": Case(k.partial_block_softmax, lambda r: [_n(r, 37, 64), np.zeros((37, 64), F32)],
                                  lambda x, o: _partial_softmax(x), (1,), ((FP, 64),)),
    "dyn_rows_axpy": Case(k.dyn_rows_axpy, lambda r: [_n(r, 53, 64), _n(r, 53, 64), np.zeros((53, 64), F32)],
                          lambda x, y, o: 0.75 * _w(x) + _w(y), (2,)),
    "dyn_cols_windows": Case(k.dyn_cols_windows, lambda r: [_n(r, 16, 96), np.zeros((16, 96), F32)],
                             lambda x, o: np.sqrt(np.abs(_w(x))), (1,)),
    "dyn_rows_softmax": Case(k.dyn_rows_softmax, lambda r: [_n(r, 23, 128), np.zeros((23, 128), F32)],
                             lambda x, o: _softmax(_w(x)), (1,), ((FP, 128),)),
    "dyn_matmul_k": Case(k.dyn_matmul_k, lambda r: [_n(r, 32, 192, dtype=F16), _n(r, 192, 32, dtype=F16),
                                                    np.zeros((32, 32), F32)],
                         lambda a, b, o: _w(a) @ _w(b), (2,), ((FP, 192),)),
    "two_outputs": Case(k.two_outputs, lambda r: [_n(r, 32, 64), _n(r, 32, 64), np.zeros((32, 64), F32),
                                                  np.zeros((32, 64), F32)],
                        lambda a, b, *o: (_w(a) + _w(b), _w(a) * _w(b)), (2, 3), ((FP, 1), (FP, 1))),
    "stats_and_normalised": Case(k.stats_and_normalised, lambda r: [_n(r, 32, 64), np.zeros((32, 64), F32),
                                                                    np.zeros((32, 1), F32), np.zeros((32, 1), F32)],
                                 lambda x, *o: (lambda mu: ((_w(x) - mu) / (np.abs(_w(x) - mu).max(1, keepdims=True)
                                                                            + 1e-3), mu,
                                                            np.abs(_w(x) - mu).max(1, keepdims=True)))(
                                     _w(x).mean(1, keepdims=True)), (1, 2, 3), ((FP, 64),) * 3),
    "inout_accumulate": Case(k.inout_accumulate, lambda r: [_n(r, 16, 64), _n(r, 16, 64)],
                             lambda x, acc: _w(acc) + _w(x) ** 2, (1,)),
    "inline_swiglu": Case(k.inline_swiglu, lambda r: [_n(r, 32, 64), _n(r, 32, 64), np.zeros((32, 64), F32)],
                          lambda g, u, o: _w(g) / (1 + np.exp(-_w(g))) * _w(u), (2,)),
    "incore_call": Case(k.incore_call, lambda r: [_n(r, 32, 64), np.zeros((32, 64), F32)],
                        lambda x, o: _w(x) * _w(x).max(1, keepdims=True), (1,)),
    "matmul_result_windows": Case(k.matmul_result_windows,
                                  lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 64, 64, dtype=F16),
                                             np.zeros((16, 64), F32), np.zeros((32, 32), F32), np.zeros((1, 8), F32)],
                                  lambda a, b, *o: (lambda y: (y[8:24], np.exp(y[:, 16:48] * 0.125), y[3:4, 36:44]))(
                                      _w(a) @ _w(b)), (2, 3, 4), ((FP, 64),)),
}
PARAMS = [pytest.param(name, cfg, id=f"{name}-{cfg}") for name, case in CASES.items() for cfg in case.configs]


def _check(name: str, index: int, actual: np.ndarray, expected: np.ndarray, path: tuple[DataType | None, int]) -> None:
    narrow, terms = path
    out_dtype = dtype_from_numpy(np.dtype(actual.dtype))
    rtol, atol = tolerance_for(out_dtype, PrecisionPath(narrow, terms) if narrow is not None else None)
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    assert a.shape == e.shape, f"{name} out {index}: shape {a.shape} != {e.shape}"
    bad = ~(np.abs(a - e) <= atol + rtol * np.abs(e))
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(f"{name} out {index}: {int(bad.sum())} of {bad.size} elements outside "
                             f"|a - e| <= {atol:.3g} + {rtol:.3g} |e|; first at {list(first)}: "
                             f"{a[first]!r} vs {e[first]!r}")


@pytest.mark.parametrize(("name", "config"), PARAMS)
def test_program_matches_its_numpy_reference(name: str, config: str) -> None:
    case = CASES[name]
    args = case.inputs(np.random.default_rng(zlib.crc32(name.encode())))
    expected = case.reference(*[np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args])
    expected = expected if isinstance(expected, tuple) else (expected,)
    case.kernel(*args, config=CONFIGS[config])
    assert len(expected) == len(case.outs)
    paths = case.path if len(case.path) == len(case.outs) else case.path * len(case.outs)
    for i, (pos, exp, path) in enumerate(zip(case.outs, expected, paths, strict=True)):
        _check(name, i, args[pos], exp, path)


def test_the_corpus_has_at_least_forty_programs() -> None:
    assert len({id(c.kernel) for c in CASES.values()}) >= 40
