"""Every cross-core pipe's ring takes on-chip memory, set up or not. A pipe without a set-up (an automatic
``pl.aiv_shard`` / ``pl.aic_gather`` pipe, or pushes and pops on a pipe id nothing initializes) holds
``pl.cross_core_slot(slot_num=N)`` slots (default 2) of the whole crossing tile in the consumer's memory, as PyPTO's
tutorial 03-mixed-kernel counts it: a [128, 128] FP32 tile is a 64 KB slot, so the default depth fits and
``slot_num=4`` "already fails to allocate". The ring changes addresses only: the values are those of numpy."""

from __future__ import annotations

import numpy as np
import pytest
from test_pipe_ops import PARAMS, RET, ROUND_TRIP, _inputs
from xc_helpers import TARGETS, incore, matmul32

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.ir.types import MemorySpace
from tilefold.ops.pipe_setup import ring_bytes
from tilefold.sim import simulate
from tilefold.targets import get_target
from tilefold.testing import run_and_compare

# the tutorial's a @ b + bias in the explicit region form its step 3 names (what pl.split inserts)
TUTORIAL = '''
import tilefold.language as pl

@pl.jit
def mixed(a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16],
          bias: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed"OPTIONS):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(acc)
            bt = pl.slice(bias, [64, 128], [aiv_id * 64, 0])
            out = pl.assemble(out, pl.add(h, bt), [aiv_id * 64, 0])
    return out
'''
SLOT = 128 * 128 * 4  # the whole crossing tile: 64 KB


def _tutorial(slots: int | None) -> str:
    return TUTORIAL.replace("OPTIONS", "" if slots is None else
                            f", optimizations=[pl.cross_core_slot(slot_num={slots})]")


def _tutorial_inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": (rng.standard_normal((128, 128)) / 4).astype(np.float16),
            "b": (rng.standard_normal((128, 128)) / 4).astype(np.float16),
            "bias": rng.standard_normal((128, 128)).astype(np.float32),
            "out": np.zeros((128, 128), np.float32)}


def _kernel(src: str, target: str):
    compiled = compile_program(pl.parse(src), target=target)
    return compiled, next(iter(compiled.pto.kernels.values()))


@pytest.mark.parametrize("target", TARGETS)
def test_the_tutorial_depth_4_fails_to_allocate_naming_the_ring(target):
    with pytest.raises(TilefoldError) as info:
        compile_program(pl.parse(_tutorial(4)), target=target)
    err = info.value
    assert "ring of pipe auto0 (c2v, pl.aiv_shard)" in err.message and "does not fit in Vec" in err.message
    assert f"4 slots of {SLOT} bytes = {4 * SLOT} bytes" in err.message
    assert err.span is not None and err.span.source_line.strip() == "h = pl.aiv_shard(acc)"
    assert "pl.cross_core_slot(slot_num=N)" in err.hint


def test_depth_3_leaves_too_little_for_the_tiles():
    """3 x 64 KB fill Ascend910B's 192 KB of UB: the ring is placed, and the first tile past the end is named."""
    with pytest.raises(TilefoldError) as info:
        compile_program(pl.parse(_tutorial(3)), target="Ascend910B")
    msg = info.value.message
    assert "does not fit in Vec" in msg and f"{3 * SLOT} bytes of it are reserved for cross-core pipe rings" in msg
    assert "'ring of pipe auto0 (c2v, pl.aiv_shard)': 196608 bytes at 0" in msg


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("slots", [None, 2, 1])
def test_a_fitting_depth_runs_with_the_same_values(slots, target):
    inputs = _tutorial_inputs(1)
    want = matmul32(inputs["a"], inputs["b"]) + inputs["bias"]
    report = run_and_compare(pl.parse(_tutorial(slots)), {k: v.copy() for k, v in inputs.items()}, target=target)
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-4, atol=1e-3)
    _, kernel = _kernel(_tutorial(slots), target)
    ring = (slots or 2) * SLOT  # cross_core_slot feeds the ring; the default depth is 2
    vec = [b for b in kernel.buffers.values() if b.space is MemorySpace.Vec]
    assert vec and min(b.address for b in vec) == ring  # every lane tile sits above the ring


def test_the_ring_rule_is_the_set_up_rule():
    """One rule for rings with and without a set-up: a3 keeps local_slot_num slots, a5 all slot_num."""
    a3, a5 = get_target("Ascend910B"), get_target("Ascend950")
    assert ring_bytes(1024, 8, 2, a3) == 2048 and ring_bytes(1024, 8, 2, a5) == 8192


GATHER = '''
import tilefold.language as pl

@pl.jit
def gather(q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed", optimizations=[pl.cross_core_slot(slot_num=3)]):
        mm = pl.matmul(q, k, out_dtype=pl.FP32)
        for _ in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            v = pl.exp(pl.aiv_shard(mm))
            kv = pl.aic_gather(v)
        out[:] = pl.matmul(kv, w, out_dtype=pl.FP32)
    return out
'''


@pytest.mark.parametrize("target", TARGETS)
def test_a_gather_ring_sits_in_the_cubes_l1(target):
    _, kernel = _kernel(GATHER, target)
    joined = 64 * 64 * 4  # the gathered [64, 64] FP32 tile, whole
    mat = [b for b in kernel.buffers.values() if b.space is MemorySpace.Mat]
    assert mat and min(b.address for b in mat) >= 3 * joined  # auto1 (v2c): 3 slots below every L1 tile
    vec = [b for b in kernel.buffers.values() if b.space is MemorySpace.Vec]
    assert min(b.address for b in vec) >= 3 * joined  # auto0 (c2v): the [64, 64] cube tile, 3 slots
    rng = np.random.default_rng(4)
    q, k = ((rng.standard_normal((64, 64)) / 4).astype(np.float16) for _ in range(2))
    w = (rng.standard_normal((64, 64)) / 8).astype(np.float32)
    report = run_and_compare(pl.parse(GATHER), {"q": q, "k": k, "w": w, "out": np.zeros((64, 64), np.float32)},
                             target=target)
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(matmul32(q, k)) @ w, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", TARGETS)
def test_pushes_and_pops_without_a_set_up_reserve_their_rings(target):
    program = incore(PARAMS, ROUND_TRIP.replace("SPLIT", "1").replace("MODE", "UP_DOWN"), ret=RET)
    kernel = next(iter(compile_program(program, target=target).pto.kernels.values()))
    ring = 2 * 64 * 64 * 4  # default depth 2, the whole [64, 64] FP32 tile per slot
    for space in (MemorySpace.Vec, MemorySpace.Mat):  # id0 c2v in each lane's UB, id1 v2c in the cube's L1
        held = [b for b in kernel.buffers.values() if b.space is space]
        assert held and min(b.address for b in held) >= ring, space
    inputs = _inputs(5)
    e = np.exp(matmul32(inputs["a"], inputs["b"]))
    sim = simulate(compile_program(program, target=target).pto, _inputs(5), target)
    np.testing.assert_allclose(sim.outputs["out"], e @ e, rtol=1e-4, atol=1e-3)
