"""``pl.matmul(a, b, a_trans=..., b_trans=...)`` at tensor level: the operand is loaded as stored and read by
the cube through a zero-copy transpose view (the weight-transposed linear layer of LLM kernels)."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.runtime import RunConfig

rng = np.random.default_rng(21)


def _fp16(*shape: int) -> np.ndarray:
    return (rng.standard_normal(shape) * 0.5).astype(np.float16)


def _f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32)


@pl.jit
def linear_wt(x: pl.Tensor[[32, 128], pl.FP16], w: pl.Tensor[[64, 128], pl.FP16],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def gram(xt: pl.Tensor[[128, 32], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
         out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(xt, w, a_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def tall_linear_wt(x: pl.Tensor[[1024, 128], pl.FP16], w: pl.Tensor[[128, 128], pl.FP16],
                   out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):  # 512 KiB result: tiled into row blocks; w stays whole
        out[:] = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def scores_in_a_loop(q: pl.Tensor[[32, 64], pl.FP16], k: pl.Tensor[[256, 64], pl.FP16],
                     out: pl.Out[pl.Tensor[[32, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(4):
            kj = k[j * 64:(j + 1) * 64, :]
            out = pl.assemble(out, pl.matmul(q, kj, b_trans=True, out_dtype=pl.FP32), [0, j * 64])
    return out


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_b_trans_reads_the_weight_as_stored(platform):
    x, w = _fp16(32, 128), _fp16(64, 128)
    out = np.zeros((32, 64), np.float32)
    linear_wt(x, w, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, _f32(x) @ _f32(w).T, rtol=1e-3, atol=1e-3)


def test_b_trans_lowers_to_a_transpose_view_of_a_mat_load():
    x, w = _fp16(32, 128), _fp16(64, 128)
    text = linear_wt.lower(x, w, np.zeros((32, 64), np.float32)).as_python()
    assert "pl.tile.transpose_view(" in text
    assert "pl.tile.transpose(" not in text  # zero-copy: no data movement for the transpose


def test_a_trans():
    xt, w = _fp16(128, 32), _fp16(128, 64)
    out = np.zeros((32, 64), np.float32)
    gram(xt, w, out)
    np.testing.assert_allclose(out, _f32(xt).T @ _f32(w), rtol=1e-3, atol=1e-3)


def test_b_trans_with_row_tiled_result():
    x, w = _fp16(1024, 128), _fp16(128, 128)  # square w: a wrong operand role would go unnoticed by shapes
    out = np.zeros((1024, 128), np.float32)
    tall_linear_wt(x, w, out)
    np.testing.assert_allclose(out, _f32(x) @ _f32(w).T, rtol=1e-3, atol=1e-3)


def test_b_trans_of_a_dynamic_window_in_a_loop():
    q, k = _fp16(32, 64), _fp16(256, 64)
    out = np.zeros((32, 256), np.float32)
    scores_in_a_loop(q, k, out)
    np.testing.assert_allclose(out, _f32(q) @ _f32(k).T, rtol=1e-3, atol=1e-3)


def test_transposed_shapes_are_checked():
    @pl.jit
    def bad(x: pl.Tensor[[32, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
            out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)  # w^T is [64, 128]: K differs
        return out

    with pytest.raises(TilefoldError) as info:
        bad(_fp16(32, 128), _fp16(128, 64), np.zeros((32, 64), np.float32))
    assert "K differs" in info.value.message


@pl.jit
def transpose_then_scale(x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.muls(pl.transpose(x, 0, 1), 2.0)
    return out


@pl.jit
def square_transpose_add(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Tensor[[64, 64], pl.FP32],
                         out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.transpose(x, 0, 1), y)
    return out


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_tensor_level_transpose(platform):
    x = rng.standard_normal((64, 32)).astype(np.float32)
    out = np.zeros((32, 64), np.float32)
    transpose_then_scale(x, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, 2.0 * x.T, rtol=1e-6)


def test_square_transpose_is_not_treated_as_row_local():
    x, y = (rng.standard_normal((64, 64)).astype(np.float32) for _ in range(2))
    out = np.zeros((64, 64), np.float32)
    square_transpose_add(x, y, out)
    np.testing.assert_allclose(out, x.T + y, rtol=1e-6)


@pl.jit
def k_blocked_weight_transposed(x: pl.Tensor[[32, 256], pl.FP16], w: pl.Tensor[[64, 256], pl.FP16],
                                out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(x[:, 0:64], w[:, 0:64], b_trans=True, out_dtype=pl.FP32)
        for kb in pl.range(1, 4):
            k0 = kb * 64
            acc = pl.matmul_acc(acc, x[:, k0:k0 + 64], w[:, k0:k0 + 64], b_trans=True)
        out[:] = acc
    return out


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_matmul_acc_with_a_transposed_weight(platform):
    x, w = _fp16(32, 256), _fp16(64, 256)
    out = np.zeros((32, 64), np.float32)
    k_blocked_weight_transposed(x, w, out, config=RunConfig(platform=platform))
    np.testing.assert_allclose(out, _f32(x) @ _f32(w).T, rtol=1e-3, atol=1e-2)
