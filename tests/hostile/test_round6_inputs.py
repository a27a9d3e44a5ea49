"""Hostile inputs of the hostile6 round that used to be answered badly, one test per fix: Python-level calls of
kernel-only names, orchestration code the backend cannot lower, orchestration calls that fan out, barriers that
never release or never end, and an MLIR signature the DSL refuses. Each is now a TilefoldError with a location and
a hint, raised within seconds."""

from __future__ import annotations

import time

import hostile6_jit_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.budget import StepBudgetExceeded
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.frontend.dsl import UnknownNameError
from tilefold.passes.inline_orchestration_calls import MAX_INLINED_COPIES
from tilefold.runtime import RunConfig
from tilefold.sim.faults import Deadlock

THIS = __file__


def _located_here(err: TilefoldError) -> None:
    assert err.span is not None and err.span.filename == THIS and err.span.line > 0, err.render()
    assert err.hint, err.render()


@pytest.mark.parametrize("call", [
    lambda: pl.dump_tag(np.zeros(3)),  # the known weak spot: was a plain error without location
    lambda: pl.system.bar_all(),
    lambda: pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0),
    lambda: pl.system.syncall(),
    lambda: pl.reserve_buffer(name="r", size=512),
    lambda: pl.aiv_initialize_pipe(),
    lambda: pl.range(3),
    lambda: pl.at(level=pl.Level.CORE_GROUP),
])
def test_a_kernel_only_name_called_at_python_level_names_the_calling_line(call):
    with pytest.raises(NotSupportedError) as info:
        call()
    assert "only meaningful inside" in info.value.message or "never runs" in info.value.message
    _located_here(info.value)


def test_an_unknown_pl_name_is_a_located_attribute_error_with_a_close_match():
    with pytest.raises(AttributeError) as info:  # hasattr / getattr(..., default) keep working
        pl.system.bar_q()  # was a bare AttributeError("pl.system has no op 'bar_q'")
    assert isinstance(info.value, UnknownNameError)
    _located_here(info.value)
    with pytest.raises(UnknownNameError) as info:
        pl.ad  # noqa: B018
    assert "pl.add" in info.value.hint
    assert not hasattr(pl, "no_such_name") and hasattr(pl, "add") and getattr(pl.tile, "zz", 7) == 7


def test_a_barrier_in_orchestration_code_is_located_with_a_hint():
    # was "orchestration 'k': only kernel launches are supported, got system.bar_all" with no location or hint
    with pytest.raises(NotSupportedError) as info:
        k.barrier_in_orchestration(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32))
    assert info.value.span is not None and info.value.span.line > 0
    assert "inside the pl.at scope" in info.value.hint


def test_a_loop_of_a_trillion_trips_stops_at_its_line_and_the_budget_is_a_run_config_field():
    a = np.zeros((16, 64), np.float32)
    start = time.monotonic()
    with pytest.raises(StepBudgetExceeded) as info:
        k.spin(a, np.zeros_like(a), config=RunConfig(max_steps=20_000))
    assert time.monotonic() - start < 20
    assert info.value.span is not None and info.value.span.filename.endswith("hostile6_jit_kernels.py")
    assert "RunConfig(max_steps=N)" in info.value.hint
    with pytest.raises(TilefoldError, match="max_steps"):
        RunConfig(max_steps=0)


def test_a_barrier_in_a_loop_of_a_billion_trips_stops_within_seconds():
    # each arrival was one step, and a barrier round hands control between 48 threads: it took over a minute
    a = np.zeros((k.AIV, 64), np.float32)
    start = time.monotonic()
    with pytest.raises(StepBudgetExceeded) as info:
        k.barrier_for_ever(a, np.zeros_like(a))
    assert time.monotonic() - start < 30
    assert "syncall" in info.value.message and info.value.span is not None


def test_a_barrier_only_one_block_reaches_names_the_syncall():
    a = np.zeros((k.AIV, 64), np.float32)
    with pytest.raises(Deadlock) as info:  # had no location
        k.barrier_on_block_zero(a, np.zeros_like(a))
    assert info.value.span is not None and info.value.span.line > 0 and "syncall" in info.value.instruction


T = "pl.Tensor[[16, 64], pl.FP32]"
NEG = f"""
    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.tile.store(pl.tile.neg(t), [0, 0], out)
        return out
"""


def _fan_out(levels: int) -> str:
    src = "import tilefold.language as pl\n\n\n@pl.program\nclass P:" + NEG
    for i in range(levels):
        inner = f"self.f{i + 1}(x, out)" if i < levels - 1 else "self.neg(x, out)"
        src += f"""
    @pl.function(type=pl.FunctionType.Graph)
    def f{i}(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = {inner}
        out = {inner}
        return out
"""
    return src + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.f0(x, out)
        return out
"""


def test_orchestration_calls_that_double_per_level_are_bounded():
    from tilefold.compiler import compile as compile_program

    start = time.monotonic()
    with pytest.raises(NotSupportedError) as info:  # 2**30 copies: the pass never finished
        compile_program(pl.parse(_fan_out(30), "fan.py"))
    assert time.monotonic() - start < 30
    assert f"more than {MAX_INLINED_COPIES:,} copies" in info.value.message
    assert info.value.span is not None and info.value.span.filename == "fan.py" and info.value.hint
    compile_program(pl.parse(_fan_out(6), "fan.py"))  # 64 copies: fine


def test_an_if_in_orchestration_code_is_located():
    from tilefold.compiler import compile as compile_program

    src = "import tilefold.language as pl\n\n\n@pl.program\nclass P:" + NEG + f"""
    @pl.function(type=pl.FunctionType.Graph)
    def g(self, x: {T}, out: pl.Out[{T}], n: pl.Scalar[pl.INDEX]) -> {T}:
        if n > 1:
            out = self.neg(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        for i in pl.range(3):
            out = self.g(x, out, i)
        return out
"""
    with pytest.raises(NotSupportedError) as info:  # "unsupported statement IfStmt" had no location
        compile_program(pl.parse(src, "orch_if.py"))
    assert info.value.span is not None and info.value.span.filename == "orch_if.py" and info.value.span.line > 0


def test_an_mlir_signature_the_dsl_refuses_is_located_at_the_function(tmp_path):
    pytest.importorskip("xdsl")
    from tilefold.mlir import load_program

    path = tmp_path / "zero.mlir"
    path.write_text("func.func @k(%src: memref<0x64xf32>, %dst: memref<0x64xf32>) attributes "
                    "{hivm.func_core_type = #hivm.func_core_type<AIV>} {\n"
                    "  %buf = memref.alloc() : memref<0x64xf32>\n"
                    "  hivm.hir.load ins(%src : memref<0x64xf32>) outs(%buf : memref<0x64xf32>)\n"
                    "  hivm.hir.store ins(%buf : memref<0x64xf32>) outs(%dst : memref<0x64xf32>)\n"
                    "  return\n}\n")
    with pytest.raises(TilefoldError) as info:  # was "function @k: ... extent 0 is not positive" with no place
        load_program(str(path))
    assert info.value.span is not None and info.value.span.filename == str(path) and info.value.span.line == 1
