"""The simulator's side of pl.split_aiv regions: the two lanes are separate units (their GM accesses race when
nothing orders them), a no-split gather of values the lanes disagree on is reported (never a pick), the
cross-core pipe faults instead of hanging when push / pop / free do not pair, and the timing model orders each pop
after its push and each push after the free of the slot it reuses."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from xc_helpers import fp16_inputs, incore

from tilefold.backend.cross_core import LaneRegion, TFree, TPop, TPush
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.sim.faults import Deadlock, RaceDetected
from tilefold.sim.lanes import UndefinedResult

MM = """
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
"""
PARAMS = ("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
          "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
RET = "pl.Tensor[[64, 64], pl.FP32]"


def _inputs(seed: int = 0) -> dict[str, np.ndarray]:
    a, b = fp16_inputs(seed, (64, 64), (64, 64))
    return {"a": a, "b": b, "out": np.zeros((64, 64), np.float32)}


def test_both_lanes_storing_the_same_rows_is_a_race():
    # mode=NONE runs the body on both lanes: a store not sharded by aiv_id is written twice, unordered
    body = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    out = pl.store(h, [0, 0], out)
return out
"""
    compiled = compile_program(incore(PARAMS, body, ret=RET))
    with pytest.raises(RaceDetected) as info:
        simulate(compiled.pto, _inputs())
    assert "core0.aiv0" in info.value.message and "core0.aiv1" in info.value.message
    # the same kernel sharded by aiv_id writes disjoint rows: no race
    sharded = body.replace("out = pl.store(h, [0, 0], out)",
                           "part = pl.tile.slice(h, [32, 64], [aiv_id * 32, 0])\n"
                           "    out = pl.store(part, [aiv_id * 32, 0], out)")
    simulate(compile_program(incore(PARAMS, sharded, ret=RET)).pto, _inputs())


def test_a_cube_store_read_by_a_lane_without_an_order_is_a_race():
    # the cube writes `out`, a lane loads it back: AIC and AIV run asynchronously (04-scopes, cross-lane ordering)
    body = MM + """
out = pl.store(acc, [0, 0], out)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    t = pl.load(out, [aiv_id * 32, 0], [32, 64])
    u = pl.adds(t, 1.0)
    out = pl.store(u, [aiv_id * 32, 0], out)
return out
"""
    compiled = compile_program(incore(PARAMS, body, ret=RET))
    with pytest.raises(RaceDetected) as info:
        simulate(compiled.pto, _inputs())
    assert "core0 (block 0)" in info.value.message


GATHER_NONE = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    v = pl.adds(h, aiv_id * 1.0)
    kv = pl.aic_gather(v)
r = pl.tile.matmul(kv, kv)
out = pl.store(r, [0, 0], out)
return out
"""


def test_lanes_disagreeing_on_a_no_split_gather_are_reported():
    program = incore(PARAMS, GATHER_NONE, ret=RET)
    with pytest.raises(TilefoldError) as golden:
        run_program(program, _inputs())
    assert "push different values to the no-split pl.aic_gather" in golden.value.message
    with pytest.raises(UndefinedResult) as device:
        simulate(compile_program(program).pto, _inputs())
    assert "pushed different tiles to the no-split pipe" in device.value.message


def test_lane_uniform_no_split_gather_is_accepted():
    program = incore(PARAMS, GATHER_NONE.replace("aiv_id * 1.0", "1.0"), ret=RET)
    inputs = _inputs(5)
    p = inputs["a"].astype(np.float32) @ inputs["b"].astype(np.float32) + 1.0
    want = p @ p
    np.testing.assert_allclose(run_program(program, dict(inputs))["out"], want, rtol=1e-4, atol=1e-3)
    sim = simulate(compile_program(program).pto, _inputs(5))
    np.testing.assert_allclose(sim.outputs["out"], want, rtol=1e-4, atol=1e-3)


LOOP = """
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


def _loop_kernel(target: str = "Ascend910B"):
    program = incore("a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
                     "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]", LOOP, ret="pl.Tensor[[256, 64], pl.FP32]")
    a, b = fp16_inputs(7, (256, 64), (64, 64))
    return compile_program(program, target=target).pto, {"a": a, "b": b, "out": np.zeros((256, 64), np.float32)}


def _drop(body, kind):
    """``body`` without its instructions of type ``kind`` (at any depth)."""
    out = []
    for ins in body:
        if type(ins) is kind:
            continue
        if isinstance(getattr(ins, "body", None), tuple):
            ins = dataclasses.replace(ins, body=_drop(ins.body, kind))
        out.append(ins)
    return tuple(out)


def _without(pto, kinds):
    k = pto.kernels[pto.entry]
    kernels = dict(pto.kernels)
    body = k.body
    for kind in kinds:
        body = _drop(body, kind)
    kernels[pto.entry] = dataclasses.replace(k, body=body)
    return dataclasses.replace(pto, kernels=kernels)


@pytest.mark.parametrize("kinds, message", [
    ((TPush,), "nothing was pushed to pipe auto0"),
    ((TFree,), "was popped but never freed: the producer would wait forever"),
    ((TPop,), "no popped slot of pipe auto0 to free"),
    ((TPop, TFree), "holds a tile that was never popped"),
])
def test_unpaired_pipe_operations_are_faults_not_hangs(kinds, message):
    pto, inputs = _loop_kernel()
    simulate(pto, dict(inputs))  # as compiled: paired
    with pytest.raises(Deadlock) as info:
        simulate(_without(pto, kinds), dict(inputs))
    assert message in info.value.message


def _records(sim, unit: str, kind) -> list[int]:
    trace = next(t for t in sim.traces if t.name == unit)
    return [r for r, ins in enumerate(trace.instr) if type(ins) is kind], trace


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_each_pop_starts_after_its_push_and_each_push_after_a_free_slot(target):
    pto, inputs = _loop_kernel(target)
    sim = simulate(pto, dict(inputs), target)
    pushes, cube = _records(sim, "core0", TPush)
    assert len(pushes) == 4
    for lane in (0, 1):
        pops, trace = _records(sim, f"core0.aiv{lane}", TPop)
        frees, _ = _records(sim, f"core0.aiv{lane}", TFree)
        assert len(pops) == len(frees) == 4
        for push, pop in zip(pushes, pops, strict=True):
            assert trace.start[pop] >= cube.end[push] - 1e-9
        # ring depth 2: push i + 2 reuses the slot of pop i, freed at the end of that region execution
        for i in range(2):
            assert cube.start[pushes[i + 2]] >= trace.end[frees[i]] - 1e-9
    # the lanes ran concurrently: the kernel is far shorter than the cube's and both lanes' time added up
    assert sim.cycles < sum(sim.unit_cycles.values()) * 0.6


def test_a_lane_cannot_reach_a_cube_memory():
    pto, inputs = _loop_kernel()
    k = pto.kernels[pto.entry]

    def retarget(body):  # make the lane pop into the cube's Acc buffer: an AIV lane sees only Vec and GM
        out = []
        for ins in body:
            if type(ins) is TPop:
                ins = dataclasses.replace(ins, dst="acc")
            if isinstance(getattr(ins, "body", None), tuple):
                ins = dataclasses.replace(ins, body=retarget(ins.body))
            out.append(ins)
        return tuple(out)

    assert any(type(i) is LaneRegion for loop in k.body if hasattr(loop, "body") for i in loop.body)
    bad = dataclasses.replace(pto, kernels={**pto.kernels, pto.entry: dataclasses.replace(k, body=retarget(k.body))})
    from tilefold.sim.faults import IllegalUnit

    with pytest.raises(IllegalUnit) as info:
        simulate(bad, dict(inputs))
    assert "cannot reach Acc" in info.value.message and "core0.aiv0" in info.value.unit
