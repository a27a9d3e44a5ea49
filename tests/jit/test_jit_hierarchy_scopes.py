"""Hierarchy scopes (``with pl.at(level=pl.Level.HOST / GLOBAL / CHIP ..., role=...)``) inside a ``@pl.jit`` entry:
orchestration code placed at a level of PyPTO's machine hierarchy, holding on-chip scopes. They are outlined under
PyPTO's names (dev/07-outline_hierarchy_scopes), run in program order with the code around them, and give the
values numpy computes here by hand; the placements one simulated chip cannot honour are refused, located."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TilefoldError
from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes
from tilefold.runtime import RunConfig
from tilefold.runtime.jit_compile import to_tile_program
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(1907)
HEAD = "import tilefold.language as pl\n\n"
SIG = ("@pl.jit\ndef k(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],\n"
       "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n")


def _xy() -> tuple[np.ndarray, np.ndarray]:
    return (RNG.standard_normal((16, 64)).astype(np.float32), RNG.standard_normal((16, 64)).astype(np.float32))


@pl.jit
def host_then_chip(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(x, y)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(out, x)
    return out


@pl.jit
def staged_global_host(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.add(x, y)  # a fresh tensor: crosses into the HOST scope below
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            for i in pl.range(2):  # an orchestration loop inside the scope: one launch per row block
                with pl.at(level=pl.Level.CORE_GROUP):
                    out[i * 8:(i + 1) * 8, :] = pl.mul(s[i * 8:(i + 1) * 8, :], x[i * 8:(i + 1) * 8, :])
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(out, y)
    return out


def test_a_host_orchestrator_scope_runs_before_the_code_after_it():
    x, y = _xy()
    out = np.zeros_like(x)
    ret = host_then_chip(x, y, out, config=RunConfig(platform="a2a3sim"))
    assert ret is out
    np.testing.assert_allclose(out, (x + y) * x, rtol=1e-6, atol=1e-6)


def test_nested_scopes_a_staged_tensor_and_an_orchestration_loop():
    x, y = _xy()
    out = np.zeros_like(x)
    staged_global_host(x, y, out, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(out, (x + y) * x - y, rtol=1e-5, atol=1e-6)


def test_the_lowered_kernels_carry_pypto_names():
    x, y = _xy()
    names = [f.name for f in staged_global_host.lower(x, y, np.zeros_like(x)).functions]
    assert names[-1] == "staged_global_host"  # the one orchestration function: hierarchy code spliced in
    assert "staged_global_host_global_orch_0_incore_0" in names
    assert "staged_global_host_global_orch_0_host_orch_0_incore_0" in names
    assert "staged_global_host_global_orch_0_host_orch_0_incore_1" in names
    assert "staged_global_host_incore_0" in names


@pytest.mark.parametrize("level,role,name", [
    ("CHIP", None, "k_chip_0"), ("POD", None, "k_cluster0_0"), ("NODE", "Orchestrator", "k_host_orch_0"),
    ("UMA", "Worker", "k_chip_worker_0"), ("CLUSTER_2", "Orchestrator", "k_cluster2_orch_0"),
])
def test_levels_aliases_and_roles_name_the_outlined_function_and_give_numpy_values(level, role, name):
    opt = f", role=pl.Role.{role}" if role else ""
    src = HEAD + SIG + (f"    with pl.at(level=pl.Level.{level}{opt}):\n"
                        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "            out[:] = pl.exp(x)\n"
                        f"    with pl.at(level=pl.Level.{level}{opt}):\n"
                        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "            out[:] = pl.add(out, y)\n"
                        "    return out\n")
    program = pl.parse(src, "kern.py")
    outlined = outline_hierarchy_scopes()(program)
    assert [f.name for f in outlined.functions] == [name, name[:-1] + "1", "k"]
    assert outlined.function(name).attr("level") == pl.Level[level].name
    x, y = _xy()
    report = run_and_compare(program, {"x": x, "y": y, "out": np.zeros_like(x)})
    assert report.fault is None, report.summary()
    expected = np.exp(x) + y
    np.testing.assert_allclose(report.golden_outputs["out"], expected, rtol=1e-5, atol=1e-6, err_msg="golden")
    np.testing.assert_allclose(report.outputs["out"], expected, rtol=1e-5, atol=1e-6, err_msg="device")


def test_name_hint_names_the_hierarchy_function():
    src = HEAD + SIG + ('    with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="stage"):\n'
                        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "            out[:] = pl.add(x, y)\n"
                        "    return out\n")
    names = [f.name for f in to_tile_program(pl.parse(src, "kern.py")).functions]
    assert names == ["stage_incore_0", "k"]


def test_a_scope_per_iteration_of_an_entry_loop():
    src = HEAD + SIG + ("    with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "        out[:] = pl.mul(x, 1.0)\n"
                        "    for i in pl.range(3):\n"
                        "        with pl.at(level=pl.Level.HOST):\n"
                        "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "                out[:] = pl.add(out, y)\n"
                        "    return out\n")
    program = pl.parse(src, "kern.py")
    assert [f.name for f in outline_hierarchy_scopes()(program).functions] == ["k_host_0", "k_host_1", "k_host_2",
                                                                               "k"]
    x, y = _xy()
    report = run_and_compare(program, {"x": x, "y": y, "out": np.zeros_like(x)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], x + y + y + y, rtol=1e-5, atol=1e-5)


def _refused(body: str, exc: type[TilefoldError], message: str) -> None:
    src = HEAD + SIG + body
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        to_tile_program(pl.parse(src, "kern.py"))
    err = info.value
    assert message in err.message, err.message
    assert err.span is not None and err.span.line == line and err.span.filename == "kern.py", str(err)
    assert err.hint


INNER = "        with pl.at(level=pl.Level.CORE_GROUP):\n            out[:] = pl.add(x, y)\n    return out\n"


@pytest.mark.parametrize("head,exc,message", [
    ("    with pl.at(level=pl.Level.HOST, role=pl.Role.Worker):  # <-\n", NotSupportedError, "each member"),
    ("    with pl.at(level=pl.Level.CHIP_DIE):  # <-\n", NotSupportedError, "CHIP_DIE"),
    ("    with pl.at(level=pl.Level.HOST, deps=[]):  # <-\n", ParseError, "deps= is an option of an on-chip"),
    ("    with pl.at(level=pl.Level.GLOBAL) as tid:  # <-\n", ParseError, "binds no task id"),
    ("    with pl.at(level=pl.Level.HOST, role=pl.Role.SubWorker):  # <-\n", ParseError, "SubWorker"),
])
def test_placements_one_chip_cannot_honour_are_refused(head, exc, message):
    _refused(head + INNER, exc, message)


def test_hierarchy_scope_inside_an_on_chip_scope_is_refused():
    _refused("    with pl.at(level=pl.Level.CORE_GROUP):\n"
             "        with pl.at(level=pl.Level.HOST):  # <-\n"
             "            out[:] = pl.add(x, y)\n    return out\n", ParseError, "inside an on-chip pl.at scope")


def test_tensor_work_directly_in_a_hierarchy_scope_is_misplaced():
    _refused("    with pl.at(level=pl.Level.HOST):\n"
             "        out[:] = pl.add(x, y)  # <-\n    return out\n", ParseError, "Misplaced tensor op 'tensor.add'")


def test_return_inside_a_hierarchy_scope_is_refused():
    _refused("    with pl.at(level=pl.Level.HOST):\n"
             "        with pl.at(level=pl.Level.CORE_GROUP):\n"
             "            out[:] = pl.add(x, y)\n"
             "        return out  # <-\n", ParseError, "return inside a pl.Level.HOST scope")


def test_hierarchy_scope_inside_a_manual_scope_is_refused():
    _refused("    with pl.manual_scope():\n"
             "        with pl.at(level=pl.Level.HOST):  # <-\n"
             "            with pl.at(level=pl.Level.CORE_GROUP):\n"
             "                out[:] = pl.add(x, y)\n    return out\n", ParseError, "inside pl.manual_scope()")


def test_hierarchy_scope_in_an_incore_helper_is_refused():
    src = HEAD + ("@pl.jit.incore\n"
                  "def helper(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
                  "    with pl.at(level=pl.Level.HOST):  # <-\n"
                  "        out[:] = pl.exp(x)\n"
                  "    return out\n\n\n") + SIG + "    out = helper(x, out)\n    return out\n"
    with pytest.raises(ParseError) as info:
        to_tile_program(pl.parse(src, "kern.py"))
    assert "@pl.jit.incore" in info.value.message and info.value.span.line == 5
