"""The edge corpus (edge_kernels.py): each @pl.jit program runs on the simulator and is compared element by element
with a numpy reference written here. Integers compare exactly, floats with the output dtype's tolerance
(``tilefold.testing.precision.tolerance_for``; a reduction's terms widen it), NaN only matches NaN and an infinity
only the same infinity. Calls alternate between the two targets (and split on / off) to keep the suite fast; the
cases that pin a fixed defect run on both."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import edge_kernels as k
import ml_dtypes
import numpy as np
import pytest
from corpus_check import run_case

from tilefold.runtime import RunConfig

BF16 = ml_dtypes.bfloat16
F32, F16, I32, I16, I8, U8 = np.float32, np.float16, np.int32, np.int16, np.int8, np.uint8
CONFIGS = {
    "910B": RunConfig(platform="a2a3sim"),
    "950": RunConfig(platform="a5sim"),
    "910B-nosplit": RunConfig(platform="a2a3sim", pass_options={"enable_auto_bind_sub_block": False}),
}
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, -3.0, 1e-30, 7.0, -7.0]


@dataclass
class Case:
    """``inputs(rng)``: the call's arguments (outputs as zero arrays); ``reference(*args)``: the expected outputs,
    one per index of ``outs``; ``terms``: per output, the reduction length after the last rounding."""

    kernel: Any
    inputs: Callable[[np.random.Generator], list[Any]]
    reference: Callable[..., Any]
    outs: tuple[int, ...]
    configs: tuple[str, ...] = ("910B",)
    terms: tuple[int, ...] = (1,)


def _n(r, *shape, dtype=F32, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(dtype)


def _ints(r, dt, *shape):
    info = np.iinfo(dt)
    return r.integers(info.min, int(info.max) + 1, shape).astype(dt)


def _w(x):
    return np.asarray(x).astype(np.float64)


def _special(r, *shape, shift=0):
    x = r.standard_normal(shape) * 4
    x.flat[:len(SPECIAL)] = np.roll(SPECIAL, shift)
    return x.astype(F32)


def _softmax(x):
    e = np.exp(_w(x) - _w(x).max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _blocks(x):
    return [_w(x)[i * 16:(i + 1) * 16] for i in range(_w(x).shape[0] // 16)]


def _horner(x, order):
    acc = np.zeros((16, 64))
    for i in order:
        acc = acc * 2 + _blocks(x)[i]
    return acc


def _trade(x):
    a, b = np.ones((16, 64)), np.full((16, 64), 2.0)
    for i in range(3):
        a, b = b + _blocks(x)[i], a
    return a, b


def _swap_under_if(x):
    a, b = _blocks(x)[0], _blocks(x)[1]
    for i in range(5):
        a, b = (b, a) if i % 2 == 0 else (np.exp(b), a)
    return a, b


def _offsets_swap(x):
    acc, p, q = np.zeros((16, 64)), 0, 3
    for _ in range(3):
        acc = acc * 2 + _blocks(x)[p]
        p, q = q, p
    return acc


def _nested_max(x):
    acc = np.zeros((16, 64))
    for i in range(4):
        for j in range(2):
            acc = np.maximum(acc, _w(x)[i * 16:(i + 1) * 16, j * 64:(j + 1) * 64])
        acc = acc * 0.5
    return acc


def _anti_diagonal(x):
    o = np.zeros((4, 8))
    for i in range(4):
        o[i, 7 - i] = _w(x)[i * 3, i + 5] * 2
    return o


def _inout_shift(x):
    y = _w(x).copy()
    y[0:16] = y[16:32] + 1
    y[16:32] = y[0:16] * 2
    return y


def _cast_int(x, dt, fn):
    info = np.iinfo(dt)
    with np.errstate(invalid="ignore"):
        v = np.clip(fn(np.nan_to_num(_w(x), nan=0.0)), info.min, info.max)
    return np.where(np.isnan(x), 0, v).astype(np.int64)


def _nonzero_divisors(r):
    b = r.integers(1, 7, (16, 64)) * r.choice([-1, 1], (16, 64))
    return b.astype(I32)


def _nan_maximum(a, b):
    with np.errstate(invalid="ignore"):
        return np.minimum(np.maximum(_w(a), _w(b)), np.maximum(_w(a), 0.5))


def _cmp_inputs(r):
    a, b = r.integers(-2, 2, (16, 64)).astype(F32), r.integers(-2, 2, (16, 64)).astype(F32)
    a[0, :3] = np.nan
    b[1, :3] = np.nan
    return [a, b] + [np.zeros((16, 64), F32) for _ in range(3)]


def _div_inputs(r):
    a, b = _n(r, 16, 64), _n(r, 16, 64)
    b[0, :8] = 0.0
    a[0, :2] = 0.0
    a[0, 2] = -1.0
    return [a, b, np.zeros((16, 64), F32)]


def _tall(r, rows, cols):
    return [_n(r, rows, cols), np.zeros((1, cols), F32)]


def _near_one(r, rows, cols):
    return [(1 + 0.01 * r.standard_normal((rows, cols))).astype(F32), np.zeros((1, cols), F32)]


def _quiet(fn, *args):
    """``fn(*args)`` without numpy's floating-point warnings (division by zero, overflow: the cases test them)."""
    with np.errstate(all="ignore"):
        return fn(*args)


def _wrap32(v):
    return (np.asarray(v, np.int64) + 2**31) % 2**32 - 2**31


def _diag_writes(s):
    e = np.zeros((4, 8), np.int64)
    e[0, 0], e[1, 1] = 3 * s, 2 * s
    return e


def _z(*shape, dtype=F32):
    return np.zeros(shape, dtype)


CASES: dict[str, Case] = {
    "i8_wrap": Case(k.i8_wrap, lambda r: [_ints(r, I8, 16, 64), _ints(r, I8, 16, 64), _z(16, 64, dtype=I8)],
                    lambda a, b, o: (a.astype(np.int64) * b + a).astype(I8), (2,), ("910B", "950")),
    "i16_wrap": Case(k.i16_wrap, lambda r: [_ints(r, I16, 16, 64), _ints(r, I16, 16, 64), _z(16, 64, dtype=I16)],
                     lambda a, b, o: (a.astype(np.int64) * b - b).astype(I16), (2,), ("950",)),
    "u8_sub": Case(k.u8_sub, lambda r: [_ints(r, U8, 16, 64), _ints(r, U8, 16, 64), _z(16, 64, dtype=U8)],
                   lambda a, b, o: ((a.astype(np.int64) - b) % 256).astype(U8), (2,)),
    "i32_rem_signs": Case(k.i32_rem_signs, lambda r: [r.integers(-100, 100, (16, 64)).astype(I32),
                                                      _nonzero_divisors(r), _z(16, 64, dtype=I32),
                                                      _z(16, 64, dtype=I32)],
                          lambda a, b, *o: (a - b * np.floor_divide(a, b), a - (-3) * np.floor_divide(a, -3)),
                          (2, 3), ("910B-nosplit",)),
    "i32_shifts": Case(k.i32_shifts, lambda r: [_ints(r, I32, 16, 64), r.integers(0, 32, (16, 64)).astype(I32),
                                                _z(16, 64, dtype=I32), _z(16, 64, dtype=I32)],
                       lambda a, s, *o: (np.floor(_w(a) / 2.0 ** s).astype(np.int64),
                                         ((a.astype(np.int64) * 8 + 2**31) % 2**32 - 2**31)), (2, 3), ("950",)),
    "i32_abs_neg_min": Case(k.i32_abs_neg_min,
                            lambda r: [np.concatenate([np.full((1, 64), -2**31), r.integers(-99, 99, (15, 64))]
                                                      ).astype(I32), _z(16, 64, dtype=I32), _z(16, 64, dtype=I32)],
                            lambda a, *o: ((np.abs(a.astype(np.int64)) + 2**31) % 2**32 - 2**31,
                                           (-a.astype(np.int64) + 2**31) % 2**32 - 2**31), (1, 2)),
    "i8_row_sum_wraps": Case(k.i8_row_sum_wraps, lambda r: [_ints(r, I8, 16, 64), _z(16, 1, dtype=I8)],
                             lambda a, o: (a.astype(np.int64).sum(1, keepdims=True) + 128) % 256 - 128, (1,)),
    "i32_to_i8_wraps": Case(k.i32_to_i8_wraps, lambda r: [r.integers(-1000, 1000, (16, 64)).astype(I32),
                                                          _z(16, 64, dtype=I8)],
                            lambda a, o: (a.astype(np.int64) + 128) % 256 - 128, (1,), ("950",)),
    "nan_reductions": Case(k.nan_reductions, lambda r: [_special(r, 16, 64), _z(16, 1), _z(1, 64), _z(16, 1)],
                           lambda a, *o: (np.max(_w(a), 1, keepdims=True), np.min(_w(a), 0, keepdims=True),
                                          np.sum(_w(a), 1, keepdims=True)), (1, 2, 3), ("910B", "950"),
                           (1, 1, 64)),
    "nan_maximum": Case(k.nan_maximum, lambda r: [_special(r, 16, 64), _special(r, 16, 64, shift=5), _z(16, 64)],
                        lambda a, b, o: _nan_maximum(a, b), (2,), ("950",)),
    "div_by_zero": Case(k.div_by_zero, _div_inputs, lambda a, b, o: _quiet(np.divide, _w(a), _w(b)), (2,)),
    "argmax_nan_ties": Case(k.argmax_nan_ties,
                            lambda r: [np.concatenate([np.ones((1, 64)), np.where(np.eye(15, 64) > 0, np.nan, 0.0)]
                                                      ).astype(F32), _z(16, 1, dtype=I32), _z(1, 64, dtype=I32)],
                            lambda a, *o: (np.argmax(a, 1).reshape(16, 1), np.argmin(a, 0).reshape(1, 64)), (1, 2)),
    "cast_saturate_i8": Case(k.cast_saturate_i8, lambda r: [_special(r, 16, 64) * 60, _z(16, 64, dtype=I8),
                                                            _z(16, 64, dtype=I16)],
                             lambda a, *o: (_cast_int(a, I8, np.trunc), _cast_int(a, I16, np.rint)), (1, 2),
                             ("950",)),
    "cast_fp16_overflow": Case(k.cast_fp16_overflow,
                               lambda r: [np.concatenate([np.array([[65504, 65519, 65520, 1e5, -1e5, 1e-8, 3e38,
                                                                     np.nan] * 8]), _n(r, 15, 64, scale=1e4)]
                                                         ).astype(F32), _z(16, 64, dtype=F16), _z(16, 64, dtype=BF16)],
                               lambda a, *o: (_quiet(a.astype, F16), a.astype(BF16)), (1, 2)),
    "cmp_nan_modes": Case(k.cmp_nan_modes, _cmp_inputs,
                          lambda a, b, *o: ((a == b) * 1.0, (a != b) * 1.0, (a <= b) * 1.0), (2, 3, 4), ("950",)),
    "softmax_3x5": Case(k.softmax_any, lambda r: [_n(r, 3, 5), _z(3, 5)], lambda a, o: _softmax(a), (1,),
                        terms=(5,)),
    "softmax_33x17": Case(k.softmax_any, lambda r: [_n(r, 33, 17), _z(33, 17)], lambda a, o: _softmax(a), (1,),
                          ("950",), (17,)),
    "softmax_1x300": Case(k.softmax_any, lambda r: [_n(r, 1, 300), _z(1, 300)], lambda a, o: _softmax(a), (1,),
                          terms=(300,)),
    "col_sum_tall": Case(k.col_sum_any, lambda r: _tall(r, 3000, 16), lambda a, o: _w(a).sum(0, keepdims=True),
                         (1,), ("910B", "950"), (3000,)),
    "col_argmax_tall": Case(k.col_argmax_any, lambda r: [_n(r, 2000, 8), _z(1, 8, dtype=I32)],
                            lambda a, o: np.argmax(a, 0).reshape(1, 8), (1,), ("910B", "950")),
    "col_prod_tall": Case(k.col_prod_any, lambda r: _near_one(r, 1500, 8),
                          lambda a, o: _w(a).prod(0, keepdims=True), (1,), ("910B",), (1500,)),
    "matmul_17x33x9": Case(k.matmul_any, lambda r: [_n(r, 17, 33, dtype=F16), _n(r, 33, 9, dtype=F16), _z(17, 9)],
                           lambda a, b, o: _w(a) @ _w(b), (2,), ("910B", "950"), (33,)),
    "matmul_1x512x1": Case(k.matmul_any, lambda r: [_n(r, 1, 512, dtype=F16), _n(r, 512, 1, dtype=F16), _z(1, 1)],
                           lambda a, b, o: _w(a) @ _w(b), (2,), ("950",), (512,)),
    "transpose_100x33": Case(k.transpose_any, lambda r: [_n(r, 100, 33), _z(33, 100)], lambda a, o: _w(a).T, (1,)),
    "strided_input_view": Case(k.add_one, lambda r: [_n(r, 64, 128)[:, ::2], _z(64, 64)], lambda x, o: _w(x) + 1,
                               (1,)),
    "transposed_input_view": Case(k.add_one, lambda r: [_n(r, 48, 64).T, _z(64, 48)], lambda x, o: _w(x) + 1, (1,),
                                  ("950",)),
    "broadcast_input_view": Case(k.add_one, lambda r: [np.broadcast_to(_n(r, 1, 64), (32, 64)), _z(32, 64)],
                                 lambda x, o: _w(x) + 1, (1,)),
    "horner_down": Case(k.horner_down, lambda r: [_n(r, 64, 64), _z(16, 64)], lambda x, o: _horner(x, [3, 2, 1, 0]),
                        (1,), ("910B", "950")),
    "horner_from_3": Case(k.horner_from, lambda r: [_n(r, 64, 64), 3, _z(16, 64)],
                          lambda x, a, o: _horner(x, [3, 2, 1, 0]), (2,)),
    "horner_from_minus_1": Case(k.horner_from, lambda r: [_n(r, 64, 64), -1, _z(16, 64)],
                                lambda x, a, o: _horner(x, []), (2,), ("950",)),
    "blocks_between_empty": Case(k.blocks_between, lambda r: [_n(r, 64, 64), 2, 1, _z(16, 64)],
                                 lambda x, a, b, o: np.ones((16, 64)), (3,)),
    "blocks_between_1_3": Case(k.blocks_between, lambda r: [_n(r, 64, 64), 1, 3, _z(16, 64)],
                               lambda x, a, b, o: 1 + _blocks(x)[1] + _blocks(x)[2], (3,), ("950",)),
    "if_elif_chain": Case(k.if_elif_chain, lambda r: [_n(r, 64, 64), _z(64, 64)],
                          lambda x, o: np.concatenate([np.exp(_blocks(x)[0]), -_blocks(x)[1], 3 * _blocks(x)[2],
                                                       _blocks(x)[3] + 10]), (1,), ("910B-nosplit",)),
    "nested_max_carry": Case(k.nested_max_carry, lambda r: [_n(r, 64, 128), _z(16, 64)],
                             lambda x, o: _nested_max(x), (1,)),
    "unroll_reversed": Case(k.unroll_reversed, lambda r: [_n(r, 64, 64), _z(64, 64)],
                            lambda x, o: np.concatenate([_blocks(x)[3 - i] * (i + 1) for i in range(4)]), (1,),
                            ("950",)),
    "tiles_trade_places": Case(k.tiles_trade_places, lambda r: [_n(r, 64, 64), _z(16, 64), _z(16, 64)],
                               lambda x, *o: _trade(x), (1, 2), ("910B", "950", "910B-nosplit")),
    "tiles_rotate": Case(k.tiles_rotate, lambda r: [_n(r, 64, 64), _z(16, 64), _z(16, 64), _z(16, 64)],
                         lambda x, *o: (_blocks(x)[1], _blocks(x)[2], _blocks(x)[0]), (1, 2, 3), ("910B", "950")),
    "swap_under_if": Case(k.swap_under_if, lambda r: [_n(r, 64, 64), _z(16, 64), _z(16, 64)],
                          lambda x, *o: _swap_under_if(x), (1, 2), ("910B", "950")),
    "scalar_offsets_swap": Case(k.scalar_offsets_swap, lambda r: [_n(r, 64, 64), _z(16, 64)],
                                lambda x, o: _offsets_swap(x), (1,)),
    "offset_from_if_2": Case(k.offset_from_if, lambda r: [_n(r, 64, 64), 2, _z(16, 64)],
                             lambda x, f, o: _w(x)[32:48], (2,)),
    "offset_from_if_0": Case(k.offset_from_if, lambda r: [_n(r, 64, 64), 0, _z(16, 64)],
                             lambda x, f, o: _w(x)[8:24], (2,), ("950",)),
    "param_then_computed": Case(k.param_then_computed, lambda r: [_n(r, 16, 64), _n(r, 16, 64), _z(16, 64)],
                                lambda x, y, o: _w(x) + 3 * _w(y), (2,), terms=(3,)),
    "read_row_offset": Case(k.read_row_offset, lambda r: [_n(r, 64, 64), np.array([[0, 0, 0, 23, 0, 0, 0, 0]], I32),
                                                          _z(16, 64)], lambda x, i, o: -_w(x)[23:39], (2,), ("950",)),
    "write_anti_diagonal": Case(k.write_anti_diagonal, lambda r: [_n(r, 16, 64), _z(4, 8)],
                                lambda x, o: _anti_diagonal(x), (1,)),
    "inout_shift_rows": Case(k.inout_shift_rows, lambda r: [_n(r, 32, 64)], lambda x: _inout_shift(x), (0,),
                             ("910B", "950", "910B-nosplit")),
    "reverse_blocks": Case(k.reverse_blocks, lambda r: [_n(r, 64, 64), _z(64, 64)],
                           lambda x, o: np.concatenate([_blocks(x)[3 - i] + 1 for i in range(4)]), (1,)),
    # Python's floor rules: -1 // -3 == 0, -1 % -3 == -1 (row 16); -4 // -3 == 1, -4 % -3 == -1 (row 32)
    "floor_mod_offset_minus_1": Case(k.floor_mod_offset, lambda r: [_n(r, 64, 64), -1, _z(16, 64)],
                                     lambda x, s, o: np.exp(_w(x)[16:32]), (2,)),
    "floor_mod_offset_minus_4": Case(k.floor_mod_offset, lambda r: [_n(r, 64, 64), -4, _z(16, 64)],
                                     lambda x, s, o: np.exp(_w(x)[32:48]), (2,), ("950",)),
    "scalar_products_wrap": Case(k.scalar_products_wrap, lambda r: [r.integers(-99, 99, (16, 64)).astype(I32),
                                                                     10**9, _z(16, 64, dtype=I32), _z(4, 8, dtype=I32)],
                                 lambda a, s, *o: (_wrap32(a.astype(np.int64) + 3 * s), _wrap32(_diag_writes(s))),
                                 (2, 3), ("910B", "950")),
    "scalar_compare_fill_wrap": Case(k.scalar_compare_fill_wrap,
                                     lambda r: [r.integers(-99, 99, (16, 64)).astype(I32), 10**9,
                                                _z(16, 64, dtype=I32), _z(16, 64, dtype=I32)],
                                     lambda a, s, *o: ((a < _wrap32(3 * s)).astype(np.int64),
                                                       np.full((16, 64), _wrap32(3 * s))), (2, 3)),
}
PARAMS = [pytest.param(name, cfg, id=f"{name}-{cfg}") for name, case in CASES.items() for cfg in case.configs]


@pytest.mark.parametrize(("name", "config"), PARAMS)
def test_edge_program_matches_its_numpy_reference(name: str, config: str) -> None:
    run_case(name, CASES[name], CONFIGS[config])


def test_the_edge_corpus_has_at_least_thirty_programs() -> None:
    assert len({id(c.kernel) for c in CASES.values()}) >= 30
