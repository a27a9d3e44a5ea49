"""PyPTO's Python pass API on tilefold (docs/runtime.md "PyPTO's pass API"): each snippet of PyPTO's pass docs,
imports changed, on real programs."""

from __future__ import annotations

import json

import call_boundary_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import NotSupportedError, TilefoldError, VerificationError
from tilefold.ir.instruments import make_roundtrip_instrument
from tilefold.ir.stmt import AssignStmt, SeqStmts
from tilefold.pypto_core import passes

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


def _kernel(program):
    return next(fn for fn in program.functions if fn.func_type.is_incore)


def _duplicate_first_def(program):
    """The program with the kernel's first assignment repeated: the same Var defined twice (not SSA)."""
    fn = _kernel(program)
    stmts = fn.body.stmts
    i = next(j for j, s in enumerate(stmts) if isinstance(s, AssignStmt))
    body = SeqStmts((*stmts[:i + 1], stmts[i], *stmts[i + 1:]))
    new_fn = fn.with_fields(body=body)
    return program.with_fields(functions=tuple(new_fn if f is fn else f for f in program.functions))


def _broken_pass():
    """A pass that claims to produce SSAForm and breaks it."""
    from tilefold.passes.base import IRProperty, Pass

    return Pass("BreaksSSA", _duplicate_first_def, produced=(IRProperty.SSAForm,))


def _text(program) -> str:
    return ir.python_print(program)


# ------------------------------------------------------------------------------------------------ factories


def test_a_factory_per_registered_pass_with_its_declared_properties():
    from tilefold.passes.pipeline import get_pass, list_passes

    for cli_name in list_passes():
        p = getattr(passes, cli_name.replace("-", "_"))()
        inner = get_pass(cli_name)
        assert p.get_name() == inner.name
        assert {x.value for x in p.get_required_properties()} == {passes.pypto_name(x) for x in inner.required}
        assert {x.value for x in p.get_produced_properties()} == {passes.pypto_name(x) for x in inner.produced}
        assert {x.value for x in p.get_invalidated_properties()} == {passes.pypto_name(x) for x in inner.invalidated}
    assert passes.outline_incore_scopes().get_name() == "OutlineIncoreScopes"
    assert passes.convert_tensor_to_tile_ops().get_name() == "ConvertTensorToTileOps"
    # tilefold's MemRefAllocated is PyPTO's HasMemRefs
    assert passes.IRProperty.HasMemRefs in passes.allocate_memory_addr().get_produced_properties()


def test_pass_properties_snippet():
    p = passes.convert_to_ssa()
    assert p.get_name() == "ConvertToSSA"
    produced = p.get_produced_properties()
    assert str(produced) == "{SSAForm}" and produced.contains(passes.IRProperty.SSAForm)
    assert produced == {passes.IRProperty.SSAForm} and len(p.get_required_properties()) == 0
    cts = passes.canonicalize_tile_slice().get_required_properties()
    assert cts.contains_all([passes.IRProperty.SSAForm, passes.IRProperty.TileOps2D])


def test_convert_to_ssa_names_versions_and_refuses_non_ssa_ir():
    renamed = passes.convert_to_ssa()(AddProgram)  # `out = pl.store(..., out)`: version 1 of the name `out`
    text = _text(renamed)
    assert "out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = pl.store(" in text and "return out__ssa_v1" in text
    assert "out__ssa_v1: pl.Tensor[[16, 64], pl.FP32] = self.add_k(a, b, out)" in text
    assert passes.convert_to_ssa()(renamed) is renamed  # SSA IR in PyPTO's names comes back unchanged
    with pytest.raises(NotSupportedError, match="ConvertToSSA.*SSA form"):
        passes.convert_to_ssa()(_duplicate_first_def(AddProgram))


@pytest.mark.parametrize("name", ["lower_composite_ops", "expand_mixed_kernel", "simplify",
                                  "materialize_dist_tensor_ctx"])
def test_pypto_pass_tilefold_lacks_raises_naming_it(name):
    factory = getattr(passes, name)
    with pytest.raises(NotSupportedError, match=rf"passes\.{name}\(\)"):
        factory()
    assert name in passes.pass_factory_names()
    with pytest.raises(AttributeError):
        passes.no_such_pass  # noqa: B018


def test_tensor_level_passes_change_the_ir_as_they_should():
    program = k.axpy.parse(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32), 2.0,
                           np.zeros((16, 64), np.float32))
    assert not any(fn.func_type.is_incore for fn in program.functions)
    outlined = passes.outline_incore_scopes()(program)
    assert any(fn.func_type.is_incore for fn in outlined.functions)  # the pl.at scope became a kernel
    assert "pl.tile." not in _text(outlined) and "pl.load(" not in _text(outlined)  # still tensor ops
    tiled = passes.convert_tensor_to_tile_ops()(outlined)
    kernel = _text(_kernel(tiled))
    # tile loads, tile ops (x * alpha as the scalar form), a store
    assert "pl.tile.load(x" in kernel and "pl.tile.muls(x_tile, alpha)" in kernel and "pl.store(add_t" in kernel


# ------------------------------------------------------------------------------------------------ pipelines


def test_pass_pipeline_snippet():
    pipeline = passes.PassPipeline()
    pipeline.add_pass(passes.convert_to_ssa())
    pipeline.add_pass(passes.init_mem_ref())
    pipeline.add_pass(passes.memory_reuse())
    result = pipeline.run(AddProgram)
    assert pipeline.get_pass_names() == ["ConvertToSSA", "InitMemRef", "MemoryReuse"]
    assert "MemRef" not in _text(AddProgram) and "MemRef" in _text(result)  # InitMemRef attached MemRefs
    with pytest.raises(TilefoldError, match="add_pass takes a pass"):
        pipeline.add_pass("InitMemRef")


def test_pass_manager_default_strategy_equals_tilefold_pipeline():
    from tilefold.compiler import run_pipeline

    pm = ir.PassManager.get_strategy(ir.OptimizationStrategy.Default)
    result = pm.run_passes(AddProgram)
    own, names = run_pipeline(AddProgram, "Ascend910B")
    assert ir.structural_equal(result, own)
    assert [n for n in pm.get_pass_names() if n in names] == list(names)
    # the same passes through PassPipeline give the same program
    pipeline = passes.PassPipeline()
    for p in pm.passes:
        pipeline.add_pass(p)
    assert ir.structural_equal(pipeline.run(AddProgram), own)


# ------------------------------------------------------------------------------------------------ instruments


def test_verification_instrument_after_catches_a_broken_property():
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER)]):
        with pytest.raises(VerificationError, match="BreaksSSA"):
            _broken_pass()(AddProgram)
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.BEFORE)]):
        _broken_pass()(AddProgram)  # BEFORE only: the pass requires nothing
        with pytest.raises(VerificationError, match="before pass CanonicalizeTileSlice"):
            passes.canonicalize_tile_slice()(_duplicate_first_def(AddProgram))


def test_verification_level_and_env(monkeypatch):
    pipeline = passes.PassPipeline()
    pipeline.add_pass(_broken_pass())
    monkeypatch.delenv("PYPTO_VERIFY_LEVEL", raising=False)
    with pytest.raises(VerificationError, match="BreaksSSA"):
        pipeline.run(AddProgram)  # BASIC by default: a pipeline checks what each pass produces
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER)],
                            passes.VerificationLevel.NONE):
        pipeline.run(AddProgram)  # NONE: no verification, not even the context's instrument
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "none")
    pipeline.run(AddProgram)
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "basic")
    with pytest.raises(VerificationError):
        pipeline.run(AddProgram)
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "roundtrip")
    from tilefold.testing.round_trip import RoundTripInstrument

    assert any(isinstance(i, RoundTripInstrument) for i in passes.automatic_instruments(passes.requested_level()))
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "loud")
    with pytest.raises(TilefoldError, match="PYPTO_VERIFY_LEVEL"):
        pipeline.run(AddProgram)


def test_roundtrip_instrument_on_real_passes():
    inst = make_roundtrip_instrument()
    with passes.PassContext([inst]):
        result = passes.convert_to_ssa()(AddProgram)
        planned = ir.PassManager.get_strategy(ir.OptimizationStrategy.Default).run_passes(result)
    assert inst.checked[0] == "ConvertToSSA" and "AllocateMemoryAddr" in inst.checked
    assert "MemRef" in _text(planned)


def test_report_instrument_writes_a_record_per_pass(tmp_path):
    instrument = passes.ReportInstrument(str(tmp_path / "report"))
    assert instrument.get_output_dir() == str(tmp_path / "report")
    pipeline = passes.PassPipeline()
    pipeline.add_pass(passes.convert_to_ssa())
    pipeline.add_pass(passes.init_mem_ref())
    with passes.PassContext([instrument]):
        pipeline.run(AddProgram)
    records = json.loads((tmp_path / "report" / "pass_report.json").read_text())
    assert [r["pass"] for r in records] == ["ConvertToSSA", "InitMemRef"]
    assert records[0]["changed"] is True and records[0]["produced"] == ["SSAForm"]  # out -> out__ssa_v1
    assert records[0]["functions_changed"] == ["add_k", "main"]
    assert records[1]["changed"] is True and records[1]["functions_changed"] == ["add_k"]
    assert "InitMemRef" in (tmp_path / "report" / "pass_report.txt").read_text()


def test_callback_instrument_gets_pypto_pass_objects():
    seen = []
    with passes.PassContext([passes.CallbackInstrument(after_pass=lambda p, prog: seen.append(p.get_name()))]):
        ir.PassManager.get_strategy(ir.OptimizationStrategy.Default).run_passes(AddProgram)
    assert seen[:4] == ["OutlineHierarchyScopes", "OutlineIncoreScopes", "InlineOrchestrationCalls", "ConvertTensorToTileOps"]
    assert seen[-1] == "AllocateMemoryAddr"


# ------------------------------------------------------------------------------------------------ compile, dumps


def test_ir_compile_verification_level():
    a = np.random.default_rng(1).standard_normal((M, N)).astype(np.float32)
    for level in (ir.VerificationLevel.NONE, ir.VerificationLevel.BASIC, ir.VerificationLevel.ROUNDTRIP):
        out = np.zeros((M, N), np.float32)
        ir.compile(AddProgram, verification_level=level)(a, a, out)
        np.testing.assert_allclose(out, a + a, rtol=1e-6)
    with pytest.raises(TilefoldError, match="VerificationLevel"):
        ir.compile(AddProgram, verification_level="basic")


def test_ir_compile_dump_passes(tmp_path):
    compiled = ir.compile(AddProgram, output_dir=tmp_path, dump_passes=ir.PassDumpLevel.EXPLICIT)
    files = sorted(p.name for p in (tmp_path / "passes_dump").iterdir())
    assert files[0].startswith("00_after_") and files[-1].endswith("_after_AllocateMemoryAddr.py")
    assert (tmp_path / "passes_dump" / files[-1]).read_text() == _text(compiled.program)
    ir.compile(AddProgram, output_dir=tmp_path / "none", dump_passes=False)
    assert not (tmp_path / "none" / "passes_dump").exists()


def test_run_config_dump_passes(tmp_path):
    from tilefold.runtime.runner import RunConfig

    assert RunConfig(dump_passes=True).dump_passes is ir.PassDumpLevel.CONCISE
    assert RunConfig(dump_passes=ir.PassDumpLevel.EXPLICIT).dump_passes is ir.PassDumpLevel.EXPLICIT
    with pytest.raises(TilefoldError, match="dump_passes"):
        RunConfig(dump_passes="yes")
    args = [np.ones((16, 64), np.float32), np.ones((16, 64), np.float32), 3.0, np.zeros((16, 64), np.float32)]
    compiled = k.axpy.compile(*args, config=RunConfig(dump_passes=ir.PassDumpLevel.EXPLICIT, work_dir=str(tmp_path)))
    dumps = sorted((tmp_path / "passes_dump").iterdir())
    assert [d.name for d in dumps[:2]] == ["00_after_OutlineHierarchyScopes.py", "01_after_OutlineIncoreScopes.py"]
    assert dumps[3].name == "03_after_ConvertTensorToTileOps.py"
    assert dumps[-1].read_text() == _text(compiled.ir)
    pl.parse(dumps[-1].read_text())  # a dump is a program text tilefold parses back
