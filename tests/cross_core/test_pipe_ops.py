"""The explicit TPUSH / TPOP / TFREE operators of a mixed kernel: the cube pushes before a pl.split_aiv region and
pops after it, each lane pops / pushes / frees inside it. Pairing is checked where it can be proved (a pop needs an
earlier push to its pipe for its type) and otherwise by the golden interpreter and the simulator, which report an
unpaired pop or a missing free as a fault (a stall once the ring fills), never a hang or a made-up value."""

from __future__ import annotations

import numpy as np
import pytest
from xc_helpers import TARGETS, fp16_inputs, incore, matmul32

from tilefold.compiler import compile as compile_program
from tilefold.compiler import run_pipeline
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.sim.faults import Deadlock

PARAMS = ("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
          "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
RET = "pl.Tensor[[64, 64], pl.FP32]"
MM = """
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
"""
ROUND_TRIP = MM + """
pl.tpush_to_aiv(acc, split=SPLIT, id=0)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.MODE):
    h = pl.tpop_from_aic(split=SPLIT, id=0)
    e = pl.exp(h)
    pl.tfree_to_aic(h, id=0)
    pl.tpush_to_aic(e, split=SPLIT, id=1)
g = pl.tpop_from_aiv(split=SPLIT, id=1)
r = pl.tile.matmul(g, g)
pl.tfree_to_aiv(g, id=1)
out = pl.store(r, [0, 0], out)
return out
"""


def _inputs(seed: int = 0) -> dict[str, np.ndarray]:
    a, b = fp16_inputs(seed, (64, 64), (64, 64))
    return {"a": a, "b": b, "out": np.zeros((64, 64), np.float32)}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode, split", [("NONE", 0), ("UP_DOWN", 1), ("LEFT_RIGHT", 2)])
def test_push_pop_free_round_trip(mode, split, target):
    program = incore(PARAMS, ROUND_TRIP.replace("SPLIT", str(split)).replace("MODE", mode), ret=RET)
    inputs = _inputs(3)
    e = np.exp(matmul32(inputs["a"], inputs["b"]))
    want = e @ e
    np.testing.assert_allclose(run_program(program, dict(inputs))["out"], want, rtol=1e-4, atol=1e-3)
    sim = simulate(compile_program(program, target=target).pto, _inputs(3), target)
    np.testing.assert_allclose(sim.outputs["out"], want, rtol=1e-4, atol=1e-3)


LOOPED = """
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
for i in pl.range(4):
    a_t = pl.load(a, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
    acc = pl.tile.matmul(a_t, b_t)
    pl.tpush_to_aiv(acc, split=1, id=0)
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        h = pl.tpop_from_aic(split=1, id=0)
        out = pl.store(h, [i * 64 + aiv_id * 32, 0], out)
        pl.tfree_to_aic(h, id=0)
return out
"""
LOOPED_PARAMS = ("a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
                 "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")


def _looped(body: str):
    program = incore(LOOPED_PARAMS, body, ret="pl.Tensor[[256, 64], pl.FP32]")
    a, b = fp16_inputs(4, (256, 64), (64, 64))
    return program, {"a": a, "b": b, "out": np.zeros((256, 64), np.float32)}


def test_a_ring_of_slots_across_loop_iterations():
    program, inputs = _looped(LOOPED)
    want = matmul32(inputs["a"], inputs["b"])
    np.testing.assert_allclose(run_program(program, dict(inputs))["out"], want, rtol=2e-6 * 64, atol=1e-5)
    sim = simulate(compile_program(program).pto, dict(inputs))
    np.testing.assert_allclose(sim.outputs["out"], want, rtol=2e-6 * 64, atol=1e-5)


def test_a_missing_free_stalls_the_producer_once_the_ring_fills():
    program, inputs = _looped(LOOPED.replace("        pl.tfree_to_aic(h, id=0)\n", ""))
    with pytest.raises(Deadlock) as info:
        simulate(compile_program(program).pto, dict(inputs))
    assert "all 2 slots of pipe id0 are taken" in info.value.message
    assert "popped but never freed" in info.value.message


def test_more_pops_than_pushes_are_reported():
    # one push before the loop, a pop in every iteration: the second region's pops find nothing
    body = LOOPED.replace("    pl.tpush_to_aiv(acc, split=1, id=0)\n", "").replace(
        "b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n",
        "b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
        "a0 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
        "acc0 = pl.tile.matmul(a0, b_t)\npl.tpush_to_aiv(acc0, split=1, id=0)\n")
    program, inputs = _looped(body)
    with pytest.raises(TilefoldError) as golden:
        run_program(program, dict(inputs))
    assert "nothing was pushed to the pipe" in golden.value.message
    with pytest.raises(Deadlock) as device:
        simulate(compile_program(program).pto, dict(inputs))
    assert "nothing was pushed to pipe id0" in device.value.message


@pytest.mark.parametrize("body, message", [
    (MM + "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    h = pl.tpop_from_aic(split=0, id=3)\n"
          "    out = pl.store(h, [0, 0], out)\nreturn out\n",
     "pl.tpop_from_aic(id=3) has no earlier pl.tpush_to_aiv to the same pipe id"),
])
def test_a_pop_with_no_push_to_its_pipe_is_a_parse_error(body, message):
    with pytest.raises(TilefoldError) as info:
        incore(PARAMS, body, ret=RET)
    assert message in info.value.message and info.value.span is not None


@pytest.mark.parametrize("body, message", [
    (MM + "h = pl.tpop_from_aic(split=0, id=0, shape=[64, 64], dtype=pl.FP32)\nout = pl.store(h, [0, 0], out)\n"
          "return out\n", "pl.tpop_from_aic runs on a vector lane, outside every pl.split_aiv region"),
    (MM + "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    pl.tpush_to_aiv(acc, split=0, id=0)\n"
          "return out\n", "pl.tpush_to_aiv runs on the cube, inside a pl.split_aiv region"),
])
def test_pipe_ops_on_the_wrong_side(body, message):
    with pytest.raises(TilefoldError) as info:
        run_pipeline(incore(PARAMS, body, ret=RET))
    assert message in info.value.message and info.value.span is not None
