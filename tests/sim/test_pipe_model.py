"""The pipe model's rules on small programs (relations between simulated times, never wall-clock).

- instructions on different pipes overlap unless an event orders them;
- a dependent pair (codegen's set_flag / wait_flag) runs one after the other;
- a conflicting pair with no event is a ``MissingSync`` fault naming both instructions;
- a wait with no set is a ``Deadlock``;
- GM bandwidth is shared: two cores transferring at once each take longer than one alone;
- blocks beyond the core count queue; AIV sub-blocks run in parallel;
- ``pl.pipeline(stage=2)`` overlaps iteration i+1's load with iteration i's compute.
"""

import dataclasses

import numpy as np
import pytest
from sim_helpers import Vec, buf, program, tensor

import tilefold.language as pl
from tilefold.backend.pto import For, SBin, SConst, SetFlag, SSpecial, TLoad, TStore, TVector, WaitFlag
from tilefold.budget import StepBudgetExceeded
from tilefold.compiler import compile as compile_program
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.golden import run_program
from tilefold.ir.types import MemorySpace
from tilefold.sim import simulate
from tilefold.sim.faults import Deadlock, MissingSync
from tilefold.targets import Pipe, get_target

Z = SConst(0)


@pytest.fixture(scope="module")
def target():
    return get_target("Ascend910B").with_changes(name="Ascend910B-no-launch", launch_overhead_cycles=0)


def _x(rows=32, cols=64):
    return np.ones((rows, cols), np.float32)


def _load_and_vector(dependent: bool, syncs: bool = True):
    src = "t" if dependent else "u"
    return program(
        [TLoad("t", "x", (Z, Z), (32, 64)), TVector("tmuls", "tile.muls", "y", (src, SConst(2.0)))],
        [buf("t", Vec, 0, 32, 64), buf("u", Vec, 8192, 32, 64), buf("y", Vec, 16384, 32, 64)],
        [tensor("x", (32, 64))], syncs=syncs)


def _pipe_time(res, pipe):
    return max(per[pipe] for per in res.busy.values())


def _load_cost(target, nbytes=32 * 64 * 4):
    pc = target.path_cost(MemorySpace.DDR, MemorySpace.Vec)
    return pc.latency + nbytes / pc.bytes_per_cycle


def test_independent_load_and_vector_overlap(target):
    res = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=target)
    load, vec = _load_cost(target), _pipe_time(res, Pipe.VECTOR)
    assert load > 0 and vec > 0
    assert res.cycles == max(load, vec) < load + vec


def test_dependent_load_and_vector_run_in_order(target):
    res = simulate(_load_and_vector(dependent=True), {"x": _x()}, target=target)
    load, vec = _load_cost(target), _pipe_time(res, Pipe.VECTOR)
    assert res.cycles == load + vec
    trace = res.traces[0]
    texts = [getattr(i, "text", lambda: "")() for i in trace.instr]
    li, vi = texts.index("tload %t, @x[0, 0]"), next(i for i, t in enumerate(texts) if t.startswith("tmuls"))
    assert trace.start[vi] >= trace.end[li]
    assert trace.flows, "the ordering event is recorded as a flow"


def test_missing_sync_is_reported_with_both_instructions(target):
    with pytest.raises(MissingSync) as exc:
        simulate(_load_and_vector(dependent=True, syncs=False), {"x": _x()}, target=target)
    assert exc.value.first == "tload %t, @x[0, 0]"
    assert exc.value.second.startswith("tmuls %y, %t")
    assert "read-after-write" in str(exc.value) and "MTE2" in str(exc.value)


def test_write_after_read_without_sync_is_reported(target):
    # the vector op reads t, then a load overwrites t: the load must wait for the read
    body = [TLoad("t", "x", (Z, Z), (32, 64)), SetFlag("MTE2", "VECTOR", 0), WaitFlag("MTE2", "VECTOR", 0),
            TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0))), TLoad("t", "x", (Z, Z), (32, 64))]
    p = program(body, [buf("t", Vec, 0, 32, 64), buf("y", Vec, 16384, 32, 64)], [tensor("x", (32, 64))],
                syncs=False)
    with pytest.raises(MissingSync, match="write-after-read"):
        simulate(p, {"x": _x()}, target=target)


def test_a_wait_without_set_deadlocks(target):
    p = program([WaitFlag("MTE2", "VECTOR", 3)], [], [], syncs=False)
    with pytest.raises(Deadlock):
        simulate(p, {}, target=target)


def test_ordering_is_transitive(target):
    # MTE2 -> VECTOR -> MTE3 orders the load before the store, with no direct MTE2 -> MTE3 pair
    body = [TLoad("t", "x", (Z, Z), (32, 64)), SetFlag("MTE2", "VECTOR", 0), WaitFlag("MTE2", "VECTOR", 0),
            TVector("tmuls", "tile.muls", "y", ("t", SConst(2.0))), SetFlag("VECTOR", "MTE3", 1),
            WaitFlag("VECTOR", "MTE3", 1), TStore("out", (Z, Z), "t", (32, 64))]
    p = program(body, [buf("t", Vec, 0, 32, 64), buf("y", Vec, 16384, 32, 64)],
                [tensor("x", (32, 64)), tensor("out", (32, 64), "Out")], syncs=False)
    res = simulate(p, {"x": _x()}, target=target)
    np.testing.assert_array_equal(res.outputs["out"], _x())


def _copy_kernel(func_type="InCore"):
    # each unit (block, sub-block) stores its own 128 rows of ``out``: units of one launch must not race
    unit = SBin("+", SBin("*", SSpecial("block_idx"), SConst(2)), SSpecial("subblock_idx"))
    row = SBin("*", unit, SConst(128))
    return program([TLoad("t", "x", (Z, Z), (128, 128)), TStore("out", (row, Z), "t", (128, 128))],
                   [buf("t", Vec, 0, 128, 128)],
                   [tensor("x", (128, 128)), tensor("out", (4 * 128, 128), "Out")], func_type=func_type)


def test_shared_gm_transfer_slows_when_two_cores_transfer_at_once(target):
    engine = target.path_cost(MemorySpace.DDR, MemorySpace.Vec).bytes_per_cycle
    narrow = target.with_changes(gm_bytes_per_cycle=engine)  # one core's DMA alone saturates GM
    x = np.ones((128, 128), np.float32)
    one = simulate(_copy_kernel(), {"x": x}, target=narrow, block_dim=1)
    two = simulate(_copy_kernel(), {"x": x}, target=narrow, block_dim=2)
    assert two.cycles > one.cycles * 1.5
    wide = target.with_changes(gm_bytes_per_cycle=10_000.0)  # enough for both: no slowdown
    assert simulate(_copy_kernel(), {"x": x}, target=wide, block_dim=2).cycles == one.cycles


def test_blocks_beyond_the_core_count_queue(target):
    x = np.ones((128, 128), np.float32)
    one_core = target.with_changes(num_aic=1, gm_bytes_per_cycle=10_000.0)
    two_cores = target.with_changes(num_aic=2, gm_bytes_per_cycle=10_000.0)
    single = simulate(_copy_kernel(), {"x": x}, target=two_cores, block_dim=1).cycles
    assert simulate(_copy_kernel(), {"x": x}, target=two_cores, block_dim=2).cycles == single
    assert simulate(_copy_kernel(), {"x": x}, target=one_core, block_dim=2).cycles == 2 * single


def test_aiv_sub_blocks_run_in_parallel(target):
    x = np.ones((128, 128), np.float32)
    wide = target.with_changes(gm_bytes_per_cycle=10_000.0)
    incore = simulate(_copy_kernel("InCore"), {"x": x}, target=wide).cycles
    aiv = simulate(_copy_kernel("AIV"), {"x": x}, target=wide)
    assert set(aiv.unit_cycles) == {"core0.aiv0", "core0.aiv1"}
    assert aiv.cycles == incore


def test_launch_overhead_and_microseconds(target):
    x = np.ones((128, 128), np.float32)
    base = simulate(_copy_kernel(), {"x": x}, target=target)
    slow = simulate(_copy_kernel(), {"x": x}, target=target.with_changes(launch_overhead_cycles=1000))
    assert slow.cycles == base.cycles + 1000
    assert base.microseconds == pytest.approx(base.cycles / (target.clock_ghz * 1000))


def test_step_budget_stops_a_long_loop(target):
    loop = For("i", Z, SConst(10**9), SConst(1), (TVector("tmuls", "tile.muls", "y", ("y", SConst(2.0))),))
    p = program([loop], [buf("y", Vec, 0, 8, 64)], [])
    with pytest.raises(StepBudgetExceeded, match="after 1,000 steps"):
        simulate(p, {}, target=target, max_steps=1000)


def test_custom_op_cost_per_target():
    register_custom_op("test.pipe.percost", lambda x: x * 2,
                       cost={"Ascend910B": lambda s: 1000.0, "Ascend950": lambda s: 250.0}, replace=True)
    try:
        from tilefold.backend.pto import TCustom

        p = program([TCustom("test.pipe.percost", ("y",), ("t",))],
                    [buf("t", Vec, 0, 8, 64), buf("y", Vec, 4096, 8, 64)], [])
        times = {}
        for name in ("Ascend910B", "Ascend950", "Ascend910C"):
            t = get_target(name).with_changes(launch_overhead_cycles=0)
            times[name] = simulate(p, {}, target=dataclasses.replace(t, name=name)).cycles
        assert times["Ascend910B"] == 1000 and times["Ascend950"] == 250
        assert times["Ascend910C"] < 1000  # no entry for 910C: the default bytes-proportional guess
    finally:
        unregister_custom_op("test.pipe.percost")


_PIPELINED = '''
import tilefold.language as pl

@pl.program
class Overlap:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[448, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[448, 128], pl.FP32]]) -> pl.Tensor[[448, 128], pl.FP32]:
        for i, (o,) in pl.pipeline(7, init_values=(out,), stage=STAGE):
            t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64, 0], [64, 128],
                                                                     target_memory=pl.Mem.Vec)
            e = pl.tile.exp(t)
            o2 = pl.store(e, [i * 64, 0], o)
            r = pl.yield_(o2)
        return r
'''


def test_pipeline_stage_two_overlaps_load_and_compute(target):
    a = np.random.default_rng(0).uniform(-1, 1, (448, 128)).astype(np.float32)
    times = {}
    for stage in (1, 2):
        prog = pl.parse(_PIPELINED.replace("STAGE", str(stage)), filename=f"stage{stage}.py")
        comp = compile_program(prog, target="Ascend910B")
        res = simulate(comp.pto, {"a": a}, target=target)
        np.testing.assert_allclose(res.outputs["out"], run_program(prog, {"a": a})["out"], rtol=1e-6)
        times[stage] = res.cycles
        text = comp.pto.text()
        assert "set_flag MTE2 -> VECTOR" in text and "wait_flag MTE2 -> VECTOR" in text  # visible in --emit pto
        if stage == 2:
            assert "%t.s1" in text, "stage 2 has a second buffer set"
    assert times[2] < times[1]


# --- what a user sees: the trace ---------------------------------------------------------------------

_PHASES = {"X", "M", "s", "f", "i", "B", "E"}


def _validate_trace_events(doc):
    """The Chrome trace-event format (JSON object form) as Perfetto reads it."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    flows: dict[int, list[str]] = {}
    for ev in doc["traceEvents"]:
        assert ev["ph"] in _PHASES, ev
        assert isinstance(ev["name"], str) and isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if ev["ph"] == "M":
            assert ev["name"] in {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
            assert isinstance(ev["args"], dict)
            continue
        assert isinstance(ev["ts"], (int, float)) and ev["ts"] >= 0
        if ev["ph"] == "X":
            assert isinstance(ev["dur"], (int, float)) and ev["dur"] >= 0
        if ev["ph"] in ("s", "f"):
            flows.setdefault(ev["id"], []).append(ev["ph"])
            if ev["ph"] == "f":
                assert ev["bp"] == "e"
    assert all(sorted(v) == ["f", "s"] for v in flows.values()), "every flow has one start and one end"
    return flows


def test_trace_is_valid_trace_event_json_with_lanes_slices_and_flows(target, tmp_path):
    import json

    from tilefold.sim.trace import write_trace

    res = simulate(_load_and_vector(dependent=True), {"x": _x()}, target=target)
    path = write_trace(res, tmp_path / "t.json")
    doc = json.loads(path.read_text())
    flows = _validate_trace_events(doc)
    assert flows, "the set_flag -> wait_flag pair is a flow arrow"
    unit_pid = next(ev["pid"] for ev in doc["traceEvents"] if ev["ph"] == "M" and ev["name"] == "process_name"
                    and ev["args"]["name"] != "launch")
    lanes = [ev["args"]["name"] for ev in doc["traceEvents"]
             if ev["ph"] == "M" and ev["name"] == "thread_name" and ev["pid"] == unit_pid]
    assert lanes[:6] == ["MTE2", "MTE1", "CUBE", "VECTOR", "FIXPIPE", "MTE3"]
    slices = {ev["name"]: ev for ev in doc["traceEvents"] if ev["ph"] == "X"}
    assert lanes[slices["tload %t, @x[0, 0]"]["tid"]] == "MTE2"
    vec = next(ev for name, ev in slices.items() if name.startswith("tmuls"))
    assert lanes[vec["tid"]] == "VECTOR"
    load = slices["tload %t, @x[0, 0]"]
    assert vec["ts"] >= load["ts"] + load["dur"] - 1e-9  # the dependent op starts after the load


def test_utilisation_and_critical_pipe(target):
    res = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=target)
    util = res.pipe_utilisation()
    assert list(util)[:6] == ["MTE2", "MTE1", "CUBE", "VECTOR", "FIXPIPE", "MTE3"]
    assert 0 < util["VECTOR"] < util["MTE2"] <= 1.0
    assert res.critical_pipe() == "MTE2"


def test_utilisation_is_over_the_kernel_body_and_the_launch_is_its_own_span(target, tmp_path):
    """The launch overhead is not in the utilisation's denominator; the trace and the picture show it as its
    own span before the units' lanes; every costed slice says where its price comes from."""
    import json

    from tilefold.sim.trace import chrome_trace

    slow = target.with_changes(launch_overhead_cycles=5000)
    fast = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=target)
    res = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=slow)
    assert res.cycles == fast.cycles + 5000 and res.body_cycles == fast.cycles
    assert res.pipe_utilisation() == fast.pipe_utilisation()
    assert res.launch_spans == [(res.launch_spans[0][0], 0.0, 5000.0)]
    doc = chrome_trace(res)
    launch = [ev for ev in doc["traceEvents"] if ev["ph"] == "X" and ev.get("cat") == "launch"]
    assert len(launch) == 1 and launch[0]["dur"] == pytest.approx(slow.cycles_to_us(5000))
    units = [ev for ev in doc["traceEvents"] if ev["ph"] == "X" and ev.get("cat") != "launch"]
    assert min(ev["ts"] for ev in units) >= launch[0]["ts"] + launch[0]["dur"] - 1e-9
    costs = {ev["args"]["cost"] for ev in units if ev["dur"] > 0}
    assert costs <= {"measured", "extrapolated", "declared", "assumed"} and "measured" in costs
    json.dumps(doc)


def test_cli_run_writes_a_trace_and_prints_the_critical_pipe(tmp_path, capsys):
    import json
    from pathlib import Path

    from tilefold.cli import main

    example = Path(__file__).resolve().parents[2] / "examples" / "timing" / "double_buffer.py"
    out = tmp_path / "trace.json"
    assert main(["run", str(example), "--trace", str(out), "--max-steps", "100000"]) == 0
    text = capsys.readouterr().out
    assert "critical pipe" in text and "utilisation" in text and " us at " in text
    assert "launch" in text and "(overhead), body" in text
    _validate_trace_events(json.loads(out.read_text()))


def test_timeline_without_matplotlib_is_a_clear_error(target, monkeypatch, tmp_path):
    import builtins

    from tilefold.errors import TilefoldError
    from tilefold.sim.trace import plot_timeline

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    res = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=target)
    with pytest.raises(TilefoldError, match=r"tilefold\[plot\]"):
        plot_timeline(res, tmp_path / "t.png")


def test_step_budget_stops_an_empty_loop(target):
    p = program([For("i", Z, SConst(10**12), SConst(1), ())], [], [])
    with pytest.raises(StepBudgetExceeded, match="for \\$i in range"):
        simulate(p, {}, target=target, max_steps=50)


def test_timeline_picture_draws_the_launch_as_its_own_first_lane(target, monkeypatch, tmp_path):
    """The picture says why the units start late: a first lane "kernel launch" spans [0, launch overhead), the
    title splits the time into launch + body (drawn through a recording stand-in for matplotlib)."""
    from pathlib import Path

    from tilefold.sim import trace

    calls: dict[str, list] = {"bars": [], "labels": [], "title": []}

    class Axes:
        def broken_barh(self, spans, _y, **_kw):
            calls["bars"].append(list(spans))

        def set_yticklabels(self, labels, **_kw):
            calls["labels"] = list(labels)

        def set_title(self, text, **_kw):
            calls["title"].append(text)

        def __getattr__(self, _name):
            return lambda *a, **k: None

    class Figure:
        def savefig(self, path, **_kw):
            Path(path).write_bytes(b"png")

        def __getattr__(self, _name):
            return lambda *a, **k: None

    class Plt:
        def subplots(self, **_kw):
            return Figure(), Axes()

        def close(self, _fig):
            pass

    monkeypatch.setattr(trace, "_pyplot", lambda: Plt())
    slow = target.with_changes(launch_overhead_cycles=5000)
    res = simulate(_load_and_vector(dependent=False), {"x": _x()}, target=slow)
    trace.plot_timeline(res, tmp_path / "t.png")
    assert calls["labels"][0] == "kernel launch" and calls["bars"][0] == [(0.0, 5000.0)]
    assert all(start >= 5000.0 for spans in calls["bars"][1:] for start, _ in spans)
    assert calls["title"] == [f"{slow.name}: {res.cycles:.0f} cycles ({res.microseconds:.2f} us) = launch 5000 + body "
                              f"{res.cycles - 5000:.0f}"]
