"""PyPTO's hierarchy levels and roles (dev/07-outline_hierarchy_scopes) on one simulated chip: hierarchy scopes
are outlined under PyPTO's names, orchestrator scopes and functions run as orchestration code in program order,
Graph fragments run as orchestration code, and levels with no single-chip meaning are refused, located."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError
from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(19)
HEAD = "import tilefold.language as pl\n\n\n@pl.program\nclass P:\n"
T64 = "pl.Tensor[[64], pl.FP32]"
T = "pl.Tensor[[16, 64], pl.FP32]"


def _names(program) -> list[str]:
    return [f.name for f in program.functions]


def _x() -> np.ndarray:
    return RNG.standard_normal((16, 64)).astype(np.float32)


def _run(src: str, inputs: dict, expected: np.ndarray) -> None:
    report = run_and_compare(pl.parse(src), inputs)
    assert report.fault is None, report.summary()
    np.testing.assert_allclose(report.golden_outputs["out"], expected, rtol=1e-5, atol=1e-6, err_msg="golden")
    np.testing.assert_allclose(report.outputs["out"], expected, rtol=1e-5, atol=1e-6, err_msg="device")
    assert report.matches, report.summary()


def test_before_after_single_scope():
    src = HEAD + f"""    @pl.function
    def main(self, x: {T64}) -> {T64}:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            y: {T64} = pl.add(x, x)
        return y
"""
    after = outline_hierarchy_scopes()(pl.parse(src))
    assert _names(after) == ["main_host_orch_0", "main"]
    outlined = after.function("main_host_orch_0")
    assert outlined.func_type is pl.FunctionType.Opaque  # the parent's type is kept too
    assert dict(outlined.attrs) == {"level": "HOST", "role": "Orchestrator"}
    assert [p.name for p in outlined.params] == ["x"]
    text = pl.python_print(after)
    assert "@pl.function(type=pl.FunctionType.Opaque, level=pl.Level.HOST, role=pl.Role.Orchestrator)" in text
    assert "y: pl.Tensor[[64], pl.FP32] = self.main_host_orch_0(x)" in text
    again = pl.parse(text)  # the printed After form parses back (level= / role= on @pl.function)
    assert again.function("main_host_orch_0").attr("level") == "HOST"


def test_before_after_nested_scopes_chain_names():
    src = HEAD + f"""    @pl.function
    def main(self, x: {T64}) -> {T64}:
        with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
            y: {T64} = pl.add(x, x)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                z: {T64} = pl.mul(y, y)
        return z
"""
    after = outline_hierarchy_scopes()(pl.parse(src))
    assert _names(after) == ["main_global_orch_0_host_orch_0", "main_global_orch_0", "main"]
    assert [p.name for p in after.function("main_global_orch_0_host_orch_0").params] == ["y"]
    assert "z: pl.Tensor[[64], pl.FP32] = self.main_global_orch_0_host_orch_0(y)" in pl.python_print(after)


@pytest.mark.parametrize("level,role,name", [
    ("CHIP", None, "main_chip_0"), ("POD", None, "main_cluster0_0"), ("NODE", "Orchestrator", "main_host_orch_0"),
    ("UMA", "Worker", "main_chip_worker_0"), ("CLUSTER_2", "Orchestrator", "main_cluster2_orch_0"),
])
def test_levels_and_aliases_name_the_outlined_function(level, role, name):
    opt = f", role=pl.Role.{role}" if role else ""
    src = HEAD + f"""    @pl.function
    def main(self, x: {T64}) -> {T64}:
        with pl.at(level=pl.Level.{level}{opt}):
            y: {T64} = pl.add(x, x)
        with pl.at(level=pl.Level.{level}{opt}):
            z: {T64} = pl.add(y, x)
        return z
"""
    assert _names(outline_hierarchy_scopes()(pl.parse(src))) == [name, name[:-1] + "1", "main"]


def test_host_and_global_orchestrator_scopes_run_in_program_order():
    src = HEAD + f"""    @pl.function
    def main(self, x: {T}, y: {T}, out: pl.Out[{T}]) -> {T}:
        with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.add(x, y)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[:] = pl.mul(s, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.sub(out, y)
        return out
"""
    x, y = _x(), _x()
    _run(src, {"x": x, "y": y, "out": np.zeros((16, 64), np.float32)}, (x + y) * x - y)


def test_orchestrator_functions_written_by_hand_run():
    src = HEAD + f"""    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main_host_orch_0(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.exp(x)
        return out

    @pl.function
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.main_host_orch_0(x, out)
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(out, x)
        return out
"""
    x = _x()
    _run(src, {"x": x, "out": np.zeros((16, 64), np.float32)}, np.exp(x) + x)


KERNELS = f"""    @pl.function(type=pl.FunctionType.InCore)
    def decay(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[{T}],
              row: pl.Scalar[pl.INDEX]) -> {T}:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [row, 0], [16, 64], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(out, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        s = pl.tile.add(pl.tile.muls(a, 0.5), t)
        out = pl.tile.store(s, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def negate(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.tile.store(pl.tile.neg(t), [0, 0], out)
        return out
"""


def test_a_graph_fragment_called_in_a_loop():
    src = HEAD + KERNELS + f"""
    @pl.function(type=pl.FunctionType.Graph)
    def layer(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[{T}], base: pl.Scalar[pl.INDEX]) -> {T}:
        out = self.decay(x, out, base)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def decode(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.InOut[{T}]) -> {T}:
        for i in pl.range(4):
            out = self.layer(x, out, i * 16)
        return out
"""
    assert pl.parse(src).function("layer").func_type is pl.FunctionType.Graph
    assert "@pl.function(type=pl.FunctionType.Graph)" in pl.python_print(pl.parse(src))
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    out0 = _x()
    ref = out0.copy()
    for i in range(4):
        ref = ref * 0.5 + x[i * 16:(i + 1) * 16]
    _run(src, {"x": x, "out": out0}, ref)


def test_a_helper_called_twice_keeps_both_results():
    src = HEAD + KERNELS + f"""
    @pl.function(type=pl.FunctionType.Graph)
    def neg(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.negate(x, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, y: {T}, tmp: pl.Out[{T}], out: pl.Out[{T}]) -> {T}:
        a = self.neg(x, tmp)
        b = self.neg(a, out)
        return b
"""
    x = _x()
    _run(src, {"x": x, "y": _x(), "tmp": np.zeros((16, 64), np.float32), "out": np.zeros((16, 64), np.float32)}, x)


def test_the_entry_is_the_caller_not_an_orchestration_helper():
    # the helper became the only Orchestration function: it alone was run, main's later launch was dropped
    src = HEAD + KERNELS + f"""
    @pl.function
    def helper(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(x, x)
        return out

    @pl.function
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.helper(x, out)
        out = self.negate(out, out)
        return out
"""
    x = _x()
    _run(src, {"x": x, "out": np.zeros((16, 64), np.float32)}, -2 * x)


def _refused(scope: str, exc: type, *words: str, line: int = 8) -> None:
    src = HEAD + f"""    @pl.function
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        {scope}
            with pl.at(level=pl.Level.CORE_GROUP):
                out[:] = pl.add(x, x)
        return out
"""
    with pytest.raises(exc) as info:
        pl.parse(src)
    err = info.value
    assert err.span is not None and err.span.line == line, err
    assert err.hint
    for w in words:
        assert w in str(err)


def test_a_worker_above_the_chip_is_refused():
    _refused("with pl.at(level=pl.Level.POD, role=pl.Role.Worker):", NotSupportedError, "CLUSTER_0", "one chip")
    _refused("with pl.at(level=pl.Level.HOST, role=pl.Role.Worker):", NotSupportedError, "each member")


def test_chip_die_and_subworker_scopes_are_refused():
    _refused("with pl.at(level=pl.Level.CHIP_DIE):", NotSupportedError, "CHIP_DIE")
    _refused("with pl.at(level=pl.Level.HOST, role=pl.Role.SubWorker):", ParseError, "SubWorker")


def test_a_role_on_an_on_chip_scope_is_an_error():
    _refused("with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator):", ParseError, "role=")


def test_a_hierarchy_scope_in_an_orchestration_loop_is_one_scope_per_iteration():
    # orchestration loops around scopes are unrolled: each iteration's scope is outlined on its own
    src = HEAD + f"""    @pl.function
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        for i in pl.range(2):
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y = pl.add(x, x)
        return out
"""
    assert _names(outline_hierarchy_scopes()(pl.parse(src))) == ["main_host_orch_0", "main_host_orch_1", "main"]


def test_a_subworker_function_and_a_worker_function_above_the_chip_are_refused():
    for role, exc in (("SubWorker", NotSupportedError), ("Worker", NotSupportedError)):
        src = HEAD + f"""    @pl.function(level=pl.Level.GLOBAL, role=pl.Role.{role})
    def main(self, x: {T}) -> {T}:
        return x
"""
        with pytest.raises(exc) as info:
            pl.parse(src)
        assert info.value.span is not None and info.value.span.line == 6
