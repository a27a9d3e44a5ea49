"""Golden runs of programs written in the ``pl`` DSL: loops, ifs, whiles, launches, custom ops,
orchestration, and the same programs after every pass of the default pipeline."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilefold
import tilefold.language as pl
from tilefold.errors import CustomOpError
from tilefold.golden import run_program

RNG = np.random.default_rng(2024)
HEADER = "import tilefold.language as pl\n\n"


def rand(shape, dtype=np.float32):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


MATMUL_PIPELINE = HEADER + '''
@pl.program
class MatmulK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 512], pl.BF16], b: pl.Tensor[[512, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        c0 = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (c_iter,) in pl.pipeline(0, 512, 128, init_values=(c0,), stage=2):
            la = pl.tile.load(a, [0, k], [16, 128], target_memory=pl.Mem.Mat)
            lb = pl.tile.load(b, [k, 0], [128, 32], target_memory=pl.Mem.Mat)
            c1 = pl.tile.matmul_acc(c_iter, la, lb)
            c = pl.yield_(c1)
        out = pl.store(c, [0, 0], out)
        return out
'''


def test_pipelined_matmul_acc_over_k():
    p = pl.parse(MATMUL_PIPELINE)
    a, b = rand((16, 512), ml_dtypes.bfloat16), rand((512, 32), ml_dtypes.bfloat16)
    got = run_program(p, {"a": a, "b": b})["out"]
    want = np.zeros((16, 32), np.float32)
    for k in range(0, 512, 128):
        want = want + a[:, k:k + 128].astype(np.float32) @ b[k:k + 128].astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


BRANCHY = HEADER + '''
@pl.program
class Branchy:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]
               ) -> pl.Tensor[[32, 32], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [b * 8, 0], [8, 32])
        if b % 2 == 0:
            r = pl.tile.muls(t, 2.0)
            y = pl.yield_(r)
        else:
            r = pl.tile.adds(t, 1.0)
            y = pl.yield_(r)
        out = pl.store(y, [b * 8, 0], out)
        return out
'''


def test_if_on_block_index():
    p = pl.parse(BRANCHY)
    x = rand((32, 32))
    got = run_program(p, {"x": x}, block_dim=4)["out"]
    for blk in range(4):
        rows = slice(8 * blk, 8 * blk + 8)
        want = x[rows] * np.float32(2) if blk % 2 == 0 else x[rows] + np.float32(1)
        np.testing.assert_array_equal(got[rows], want)


WHILE = HEADER + '''
@pl.program
class Whiley:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [8, 32])
        for (i, acc) in pl.while_(init_values=(0, t)):
            pl.cond(i < n)
            i2 = i + 1
            acc2 = pl.tile.muls(acc, 0.5)
            i_out, acc_out = pl.yield_(i2, acc2)
        out = pl.store(acc_out, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("n", [0, 3])
def test_while_with_iter_args(n):
    p = pl.parse(WHILE)
    x = rand((8, 32))
    got = run_program(p, {"x": x, "n": n})["out"]
    np.testing.assert_array_equal(got, x * np.float32(0.5 ** n))


SPLIT = HEADER + '''
@pl.program
class Split:
    @pl.function(type=pl.FunctionType.AIV, attrs={"block_dim": 2})
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        sb = pl.tile.get_subblock_idx()
        row = b * 16 + sb * 8
        t = pl.tile.load(x, [row, 0], [8, 64])
        init = pl.tile.create([8, 64], dtype=pl.FP32)
        r = pl.tile.custom("golden_dsl.scale_sq", ins=[t, s], outs=[init], no_side_effect=True)
        out = pl.store(r, [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = self.kernel(x, s, out)
        return out
'''


def test_orchestration_launches_aiv_kernel_over_blocks_and_sub_blocks():
    calls = []

    def kernel(x, s):
        calls.append(x.shape)
        return (x * x * s).astype(np.float32)

    tilefold.register_custom_op("golden_dsl.scale_sq", kernel, replace=True)
    try:
        p = pl.parse(SPLIT)
        x = rand((32, 64))
        got = run_program(p, {"x": x, "s": 3.0}, block_dim=7)  # the kernel's block_dim=2 attribute wins
        np.testing.assert_allclose(got["out"], x * x * np.float32(3.0), rtol=1e-6)
        assert calls == [(8, 64)] * 4
    finally:
        tilefold.unregister_custom_op("golden_dsl.scale_sq")
    with pytest.raises(CustomOpError, match="golden_dsl.scale_sq"):
        run_program(p, {"x": x, "s": 3.0})


MULTI = HEADER + '''
@pl.program
class Multi:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], m_out: pl.Out[pl.Tensor[[16, 1], pl.FP32]],
               e_out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        t = pl.tile.load(x, [0, 0], [16, 32])
        m0 = pl.tile.create([16, 1], dtype=pl.FP32)
        e0 = pl.tile.create([16, 32], dtype=pl.FP32)
        m, e = pl.tile.custom("golden_dsl.max_exp", ins=[t], outs=[m0, e0],
                              indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                             pl.affine_map("(d0, d1) -> (d0, 0)"),
                                             pl.affine_map("(d0, d1) -> (d0, d1)")],
                              iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        s = pl.tile.row_sum(e)
        soft = pl.tile.row_expand_div(e, s)
        m_out = pl.store(m, [0, 0], m_out)
        e_out = pl.store(soft, [0, 0], e_out)
'''


def test_multi_result_custom_op_feeding_a_softmax():
    tilefold.register_custom_op("golden_dsl.max_exp", _max_exp, replace=True)
    try:
        p = pl.parse(MULTI)
        x = rand((16, 32))
        got = run_program(p, {"x": x})
    finally:
        tilefold.unregister_custom_op("golden_dsl.max_exp")
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_array_equal(got["m_out"], x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got["e_out"], e / e.sum(axis=1, keepdims=True), rtol=1e-6)


SLICES = HEADER + '''
@pl.program
class Slices:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], v: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128])
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        tv = pl.tile.load(v, [0, 0], [1, 64])
        y = pl.tile.col_expand_mul(hi, tv)
        z = pl.tile.exp(y)
        out = pl.store(z, [0, 0], out)
        return out
'''


def test_column_slice_into_col_expand():
    p = pl.parse(SLICES)
    x, v = rand((16, 128)), rand((1, 64))
    got = run_program(p, {"x": x, "v": v})["out"]
    np.testing.assert_allclose(got, np.exp(x[:, 64:] * v), rtol=1e-6)


def _max_exp(x):
    m = x.max(axis=1, keepdims=True)
    return m, np.exp(x - m).astype(np.float32)


@pytest.fixture
def pipeline_kernels():
    tilefold.register_custom_op("golden_dsl.max_exp", _max_exp, replace=True)
    tilefold.register_custom_op("golden_dsl.scale_sq", lambda x, s: (x * x * s).astype(np.float32), replace=True)
    yield
    tilefold.unregister_custom_op("golden_dsl.max_exp")
    tilefold.unregister_custom_op("golden_dsl.scale_sq")


@pytest.mark.parametrize("source", [MATMUL_PIPELINE, BRANCHY, SLICES, WHILE, MULTI, SPLIT],
                         ids=["matmul", "if", "slice", "while", "custom-multi", "custom-orchestrated"])
def test_golden_is_stable_across_the_default_pipeline(source, pipeline_kernels):
    """The interpreter runs the IR after every pass; each stage must compute what the source computes
    (this also checks that sub-block splits and their rollbacks preserve results)."""
    from tilefold.passes.pipeline import default_tile_pipeline

    passes = default_tile_pipeline()
    p = pl.parse(source)
    from tilefold.testing.precision import compare, random_inputs

    inputs = random_inputs(p, seed=1, scalars={"n": 2, "s": 1.5})
    want = run_program(p, inputs, block_dim=4)
    stage = p
    for ps in passes:
        stage = ps(stage)
        got = run_program(stage, inputs, block_dim=4)
        for name, arr in want.items():
            assert compare(got[name], arr).matches, f"{name} differs after {ps.name}"
