"""PyPTO's in-kernel pipe syncs (``pl.system.sync_src`` / ``sync_dst`` / ``bar_v`` / ``bar_m`` / ``bar_all``, docs/dsl.md
"Pipe synchronisation inside a kernel"): values against numpy written here, the ordering they add in the timeline,
the faults of an unpaired event, the located compile-time errors and the PTO text."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.ir.types import PipeType
from tilefold.sim import simulate
from tilefold.sim.faults import DanglingEvent, Deadlock
from tilefold.targets import get_target
from tilefold.targets.system import EVENT_IDS, PIPE_TYPE_PIPES, pipe_sync_costs
from tilefold.testing.harness import run_and_compare

R, C = 16, 64


def _program(mode: str = "pair", *, bar_v: bool = False, bar_all: bool = False, set_id: int = 0,
             wait_id: int = 0):
    """``out = exp(b) + a``; b is loaded first, then a. ``mode``: "pair" puts a kernel-written MTE2 -> V event
    after the load of a and before the exp (which reads only b), "none" no event, "wait" only the wait, "set" only
    the set."""
    set_it = mode in ("pair", "set")
    wait_it = mode in ("pair", "wait")

    @pl.program
    class ExpAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
              out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
            tb = pl.load(b, [0, 0], [R, C])
            ta = pl.load(a, [0, 0], [R, C])
            if set_it:
                pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=set_id)
            if wait_it:
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=wait_id)
            e = pl.exp(tb)
            if bar_v:
                pl.system.bar_v()
            s = pl.add(e, ta)
            if bar_all:
                pl.system.bar_all()
            out = pl.store(s, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
                 out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
            out = self.k(a, b, out)
            return out

    return ExpAdd


def _inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": rng.uniform(-1, 1, (R, C)).astype(np.float32), "b": rng.uniform(-1, 1, (R, C)).astype(np.float32)}


def _reference(inputs: dict[str, np.ndarray]) -> np.ndarray:
    return (np.exp(inputs["b"].astype(np.float64)) + inputs["a"].astype(np.float64)).astype(np.float32)


def _simulate(program, inputs):
    return simulate(compile_program(program).pto, inputs, target=get_target("Ascend910B"))


def _records(res) -> list[list[tuple[str, float, float]]]:
    """Per unit: (instruction text, start, end) of every record, in issue order."""
    out = []
    for unit in res.traces:
        rows = []
        for r, ins in enumerate(unit.instr):
            text = ins.text() if hasattr(ins, "text") else str(ins)
            rows.append((text, unit.start[r], unit.end[r]))
        out.append(rows)
    return [rows for rows in out if any(t.startswith("texp") for t, _s, _e in rows)]


def _one(rows, prefix: str) -> tuple[str, float, float]:
    hits = [row for row in rows if row[0].startswith(prefix)]
    assert len(hits) == 1, (prefix, [r[0] for r in rows])
    return hits[0]


# ------------------------------------------------------------------------------------------------ values, timing
@pytest.mark.parametrize("options", [{}, {"bar_v": True}, {"bar_all": True}, {"set_id": 7, "wait_id": 7}])
def test_user_syncs_leave_the_values_unchanged(options):
    inputs = _inputs(1)
    report = run_and_compare(_program(**options), inputs)
    assert report.matches, report
    np.testing.assert_allclose(report.outputs["out"], _reference(inputs), rtol=1e-5, atol=1e-6)
    golden = run_program(_program(**options), _inputs(1))  # the golden interpreter ignores them
    np.testing.assert_allclose(golden["out"], _reference(inputs), rtol=1e-5, atol=1e-6)


def test_the_waiting_pipe_starts_no_earlier_than_the_set():
    """The exp reads only b; the kernel's event makes it wait for the load of a too (every MTE2 instruction issued
    before the set). Without the event the exp overlaps that load: the check below can fail."""
    with_event = _records(_simulate(_program("pair"), _inputs()))
    without = _records(_simulate(_program("none"), _inputs()))
    assert len(with_event) == len(without) == 2  # the two AIV sub-blocks of the split kernel
    for rows in with_event:
        _t, _s, load_a_end = _one(rows, "tload %ta")
        _t, set_start, set_end = _one(rows, "set_flag MTE2 -> VECTOR, EVENT_ID0")
        _t, wait_start, wait_end = _one(rows, "wait_flag MTE2 -> VECTOR, EVENT_ID0")
        _t, exp_start, _e = _one(rows, "texp")
        assert set_end >= load_a_end and wait_end >= set_end and exp_start >= set_end >= load_a_end
    for rows in without:
        _t, _s, load_a_end = _one(rows, "tload %ta")
        _t, exp_start, _e = _one(rows, "texp")
        assert exp_start < load_a_end  # codegen's events order the exp after the load of b only


def test_bar_v_orders_the_vector_pipe_and_costs_its_assumed_price():
    res = _simulate(_program("none", bar_v=True), _inputs())
    price = pipe_sync_costs(get_target("Ascend910B")).pipe_barrier
    for rows in _records(res):
        _t, _s, exp_end = _one(rows, "texp")
        _t, bar_start, bar_end = _one(rows, "pipe_barrier VECTOR")
        _t, add_start, _e = _one(rows, "tadd")
        assert bar_start >= exp_end and add_start >= bar_end and bar_end - bar_start == pytest.approx(price)
    bars = [r for r in res.instruction_records() if r["instruction"] == "pipe_barrier VECTOR"]
    assert len(bars) == 2 and all(r["origin"] == "assumed" and r["pipe"] == "VECTOR" for r in bars)


def test_bar_all_waits_for_every_pipe_and_holds_every_later_instruction():
    res = _simulate(_program("none", bar_all=True), _inputs())
    price = pipe_sync_costs(get_target("Ascend910B")).barrier_all
    for rows in _records(res):
        i = next(k for k, row in enumerate(rows) if row[0] == "pipe_barrier ALL")
        _t, bar_start, bar_end = rows[i]
        assert bar_start >= max(end for _t, _s, end in rows[:i])  # every earlier record, on every pipe
        assert all(start >= bar_end for _t, start, _e in rows[i + 1:])
        assert bar_end - bar_start == pytest.approx(price)
    bars = [r for r in res.instruction_records() if r["instruction"] == "pipe_barrier ALL"]
    assert bars and all(r["origin"] == "assumed" and r["pipe"] == "S" for r in bars)


# ------------------------------------------------------------------------------------------------ faults
def test_a_wait_whose_event_is_never_set_is_a_deadlock():
    report = run_and_compare(_program("wait"), _inputs())
    assert isinstance(report.fault, Deadlock), report
    assert "wait_flag MTE2 -> VECTOR, EVENT_ID0" in str(report.fault)
    assert "pl.system.sync_src" in report.fault.hint and report.fault.span is not None


def test_a_wait_never_takes_an_event_codegen_set():
    """Codegen raises its own MTE2 -> V event e0 before the exp; the kernel's EVENT_ID0 is another event."""
    pto = compile_program(_program("wait")).pto
    assert "set_flag MTE2 -> VECTOR, e0" in pto.text()
    with pytest.raises(Deadlock, match="EVENT_ID0"):
        simulate(pto, _inputs(), target=get_target("Ascend910B"))


def test_a_wait_on_another_event_id_is_a_deadlock():
    with pytest.raises(Deadlock, match="EVENT_ID1"):
        _simulate(_program("pair", set_id=0, wait_id=1), _inputs())


def test_a_set_never_waited_for_is_reported():
    with pytest.raises(DanglingEvent, match="set_flag MTE2 -> VECTOR, EVENT_ID0") as info:
        _simulate(_program("set"), _inputs())
    assert info.value.span is not None and "sync_dst" in info.value.hint


def _loop_program(set_before_loop: bool):
    """Per iteration ``out[i] = a[i] * 2``; the event pair sits in the loop (balanced), or its set before it."""

    @pl.program
    class Loop:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[4 * R, C], pl.FP32], out: pl.Out[pl.Tensor[[4 * R, C], pl.FP32]]
              ) -> pl.Tensor[[4 * R, C], pl.FP32]:
            if set_before_loop:
                pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=2)
            for i in pl.range(4):
                t = pl.load(a, [i * R, 0], [R, C])
                if not set_before_loop:
                    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=2)
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=2)
                out = pl.store(pl.mul(t, 2.0), [i * R, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[4 * R, C], pl.FP32], out: pl.Out[pl.Tensor[[4 * R, C], pl.FP32]]
                 ) -> pl.Tensor[[4 * R, C], pl.FP32]:
            out = self.k(a, out)
            return out

    return Loop


def test_a_balanced_pair_in_a_loop_runs_every_iteration():
    a = np.random.default_rng(3).uniform(-2, 2, (4 * R, C)).astype(np.float32)
    report = run_and_compare(_loop_program(False), {"a": a})
    assert report.matches, report
    np.testing.assert_allclose(report.outputs["out"], a * np.float32(2), rtol=0, atol=0)


def test_one_set_before_a_loop_of_waits_deadlocks_on_the_second_iteration():
    a = np.zeros((4 * R, C), np.float32)
    with pytest.raises(Deadlock, match="EVENT_ID2"):
        _simulate(_loop_program(True), {"a": a})


# ------------------------------------------------------------------------------------------------ compile time
def _kernel_with(line: str):
    """A one-kernel program whose body holds ``line`` (one statement) between a load and an exp."""
    src = f'''
import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        {line}
        out = pl.store(pl.exp(t), [0, 0], out)
        return out
'''
    return src


_SYNC = "pl.system.sync_src(set_pipe=pl.PipeType.{s}, wait_pipe=pl.PipeType.{w}, event_id={e})"


@pytest.mark.parametrize(("line", "message"), [
    (_SYNC.format(s="MTE2", w="V", e=EVENT_IDS), f"event_id={EVENT_IDS} is out of range"),
    (_SYNC.format(s="MTE2", w="V", e=-1), "event_id=-1 is out of range"),
    (_SYNC.format(s="MTE2", w="V", e="n"), "is not a compile-time integer"),
    (_SYNC.format(s="MTE2", w="V", e="1.0"), "is not a compile-time integer"),
    (_SYNC.format(s="V", w="V", e=0), "set_pipe and wait_pipe are both pl.PipeType.V"),
    (_SYNC.format(s="MTE2", w="ALL", e=0).replace("sync_src", "sync_dst"), "names no single pipe"),
    (_SYNC.format(s="MTE2", w="VEC", e=0), "unknown pl.PipeType.VEC"),
    ("pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V)", "event_id"),
    ("pl.system.sync_src(set_pipe=2, wait_pipe=pl.PipeType.V, event_id=0)", "set_pipe=2 is not a pipe"),
    ("pl.system.bar_m()", "pipe M does not exist there"),  # a vector-only kernel runs on the AIV cores
    (_SYNC.format(s="MTE1", w="V", e=0), "pipe MTE1 does not exist there"),
])
def test_bad_pipe_syncs_are_located_compile_time_errors(tmp_path, line, message):
    from tilefold.language import parse_file

    path = tmp_path / "kernel.py"
    path.write_text(_kernel_with(line))
    with pytest.raises(TilefoldError) as info:
        compile_program(parse_file(str(path)))
    err = info.value
    assert message in err.message, err.message
    assert err.span is not None and err.span.line == 11, err.span  # the sync's own line
    assert err.hint


def test_the_pipe_type_names_pto_pipes_and_maps_each_to_a_simulated_pipe():
    assert [p.name for p in PipeType] == ["S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"]
    assert all(p.value == f"PIPE_{p.name}" for p in PipeType)  # HIVM's / PTO's spelling
    assert set(PIPE_TYPE_PIPES) == {p.name for p in PipeType} - {"ALL"}
    assert pl.PipeType is PipeType


# ------------------------------------------------------------------------------------------------ @pl.jit
def test_jit_kernel_with_pipe_syncs_runs_and_shows_them_in_the_pto_text():
    import pipe_sync_jit_kernels as k

    inputs = _inputs(4)
    out = np.zeros((R, C), np.float32)
    k.exp_then_add(inputs["a"], inputs["b"], out)
    np.testing.assert_allclose(out, _reference(inputs), rtol=1e-5, atol=1e-6)
    text = k.exp_then_add.compile(inputs["a"], inputs["b"], out).pto.text()
    lines = [s.strip() for s in text.splitlines()]
    want = ["set_flag MTE2 -> VECTOR, EVENT_ID3", "wait_flag MTE2 -> VECTOR, EVENT_ID3", "pipe_barrier VECTOR",
            "pipe_barrier ALL"]
    at = [lines.index(w) for w in want]
    assert at == sorted(at)
    assert lines.index("tload %ta, @a[($subblock_idx * 8), 0]") < at[0] and at[1] < lines.index("texp %e, %tb")


def test_jit_wait_without_set_is_a_deadlock():
    import pipe_sync_jit_kernels as k

    a = np.zeros((R, C), np.float32)
    with pytest.raises(Deadlock, match="EVENT_ID0"):
        k.wait_without_set(a, np.zeros_like(a))


def test_jit_event_id_out_of_range_is_a_located_error():
    import pipe_sync_jit_kernels as k

    a = np.zeros((R, C), np.float32)
    with pytest.raises(TilefoldError, match="event_id=8 is out of range") as info:
        k.event_id_out_of_range(a, np.zeros_like(a))
    assert info.value.span is not None and info.value.span.line > 0


def _qk():
    rng = np.random.default_rng(9)
    q = rng.uniform(-0.5, 0.5, (64, 32)).astype(np.float16)
    k = rng.uniform(-0.5, 0.5, (64, 32)).astype(np.float16)
    return q, k


def test_syncs_in_a_mixed_kernel_and_its_split_aiv_region_leave_the_values_unchanged():
    import pipe_sync_jit_kernels as kernels

    q, k = _qk()
    out = np.zeros((64, 64), np.float32)
    kernels.syncs_in_a_region(q, k, out)
    want = np.exp(q.astype(np.float64) @ k.astype(np.float64).T)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    text = kernels.syncs_in_a_region.compile(q, k, out).pto.text()
    assert "pipe_barrier CUBE" in text and "set_flag VECTOR -> MTE3, EVENT_ID1" in text


def test_a_cube_barrier_inside_a_split_aiv_region_is_a_located_error():
    import pipe_sync_jit_kernels as kernels

    q, k = _qk()
    with pytest.raises(TilefoldError, match="pl.split_aiv region .* pipe M does not exist") as info:
        kernels.cube_barrier_in_a_region(q, k, np.zeros((64, 64), np.float32))
    assert info.value.span is not None and info.value.span.line > 0
