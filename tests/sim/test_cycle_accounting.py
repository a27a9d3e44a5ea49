"""Cycle accounting: every instruction class is priced from the target's parameters.

Under the pipe model (``tilefold.sim.timeline``) each program here is a dependent chain or runs on one
pipe, so its time is still the sum of its instructions' prices: these tests pin the prices; the overlap
rules are in ``test_pipe_model.py``.

The tests run on a target whose cost parameters differ from the defaults, and compute every expected
number from that target's ``CostModel`` / path costs: a simulator that ignored a parameter (or hard-coded
a default) would miss.
"""

import dataclasses
import math

import numpy as np
import pytest
from sim_helpers import FP32, Acc, Left, Right, Vec, buf, program, tensor

from tilefold.backend.pto import (
    For,
    If,
    Launch,
    PTOKernel,
    PTOProgram,
    SAssign,
    SBin,
    SConst,
    SReg,
    SSpecial,
    TCustom,
    TensorParam,
    TLoad,
    TMatmul,
    TStore,
    TVector,
    While,
)
from tilefold.backend.sync import insert_syncs
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import simulate
from tilefold.targets import get_target

Z = SConst(0)
DDR, VEC = MemorySpace.DDR, MemorySpace.Vec


@pytest.fixture(scope="module")
def target():
    base = get_target("Ascend910B")
    costs = dataclasses.replace(base.costs, cube_startup=5, cube_fractals_per_cycle=0.5, cube_fractal=(16, 16, 16),
                                scalar_op=3, custom_startup=11, vector_bytes_per_cycle=128, vector_startup=13)
    return base.with_changes(name="Ascend910B-test-costs", costs=costs, launch_overhead_cycles=0)


def _dma(t, src, dst, nbytes):
    pc = t.path_cost(src, dst)
    return pc.latency + math.ceil(nbytes / pc.bytes_per_cycle)


def _vector(t, nbytes):
    return t.costs.vector_startup + math.ceil(nbytes / t.costs.vector_bytes_per_cycle)


# --- cube ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, acc_dtype", [(DataType.BF16, DataType.FP32), (DataType.FP32, DataType.FP32),
                                              (DataType.INT8, DataType.INT32)])
@pytest.mark.parametrize("m, k, n", [(16, 16, 16), (20, 40, 24), (64, 96, 32)])
def test_cube_instruction_prices_its_fractals(target, dtype, acc_dtype, m, k, n):
    """A fractal is cube_fractal (m, k, n) for 16-bit inputs and holds 32 bytes of lhs row: its K depth is
    32 / itemsize elements. Partial fractals cost a whole one."""
    p = program([TMatmul("tmatmul", "tile.matmul", "c", ("a", "b"))],
                [buf("a", Left, 0, m, k, dtype), buf("b", Right, 0, k, n, dtype), buf("c", Acc, 0, m, n, acc_dtype)],
                [])
    res = simulate(p, {}, target=target)
    c = target.costs
    fm, fk, fn = c.cube_fractal
    k0 = fk * 2 // dtype.itemsize  # K elements per fractal row: fk 16-bit values' worth of bytes
    fractals = math.ceil(m / fm) * math.ceil(k / k0) * math.ceil(n / fn)
    assert res.cycles == c.cube_startup + math.ceil(fractals / c.cube_fractals_per_cycle)
    assert res.instructions == 1


def test_cube_price_follows_the_target_rate():
    base = get_target().with_changes(launch_overhead_cycles=0)
    p = program([TMatmul("tmatmul", "tile.matmul", "c", ("a", "b"))],
                [buf("a", Left, 0, 64, 64, DataType.BF16), buf("b", Right, 0, 64, 64, DataType.BF16),
                 buf("c", Acc, 0, 64, 64)], [])
    slow = base.with_changes(costs=dataclasses.replace(base.costs, cube_fractals_per_cycle=0.25))
    fast = base.with_changes(costs=dataclasses.replace(base.costs, cube_fractals_per_cycle=4.0))
    fractals = 4 * 4 * 4
    assert simulate(p, {}, target=slow).cycles == base.costs.cube_startup + fractals * 4
    assert simulate(p, {}, target=fast).cycles == base.costs.cube_startup + fractals // 4


# --- scalar code, loops, branches -------------------------------------------------------------------


def test_scalar_expressions_cost_one_op_per_alu_node(target):
    s = target.costs.scalar_op
    body = [SAssign("a", SConst(5)),  # a move: one op
            SAssign("b", SBin("+", SBin("*", SReg("a"), SConst(3)), SConst(1))),  # two ALU ops
            SAssign("c", SBin("min", SReg("b"), SSpecial("block_idx")))]  # one
    res = simulate(program(body, [], []), {}, target=target)
    assert res.cycles == s * (1 + 2 + 1)
    assert res.instructions == 3


def test_loop_iterations_cost_the_loop_overhead_plus_the_body(target):
    s = target.costs.scalar_op
    n = 7
    body = [SAssign("acc", Z),
            For("i", SConst(0), SConst(n), SConst(1), (SAssign("acc", SBin("+", SReg("acc"), SReg("i"))),))]
    res = simulate(program(body, [], []), {}, target=target)
    assert res.cycles == s + n * (s + s)  # init; per iteration: loop step + one add


def test_while_loop_overhead(target):
    s = target.costs.scalar_op
    body = [SAssign("i", Z),
            While(SBin("<", SReg("i"), SConst(4)), (SAssign("i", SBin("+", SReg("i"), SConst(1))),))]
    res = simulate(program(body, [], []), {}, target=target)
    assert res.cycles == s + 4 * (s + s)


@pytest.mark.parametrize("taken", [True, False])
def test_if_costs_the_branch_decision_plus_the_taken_branch(target, taken):
    s = target.costs.scalar_op
    then_body = (SAssign("x", SBin("+", SBin("+", SConst(1), SConst(2)), SConst(3))),)  # two ops
    else_body = (SAssign("x", SConst(0)),)  # one op
    res = simulate(program([If(SConst(taken), then_body, else_body)], [], []), {}, target=target)
    assert res.cycles == s + (2 * s if taken else s)


# --- vector and DMA --------------------------------------------------------------------------------


def test_vector_and_dma_prices_use_the_target_parameters(target):
    rows, cols = 16, 48
    nbytes = rows * cols * 4
    p = program(
        [TLoad("t", "x", (Z, Z), (rows, cols)), TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0))),
         TStore("out", (Z, Z), "y", (rows, cols))],
        [buf("t", Vec, 0, rows, cols), buf("y", Vec, 4096, rows, cols)],
        [tensor("x", (rows, cols)), tensor("out", (rows, cols), "Out")])
    res = simulate(p, {"x": np.ones((rows, cols), np.float32)}, target=target)
    assert res.cycles == _dma(target, DDR, VEC, nbytes) + _vector(target, nbytes) + _dma(target, VEC, DDR, nbytes)


# --- custom ops ------------------------------------------------------------------------------------


def _double(x):
    return x * 2


@pytest.fixture
def custom_ops():
    register_custom_op("test.cycles.priced", _double, cost=lambda shape: 3 * shape[0] * shape[1] + 17)
    register_custom_op("test.cycles.unpriced", _double)
    yield
    unregister_custom_op("test.cycles.priced")
    unregister_custom_op("test.cycles.unpriced")


def _custom_prog(symbol, rows=8, cols=24):
    return program([TCustom(symbol, ("y",), ("t",))],
                   [buf("t", Vec, 0, rows, cols), buf("y", Vec, 2048, rows, cols)], [])


def test_custom_op_uses_its_registered_cost(target, custom_ops):
    res = simulate(_custom_prog("test.cycles.priced"), {}, target=target)
    assert res.cycles == 3 * 8 * 24 + 17


def test_unpriced_custom_op_costs_bytes_over_the_vector_rate(target, custom_ops):
    res = simulate(_custom_prog("test.cycles.unpriced"), {}, target=target)
    nbytes = 2 * 8 * 24 * 4  # inputs read + outputs written
    assert res.cycles == target.costs.custom_startup + math.ceil(nbytes / target.costs.vector_bytes_per_cycle)


# --- orchestrations: the sum over launches ---------------------------------------------------------


def _synced(body, buffers):
    return insert_syncs(body, buffers, get_target())


def _orchestration():
    scale = PTOKernel(
        "scale", "InCore", (TensorParam("src", (16, 64), FP32, "In"), TensorParam("dst", (16, 64), FP32, "Out")),
        (), ("src", "dst"), {"t": buf("t", Vec, 0, 16, 64)},
        _synced((TLoad("t", "src", (Z, Z), (16, 64)), TVector("tmuls", "tile.muls", "t", ("t", SConst(2.0))),
                 TStore("dst", (Z, Z), "t", (16, 64))), {"t": buf("t", Vec, 0, 16, 64)}))
    # sub-block 1 loops twice as long as sub-block 0: the launch takes the slower one
    half = SBin("*", SSpecial("subblock_idx"), SConst(8))
    bump = PTOKernel(
        "bump", "AIV", (TensorParam("src", (16, 64), FP32, "In"), TensorParam("dst", (16, 64), FP32, "Out")),
        (), ("src", "dst"), {"h": buf("h", Vec, 0, 8, 64)},
        _synced((TLoad("h", "src", (half, Z), (8, 64)),
                 For("i", Z, SBin("+", SSpecial("subblock_idx"), SConst(1)), SConst(1),
                     (TVector("tadds", "tile.adds", "h", ("h", SConst(1.0))),)),
                 TStore("dst", (half, Z), "h", (8, 64))), {"h": buf("h", Vec, 0, 8, 64)}))
    return PTOProgram(
        "orch", "Ascend910B", {"scale": scale, "bump": bump}, "main",
        orchestration=(Launch("scale", (("src", "x"), ("dst", "mid"))),
                       Launch("bump", (("src", "mid"), ("dst", "out")))),
        entry_tensors=(TensorParam("x", (16, 64), FP32, "In"), TensorParam("out", (16, 64), FP32, "Out")),
        entry_locals=(TensorParam("mid", (16, 64), FP32, "Local"),))


def test_orchestration_time_is_the_sum_of_its_launches(target):
    x = np.linspace(-1, 1, 16 * 64, dtype=np.float32).reshape(16, 64)
    res = simulate(_orchestration(), {"x": x}, target=target)
    out = res.outputs["out"]
    np.testing.assert_array_equal(out[:8], x[:8] * 2 + 1)
    np.testing.assert_array_equal(out[8:], x[8:] * 2 + 1 + 1)

    s = target.costs.scalar_op
    full, half = 16 * 64 * 4, 8 * 64 * 4
    scale = _dma(target, DDR, VEC, full) + _vector(target, full) + _dma(target, VEC, DDR, full)
    # offset expressions are part of the DMA instruction (no scalar cost); the loop's scalar steps run on
    # the S pipe while the load is in flight, so only the vector work of each iteration adds up
    assert s < _dma(target, DDR, VEC, half)
    bump = [_dma(target, DDR, VEC, half) + (sb + 1) * _vector(target, half) + _dma(target, VEC, DDR, half)
            for sb in range(2)]
    assert [launch["cycles"] for launch in res.launches] == [scale, max(bump)]
    assert res.cycles == scale + max(bump)
    assert res.unit_cycles == {"core0": scale, "core0.aiv0": bump[0], "core0.aiv1": bump[1]}
