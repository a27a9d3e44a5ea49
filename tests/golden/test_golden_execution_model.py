"""What one golden run of an AIV function means (DESIGN.md section 1): a function written without
``get_subblock_idx`` is ONE logical execution (golden runs it once per block, not once per sub-block); a
function that reads ``get_subblock_idx`` (itself or through a callee) is sub-block-bound and runs once per
sub-block, as on the device. Blocks of a ``block_dim`` launch are distinct executions."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.golden import run_program

HEADER = "import tilefold.language as pl\n\n"
RNG = np.random.default_rng(9)

ACC_PLUS_ONE = HEADER + '''
@pl.program
class AccPlusOne:
    @pl.function(type=pl.FunctionType.{ft})
    def kernel(self, acc: pl.InOut[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        t = pl.tile.load(acc, [0, 0], [128, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        acc = pl.store(u, [0, 0], acc)
        return acc
'''


@pytest.mark.parametrize("func_type", ["AIV", "InCore"])
def test_read_modify_write_kernel_runs_once(func_type):
    acc = RNG.uniform(-1, 1, (128, 64)).astype(np.float32)
    got = run_program(pl.parse(ACC_PLUS_ONE.replace("{ft}", func_type)), {"acc": acc})["acc"]
    np.testing.assert_array_equal(got, acc + np.float32(1.0))  # +1, not +2


BOUND = HEADER + '''
@pl.program
class Bound:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(acc, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        acc = pl.store(u, [0, 0], acc)
        return acc
'''


def test_function_reading_subblock_idx_runs_once_per_sub_block():
    # Reading get_subblock_idx makes the function sub-block-bound even when the index is unused.
    acc = np.zeros((16, 64), np.float32)
    got = run_program(pl.parse(BOUND), {"acc": acc})["acc"]
    np.testing.assert_array_equal(got, np.full((16, 64), 2.0, np.float32))


CALLEE_BOUND = HEADER + '''
@pl.program
class CalleeBound:
    @pl.function(type=pl.FunctionType.AIV)
    def half(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        t = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        out = pl.store(u, [sb * 8, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.half(x, out)
        return out
'''


def test_orchestration_launch_of_bound_kernel_covers_both_halves():
    x = RNG.uniform(-1, 1, (16, 64)).astype(np.float32)
    got = run_program(pl.parse(CALLEE_BOUND), {"x": x})["out"]
    np.testing.assert_array_equal(got, x + np.float32(1.0))  # both sub-blocks ran: every row written


BLOCKS = HEADER + '''
@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [b * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        out = pl.store(u, [b * 8, 0], out)
        return out
'''


def test_blocks_are_distinct_executions_of_an_unbound_aiv_kernel():
    # Four blocks, each one logical execution (no sub-block loop): every block writes its own rows.
    x = RNG.uniform(-1, 1, (32, 64)).astype(np.float32)
    got = run_program(pl.parse(BLOCKS), {"x": x}, block_dim=4)["out"]
    np.testing.assert_array_equal(got, x + np.float32(1.0))


def test_unindexed_block_launch_applies_once_per_block():
    # A read-modify-write kernel that ignores block_idx is applied once per block by golden; on the device
    # such a launch races (the simulator reports RaceDetected, tests/sim/test_races.py).
    acc = np.zeros((128, 64), np.float32)
    got = run_program(pl.parse(ACC_PLUS_ONE.replace("{ft}", "AIV")), {"acc": acc}, block_dim=3)["acc"]
    np.testing.assert_array_equal(got, np.full((128, 64), 3.0, np.float32))
