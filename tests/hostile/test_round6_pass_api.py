"""Hostile inputs of the hostile6 round against PyPTO's Python pass API (``tilefold.pypto_core.passes``,
``tilefold.ir.PassManager``, ``ir.compile`` / ``ir.deserialize``): every misuse is a TilefoldError with a hint (was
a raw TypeError / AttributeError / OSError / UnicodeDecodeError), a context whose instrument fails to enter leaves
no context behind, and passes run out of the pipeline's order (or again after it) still compute the right values,
checked against numpy written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError
from tilefold.passes.base import PassContext as BaseContext
from tilefold.pypto_core import passes

R, C = 32, 64


@pl.program
class ExpRowMax:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
          out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        ta = pl.load(a, [0, 0], [R, C])
        tb = pl.load(b, [0, 0], [R, C])
        s = pl.add(pl.exp(ta), tb)
        out = pl.store(pl.row_expand_sub(s, pl.row_max(s)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        out = self.k(a, b, out)
        return out


RNG = np.random.default_rng(61)
A = RNG.standard_normal((R, C)).astype(np.float32)
B = RNG.standard_normal((R, C)).astype(np.float32)


def _reference() -> np.ndarray:
    s = np.exp(A.astype(np.float64)) + B.astype(np.float64)
    return s - s.max(axis=1, keepdims=True)


def _runs_right(program) -> None:
    out = np.zeros((R, C), np.float32)
    ir.compile(program)(A, B, out)
    np.testing.assert_allclose(out.astype(np.float64), _reference(), rtol=1e-5, atol=1e-5)


def _refused(fn, *fragments: str) -> TilefoldError:
    with pytest.raises(TilefoldError) as info:
        fn()
    assert info.value.hint, info.value.render()
    for fragment in fragments:
        assert fragment in info.value.message, info.value.render()
    return info.value


PM = ir.PassManager.get_strategy(ir.OptimizationStrategy.Default)


@pytest.mark.parametrize("name", ["init_mem_ref", "memory_reuse", "allocate_memory_addr", "tile_and_bind_sub_block",
                                  "canonicalize_tile_slice", "infer_tile_memory_space", "flatten_tile_nd_to_2d"])
def test_a_pass_run_again_after_the_whole_pipeline_still_computes_the_values(name):
    # InitMemRef after the pipeline drops the addresses: ir.compile generated code from it and failed with
    # "internal error: tile 'ta' has no planned address"; now a half-planned program goes through the pipeline
    _runs_right(getattr(passes, name)()(PM.run_passes(ExpRowMax)))


def test_a_program_stopped_after_init_mem_ref_compiles_through_the_rest_of_the_pipeline():
    _runs_right(passes.init_mem_ref()(ExpRowMax))


def test_the_sub_block_split_run_twice_and_the_pipeline_twice_keep_the_values():
    twice = passes.tile_and_bind_sub_block()(passes.tile_and_bind_sub_block()(ExpRowMax))
    _runs_right(PM.run_passes(twice))
    _runs_right(PM.run_passes(PM.run_passes(ExpRowMax)))


def test_the_hierarchy_passes_have_factories():
    # passes.outline_hierarchy_scopes() raised "tilefold has no such pass", though the Default strategy runs it
    assert passes.outline_hierarchy_scopes().get_name() == "OutlineHierarchyScopes"
    assert passes.inline_orchestration_calls().get_name() == "InlineOrchestrationCalls"
    assert {"outline_hierarchy_scopes", "inline_orchestration_calls"} <= set(passes.pass_factory_names())
    _runs_right(passes.inline_orchestration_calls()(passes.outline_hierarchy_scopes()(ExpRowMax)))


@pytest.mark.parametrize(("call", "fragment"), [
    # was TypeError from the factory's lambda (and one positional argument silently replaced the pass's name)
    (lambda: passes.init_mem_ref("canonicalize-tile-slice"), "takes its options as keywords"),
    (lambda: passes.init_mem_ref()(None), "runs on an ir.Program, got NoneType"),  # was AttributeError
    (lambda: passes.flatten_tile_nd_to_2d()("ExpRowMax"), "runs on an ir.Program, got str"),
    (lambda: passes.CallbackInstrument(before_pass=3), "is not callable"),  # was TypeError inside the pass run
    (lambda: passes.PassContext(3), "instruments are a list of PassInstrument objects"),  # was TypeError
    (lambda: passes.PassContext(["verify"]), "is not a pass instrument"),
    (lambda: passes.ReportInstrument(None), "not a directory path"),
    (lambda: passes.IRPropertySet(3), "give an iterable of IRProperty"),  # was TypeError
    (lambda: ir.compile(ExpRowMax, backend_type="Ascend950"), "is not a BackendType"),  # was AttributeError
    (lambda: ir.compile(ExpRowMax, output_dir=3), "is not a directory path"),
    (lambda: ir.deserialize(b"\xff\xfe not text"), "is not UTF-8 text"),  # was UnicodeDecodeError
    (lambda: ir.deserialize(3), "takes the bytes ir.serialize wrote"),  # was TypeError
    (lambda: PM.run_passes(ExpRowMax, dump_ir=True, output_dir="/tmp", prefix="../escape/"),
     "is not a file-name prefix"),  # wrote outside output_dir
])
def test_pass_api_misuse_is_a_tilefold_error(call, fragment):
    _refused(call, fragment)


@pytest.mark.parametrize("where", ["report", "dumps", "compile"])
def test_an_output_directory_that_cannot_exist_is_refused(tmp_path, where):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    bad = blocker / "sub"  # was NotADirectoryError from pathlib
    if where == "report":
        def run():
            with passes.PassContext([passes.ReportInstrument(bad)]):
                passes.init_mem_ref()(ExpRowMax)
        _refused(run, "cannot write the pass report")
    elif where == "dumps":
        _refused(lambda: PM.run_passes(ExpRowMax, dump_ir=True, output_dir=bad), "cannot write the pass dumps")
    else:
        _refused(lambda: ir.compile(ExpRowMax, output_dir=bad), "cannot write to output_dir")


def test_an_instrument_that_fails_to_enter_leaves_no_context_behind():
    class Broken(passes.PassInstrument):
        def enter_context(self, ctx):
            raise RuntimeError("broken instrument")

    before = BaseContext.current()
    with pytest.raises(RuntimeError, match="broken instrument"), passes.PassContext([Broken()]):
        pass
    # the broken context stayed on the stack: every later pass ran its instruments
    assert BaseContext.current() is before
    _runs_right(PM.run_passes(ExpRowMax))


def test_run_config_dump_passes_none_means_not_set():
    # None was refused ("RunConfig(dump_passes)=None is not a dump level") though every other field takes it
    from tilefold.runtime import RunConfig

    assert RunConfig(dump_passes=None).dump_passes is None
    with pytest.raises(TilefoldError):
        RunConfig(dump_passes=2)
