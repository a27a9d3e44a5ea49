"""Atomic adds on the simulator (``tstore ... atomic=add``): a read-add-write of the GM window; the race detector
lets atomic adds of different units overlap (they commute) but reports an atomic add against a plain write or a
live read of another unit. References are computed here with numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.sim import RaceDetected, simulate
from tilefold.testing import run_and_compare

HEADER = "import tilefold.language as pl\n\n"
OFF = {"enable_auto_bind_sub_block": False}
RNG = np.random.default_rng(23)

# both sub-blocks (the function reads get_subblock_idx: golden runs it per sub-block too) add into the SAME bytes
BOTH_ADD = '''
@pl.program
class BothAdd:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        out = pl.store(u, [0, 0], out, atomic={second})
        return out
'''


def _sim(src: str, inputs: dict):
    compiled = compile(pl.parse(HEADER + src), target="Ascend910B", options=OFF)
    return simulate(compiled.pto, inputs, compiled.target)


def test_atomic_adds_of_two_sub_blocks_into_the_same_bytes_do_not_race_and_sum():
    x = RNG.uniform(-1, 1, (16, 64)).astype(np.float32)
    old = RNG.uniform(-1, 1, (16, 64)).astype(np.float32)
    src = BOTH_ADD.replace("{second}", "pl.AtomicType.Add")
    got = _sim(src, {"x": x, "out": old.copy()}).outputs["out"]
    np.testing.assert_allclose(got, old + 2 * (x + 1), rtol=1e-6, atol=1e-6)  # one add per sub-block
    report = run_and_compare(pl.parse(HEADER + src), {"x": x, "out": old.copy()}, options=OFF)
    assert report.matches, report.details


def test_an_atomic_add_against_a_plain_store_of_the_other_sub_block_races():
    src = BOTH_ADD.replace(
        "        out = pl.store(u, [0, 0], out, atomic={second})\n",
        "        if sb == 0:\n"
        "            o2 = pl.store(u, [0, 0], out, atomic=pl.AtomicType.Add)\n"
        "            out = pl.yield_(o2)\n"
        "        else:\n"
        "            o3 = pl.store(u, [0, 0], out)\n"
        "            out = pl.yield_(o3)\n")
    with pytest.raises(RaceDetected) as info:
        _sim(src, {"x": np.ones((16, 64), np.float32), "out": np.zeros((16, 64), np.float32)})
    fault = info.value
    assert fault.tensor == "out" and fault.first.write and fault.second.write
    texts = {fault.first.instruction, fault.second.instruction}
    assert any("atomic=add" in t for t in texts) and any("atomic" not in t for t in texts)
    assert {fault.first.unit, fault.second.unit} == {"core0.aiv0 (block 0)", "core0.aiv1 (block 0)"}


ADD_AND_READ = '''
@pl.program
class AddRead:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
               y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        acc = pl.store(t, [{row}, 0], acc, atomic=pl.AtomicType.Add)
        u = pl.tile.load(acc, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        y = pl.store(u, [sb * 8, 0], y)
        return y
'''


def test_an_atomic_add_into_rows_the_other_sub_block_reads_is_a_race():
    inputs = {"x": np.ones((16, 64), np.float32), "acc": np.zeros((16, 64), np.float32)}
    with pytest.raises(RaceDetected) as info:  # sub-block sb adds into the rows the other one reads back
        _sim(ADD_AND_READ.replace("{row}", "(1 - sb) * 8"), inputs)
    fault = info.value
    assert fault.tensor == "acc" and fault.first.write and not fault.second.write
    assert "atomic=add" in fault.first.instruction and fault.second.instruction.startswith("tload")
    # each sub-block adding into (and reading) its own rows: ordered within the unit, no race
    got = _sim(ADD_AND_READ.replace("{row}", "sb * 8"), dict(inputs, acc=np.full((16, 64), 2.0, np.float32)))
    np.testing.assert_array_equal(got.outputs["y"], np.full((16, 64), 3.0, np.float32))
