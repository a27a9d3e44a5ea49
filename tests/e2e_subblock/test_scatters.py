"""Scatters end to end through the default pipeline, TileAndBindSubBlock on and off: a kernel that stores a tile
and scatters the same rows into a cache by a ``tile.ci`` index (split: each sub-block stores and scatters its own
rows), and the same kernel with the cache rows loaded from GM (the scatter may write one row from both halves: it
stays whole, so its source is needed whole and halved, and the kernel rolls back to sub-block 0). Results against
numpy written here, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from e2e_sb_helpers import SPEEDUPS, TARGETS, guard_count, run

import tilefold.language as pl
from tilefold.ir.visitor import IRVisitor
from tilefold.testing import sub_block_evidence

KERNEL = '''import tilefold.language as pl


@pl.program
class CacheWrite:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], slots: pl.Tensor[[32, 1], pl.INT32],
               y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
               cache: pl.InOut[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        y = pl.store(e, [0, 0], y)
{index}
        cache = pl.tile.mscatter(e, j, cache)
        return y
'''
CI = "        j: pl.Tile[[32, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(40, [32, 1], dtype=pl.INT32)"
LOADED = ("        j: pl.Tile[[32, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(slots, [0, 0], [32, 1], "
          "target_memory=pl.Mem.Vec)")


class _Scatters(IRVisitor):
    def __init__(self) -> None:
        self.tiled: list[bool] = []

    def visit_Call(self, expr) -> None:
        if expr.op_name == "tile.mscatter":
            self.tiled.append(bool(expr.kwarg("tiled_op")))
        super().visit_Call(expr)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index", ["ci", "loaded"])
def test_cache_write_with_the_pass_on_and_off(target, index):
    program = pl.parse(KERNEL.format(index=CI if index == "ci" else LOADED), "cache_write.py")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    cache = rng.standard_normal((128, 64)).astype(np.float32)
    slots = rng.permutation(128)[:32].astype(np.int32)
    slots[31] = slots[0]  # a slot named by both halves' rows: the later row (31) must win
    rows = range(40, 72) if index == "ci" else slots
    want = cache.copy()
    for k, r in enumerate(rows):
        want[r] = x[k] * np.float32(3.0)
    inputs = {"x": x, "slots": slots.reshape(32, 1), "y": np.zeros_like(x), "cache": cache}
    reports = {}
    for on in (False, True):
        rep = run(program, target, on, {k: v.copy() for k, v in inputs.items()})
        assert rep.result == "correct", rep.summary()
        np.testing.assert_array_equal(rep.outputs["y"].view(np.uint32), (x * np.float32(3.0)).view(np.uint32))
        np.testing.assert_array_equal(rep.outputs["cache"].view(np.uint32), want.view(np.uint32))
        scatters = _Scatters()
        for fn in rep.compiled.ir.functions:
            scatters.visit_function(fn)
        assert scatters.tiled == [on and index == "ci"]
        reports[on] = rep
    evidence = sub_block_evidence(reports[True].compiled.ir)
    if index == "ci":
        assert evidence.split and evidence.axis == {"kernel": 0}, evidence.problems
        assert guard_count(reports[True].compiled.ir) == 0
    else:
        assert not evidence.split and guard_count(reports[True].compiled.ir) == 2  # the store and the scatter
    SPEEDUPS[(f"mscatter_{index}", target)] = (reports[False].cycles, reports[True].cycles)
