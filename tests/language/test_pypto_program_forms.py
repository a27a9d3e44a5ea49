"""PyPTO program forms tilefold accepts (issue 19, item 3), each run on the simulator and checked against numpy:
closure values of a program built inside a function, ``with pl.at`` inside ``@pl.program`` functions, module-level
``@pl.function``s called by bare name, scalar dispatch of the unified ops, functions without ``self``."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

_PL_DT = {"fp32": pl.FP32, "fp16": pl.FP16}
_NP_DT = {"fp32": np.float32, "fp16": np.float16}


def _run(program, inputs):
    report = run_and_compare(program, inputs)
    assert report.fault is None and report.matches, report.summary()
    return report.outputs


def _build_scaled_add(rows: int, cols: int, dtype: str):
    dt = _PL_DT[dtype]  # a closure dtype, as PyPTO's tests write it

    @pl.program
    class ScaledAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt],
                   out: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            ta = pl.load(a, [0, 0], [rows, cols])
            tb = pl.load(b, [0, 0], [rows, cols])
            s = pl.add(pl.mul(ta, 2.0), tb)  # pl.mul(tile, scalar) dispatches to tile.muls
            out = pl.store(pl.cast(s, target_type=dt), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt],
                 out: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            out = self.kernel(a, b, out)
            return out

    return ScaledAdd


@pytest.mark.parametrize("rows,cols,dtype", [(16, 64, "fp32"), (32, 128, "fp16")])
def test_closure_shape_and_dtype(rows, cols, dtype):
    program = _build_scaled_add(rows, cols, dtype)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((rows, cols)).astype(_NP_DT[dtype])
    b = rng.standard_normal((rows, cols)).astype(_NP_DT[dtype])
    out = _run(program, {"a": a, "b": b, "out": np.zeros((rows, cols), _NP_DT[dtype])})["out"]
    tol = 1e-6 if dtype == "fp32" else 2e-3
    np.testing.assert_allclose(out.astype(np.float32), (2 * a.astype(np.float32) + b), rtol=tol, atol=tol)


@pl.function(type=pl.FunctionType.InCore)
def triple(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    t = pl.load(a, [0, 0], [16, 64])
    out = pl.store(pl.mul(t, 3.0), [0, 0], out)
    return out


@pl.program
class ScopeThenBareCall:
    @pl.function  # Opaque: orchestration code and a pl.at scope mixed
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(x, [0, 0], [16, 64])
            y = pl.store(pl.add(pl.mul(tile, tile), 1.0), [0, 0], y)
        z = triple(y, z)  # a module-level @pl.function called by its bare name
        return z


def test_pl_at_in_a_program_function_and_a_bare_name_call():
    x = np.random.default_rng(2).standard_normal((16, 64)).astype(np.float32)
    got = _run(ScopeThenBareCall, {"x": x, "y": np.zeros_like(x), "z": np.zeros_like(x)})
    np.testing.assert_allclose(got["y"], x * x + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["z"], 3 * (x * x + 1), rtol=1e-6, atol=1e-5)


def test_outlined_opaque_parent_becomes_orchestration():
    from tilefold.ir.stmt import FunctionType
    from tilefold.passes import outline_incore_scopes

    out = outline_incore_scopes()(ScopeThenBareCall)
    assert out.function("main").func_type is FunctionType.Orchestration
    assert any(f.func_type is FunctionType.InCore and f.name.startswith("main_incore") for f in out.functions)


TEXT_WITHOUT_SELF = '''
import tilefold.language as pl

@pl.program
class NoSelf:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(pl.sub(t, 0.5), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = k(a, out)
        return out
'''


def test_program_text_without_self():
    program = pl.parse(TEXT_WITHOUT_SELF)
    a = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_allclose(_run(program, {"a": a, "out": np.zeros_like(a)})["out"], a - 0.5, rtol=1e-6)


MODULE_FUNCTION_TEXT = '''
import tilefold.language as pl

@pl.function(type=pl.FunctionType.InCore)
def halve(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    t = pl.load(a, [0, 0], [16, 64])
    out = pl.store(pl.mul(t, 0.5), [0, 0], out)
    return out

@pl.program
class UsesHalve:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        out = halve(a, out)
        return out
'''


def test_text_module_function_called_by_bare_name():
    program = pl.parse(MODULE_FUNCTION_TEXT)
    assert {f.name for f in program.functions} == {"halve", "main"}
    a = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_allclose(_run(program, {"a": a, "out": np.zeros_like(a)})["out"], a * 0.5, rtol=1e-6)
    with pytest.raises(TilefoldError, match="unknown function 'halve2'"):
        pl.parse(MODULE_FUNCTION_TEXT.replace("out = halve(a, out)", "out = halve2(a, out)"))


def test_with_other_than_pl_at_is_refused():
    with pytest.raises(TilefoldError, match="With"):
        pl.parse(TEXT_WITHOUT_SELF.replace("        out = k(a, out)\n", "        with open('f'):\n            pass\n"))


@pl.program
class ElementReads:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        s = t[3, 5]                      # indexing a tile: one element, read by the scalar unit
        s2 = pl.tile.read(t, [0, 1])
        s3 = pl.read(t, [2, 2])          # pl.read dispatches on the operand: a tile here
        out = pl.store(pl.add(pl.mul(t, s), s2 + s3), [0, 0], out)
        return out


def test_tile_element_reads():
    a = np.random.default_rng(6).standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(ElementReads, {"a": a, "out": np.zeros_like(a)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], a * a[3, 5] + (a[0, 1] + a[2, 2]), rtol=1e-5, atol=1e-5)
    assert "sgetval" in report.compiled.pto.text()


@pl.program
class BlockTable:
    @pl.function(type=pl.FunctionType.InCore)
    def copy_rows(self, src: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(src, [row, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[64, 64], pl.FP32], table: pl.Tensor[[4], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        block = pl.tensor.read(table, [2])   # orchestration side: a host read of GM
        out = self.copy_rows(src, block * 16, out)
        return out


def test_orchestration_side_tensor_read():
    src = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    for table, block in ((np.array([0, 1, 3, 2], np.int32), 3), (np.array([3, 2, 1, 0], np.int32), 1)):
        got = _run(BlockTable, {"src": src, "table": table, "out": np.zeros((16, 64), np.float32)})["out"]
        np.testing.assert_array_equal(got, src[block * 16:(block + 1) * 16])


ROWS = pl.dynamic("ROWS")  # a pl.dynamic module constant used as an extent


@pl.program
class DynamicRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]) \
            -> pl.Tensor[[ROWS, 64], pl.FP32]:
        for i in pl.range(ROWS // 16):
            t = pl.load(a, [i * 16, 0], [16, 64])
            out = pl.store(pl.mul(t, 2.0), [i * 16, 0], out)  # rebinding in the loop carries `out` (Python)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]) \
            -> pl.Tensor[[ROWS, 64], pl.FP32]:
        out = self.k(a, out)
        return out


@pytest.mark.parametrize("rows", [16, 48])
def test_pl_dynamic_module_constant_extent(rows):
    a = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    got = _run(DynamicRows, {"a": a, "out": np.zeros_like(a)})["out"]  # ROWS: from the arrays' shapes
    np.testing.assert_allclose(got, 2 * a, rtol=1e-6)
    from tilefold.compiler import compile as compile_program
    from tilefold.runtime.compiled import CompiledKernel

    out = np.zeros_like(a)
    CompiledKernel.of(compile_program(DynamicRows))(a, out)  # the extent is read from the arrays' shapes
    np.testing.assert_allclose(out, 2 * a, rtol=1e-6)


@pl.program
class SkipBlock:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        acc = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(4):
            t = pl.load(a, [i * 16, 0], [16, 64])
            if i == 2:
                continue
            acc = pl.add(acc, t)
        out = pl.store(acc, [0, 0], out)
        return out


def test_continue_in_a_loop_body():
    a = np.random.default_rng(7).standard_normal((64, 64)).astype(np.float32)
    got = _run(SkipBlock, {"a": a, "out": np.zeros((16, 64), np.float32)})["out"]
    np.testing.assert_allclose(got, a[0:16] + a[16:32] + a[48:64], rtol=1e-5, atol=1e-5)


_BREAK_TEXT = '''
import tilefold.language as pl

@pl.program
class B:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.range(4):
            if i == 1:
                break
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
'''


def test_break_is_refused_with_a_location():
    with pytest.raises(TilefoldError, match="Break") as info:
        pl.parse(_BREAK_TEXT)
    assert info.value.span.line == 10


@pl.program
class ConcatAssemble:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 96], pl.FP32]], out2: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) \
            -> pl.Tuple[pl.Tensor[[16, 96], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        ta = pl.load(a, [0, 0], [16, 64])
        tb = pl.load(b, [0, 0], [16, 32])
        out = pl.store(pl.concat(ta, tb), [0, 0], out)          # the tile form of pl.concat
        big = pl.tile.full([32, 64], dtype=pl.FP32, value=1.0)
        big = pl.tile.assemble(big, ta, [16, 0])                 # the tile form of pl.assemble
        out2 = pl.store(big, [0, 0], out2)
        return out, out2


def test_tile_concat_and_assemble():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((16, 32)).astype(np.float32)
    got = _run(ConcatAssemble, {"a": a, "b": b, "out": np.zeros((16, 96), np.float32),
                                "out2": np.zeros((32, 64), np.float32)})
    np.testing.assert_array_equal(got["out"], np.concatenate([a, b], axis=1))
    expected = np.ones((32, 64), np.float32)
    expected[16:] = a
    np.testing.assert_array_equal(got["out2"], expected)
    with pytest.raises(TilefoldError, match="leaves the target"):
        pl.parse(ConcatAssemble.as_python().replace("[16, 0]", "[24, 0]"))


@pl.program
class TensorOpsInCore:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        c = pl.add(a, b)                     # unified ops on tensors: the tensor forms, lowered to tile ops
        d = pl.row_expand_sub(c, pl.row_max(c))
        out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.k(a, b, out)
        return out


def test_unified_tensor_ops_inside_an_incore_function():
    rng = np.random.default_rng(12)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((16, 64)).astype(np.float32)
    c = a + b
    got = _run(TensorOpsInCore, {"a": a, "b": b, "out": np.zeros_like(a)})["out"]
    np.testing.assert_allclose(got, c - c.max(axis=1, keepdims=True), rtol=1e-6, atol=1e-6)


@pl.program
class Rank2IntoRank3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[3, 16, 64], pl.FP32]]) \
            -> pl.Tensor[[3, 16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(t, [1, 0, 0], out)  # the window is [1, 16, 64]
        return out


def test_rank2_tile_stored_into_a_rank3_tensor():
    a = np.random.default_rng(13).standard_normal((16, 64)).astype(np.float32)
    got = _run(Rank2IntoRank3, {"a": a, "out": np.zeros((3, 16, 64), np.float32)})["out"]
    expected = np.zeros((3, 16, 64), np.float32)
    expected[1] = a
    np.testing.assert_array_equal(got, expected)


def test_fp32_value_assembled_into_a_bf16_tensor_is_rounded():
    import ml_dtypes

    src = '''
import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.assemble(out, pl.mul(a, 3.0), [0, 0])
    return out
'''
    a = np.random.default_rng(14).standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"a": a, "out": np.zeros((16, 64), ml_dtypes.bfloat16)})
    assert report.matches, report.summary()
    expected = (3 * a).astype(ml_dtypes.bfloat16).astype(np.float32)  # round to nearest BF16
    np.testing.assert_allclose(report.outputs["out"].astype(np.float32), expected, rtol=8e-3, atol=1e-6)


STAGED = '''
import tilefold.language as pl

@pl.jit
def staged(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.matmul(a, b)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(y, 1.0)
    return out
'''


def test_a_fresh_tensor_crosses_scopes_through_a_workspace():
    rng = np.random.default_rng(15)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(STAGED), {"a": a, "b": b, "out": np.zeros((64, 64), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], a @ b + 1, rtol=1e-4, atol=1e-4)
    assert "y_ws" in report.compiled.ir.as_python()  # the workspace of y, created by the orchestration


def _make_jit_closure_kernel(cols: int, dtype: str):
    dt = _PL_DT[dtype]  # a closure dtype
    n = pl.dynamic("N")  # a closure pl.dynamic extent: one compile for every row count

    @pl.jit
    def scaled(a: pl.Tensor[[n, cols], dt], out: pl.Out[pl.Tensor[[n, cols], dt]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(pl.mul(a, 2.0), 1.0)
        return out

    return scaled


@pytest.mark.parametrize("rows", [16, 48])
def test_jit_closure_dtype_and_pl_dynamic_closure_extent(rows):
    kern = _make_jit_closure_kernel(64, "fp16")
    a = np.random.default_rng(rows).integers(-8, 8, (rows, 64)).astype(np.float16)
    out = np.zeros_like(a)
    kern(a, out)
    np.testing.assert_array_equal(out, (2 * a.astype(np.float32) + 1).astype(np.float16))


@pl.program
class ScalarDispatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.add(t, s)          # a scalar variable: tile.adds
        v = pl.tile.add(u, 1.0)   # the tile namespace with a scalar rhs: tile.adds too
        w = pl.mul(v, s)
        x = pl.tile.sub(w, s)
        out = pl.store(x, [0, 0], out)
        return out


def test_scalar_dispatch_of_unified_and_tile_ops():
    a = np.random.default_rng(16).standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(ScalarDispatch, {"a": a, "s": 2.5, "out": np.zeros_like(a)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], ((a + 2.5) + 1.0) * 2.5 - 2.5, rtol=1e-6, atol=1e-5)
    text = ScalarDispatch.as_python()
    assert text.count("pl.tile.adds(") == 2 and "pl.tile.muls(" in text and "pl.tile.subs(" in text


@pl.program
class OneIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[1, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        row = pl.reshape(pl.load(b, [0, 0], [1, 64]), [64])
        s = row[5]                        # a rank-1 tile indexed by one index
        out = pl.store(pl.adds(t, s), [0, 0], out)
        return out


def test_rank1_tile_indexed_by_one_index():
    rng = np.random.default_rng(17)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((1, 64)).astype(np.float32)
    report = run_and_compare(OneIndex, {"a": a, "b": b, "out": np.zeros_like(a)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], a + b[0, 5], rtol=1e-6, atol=1e-6)


# PyPTO's ConvertTensorToTileOps page, "Kernel-Driven Gather": the two-run page-boundary split, written as the page
# writes it (tensor-level pl.create_l1 / pl.gather_row / pl.matmul(..., b_trans=True) in an InCore function)
GATHER_TWO_RUNS = '''
import tilefold.language as pl

HEAD_DIM = 128


@pl.program
class TwoRuns:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, q: pl.Tensor[[16, HEAD_DIM], pl.BF16], pool: pl.Tensor[[512, HEAD_DIM], pl.BF16],
          r1: pl.Scalar[pl.INDEX], b0: pl.Scalar[pl.INDEX], b1: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        kv = pl.create_l1([128, HEAD_DIM], pl.BF16)
        # r1 is a runtime Scalar[INDEX] - e.g. a page-boundary split point
        kv = pl.gather_row(kv, pool, [0, 0],  [b0, 0], [128, HEAD_DIM], valid_shape=[r1, HEAD_DIM])
        kv = pl.gather_row(kv, pool, [r1, 0], [b1, 0], [128, HEAD_DIM], valid_shape=[128 - r1, HEAD_DIM])
        oi = pl.matmul(q, kv, b_trans=True)
        out = pl.assemble(out, oi, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[16, HEAD_DIM], pl.BF16], pool: pl.Tensor[[512, HEAD_DIM], pl.BF16],
             r1: pl.Scalar[pl.INDEX], b0: pl.Scalar[pl.INDEX], b1: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        out = self.k(q, pool, r1, b0, b1, out)
        return out
'''


@pytest.mark.parametrize("r1,b0,b1", [(37, 100, 300), (0, 0, 384), (128, 384, 0)])
def test_kernel_driven_gather_doc_fragment_in_an_incore_function(r1, b0, b1):
    import ml_dtypes

    rng = np.random.default_rng(r1)
    q = rng.integers(-3, 4, (16, 128)).astype(ml_dtypes.bfloat16)  # small integers: every product exact
    pool = rng.integers(-3, 4, (512, 128)).astype(ml_dtypes.bfloat16)
    report = run_and_compare(pl.parse(GATHER_TWO_RUNS, "two_runs.py"),
                             {"q": q, "pool": pool, "r1": r1, "b0": b0, "b1": b1,
                              "out": np.zeros((16, 128), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    keys = np.concatenate([pool[b0:b0 + r1], pool[b1:b1 + 128 - r1]]).astype(np.float64)
    np.testing.assert_array_equal(report.outputs["out"], q.astype(np.float64) @ keys.T)


TENSOR_OPS_LISTED = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 16], pl.FP32],
          o1: pl.Out[pl.Tensor[[16, 1], pl.INT32]], o2: pl.Out[pl.Tensor[[1, 64], pl.INT32]],
          o3: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o4: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          o5: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tuple[pl.Tensor[[16, 1], pl.INT32],
            pl.Tensor[[1, 64], pl.INT32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 64], pl.FP32],
            pl.Tensor[[16, 64], pl.FP32]]:
        o1 = pl.assemble(o1, pl.row_argmax(a), [0, 0])
        o2 = pl.assemble(o2, pl.col_argmax(a), [0, 0])
        o3 = pl.assemble(o3, pl.slice(a, [16, 32], [0, 16]), [0, 0])
        t = pl.transpose(b, 0, 1)
        o4 = pl.assemble(o4, pl.add(t, a), [0, 0])
        o5 = pl.assemble(o5, pl.row_expand_max(a, pl.row_min(a)), [0, 0])
        return o1, o2, o3, o4, o5
'''


def test_the_tensor_ops_issue_19_lists_inside_an_incore_function():
    """row / col_argmax, slice, transpose, add and row_expand_max on tensors in an InCore function."""
    rng = np.random.default_rng(18)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((64, 16)).astype(np.float32)
    outs = {"o1": np.zeros((16, 1), np.int32), "o2": np.zeros((1, 64), np.int32),
            "o3": np.zeros((16, 32), np.float32), "o4": np.zeros((16, 64), np.float32),
            "o5": np.zeros((16, 64), np.float32)}
    got = _run(pl.parse(TENSOR_OPS_LISTED, "ops.py"), {"a": a, "b": b, **outs})
    np.testing.assert_array_equal(got["o1"][:, 0], a.argmax(axis=1))
    np.testing.assert_array_equal(got["o2"][0], a.argmax(axis=0))
    np.testing.assert_array_equal(got["o3"], a[:, 16:48])
    np.testing.assert_allclose(got["o4"], b.T + a, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["o5"], np.maximum(a, a.min(axis=1, keepdims=True)))
