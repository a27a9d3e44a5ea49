"""Mixed (InCore) kernels on a chip without an L0C -> UB path: the matmul result reaches the vector unit
through a kernel-private GM workspace (one per block), with the syncs the GM round trip needs."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.runtime import RunConfig
from tilefold.testing import run_and_compare

rng = np.random.default_rng(11)


@pl.jit
def linear_bias(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
                bias: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)
        out[:] = pl.add(acc, bias)
    return out


@pl.jit
def scores_exp(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
        for j in pl.range(4):
            tb = pl.load(b, [j * 64, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
            pl.store(pl.exp(pl.matmul(ta, tb)), [0, j * 64], out)
    return out


def _fp16(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float16)


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_matmul_then_vector_work_in_one_scope_runs_on_both_chips(platform):
    a, b = _fp16(64, 128), _fp16(128, 64)
    bias = rng.standard_normal((64, 64)).astype(np.float32)
    out = np.zeros((64, 64), np.float32)
    linear_bias(a, b, bias, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32) + bias, rtol=1e-3, atol=1e-3)


def test_the_910b_kernel_declares_a_workspace_and_orders_the_round_trip():
    a, b = _fp16(64, 128), _fp16(128, 64)
    bias = np.zeros((64, 64), np.float32)
    text = linear_bias.compile(a, b, bias, np.zeros((64, 64), np.float32)).pto.text()
    assert "workspace @acc_gm: tensor[64, 64] fp32 (per block)" in text
    body = text.splitlines()
    store = next(i for i, s in enumerate(body) if "tstore @acc_gm" in s)
    load = next(i for i, s in enumerate(body) if "tload %acc_vec, @acc_gm" in s)
    assert store < load
    assert any("wait_flag FIXPIPE -> MTE2" in s for s in body[store:load])
    a5 = linear_bias.compile(a, b, bias, np.zeros((64, 64), np.float32), config=RunConfig(platform="a5sim"))
    assert "workspace" not in a5.pto.text()  # L0C -> UB exists there: an on-chip move


def test_a_workspace_reused_across_loop_iterations_is_ordered_both_ways():
    a, b = _fp16(64, 64, scale=0.1), _fp16(256, 64, scale=0.1)
    out = np.zeros((64, 256), np.float32)
    scores_exp(a, b, out)
    ref = np.concatenate([np.exp(a.astype(np.float32) @ b[j * 64:(j + 1) * 64].astype(np.float32))
                          for j in range(4)], axis=1)
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3)
    text = scores_exp.compile(a, b, out).pto.text()
    # the next iteration's store into the workspace waits for this iteration's load from it
    assert "wait_flag MTE2 -> FIXPIPE" in text


KERNEL = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
        bi = pl.tile.get_block_idx()
        ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(ta, tb)
        y = pl.tile.muls(c, 1.0 + bi)
        out = pl.store(y, [bi * 64, 0], out)
        return out
"""


def test_each_block_has_its_own_workspace():
    """Two blocks on two cores write the same workspace name at the same time: private copies, no race, and
    each block's result is its own."""
    report = run_and_compare(pl.parse(KERNEL), "random", target="Ascend910B", block_dim=2)
    assert report.matches and report.fault is None, report.details
    assert len(report.unit_cycles) == 2  # two cores ran it


T, H, INNER = 64, 128, 256


@pl.jit
def ffn_one_scope(x: pl.Tensor[[T, H], pl.FP16], w1: pl.Tensor[[H, INNER], pl.FP16],
                  b1: pl.Tensor[[1, INNER], pl.FP32], w2: pl.Tensor[[INNER, H], pl.FP16],
                  y: pl.Out[pl.Tensor[[T, H], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        h = pl.matmul(x, w1, out_dtype=pl.FP32)
        act = pl.cast(pl.relu(pl.col_expand_add(h, b1)), target_type=pl.FP16)
        y[:] = pl.matmul(act, w2, out_dtype=pl.FP32)
    return y


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_cube_vector_cube_chain_in_one_scope(platform):
    """The vector result feeds the second matmul: on 910B it crosses back through GM into L1 (no UB -> L1)."""
    x = _fp16(T, H, scale=0.5)
    w1, w2 = _fp16(H, INNER, scale=0.1), _fp16(INNER, H, scale=0.1)
    b1 = (rng.standard_normal((1, INNER)) * 0.1).astype(np.float32)
    y = np.zeros((T, H), np.float32)
    ffn_one_scope(x, w1, b1, w2, y, config=RunConfig(platform=platform))
    hidden = np.maximum(x.astype(np.float32) @ w1.astype(np.float32) + b1, 0).astype(np.float16)
    np.testing.assert_allclose(y, hidden.astype(np.float32) @ w2.astype(np.float32), rtol=1e-2, atol=1e-2)
    if platform == "a2a3sim":
        text = ffn_one_scope.compile(x, w1, b1, w2, y).pto.text()
        assert text.count("(per block)") == 2  # the accumulator going out, the activation coming back


SQ, SK, D, BLK = 32, 128, 32, 32


@pl.jit
def attention_first_block_before_the_loop(q: pl.Tensor[[SQ, D], pl.FP16], k: pl.Tensor[[SK, D], pl.FP16],
                                          v: pl.Tensor[[SK, D], pl.FP16], out: pl.Out[pl.Tensor[[SQ, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s0 = pl.matmul(q, k[0:BLK, :], b_trans=True, out_dtype=pl.FP32)
        m = pl.row_max(s0)
        p0 = pl.exp(pl.row_expand_sub(s0, m))
        l = pl.row_sum(p0)
        o = pl.matmul(pl.cast(p0, target_type=pl.FP16), v[0:BLK, :], out_dtype=pl.FP32)  # carried, starts in Acc
        for j in pl.range(1, SK // BLK):
            s = pl.matmul(q, k[j * BLK:(j + 1) * BLK, :], b_trans=True, out_dtype=pl.FP32)
            m_new = pl.maximum(m, pl.row_max(s))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            alpha = pl.exp(pl.sub(m, m_new))
            l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, target_type=pl.FP16), v[j * BLK:(j + 1) * BLK, :], out_dtype=pl.FP32)
            o = pl.add(pl.row_expand_mul(o, alpha), pv)  # the vector update: carried in Vec
            m = m_new
        out[:] = pl.row_expand_div(o, l)
    return out


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_a_carried_accumulator_updated_by_the_vector_unit_is_carried_in_vec(platform):
    """The loop's initial o is a matmul result (Acc) but the body rescales it on the vector unit: Vec cannot go
    back into Acc, so the carry starts in Vec (one move or GM round trip before the loop)."""
    q, k, v = _fp16(SQ, D), _fp16(SK, D), _fp16(SK, D)
    out = np.zeros((SQ, D), np.float32)
    attention_first_block_before_the_loop(q, k, v, out, config=RunConfig(platform=platform))
    s = q.astype(np.float32) @ k.astype(np.float32).T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float32), rtol=2e-2, atol=2e-2)
