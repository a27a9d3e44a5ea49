"""Simulator traps (each names instruction, address and a hint) and cycle accounting."""

import math

import numpy as np
import pytest
from sim_helpers import FP32, Acc, Left, Mat, Right, Vec, buf, program, tensor

from tilefold.backend.pto import SConst, SReg, SSpecial, TExtract, TLoad, TMatmul, TStore, TSubview, TVector
from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import DeviceFault, DeviceHang, OutOfBounds, UnsupportedDataPath, simulate
from tilefold.targets import get_target, instruction_cycles

Z = SConst(0)


def _vec_prog(sub_col: int):
    return program(
        [TLoad("t", "x", (Z, Z), (16, 16)),
         TSubview("s", "t", Z, SConst(sub_col), (16, 1)),
         TVector("tmuls", "tile.muls", "y", ("s", SConst(0.5))),
         TStore("out", (Z, Z), "y", (16, 1))],
        [buf("t", Vec, 0, 16, 16), buf("y", Vec, 1024, 16, 1)],
        [tensor("x", (16, 16)), tensor("out", (16, 1), "Out")])


def test_unaligned_vector_operand_hangs():
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    with pytest.raises(DeviceHang) as exc:
        simulate(_vec_prog(1), {"x": x})
    f = exc.value
    assert f.address == 4 and "tmuls" in f.instruction and f.hint
    assert isinstance(f, DeviceFault)


def test_aligned_column_subview_runs():
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    res = simulate(_vec_prog(8), {"x": x})
    np.testing.assert_array_equal(res.outputs["out"], x[:, 8:9] * 0.5)


def _mat_copy_prog(target):
    return program(
        [TLoad("m", "x", (Z, Z), (16, 32)),
         TExtract("m2", "m", Z, SConst(16))],
        [buf("m", Mat, 0, 16, 32), buf("m2", Mat, 4096, 16, 16)],
        [tensor("x", (16, 32))], target=target)


def test_mat_to_mat_copy_traps_on_910c_only():
    x = np.zeros((16, 32), np.float32)
    with pytest.raises(UnsupportedDataPath) as exc:
        simulate(_mat_copy_prog("Ascend910C"), {"x": x})
    assert "Mat -> Mat" in str(exc.value) and exc.value.instruction.startswith("textract")
    simulate(_mat_copy_prog("Ascend910B"), {"x": x})


def test_gm_out_of_bounds():
    p = program([TLoad("t", "x", (SConst(8), Z), (16, 16))], [buf("t", Vec, 0, 16, 16)], [tensor("x", (16, 16))])
    with pytest.raises(OutOfBounds) as exc:
        simulate(p, {"x": np.zeros((16, 16), np.float32)})
    assert exc.value.space == "GM" and "tload" in exc.value.instruction


def test_memory_space_out_of_bounds():
    cap = get_target().capacity(MemorySpace.Vec)
    p = program([TLoad("t", "x", (Z, Z), (16, 16))], [buf("t", Vec, cap - 512, 16, 16)], [tensor("x", (16, 16))])
    with pytest.raises(OutOfBounds) as exc:
        simulate(p, {"x": np.zeros((16, 16), np.float32)})
    assert exc.value.address == cap - 512


def test_vector_op_on_mat_is_an_unsupported_path():
    p = program([TLoad("t", "x", (Z, Z), (16, 16)), TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0)))],
                [buf("t", Mat, 0, 16, 16), buf("y", Vec, 0, 16, 16)], [tensor("x", (16, 16))])
    with pytest.raises(UnsupportedDataPath):
        simulate(p, {"x": np.zeros((16, 16), np.float32)})


def test_cycle_accounting_matches_target_prices():
    t = get_target()
    p = program(
        [TLoad("t", "x", (Z, Z), (16, 64)),
         TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0))),
         TStore("out", (Z, Z), "y", (16, 64))],
        [buf("t", Vec, 0, 16, 64), buf("y", Vec, 4096, 16, 64)],
        [tensor("x", (16, 64)), tensor("out", (16, 64), "Out")])
    res = simulate(p, {"x": np.ones((16, 64), np.float32)})
    nbytes = 16 * 64 * 4
    tmuls = instruction_cycles("TMULS", "fp32", (16, 64)).cycles
    measured = 0.0156 * 16 * 64 + 26  # PTO-ISA's measured TMULS fp32 line at 64 columns
    assert abs(tmuls - measured) <= 0.25 * measured
    load = t.path_cost(MemorySpace.DDR, MemorySpace.Vec)
    store = t.path_cost(MemorySpace.Vec, MemorySpace.DDR)
    # a dependent chain (load -> vector -> store): serial, after the target's launch overhead
    expected = (t.launch_overhead_cycles + load.latency + math.ceil(nbytes / load.bytes_per_cycle)
                + tmuls  # the table's TMULS fp32 16x64 price
                + store.latency + math.ceil(nbytes / store.bytes_per_cycle))
    assert res.cycles == expected
    assert res.unit_cycles == {"core0": expected}
    assert res.instructions == 3  # set_flag / wait_flag are not counted as instructions
    assert res.bytes_moved == 2 * nbytes


def test_kernel_time_is_max_over_parallel_units_and_aiv_runs_both_sub_blocks():
    # sub-block 1 does twice the vector work of sub-block 0 (a loop of subblock_idx + 1 iterations)
    from tilefold.backend.pto import For, SBin

    # each (block, sub-block) unit owns rows [16 * block + 8 * subblock, +8): units never share GM bytes
    row = SBin("+", SBin("*", SSpecial("block_idx"), SConst(16)), SBin("*", SSpecial("subblock_idx"), SConst(8)))
    body = [TLoad("t", "x", (row, Z), (8, 64)),
            For("i", Z, SBin("+", SSpecial("subblock_idx"), SConst(1)), SConst(1),
                (TVector("tmuls", "tile.muls", "t", ("t", SConst(2.0))),)),
            TStore("out", (row, Z), "t", (8, 64))]
    p = program(body, [buf("t", Vec, 0, 8, 64)], [tensor("x", (32, 64)), tensor("out", (32, 64), "Out")],
                func_type="AIV")
    res = simulate(p, {"x": np.ones((32, 64), np.float32)}, block_dim=2)
    assert set(res.unit_cycles) == {"core0.aiv0", "core0.aiv1", "core1.aiv0", "core1.aiv1"}
    assert res.unit_cycles["core0.aiv1"] > res.unit_cycles["core0.aiv0"]
    assert res.cycles == max(res.unit_cycles.values())
    out = res.outputs["out"]
    for block in (0, 1):
        np.testing.assert_array_equal(out[16 * block:16 * block + 8], 2.0)
        np.testing.assert_array_equal(out[16 * block + 8:16 * block + 16], 4.0)


def test_mad_writes_destination_densely_without_stride():
    """A [16, 32] MAD through a row window of a [32, 32] NZ accumulator: its second column block lands
    on the parent's second row block."""
    bf = DataType.BF16
    ident = np.eye(16, 32, dtype=np.float32)
    rhs = np.arange(32 * 32, dtype=np.float32).reshape(32, 32) / 64
    p = program(
        [TLoad("a", "x", (Z, Z), (16, 32)), TLoad("b", "w", (Z, Z), (32, 32)),
         TExtract("l", "a", Z, Z), TExtract("r", "b", Z, Z),
         TSubview("win", "c", Z, Z, (16, 32)),
         TMatmul("tmatmul", "tile.matmul", "win", ("l", "r")),
         TStore("out", (Z, Z), "win", (16, 32))],
        [buf("a", Mat, 0, 16, 32, bf), buf("b", Mat, 2048, 32, 32, bf), buf("l", Left, 0, 16, 32, bf),
         buf("r", Right, 0, 32, 32, bf), buf("c", Acc, 0, 32, 32)],
        [tensor("x", (16, 32), dtype=bf), tensor("w", (32, 32), dtype=bf), tensor("out", (16, 32), "Out")])
    import ml_dtypes

    res = simulate(p, {"x": ident.astype(ml_dtypes.bfloat16), "w": rhs.astype(ml_dtypes.bfloat16)})
    want = ident @ rhs.astype(ml_dtypes.bfloat16).astype(np.float32)
    got = res.outputs["out"]
    np.testing.assert_array_equal(got[:, :16], want[:, :16])
    assert not np.array_equal(got[:, 16:], want[:, 16:])


def test_memories_are_allocated_once_per_core():
    from tilefold.sim.machine import Machine

    m = Machine(get_target())
    core = m.core(0)
    a = core.memory(MemorySpace.Vec, 0)
    assert core.memory(MemorySpace.Vec, 0) is a
    assert core.memory(MemorySpace.Vec, 1) is not a
    assert m.core(0) is core


def test_subview_register_offsets_are_runtime():
    p = program(
        [TLoad("t", "x", (Z, Z), (8, 16)),
         TSubview("row", "t", SReg("r"), Z, (1, 16)),
         TVector("tadds", "tile.adds", "y", ("row", SConst(1.0))),
         TStore("out", (Z, Z), "y", (1, 16))],
        [buf("t", Vec, 0, 8, 16), buf("y", Vec, 1024, 1, 16)],
        [tensor("x", (8, 16)), tensor("out", (1, 16), "Out")], scalars=("r",))
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    res = simulate(p, {"x": x, "r": 3})
    np.testing.assert_array_equal(res.outputs["out"], x[3:4] + 1)
    assert FP32 is DataType.FP32
