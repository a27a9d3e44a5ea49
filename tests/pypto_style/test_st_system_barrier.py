"""PyPTO's in-kernel barrier in its own shapes (language/04 SPMD, performance/02 "Synchronize inside the kernel"):
the launch sized by ``pl.system.available_cluster_count()`` / ``available_aiv_count()`` written inline, the
conservative handoff ``cacheinvalid(); fence(); syncall(...); cacheinvalid()``, run through PyPTO's runner."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from tests.pypto_style.st_harness import rand, run_case

import tilefold.language as pl
from tilefold.backend.system_sync import BarrierOccupancyError
from tilefold.targets import get_target

CLUSTERS = get_target("Ascend910B").num_aic
AIV = get_target("Ascend910B").num_aiv


def get_exchange_program(rows: int, cols: int, query: bool):
    """Phase 1: block ``b`` stores ``2 * a[b]`` into ``mid``. Phase 2: it reads the rows two other blocks wrote,
    ``mid[(b + 7) % rows]`` and ``mid[(b + 13) % rows]``, and stores their sum minus ``a[b]``."""

    @pl.program
    class Exchange:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[rows, cols], pl.FP32], mid: pl.InOut[pl.Tensor[[rows, cols], pl.FP32]],
                   out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            blk = pl.tile.get_block_idx()
            t = pl.load(a, [blk, 0], [1, cols])
            mid = pl.store(pl.muls(t, 2.0), [blk, 0], mid)
            pl.system.cacheinvalid()  # publish all producer cache lines
            pl.system.fence()  # wait until they are visible in GM
            pl.system.syncall(core_type="mix")  # synchronize arrival only
            pl.system.cacheinvalid()  # consumer invalidates before reading
            x = pl.load(mid, [(blk + 7) % rows, 0], [1, cols])
            y = pl.load(mid, [(blk + 13) % rows, 0], [1, cols])
            out = pl.store(pl.sub(pl.add(x, y), t), [blk, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[rows, cols], pl.FP32], mid: pl.InOut[pl.Tensor[[rows, cols], pl.FP32]],
                         out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.spmd(pl.system.available_cluster_count()):
                out = self.kernel(a, mid, out)
            return out

    if query:
        return Exchange
    # the same launch written with a literal 4 (the kernel's block count, as `with pl.spmd(4):` records it)
    fns = tuple(f.with_attr("block_dim", 4) if f.name == "kernel" else f for f in Exchange.functions)
    return dataclasses.replace(Exchange, functions=fns)


def _expected(rows: int):
    def expected(t):
        a = t["a"]
        return {"out": 2 * np.roll(a, -7, axis=0) + 2 * np.roll(a, -13, axis=0) - a, "mid": 2 * a}

    return expected


def test_exchange_across_the_barrier_at_full_occupancy():
    rows, cols = CLUSTERS, 64
    a = rand((rows, cols), "fp32", seed=11)
    run_case(get_exchange_program(rows, cols, True), {"a": a},
             {"mid": np.zeros_like(a), "out": np.zeros_like(a)}, _expected(rows), terms=3)


def test_literal_partial_launch_is_refused_like_hard_syncall_occupancy_valid():
    from tilefold.compiler import compile as compile_program

    with pytest.raises(BarrierOccupancyError, match="partial launch") as info:
        compile_program(get_exchange_program(CLUSTERS, 64, False), target="Ascend910B")
    assert "507018" in info.value.message and info.value.span is not None


@pl.jit
def scale_then_gather(a: pl.Tensor[[AIV, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[AIV, 64], pl.FP32]],
                      out: pl.Out[pl.Tensor[[AIV, 64], pl.FP32]]):
    # performance/02: a hard barrier with the grid sized from the device, vector-only (aiv_only)
    with pl.spmd(pl.system.available_aiv_count()):
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i, 0], [1, 64])
        mid = pl.store(pl.exp(t), [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        last = pl.load(mid, [AIV - 1 - i, 0], [1, 64])
        out = pl.store(pl.mul(last, t), [i, 0], out)
    return out


def test_jit_with_form_sized_by_available_aiv_count():
    a = rand((AIV, 64), "fp32", seed=4)
    mid, out = np.zeros_like(a), np.zeros_like(a)
    scale_then_gather(a, mid, out)
    want = np.exp(a[::-1].astype(np.float64)) * a
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
