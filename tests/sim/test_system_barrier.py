"""PyPTO's multi-block system ops: ``pl.system.available_*_count()``, ``syncall`` (hard / soft), ``fence`` and
``cacheinvalid`` (docs/dsl.md "Barriers inside a launch"). Each run is checked against numpy written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.system_sync import BarrierOccupancyError
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.sim.barrier import StaleData
from tilefold.sim.faults import Deadlock, RaceDetected
from tilefold.targets import get_target
from tilefold.targets.system import available_count
from tilefold.testing.harness import run_and_compare

AIV = get_target("Ascend910B").num_aiv  # 48
CLUSTERS = get_target("Ascend910B").num_aic  # 24


def _rotate_program(rows: int, *, barrier: bool = True, publish: bool = True, consume: bool = True,
                    core_type: str = "aiv_only"):
    """Block ``b`` stores row ``b`` of ``a`` into ``mid``; after the barrier it reads row ``b + 1`` (written by the
    next block) and stores ``mid[b + 1] + a[b]`` into ``out``."""

    @pl.program
    class Rotate:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[rows, 64], pl.FP32]],
              out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            b = pl.tile.get_block_idx()
            t = pl.load(a, [b, 0], [1, 64])
            mid = pl.store(t, [b, 0], mid)
            if publish:
                pl.system.cacheinvalid()
                pl.system.fence()
            if barrier:
                pl.system.syncall(core_type=core_type)
            if consume:
                pl.system.cacheinvalid()
            nxt = pl.load(mid, [(b + 1) % rows, 0], [1, 64])
            out = pl.store(pl.add(nxt, t), [b, 0], out)
            return out

    return Rotate


def _rotate_reference(a: np.ndarray) -> np.ndarray:
    return a + np.roll(a, -1, axis=0)


def _inputs(rows: int, seed: int = 0) -> dict[str, np.ndarray]:
    a = np.random.default_rng(seed).uniform(-1, 1, (rows, 64)).astype(np.float32)
    return {"a": a, "mid": np.zeros_like(a)}


def test_device_queries_are_the_target_counts():
    assert available_count(get_target("Ascend910B"), "available_aiv_count") == 48
    assert available_count(get_target("Ascend910B"), "available_cluster_count") == 24


def test_two_phase_exchange_sees_every_block_write():
    inputs = _inputs(AIV)
    report = run_and_compare(_rotate_program(AIV), inputs, block_dim=AIV)
    assert report.matches, report
    np.testing.assert_allclose(report.outputs["out"], _rotate_reference(inputs["a"]), rtol=1e-6, atol=1e-6)
    # the golden reference orders the phases too
    golden = run_program(_rotate_program(AIV), _inputs(AIV), block_dim=AIV)
    np.testing.assert_allclose(golden["out"], _rotate_reference(inputs["a"]), rtol=1e-6, atol=1e-6)


def test_without_the_barrier_the_exchange_is_a_race():
    report = run_and_compare(_rotate_program(AIV, barrier=False), _inputs(AIV), block_dim=AIV)
    assert isinstance(report.fault, RaceDetected)


@pytest.mark.parametrize(("publish", "consume", "missing"), [(False, True, "publish"), (True, False, "invalidate")])
def test_a_handoff_without_the_cache_sequence_is_diagnosed(publish, consume, missing):
    report = run_and_compare(_rotate_program(AIV, publish=publish, consume=consume), _inputs(AIV), block_dim=AIV)
    assert isinstance(report.fault, StaleData), report.fault
    assert missing in str(report.fault)


def test_phases_are_executed_not_just_checked():
    """Block 0 reads row 1, which block 1 writes before the barrier: run one block after another, block 0 would
    read zeros. The simulator's value is the phased one."""
    pto = compile_program(_rotate_program(AIV), target="Ascend910B").pto
    inputs = _inputs(AIV, seed=3)
    sim = simulate(pto, inputs, "Ascend910B", block_dim=AIV)
    np.testing.assert_array_equal(sim.outputs["out"], _rotate_reference(inputs["a"]))


def test_hard_barrier_under_a_partial_launch_is_a_deadlock():
    pto = compile_program(_rotate_program(4), target="Ascend910B").pto
    with pytest.raises(Deadlock, match="partial launch"):
        simulate(pto, _inputs(4), "Ascend910B", block_dim=4)
    with pytest.raises(TilefoldError, match="507018"):
        run_program(_rotate_program(4), _inputs(4), block_dim=4)


def test_over_launch_is_a_deadlock_even_for_a_soft_barrier():
    pto = compile_program(_rotate_program(AIV + 2), target="Ascend910B").pto
    with pytest.raises(Deadlock, match="over launch"):
        simulate(pto, _inputs(AIV + 2), "Ascend910B", block_dim=AIV + 2)


def _jit_rotate(count_node: str):
    src = f'''
import tilefold.language as pl

@pl.jit
def rotate(a: pl.Tensor[[{AIV}, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[{AIV}, 64], pl.FP32]],
           out: pl.Out[pl.Tensor[[{AIV}, 64], pl.FP32]]):
    for i in pl.spmd({count_node}):
        t = pl.load(a, [i, 0], [1, 64])
        mid = pl.store(t, [i, 0], mid)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type="aiv_only")
        pl.system.cacheinvalid()
        nxt = pl.load(mid, [(i + 1) % {AIV}, 0], [1, 64])
        out = pl.store(pl.add(nxt, t), [i, 0], out)
    return out
'''
    namespace: dict = {}
    code = compile(src, f"<jit_rotate_{count_node}>", "exec")
    import linecache

    linecache.cache[f"<jit_rotate_{count_node}>"] = (len(src), None, src.splitlines(True), code.co_filename)
    exec(code, namespace)
    return namespace["rotate"]


def test_jit_spmd_sized_by_the_device_query():
    rotate = _jit_rotate("pl.system.available_aiv_count()")
    inputs = _inputs(AIV, seed=5)
    out = np.zeros_like(inputs["a"])
    rotate(inputs["a"], inputs["mid"], out)
    np.testing.assert_allclose(out, _rotate_reference(inputs["a"]), rtol=1e-6, atol=1e-6)


def test_jit_hard_barrier_with_a_literal_partial_count_is_refused_at_compile_time():
    rotate = _jit_rotate("4")
    inputs = _inputs(AIV)
    with pytest.raises(BarrierOccupancyError, match="partial launch"):
        rotate(inputs["a"], inputs["mid"], np.zeros_like(inputs["a"]))


def _soft_program(blocks: int, used: int):
    @pl.program
    class Soft:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[blocks, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[blocks, 64], pl.FP32]],
              ws: pl.InOut[pl.Tensor[[16], pl.INT32]],
              out: pl.Out[pl.Tensor[[blocks, 64], pl.FP32]]) -> pl.Tensor[[blocks, 64], pl.FP32]:
            b = pl.tile.get_block_idx()
            t = pl.load(a, [b, 0], [1, 64])
            mid = pl.store(pl.muls(t, 2.0), [b, 0], mid)
            pl.system.cacheinvalid()
            pl.system.fence()
            pl.system.syncall(mode="soft", core_type="aic_only", gm_workspace=ws, used_cores=used)
            pl.system.cacheinvalid()
            prev = pl.load(mid, [(b + blocks - 1) % blocks, 0], [1, 64])
            out = pl.store(pl.sub(prev, t), [b, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[blocks, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[blocks, 64], pl.FP32]],
                 ws: pl.InOut[pl.Tensor[[16], pl.INT32]],
                 out: pl.Out[pl.Tensor[[blocks, 64], pl.FP32]]) -> pl.Tensor[[blocks, 64], pl.FP32]:
            with pl.spmd(blocks):
                out = self.k(a, mid, ws, out)
            return out

    return Soft


def test_soft_barrier_at_partial_occupancy():
    inputs = {**_inputs(4, seed=7), "ws": np.zeros(16, np.int32)}
    report = run_and_compare(_soft_program(4, 4), inputs)
    assert report.matches, report
    a = inputs["a"]
    np.testing.assert_allclose(report.outputs["out"], 2 * np.roll(a, 1, axis=0) - a, rtol=1e-6, atol=1e-6)


def test_soft_barrier_counting_more_cores_than_participate_is_refused():
    with pytest.raises(BarrierOccupancyError, match="never reached"):
        compile_program(_soft_program(4, 5), target="Ascend910B")


def _line_program(cols: int, wrap: bool = True):
    """Block ``b`` reads ``cols`` elements of row ``b + 1`` after invalidating only the line at its start (``wrap``
    False: the line of row ``b + 1`` unwrapped, which for the last block lies past the tensor's end)."""
    rows = 4
    step = rows if wrap else rows + 1

    @pl.program
    class Line:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[rows, 64], pl.FP32]],
              ws: pl.InOut[pl.Tensor[[16], pl.INT32]],
              out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            b = pl.tile.get_block_idx()
            t = pl.load(a, [b, 0], [1, 64])
            mid = pl.store(t, [b, 0], mid)
            pl.system.cacheinvalid()
            pl.system.fence()
            pl.system.syncall(mode="soft", core_type="aic_only", gm_workspace=ws, used_cores=rows)
            pl.system.cacheinvalid(mid, [(b + 1) % step, 0])
            nxt = pl.load(mid, [(b + 1) % rows, 0], [1, cols])
            out = pl.store(nxt, [b, 0], out)
            return out

    return Line


def test_region_invalidation_covers_one_cache_line_only():
    """cacheinvalid(tensor) covers the 64-byte cache line of the view's base element: 16 FP32 elements are fresh,
    a read of the whole 64-element row is still stale."""
    inputs = {**_inputs(4, seed=9), "ws": np.zeros(16, np.int32), "out": np.zeros((4, 64), np.float32)}
    pto = compile_program(_line_program(16), target="Ascend910B").pto
    sim = simulate(pto, inputs, "Ascend910B", block_dim=4)
    np.testing.assert_array_equal(sim.outputs["out"][:, :16], np.roll(inputs["a"], -1, axis=0)[:, :16])
    pto = compile_program(_line_program(64), target="Ascend910B").pto
    with pytest.raises(StaleData, match="invalidate"):
        simulate(pto, inputs, "Ascend910B", block_dim=4)


def test_invalidation_past_the_tensor_covers_none_of_it():
    """The last block invalidates the line of row 4 of a 4-row tensor (the bytes after it), then reads row 0: row
    0's line was not invalidated, so the read is stale (not an invalidation of row 0 in disguise)."""
    inputs = {**_inputs(4, seed=9), "ws": np.zeros(16, np.int32), "out": np.zeros((4, 64), np.float32)}
    pto = compile_program(_line_program(16, wrap=False), target="Ascend910B").pto
    with pytest.raises(StaleData, match="invalidate"):
        simulate(pto, inputs, "Ascend910B", block_dim=4)


def test_invalidation_offsets_must_be_a_list():
    with pytest.raises(TilefoldError, match="one offset per tensor axis"):
        @pl.program
        class Bad:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[4, 64], pl.FP32]:
                pl.system.cacheinvalid(a, 5)
                return a

        compile_program(Bad, target="Ascend910B")


def test_soft_workspace_must_be_int32():
    with pytest.raises(TilefoldError, match="INT32"):
        @pl.program
        class Bad:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[4, 64], pl.FP32]:
                pl.system.syncall(mode="soft", gm_workspace=a, used_cores=4)
                return a


def test_barrier_is_priced_as_waiting_for_the_slowest_block():
    pto = compile_program(_rotate_program(AIV), target="Ascend910B").pto
    sim = simulate(pto, _inputs(AIV), "Ascend910B", block_dim=AIV)
    releases, arrivals = [], []
    for trace in sim.traces:
        for i, ins in enumerate(trace.instr):
            if type(ins).__name__ == "SyncAll":
                (releases if i in trace.cross else arrivals).append((trace.start[i], trace.end[i]))
    assert len(releases) == len(arrivals) == 2 * AIV  # every sub-block of every block takes part
    last_arrival = max(end for _s, end in arrivals)
    assert min(start for start, _e in releases) >= last_arrival - 1e-9


def test_device_query_as_a_stride_inside_the_kernel():
    """A grid-stride loop (performance/02, the paged-attention SPMD example's shape): block ``b`` takes rows
    ``b, b + n, ...`` with ``n = pl.system.available_cluster_count()``, launched on that many blocks."""
    rows = 2 * CLUSTERS + 5

    @pl.program
    class Stride:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, 32], pl.FP32],
              out: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
            b = pl.tile.get_block_idx()
            for r in pl.range(b, rows, pl.system.available_cluster_count()):
                t = pl.load(a, [r, 0], [1, 32])
                out = pl.store(pl.adds(t, 1.0), [r, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, 32], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
            with pl.spmd(pl.system.available_cluster_count()):
                out = self.k(a, out)
            return out

    a = np.random.default_rng(2).uniform(-1, 1, (rows, 32)).astype(np.float32)
    report = run_and_compare(Stride, {"a": a})
    assert report.matches, report
    np.testing.assert_allclose(report.outputs["out"], a + 1.0, rtol=1e-6, atol=1e-6)


def test_a_barrier_skipped_by_some_blocks_is_a_deadlock():
    rows = CLUSTERS

    @pl.program
    class Skip:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, 32], pl.FP32],
              out: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
            b = pl.tile.get_block_idx()
            t = pl.load(a, [b, 0], [1, 32])
            if b > 0:
                pl.system.syncall(core_type="mix")
            out = pl.store(t, [b, 0], out)
            return out

    a = np.zeros((rows, 32), np.float32)
    pto = compile_program(Skip, target="Ascend910B").pto
    with pytest.raises(Deadlock, match="never releases"):
        simulate(pto, {"a": a}, "Ascend910B", block_dim=rows)
    with pytest.raises(TilefoldError, match="never releases"):
        run_program(Skip, {"a": a}, block_dim=rows)


def _mixed_inputs():
    x = np.random.default_rng(0).uniform(-1, 1, (CLUSTERS * 16, 64)).astype(np.float32)
    w = np.random.default_rng(1).uniform(-1, 1, (64, 64)).astype(np.float32)
    return x, w, np.zeros_like(x), np.zeros_like(x)


def test_mixed_kernel_lanes_publish_and_the_cube_reads_after_the_barrier():
    """language/04 "Clusters and AIV lanes": vector lanes write GM, a mix barrier, then the cube reads what
    another block's lanes wrote (the cube's value reaches GM through the lanes' store)."""
    import system_jit_kernels

    x, w, mid, out = _mixed_inputs()
    system_jit_kernels.mixed(x, w, mid, out)
    np.testing.assert_allclose(mid, 2 * x, rtol=0, atol=0)
    want = (2 * np.roll(x, -16, axis=0)).astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


def test_mixed_kernel_without_the_barrier_is_a_race_through_the_cross_core_pipe():
    """The cube's load of another block's rows reaches GM only through a push to the lanes: still a live read."""
    import system_jit_kernels

    with pytest.raises(RaceDetected, match="@mid"):
        system_jit_kernels.mixed_without_barrier(*_mixed_inputs())


def test_a_barrier_inside_a_split_aiv_region_is_refused_at_compile_time_as_such():
    """Not misread as a partial launch (24 blocks against 48 AIV cores): the region's two lanes do run 48."""
    import system_jit_kernels

    x = np.zeros((CLUSTERS * 16, 64), np.float32)
    with pytest.raises(BarrierOccupancyError) as info:
        system_jit_kernels.barrier_inside_a_region(x, np.zeros_like(x))
    assert "inside a pl.split_aiv region" in info.value.message and "partial" not in info.value.message
    assert info.value.span is not None and info.value.span.line > 0 and "outside every region" in info.value.hint


def test_phased_run_orders_phases_and_unwinds_on_a_failure():
    from tilefold.util.phases import PhasedRun, barrier_slot

    log: list[tuple[int, int]] = []

    def body(i: int, fail: bool = False):
        def run():
            run_, index = barrier_slot()
            log.append((0, i))
            run_.arrive(index)
            if fail:
                raise ValueError("boom")
            log.append((1, i))
        return run

    releases: list[list[int]] = []
    PhasedRun([body(i) for i in range(3)], releases.append, lambda w, f: RuntimeError("deadlock")).run()
    assert log == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] and releases == [[0, 1, 2]]
    log.clear()
    with pytest.raises(ValueError, match="boom"):
        PhasedRun([body(0), body(1, fail=True), body(2)], lambda w: None, lambda w, f: RuntimeError("x")).run()
    assert log == [(0, 0), (0, 1), (0, 2), (1, 0)]  # participant 2 was unwound, never resumed
