"""The hostile6 differential corpus (round6_kernels.py): each program runs on the simulator and is compared element
by element with a numpy reference written here, by hand, from the ops' documented meaning (never from tilefold's
golden): pipe syncs, hierarchy scopes and barriers change no value, so each reference is the plain computation.
Integers compare exactly (4-bit and 16-bit arithmetic wraps, float -> integer casts saturate); floats with the
tolerance of the output dtype (``tolerance_for``), widened by the reduction length after the last rounding."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import round6_kernels as k
from corpus_check import check_output, run_case

from tilefold.runtime import RunConfig

BF16, I4, U4 = ml_dtypes.bfloat16, ml_dtypes.int4, ml_dtypes.uint4
F32, F16, I32, I16, U8 = np.float32, np.float16, np.int32, np.int16, np.uint8
AIV = k.AIV
CONFIGS = {
    "910B": RunConfig(platform="a2a3sim"),
    "950": RunConfig(platform="a5sim"),
    "910B-nosplit": RunConfig(platform="a2a3sim", pass_options={"enable_auto_bind_sub_block": False}),
}


@dataclass
class Case:
    """``inputs(rng)``: the call's arguments; ``reference(*args)``: the expected outputs, one per index of ``outs``;
    ``terms``: per output, the reduction length after the last rounding."""

    kernel: Any
    inputs: Callable[[np.random.Generator], list[Any]]
    reference: Callable[..., Any]
    outs: tuple[int, ...]
    configs: tuple[str, ...] = ("910B",)
    terms: tuple[int, ...] = (1,)


def _n(r, *shape, dtype=F32, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(dtype)


def _z(*shape, dtype=F32):
    return np.zeros(shape, dtype)


def _w(x):
    return np.asarray(x).astype(np.float64)


def _i4(r, *shape):
    return r.integers(-8, 8, shape).astype(I4)


def _u4(r, *shape):
    return r.integers(0, 16, shape).astype(U4)


def _wrap(v, bits, signed=True):
    v = np.asarray(v, np.int64) % (1 << bits)
    return np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v


def _blocks(x, rows=16):
    x = _w(x)
    return [x[i * rows:(i + 1) * rows] for i in range(x.shape[0] // rows)]


def _softmax(x):
    e = np.exp(_w(x) - _w(x).max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _carried_exp(x):
    acc = np.zeros((16, 64))
    for t in _blocks(x):
        acc = acc * 0.5 + np.exp(t)
    return acc


def _both_branches(x):
    acc = np.ones((16, 32))
    for i, t in enumerate(_blocks(x)):
        acc = acc + t if i % 2 == 0 else np.maximum(acc, 2 * t)
    return acc


def _region_k(q, kk):
    mm = _w(q) @ _w(kk).T
    return np.exp((mm - mm.max(axis=1, keepdims=True)) * 0.125)


def _global_chain(x):
    e = np.exp(_w(x))
    return e / e.sum(axis=1, keepdims=True) + _w(x)


def _chip_loop(x):
    b = _blocks(x)
    return np.abs(b[0]) - b[1] + np.abs(b[2]) + np.abs(b[3])


def _leaky(c):
    return np.maximum(c, 0.1 * c)


def _uint4_pair(a):
    u = np.clip(np.floor(_w(a) * 4 + 8), 0, 15)
    return u, u


def _reverse_plus(a):
    mid = 3 * _w(a) + 1
    return np.roll(mid, -5, axis=0) - _w(a)


def _soft(a):
    mid = np.exp(_w(a))
    return mid[::-1] + _w(a)


def _two_rounds(a):
    u = np.roll(2 * _w(a), -1, axis=0)
    m2 = u + _w(a)
    return np.maximum(np.roll(m2, -2, axis=0), u)


def _carried_barrier(a):
    acc = 1.75 * _w(a)
    return acc[::-1] * acc


def _scaled_softmax(a, b):
    return _softmax(0.5 * (_w(a) @ _w(b)))


def _row_norm(q, kk):
    mm = _w(q) @ _w(kk).T
    return mm / ((mm * mm).sum(axis=1, keepdims=True) + 1)


def _rms(a):
    f = _w(a)
    return f / ((f * f).sum(axis=1, keepdims=True) + 1)


def _int16_chain(a):
    b = [np.asarray(a, np.int64)[i * 16:(i + 1) * 16] for i in range(4)]
    acc = b[0]
    for i in (1, 2, 3):
        acc = _wrap(acc * b[i], 16) if i == 2 else _wrap(acc + _wrap(b[i] * 1000, 16), 16)
    return acc


def _stepped(x):
    acc = np.full((16, 64), 2.0)
    for t in _blocks(x)[0:6:2]:
        acc = acc * t - t
    return acc


def _spmd_rows(x):
    out = []
    for t in _blocks(x):
        acc = t
        for _ in range(3):
            acc = np.maximum(0.5 * acc, t)
        out.append(acc)
    return np.concatenate(out)


CASES: dict[str, Case] = {
    # pipe syncs: no value changes
    "sync_pair_in_carried_loop": Case(k.sync_pair_in_carried_loop, lambda r: [_n(r, 64, 64), _z(16, 64)],
                                      lambda x, o: _carried_exp(x), (1,), ("910B", "950", "910B-nosplit")),
    "sync_pairs_in_both_branches": Case(k.sync_pairs_in_both_branches, lambda r: [_n(r, 96, 32), _z(16, 32)],
                                        lambda x, o: _both_branches(x), (1,), ("910B", "950")),
    "all_eight_events_fp16": Case(k.all_eight_events_fp16,
                                  lambda r: [_n(r, 32, 64, dtype=F16), _n(r, 32, 64, dtype=F16), _z(32, 64)],
                                  lambda a, b, o: (_w(a) + _w(b)) ** 2, (2,), ("910B", "950")),
    "syncs_with_prime_rows": Case(k.syncs_with_prime_rows, lambda r: [_n(r, 37, 50), _z(37, 50)],
                                  lambda a, o: _softmax(a), (1,), ("910B", "950"), (50,)),
    "region_syncs_k_blocked": Case(k.region_syncs_k_blocked,
                                   lambda r: [_n(r, 64, 128, dtype=F16, scale=0.25), _n(r, 64, 128, dtype=F16,
                                                                                        scale=0.25), _z(64, 64)],
                                   lambda q, kk, o: _region_k(q, kk), (2,), ("910B", "950"), (128,)),
    "stepped_loop_with_syncs": Case(k.stepped_loop_with_syncs, lambda r: [_n(r, 96, 64, scale=0.5), _z(16, 64)],
                                    lambda x, o: _stepped(x), (1,), ("910B", "950")),
    "fp16_prime_rows_bar_v": Case(k.fp16_prime_rows_bar_v, lambda r: [_n(r, 31, 40, dtype=F16), _z(31, 40, dtype=F16)],
                                  lambda a, o: np.exp(_w(a)) * 0.5, (1,), ("910B", "950")),
    # 4-bit integers
    "int4_loop_wrap": Case(k.int4_loop_wrap, lambda r: [_i4(r, 16, 64), _z(16, 64, dtype=I4)],
                           lambda a, o: _wrap(3 * np.asarray(a, np.int64), 4), (1,), ("910B", "950")),
    "int4_to_fp32_softmax": Case(k.int4_to_fp32_softmax, lambda r: [_i4(r, 16, 64), _z(16, 64)],
                                 lambda a, o: _softmax(0.25 * _w(a)), (1,), ("910B", "950"), (64,)),
    "fp32_to_uint4_and_back": Case(k.fp32_to_uint4_and_back,
                                   lambda r: [_n(r, 32, 64), _z(32, 64, dtype=U4), _z(32, 64, dtype=F16)],
                                   lambda a, q, b: _uint4_pair(a), (1, 2), ("910B", "950")),
    "int4_minmax_blocks": Case(k.int4_minmax_blocks,
                               lambda r: [_i4(r, 34, 96), _i4(r, 34, 96), _z(34, 96, dtype=I4), _z(34, 96, dtype=I4)],
                               lambda a, b, o1, o2: (np.maximum(np.asarray(a, np.int64), np.asarray(b, np.int64)),
                                                     _wrap(np.minimum(np.asarray(a, np.int64), np.asarray(b, np.int64))
                                                           - np.asarray(a, np.int64), 4)), (2, 3), ("910B", "950")),
    "int4_matmul_int32": Case(k.int4_matmul_int32, lambda r: [_i4(r, 32, 64), _i4(r, 64, 32), _z(32, 32, dtype=I32)],
                              lambda a, b, o: np.asarray(a, np.int64) @ np.asarray(b, np.int64), (2,),
                              ("910B", "950")),
    # barriers between phases of a launch
    "hard_barrier_reverse_rows": Case(k.hard_barrier_reverse_rows, lambda r: [_n(r, AIV, 64), _z(AIV, 64),
                                                                              _z(AIV, 64)],
                                      lambda a, m, o: _reverse_plus(a), (2,)),
    "soft_barrier_partial_launch": Case(k.soft_barrier_partial_launch,
                                        lambda r: [_n(r, 16, 64), _z(16, 64), _z(16, dtype=I32), _z(16, 64)],
                                        lambda a, m, ws, o: _soft(a), (3,)),
    "two_barrier_rounds": Case(k.two_barrier_rounds, lambda r: [_n(r, AIV, 32), _z(AIV, 32), _z(AIV, 32),
                                                                _z(AIV, 32)],
                               lambda a, m1, m2, o: _two_rounds(a), (3,)),
    "barrier_after_carried_loop": Case(k.barrier_after_carried_loop, lambda r: [_n(r, AIV, 64), _z(AIV, 64),
                                                                                _z(AIV, 64)],
                                       lambda a, m, o: _carried_barrier(a), (2,)),
    "spmd_disjoint_rows_loop": Case(k.spmd_disjoint_rows_loop, lambda r: [_n(r, 64, 64), _z(64, 64)],
                                    lambda x, o: _spmd_rows(x), (1,), ("910B", "950")),
    # cube + vector, dtypes, valid shapes
    "matmul_softmax_fp16_in": Case(k.matmul_softmax_fp16_in,
                                   lambda r: [_n(r, 64, 64, dtype=F16, scale=0.25), _n(r, 64, 64, dtype=F16,
                                                                                        scale=0.25), _z(64, 64)],
                                   lambda a, b, o: _scaled_softmax(a, b), (2,), ("910B", "950"), (64,)),
    "k_blocked_matmul_in_loop": Case(k.k_blocked_matmul_in_loop,
                                     lambda r: [_n(r, 32, 256, dtype=F16, scale=0.25), _n(r, 256, 32, dtype=F16,
                                                                                          scale=0.25), _z(32, 32)],
                                     lambda a, b, o: np.abs(_w(a) @ _w(b)), (2,), ("910B", "950"), (256,)),
    "split_region_row_norm": Case(k.split_region_row_norm,
                                  lambda r: [_n(r, 64, 32, dtype=F16, scale=0.5), _n(r, 64, 32, dtype=F16, scale=0.5),
                                             _z(64, 64)],
                                  lambda q, kk, o: _row_norm(q, kk), (2,), ("910B", "950"), (64,)),
    "bf16_prime_rows_rms": Case(k.bf16_prime_rows_rms, lambda r: [_n(r, 29, 48, dtype=BF16), _z(29, 48, dtype=BF16)],
                                lambda a, o: _rms(a), (1,), ("910B", "950"), (48,)),
    "int16_loop_if_wrap": Case(k.int16_loop_if_wrap,
                               lambda r: [r.integers(-50, 51, (64, 64)).astype(I16), _z(16, 64, dtype=I16)],
                               lambda a, o: _int16_chain(a), (1,), ("910B", "950")),
    "uint8_saturating_chain": Case(k.uint8_saturating_chain, lambda r: [_n(r, 16, 64, scale=2.0),
                                                                        _z(16, 64, dtype=U8)],
                                   lambda a, o: np.clip(np.rint(_w(a) * 100 + 128), 0, 255), (1,), ("910B", "950")),
    "prime_cols_col_reductions": Case(k.prime_cols_col_reductions, lambda r: [_n(r, 23, 37), _z(1, 37), _z(1, 37)],
                                      lambda a, o1, o2: (_w(a).max(axis=0, keepdims=True),
                                                         np.abs(_w(a)).sum(axis=0, keepdims=True)),
                                      (1, 2), ("910B", "950"), (1, 23)),
}
PARAMS = [pytest.param(name, cfg, id=f"{name}-{cfg}") for name, case in CASES.items() for cfg in case.configs]


@pytest.mark.parametrize(("name", "config"), PARAMS)
def test_round6_program_matches_its_numpy_reference(name: str, config: str) -> None:
    run_case(name, CASES[name], CONFIGS[config])


def _graph_loop(x, out):
    out = _w(out)
    for i in range(4):
        out = 0.75 * out - _w(x)[(3 - i) * 16:(4 - i) * 16]
    return out


def _xy(rows, cols):
    return lambda r: {"x": _n(r, rows, cols), "y": _n(r, rows, cols), "out": _z(rows, cols)}


#: program-form programs (hierarchy scopes are a @pl.program construct): name -> (program, inputs(rng),
#: reference(**inputs), reduction terms)
PROGRAMS: dict[str, tuple[Any, Callable, Callable, int]] = {
    "host_scope_then_chip": (k.HostScopeThenChip, _xy(32, 64), lambda x, y, out: (_w(x) + _w(y)) * _w(x) - _w(y),
                             2),
    "global_host_chain": (k.GlobalHostChain, _xy(16, 128),
                          lambda x, y, out: np.exp(_w(x)) / np.exp(_w(x)).sum(axis=1, keepdims=True) + _w(y), 128),
    "loop_of_host_scopes": (k.LoopOfHostScopes, _xy(16, 64), lambda x, y, out: 7 * _w(x), 1),
    "chip_worker_then_host": (k.ChipWorkerThenHost, _xy(16, 64), lambda x, y, out: np.exp(
        np.maximum(_w(x), _w(y)) - _w(x)) * _w(y).min(axis=1, keepdims=True), 1),
    "graph_fragment_in_loop": (k.GraphFragmentInLoop, lambda r: {"x": _n(r, 64, 64), "out": _n(r, 16, 64)},
                               _graph_loop, 1),
    "staged_host_tensor": (k.StagedHostTensor, _xy(48, 64),
                           lambda x, y, out: np.exp(0.5 * _w(x)) * _w(y).min(axis=1, keepdims=True), 1),
}


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_round6_program_form_matches_its_numpy_reference(name: str, target: str) -> None:
    from tilefold.compiler import compile as compile_program
    from tilefold.sim import simulate

    program, inputs, reference, terms = PROGRAMS[name]
    data = inputs(np.random.default_rng(zlib.crc32(name.encode())))
    expected = reference(**{n: np.array(v, copy=True) for n, v in data.items()})
    compiled = compile_program(program, target=target)
    sim = simulate(compiled.pto, {n: np.array(v, copy=True) for n, v in data.items()}, compiled.target)
    check_output(name, 0, sim.outputs["out"], expected, terms)


def test_the_round6_corpus_has_at_least_thirty_programs() -> None:
    assert len({id(c.kernel) for c in CASES.values()}) + len(PROGRAMS) >= 30
