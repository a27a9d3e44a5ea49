"""One jit kernel per construct, run on the simulator; references are computed here with numpy, independently of
the registry's golden semantics."""

import jit_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.ir.stmt import FunctionType, ParamDirection
from tilefold.runtime import RunConfig

RNG = np.random.default_rng(7)


def r(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def zeros(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


def test_quickstart_add_with_a_pypto_platform_name():
    a, b, out = r(64, 128), r(64, 128), zeros(64, 128)
    ret = k.add_tensor(a, b, out, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    assert ret is out


def test_binary_and_scalar_operator_chain():
    a, b, out = np.abs(r(64, 128)) + 1, np.abs(r(64, 128)) + 1, zeros(64, 128)
    k.chain(a, b, out)
    q = ((a + b) - b) * a / (b + 2.0)
    ref = np.minimum(np.maximum(q, a), a * 3.0)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_unary_operators():
    a, out = r(64, 128), zeros(64, 128)
    k.unary(a, out)
    ref = np.maximum(np.exp(-a) - 0.5, 0) + 1.0 / (np.sqrt(np.abs(a)) + 1.0)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_scalar_operands_select_the_s_forms():
    a, out = r(64, 128), zeros(64, 128)
    k.scalar_forms(a, 3.0, out)
    np.testing.assert_allclose(out, np.maximum((a * 3.0 - 1.0) / 4.0, 0.0), rtol=1e-5)
    prog = k.scalar_forms.lower(a, 3.0, out)
    text = prog.as_python()
    for op in ("tile.muls", "tile.subs", "tile.divs", "tile.maxs"):
        assert f"pl.{op}(" in text, op


def test_row_reductions_and_expansions_softmax():
    a, out = r(64, 128), zeros(64, 128)
    k.softmax_tensor(a, out)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_column_expansion_and_column_reduction():
    a, g, out = r(64, 128), r(1, 128), zeros(64, 128)
    k.col_scale(a, g, out)
    np.testing.assert_allclose(out, a * g, rtol=1e-6)
    s = zeros(1, 128)
    k.col_reduce(a, s)
    np.testing.assert_allclose(s, a.sum(axis=0, keepdims=True), rtol=1e-4, atol=1e-4)


def test_matmul_on_the_cube():
    a, b, out = r(64, 128, dtype=np.float16), r(128, 64, dtype=np.float16), zeros(64, 64)
    k.matmul_tensor(a, b, out)
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


def test_cast_to_fp16():
    a, out = r(64, 128), zeros(64, 128, dtype=np.float16)
    k.cast_tensor(a, out)
    np.testing.assert_allclose(out.astype(np.float32), (a * 2).astype(np.float16).astype(np.float32), rtol=1e-3)


def test_tensor_subscripts_read_and_write_windows():
    a, out = r(64, 128), zeros(64, 128)
    k.halves(a, out)
    left, right = a[:, :64], a[:, 64:]
    np.testing.assert_allclose(out, np.concatenate([left + right, left - right], axis=1), rtol=1e-6)


def test_concat_along_columns():
    a, b, out = r(64, 64), r(64, 64), zeros(64, 128)
    k.concat_tensor(a, b, out)
    np.testing.assert_array_equal(out, np.concatenate([a, b], axis=1))


def test_tile_level_code_in_a_scope_load_store_create_tile_scratch_reduction():
    a, b, out = r(64, 128), r(64, 128), zeros(64, 128)
    k.tile_level(a, b, out)
    ref = ((a + b) - a.reshape(2, 32, 128).max(axis=2, keepdims=True).reshape(64, 1)) * 2.0
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_incore_sub_function_found_by_name():
    a, b, out = r(64, 128), r(64, 128), zeros(64, 128)
    k.with_incore(a, b, out)
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    prog = k.with_incore.parse(a, b, out)
    kinds = {f.name: f.func_type for f in prog.functions}
    assert kinds == {"add_kernel": FunctionType.InCore, "with_incore": FunctionType.Orchestration}


def test_inline_helper_is_spliced_and_dim_reads_the_shape():
    a, out = r(64, 128), zeros(64, 128)
    k.with_inline(a, out)
    np.testing.assert_allclose(out, a * 2.0 + 1.0, rtol=1e-6)
    prog = k.with_inline.parse(a, out)
    assert [f.name for f in prog.functions] == ["with_inline"]


def test_two_scopes_pass_a_tensor_through_gm():
    a, tmp, out = r(64, 128), zeros(64, 128), zeros(64, 128)
    k.two_scopes(a, tmp, out)
    np.testing.assert_allclose(tmp, a * 3.0, rtol=1e-6)
    np.testing.assert_allclose(out, a * 4.0, rtol=1e-5)


def test_inout_is_read_and_written():
    a, acc = r(64, 128), r(64, 128)
    before = acc.copy()
    k.inout_acc(a, acc)
    np.testing.assert_allclose(acc, before + a, rtol=1e-6)
    entry = k.inout_acc.parse(a, acc).function("inout_acc")
    assert entry.param_directions == (ParamDirection.In, ParamDirection.InOut)


def test_closure_constants_give_shapes():
    kern = k.make_closure_kernel(64)
    a, out = r(16, 64), zeros(16, 64)
    kern(a, out)
    np.testing.assert_allclose(out, a * 0.5, rtol=1e-6)


def test_inputs_are_not_modified_and_non_out_arguments_stay():
    a, b, out = r(64, 128), r(64, 128), zeros(64, 128)
    a0, b0 = a.copy(), b.copy()
    k.add_tensor(a, b, out)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_lower_and_compile_print_with_as_python():
    a, b, out = r(64, 128), r(64, 128), zeros(64, 128)
    lowered = k.add_tensor.lower(a, b, out)
    assert "pl.tile.add(" in lowered.as_python()
    compiled = k.add_tensor.compile()  # fully annotated: no arguments needed
    assert "pl.tile.add(" in compiled.program.as_python()
    assert compiled.as_python() == compiled.program.as_python()
    assert compiled.pto.text()


def test_torch_tensors_when_torch_is_installed():
    torch = pytest.importorskip("torch")
    a, b = torch.randn(64, 128), torch.randn(64, 128)
    out = torch.zeros(64, 128)
    k.add_tensor(a, b, out)
    assert torch.allclose(out, a + b)


def test_pl_parse_of_a_bare_jit_function():
    src = ("import tilefold.language as pl\n\n"
           "@pl.jit\n"
           "def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
           "        out[:] = pl.exp(a)\n"
           "    return out\n")
    from tilefold.passes.tensor_lowering.outline_incore_scopes import outline_incore_scopes

    prog = pl.parse(src)
    assert [f.name for f in prog.functions] == ["k"]  # parsing outlines nothing: the scope is still in k
    outlined = outline_incore_scopes()(prog)
    assert {f.func_type for f in outlined.functions} == {FunctionType.Orchestration, FunctionType.InCore}
    assert pl.loads(src).as_python() == prog.as_python()


def test_loops_carry_values_by_plain_reassignment():
    a, out = r(128, 64), zeros(32, 64)
    k.accumulate_tiles(a, out)
    np.testing.assert_allclose(out, a.reshape(4, 32, 64).sum(axis=0), rtol=1e-5, atol=1e-6)
    a, out = r(64, 64), zeros(64, 64)
    k.store_in_loop_rebinding(a, out)
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)


def test_explicit_pl_slice_call():
    a, out = r(64, 128), zeros(32, 64)
    k.explicit_slice(a, out)
    np.testing.assert_allclose(out, a[16:48, 32:96] * 2.0, rtol=1e-6)


def test_tensor_level_loops_carry_tensors_as_tiles():
    a, out = r(128, 128), zeros(128, 128)
    k.accumulate(a, out)
    np.testing.assert_allclose(out, (5 * a) ** 2, rtol=1e-5)
    a, out = r(16, 64), zeros(16, 64)
    k.write_in_loop(a, out)
    np.testing.assert_allclose(out, a * 4.0, rtol=1e-6)


def test_orchestration_loops_are_unrolled_into_launches():
    a, out = r(64, 64), zeros(64, 64)
    k.launches_in_a_loop(a, out)
    np.testing.assert_allclose(out, a * 2.0, rtol=1e-6)
    entry = k.launches_in_a_loop.parse(a, out).function("launches_in_a_loop")
    assert sum(1 for s in entry.body.stmts if hasattr(s, "value") and getattr(s.value, "op_name", "")
               == "scale_rows") == 4
