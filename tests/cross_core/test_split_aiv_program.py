"""pl.split_aiv regions in program-form InCore kernels: a cube result sharded to the two AIV lanes, vector work per
lane, stores addressed by the lane index, and a lane result gathered back to the cube. Each case runs the golden
interpreter and the simulator (with the default pipeline) on Ascend910B (no L0C -> UB path: the pipe goes through
GM) and Ascend950 (direct), against numpy written here."""

from __future__ import annotations

import numpy as np
import pytest
from xc_helpers import ATOL, RTOL, TARGETS, fp16_inputs, incore, matmul32

import tilefold.language as pl
from tilefold import ir
from tilefold.compiler import compile as compile_program
from tilefold.golden import run_program
from tilefold.sim import simulate

MM = """
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
"""
PARAMS = ("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
          "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
RET = "pl.Tensor[[64, 64], pl.FP32]"

SHARD_UP_DOWN = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    h = pl.aiv_shard(acc)
    e = pl.exp(h)
    out = pl.store(e, [aiv_id * 32, 0], out)
return out
"""
SHARD_LEFT_RIGHT = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
    h = pl.aiv_shard(acc)
    e = pl.mul(h, 3.0)
    out = pl.store(e, [0, aiv_id * 32], out)
return out
"""
# NONE: both lanes receive the whole tile; each stores a different half, chosen by aiv_id (task-parallel)
SHARD_NONE_BY_LANE = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    part = pl.tile.slice(h, [32, 64], [aiv_id * 32, 0])
    e = pl.adds(part, 1.0)
    out = pl.store(e, [aiv_id * 32, 0], out)
return out
"""


def _run_both(program, inputs: dict[str, np.ndarray], target: str):
    golden = run_program(program, {k: v.copy() for k, v in inputs.items()})
    compiled = compile_program(program, target=target)
    sim = simulate(compiled.pto, {k: v.copy() for k, v in inputs.items()}, target)
    return golden, sim


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("body, expect", [
    (SHARD_UP_DOWN, lambda p: np.exp(p)),
    (SHARD_LEFT_RIGHT, lambda p: p * 3.0),
    (SHARD_NONE_BY_LANE, lambda p: p + 1.0),
], ids=["up_down", "left_right", "none_by_lane"])
def test_shard_to_lanes_matches_numpy(body, expect, target):
    a, b = fp16_inputs(1, (64, 64), (64, 64))
    program = incore(PARAMS, body, ret=RET)
    golden, sim = _run_both(program, {"a": a, "b": b, "out": np.zeros((64, 64), np.float32)}, target)
    want = expect(matmul32(a, b))
    np.testing.assert_allclose(golden["out"], want, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sim.outputs["out"], want, rtol=RTOL, atol=ATOL)
    # the two lanes really ran: each is its own unit with its own timeline
    assert {"core0.aiv0", "core0.aiv1"} <= set(sim.unit_cycles)


GATHER = """
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.MODE):
    h = pl.aiv_shard(acc)
    v = pl.exp(h)
    kv = pl.aic_gather(v)
w_t = pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
r = pl.tile.matmul(kv, w_t)
out = pl.store(r, [0, 0], out)
return out
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["UP_DOWN", "LEFT_RIGHT", "NONE"])
def test_gather_back_to_the_cube(mode, target):
    a, b = fp16_inputs(2, (64, 64), (64, 64))
    w = (np.random.default_rng(3).standard_normal((64, 64)) / 8).astype(np.float32)
    program = incore("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
                     "w: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                     GATHER.replace("MODE", mode), ret=RET)
    golden, sim = _run_both(program, {"a": a, "b": b, "w": w, "out": np.zeros((64, 64), np.float32)}, target)
    want = np.exp(matmul32(a, b)) @ w
    tol = dict(rtol=1e-4, atol=1e-4)  # a second FP32 product of 64 terms after exp
    np.testing.assert_allclose(golden["out"], want, **tol)
    np.testing.assert_allclose(sim.outputs["out"], want, **tol)


def test_lane_index_and_sub_block_index_agree_in_a_region():
    # a pure vector kernel: lane k adds k + 10 * get_subblock_idx() to its rows (both equal k)
    body = """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    t = pl.load(x, [aiv_id * 16, 0], [16, 64])
    sb = pl.tile.get_subblock_idx()
    u = pl.adds(t, aiv_id + sb * 10)
    out = pl.store(u, [aiv_id * 16, 0], out)
return out
"""
    program = incore("x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]", body,
                     ret="pl.Tensor[[32, 64], pl.FP32]")
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64)
    want = x.copy()
    want[16:] += 11.0
    for target in TARGETS:
        golden, sim = _run_both(program, {"x": x, "out": np.zeros_like(x)}, target)
        np.testing.assert_array_equal(golden["out"], want)
        np.testing.assert_array_equal(sim.outputs["out"], want)


def test_region_inside_a_loop_pipes_every_iteration():
    # four cube products, each sharded UP_DOWN and stored by the lanes into its own block of rows
    body = """
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
for i in pl.range(4):
    a_t = pl.load(a, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
    acc = pl.tile.matmul(a_t, b_t)
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        h = pl.aiv_shard(acc)
        e = pl.adds(h, 2.0)
        out = pl.store(e, [i * 64 + aiv_id * 32, 0], out)
return out
"""
    program = incore("a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
                     "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]", body, ret="pl.Tensor[[256, 64], pl.FP32]")
    a, b = fp16_inputs(4, (256, 64), (64, 64))
    for target in TARGETS:
        golden, sim = _run_both(program, {"a": a, "b": b, "out": np.zeros((256, 64), np.float32)}, target)
        want = matmul32(a, b) + 2.0
        np.testing.assert_allclose(golden["out"], want, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(sim.outputs["out"], want, rtol=RTOL, atol=ATOL)


def test_printed_region_parses_back_to_the_same_program():
    program = incore(PARAMS, SHARD_UP_DOWN, ret=RET)
    text = ir.python_print(program)
    assert 'attrs={"split_aiv": 1}' in text and "pl.tile.aiv_shard(acc, split=1)" in text
    ir.assert_structural_equal(pl.parse(text), program)
