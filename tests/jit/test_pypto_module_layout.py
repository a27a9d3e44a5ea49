"""PyPTO's module paths on tilefold (issue 19, item 2): each imports and reaches tilefold's implementation."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import NotSupportedError, TilefoldError

M, N = 16, 64


@pl.program
class AddProgram:
    @pl.function(type=pl.FunctionType.InCore)
    def add_k(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
              out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        ta = pl.load(a, [0, 0], [M, N])
        tb = pl.load(b, [0, 0], [M, N])
        out = pl.store(pl.add(ta, tb), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        out = self.add_k(a, b, out)
        return out


@pytest.mark.parametrize("path,names", [
    ("tilefold.runtime.runner", ["RunConfig", "RunResult", "run"]),
    ("tilefold.runtime.tensor_spec", ["TensorSpec"]),
    ("tilefold.ir.compiled_program", ["CompiledProgram"]),
    ("tilefold.pypto_core.passes", ["MemoryPlanner", "PassContext", "VerificationInstrument", "VerificationMode",
                                    "canonicalize_tile_slice"]),
    ("tilefold.backend.pto_backend", ["PartialCodegenError", "generate"]),
    ("tilefold.ir.instruments", ["make_roundtrip_instrument"]),
])
def test_pypto_module_paths_import(path, names):
    mod = importlib.import_module(path)
    for n in names:
        assert getattr(mod, n) is not None
    assert mod.__name__.startswith("tilefold.compat.")  # a face: the implementation lives in tilefold.compat


def test_face_names_are_tilefold_objects():
    from tilefold.compiler import CompiledProgram
    from tilefold.ir.compiled_program import CompiledProgram as Face
    from tilefold.runtime import RunConfig
    from tilefold.runtime.runner import RunConfig as RunnerConfig

    assert Face is CompiledProgram and RunnerConfig is RunConfig


def test_runner_run_with_tensor_specs_and_golden():
    from tilefold.runtime.runner import RunConfig, run
    from tilefold.runtime.tensor_spec import TensorSpec

    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((M, N)).astype(np.float32), rng.standard_normal((M, N)).astype(np.float32)
    specs = [TensorSpec("a", [M, N], pl.FP32, init_value=a), TensorSpec("b", [M, N], np.float32, init_value=b),
             TensorSpec("out", [M, N], pl.FP32, is_output=True)]

    def golden(tensors, params):
        tensors["out"][:] = tensors["a"] + tensors["b"]

    result = run(AddProgram, specs, golden, RunConfig(platform="a2a3sim"))
    assert result.passed, result.error
    np.testing.assert_allclose(result.outputs["out"], a + b, rtol=1e-6)

    def wrong(tensors):
        tensors["out"][:] = tensors["a"] - tensors["b"]

    bad = run(AddProgram, specs, wrong, RunConfig(platform="a2a3sim"))
    assert not bad.passed and "'out'" in bad.error


def test_runner_without_golden_uses_the_interpreter_and_reports_missing_specs():
    from tilefold.runtime.runner import run
    from tilefold.runtime.tensor_spec import TensorSpec

    specs = [TensorSpec("a", [M, N], pl.FP32, init_value=1.5), TensorSpec("b", [M, N], pl.FP32, init_value=2.0),
             TensorSpec("out", [M, N], pl.FP32, is_output=True)]
    assert run(AddProgram, specs).passed
    missing = run(AddProgram, specs[:2])
    assert not missing.passed and "'out'" in missing.error


def test_tensor_spec_init_forms_and_size_limit():
    from tilefold.runtime.tensor_spec import TensorSpec

    assert (TensorSpec("x", [2, 3], pl.INT32, init_value=7).create_array() == 7).all()
    got = TensorSpec("x", [2, 3], pl.FP16, init_value=lambda shape: np.arange(6.0).reshape(shape)).create_array()
    assert got.dtype == np.float16 and got[1, 2] == 5.0
    assert TensorSpec([4, 8], pl.FP32).shape == (4, 8)  # tilefold's shape-only form still works
    spec = TensorSpec([4, 8], pl.FP16, "x")
    assert (spec.name, spec.dtype, TensorSpec([2, 2]).dtype) == ("x", pl.FP16, pl.FP32)
    with pytest.raises(TilefoldError, match="256 MiB"):
        TensorSpec("big", [1 << 20, 1 << 20], pl.FP32).create_array()


def test_memory_planner_and_ir_compile():
    from tilefold.pypto_core import passes

    for planner in (None, passes.MemoryPlanner.PYPTO, passes.MemoryPlanner.PTOAS):
        compiled = ir.compile(AddProgram, memory_planner=planner)
        a = np.full((M, N), 1.0, np.float32)
        out = np.zeros((M, N), np.float32)
        compiled(a, a, out)
        np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(TilefoldError, match="MemoryPlanner"):
        ir.compile(AddProgram, memory_planner="fast")


def test_pass_context_pypto_spelling():
    from tilefold.ir.instruments import make_roundtrip_instrument
    from tilefold.pypto_core import passes

    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER),
                             make_roundtrip_instrument()]) as ctx:
        passes.init_mem_ref()(AddProgram)
    assert ctx.history


def test_dataclasses_replace_on_run_config():
    from tilefold.runtime.runner import RunConfig

    cfg = RunConfig(platform="a2a3sim", device_id=3, enable_scope_stats=True)
    new = dataclasses.replace(cfg, platform="a5sim")
    assert new.platform == "a5sim" and new.target == "Ascend950"
    assert new.device_id == 3 and new.enable_scope_stats == 1


def test_copy_from_with_a_host_pointer():
    from tilefold.runtime import ChipWorker, RunConfig

    with ChipWorker(config=RunConfig()) as w:
        init = np.arange(12, dtype=np.float32).reshape(3, 4)
        t = w.alloc_tensor((3, 4), np.float32, init=init)
        host = np.zeros((3, 4), np.float32)
        w.copy_from(host.ctypes.data, t.data_ptr, t.nbytes)
        np.testing.assert_array_equal(host, init)
        with pytest.raises(TilefoldError, match="exceed"):
            w.copy_from(host.ctypes.data, t.data_ptr, t.nbytes + 4)


def test_hardware_only_names_say_not_on_the_simulator():
    with pytest.raises(NotSupportedError, match="simulator"):
        from tilefold.ir.compiled_program import DistributedCompiledProgram  # noqa: F401


def test_compiled_program_called_return_style():
    compiled = ir.compile(AddProgram)
    a = np.random.default_rng(8).standard_normal((M, N)).astype(np.float32)
    b = np.random.default_rng(9).standard_normal((M, N)).astype(np.float32)
    out = compiled(a, b)  # no Out argument: it is made and returned
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    given = np.zeros((M, N), np.float32)
    compiled(a, b, given)  # the usual form still writes in place
    np.testing.assert_allclose(given, a + b, rtol=1e-6)


def test_tensor_view_annotations():
    src = '''
import tilefold.language as pl
STRIDED = pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)

@pl.program
class V:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.ND]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out
'''
    from tilefold.testing import run_and_compare

    big = np.random.default_rng(10).standard_normal((16, 128)).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"a": big[:, :64], "out": np.zeros((16, 64), np.float32)})
    assert report.matches
    np.testing.assert_array_equal(report.outputs["out"], big[:, :64])
    with pytest.raises(NotSupportedError, match="row-major stride"):
        pl.parse(src.replace("stride=[128, 1]", "stride=[1, 16]"))
    with pytest.raises(NotSupportedError, match="valid_shape"):
        pl.parse(src.replace("stride=[128, 1], layout", "valid_shape=[8, 64], layout"))
    with pytest.raises(TilefoldError, match="layout="):
        pl.parse(src.replace("stride=[128, 1], layout=pl.TensorLayout.ND)]", "stride=[128, 1])]"))
    with pytest.raises(NotSupportedError, match="pl.DN"):
        pl.parse(src.replace("pl.FP32, pl.ND]", "pl.FP32, pl.DN]"))
