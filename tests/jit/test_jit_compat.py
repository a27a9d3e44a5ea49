"""PyPTO's compat surface reached through changed imports (pypto -> tilefold)."""

import jit_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold import PartialCodegenError, ir
from tilefold.backend import BackendType, reset_for_testing, set_backend_type
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.pass_manager import OptimizationStrategy, PassManager
from tilefold.runtime import RunConfig, TensorSpec, run

PROGRAM = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.exp(t), [0, 0], out)
        return out
"""


def test_ir_compile_of_a_program_and_of_a_lowered_jit_program(tmp_path):
    compiled = ir.compile(pl.parse(PROGRAM), output_dir=tmp_path / "out", dump_passes=True)
    assert (tmp_path / "out" / "program.pto").read_text() == compiled.pto.text()
    assert "pl.tile.exp(" in compiled.program.as_python()
    a = np.zeros((64, 128), np.float32)
    lowered = k.add_tensor.lower(a, a, a)
    again = ir.compile(lowered, platform="a2a3sim")  # already through the pipeline: codegen only
    assert again.passes == () and "tadd" in again.pto.text().lower()


def test_ir_compile_options():
    with pytest.raises(TilefoldError, match="unexpected keyword argument 'skip_ptas'"):
        ir.compile(pl.parse(PROGRAM), skip_ptas=True)
    with pytest.raises(NotSupportedError, match="distributed"):
        ir.compile(pl.parse(PROGRAM), distributed_config={})


def test_serialize_round_trip():
    prog = pl.parse(PROGRAM)
    data = ir.serialize(prog)
    assert isinstance(data, bytes)
    ir.assert_structural_equal(ir.deserialize(data), prog)


def test_pass_manager_strategy_and_backend_type():
    set_backend_type(BackendType.Ascend950)
    try:
        out = PassManager.get_strategy(OptimizationStrategy.Default).run_passes(pl.parse(PROGRAM))
        assert "MemRef" in out.as_python()
    finally:
        reset_for_testing()


def test_runtime_run_and_tensor_spec():
    a, b, out = np.ones((64, 128), np.float32), np.full((64, 128), 2.0, np.float32), np.zeros((64, 128), np.float32)
    run(k.add_tensor, a, b, out, config=RunConfig(platform="Ascend910B"))
    np.testing.assert_array_equal(out, 3.0)
    spec = TensorSpec([64, 128], pl.FP32)
    assert k.chain.compile(spec, spec, spec).pto.text()
    with pytest.raises(TilefoldError, match="TensorSpec: running needs data"):
        k.chain(spec, spec, spec)


def test_codegen_failure_of_a_lowered_program_is_a_partial_codegen_error():
    from tilefold.ir.expr import Call, GlobalVar
    from tilefold.ir.stmt import EvalStmt, SeqStmts, flatten_stmts
    from tilefold.ir.types import UnknownType

    a = np.zeros((64, 128), np.float32)
    lowered = k.add_tensor.lower(a, a, a)
    entry = lowered.function("add_tensor")
    bogus = EvalStmt(Call(GlobalVar("missing_kernel"), (), (), UnknownType()))
    broken = lowered.with_fields(functions=tuple(
        f.with_fields(body=SeqStmts((bogus, *flatten_stmts(f.body)))) if f is entry else f
        for f in lowered.functions))
    with pytest.raises(PartialCodegenError, match="code generation failed"):
        ir.compile(broken)
    assert issubclass(PartialCodegenError, TilefoldError)


def test_bare_pl_function_text():
    src = ("import tilefold.language as pl\n\n@pl.function(type=pl.FunctionType.InCore)\n"
           "def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
           " -> pl.Tensor[[16, 64], pl.FP32]:\n"
           "    t = pl.load(x, [0, 0], [16, 64])\n    out = pl.store(t, [0, 0], out)\n    return out\n")
    assert [f.name for f in pl.loads(src).functions] == ["k"]
