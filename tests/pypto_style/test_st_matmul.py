"""The cube path as PyPTO's docs and system tests write it: load to Mat, move to Left / Right, ``pl.matmul`` into
Acc, store; the K loop with ``matmul_acc``; ``matmul_bias``; the tensor-level ``pl.matmul`` in a ``pl.at`` scope."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import PL, rand, run_case

import tilefold.language as pl
from tilefold.runtime import RunConfig

HALF = ("fp16", "bf16")


def get_matmul_program(m: int, k: int, n: int, dtype: str):
    dt = PL[dtype]

    @pl.program
    class MatmulProgram:
        @pl.function(type=pl.FunctionType.InCore)
        def matmul(self, a: pl.Tensor[[m, k], dt], b: pl.Tensor[[k, n], dt],
                   c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            tile_a_l1 = pl.load(a, offsets=[0, 0], shapes=[m, k], target_memory=pl.MemorySpace.Mat)
            tile_b_l1 = pl.load(b, offsets=[0, 0], shapes=[k, n], target_memory=pl.MemorySpace.Mat)
            tile_a_l0a = pl.move(tile_a_l1, target_memory=pl.MemorySpace.Left)
            tile_b_l0b = pl.move(tile_b_l1, target_memory=pl.MemorySpace.Right)
            tile_c_l0c = pl.matmul(tile_a_l0a, tile_b_l0b)
            out_c = pl.store(tile_c_l0c, offsets=[0, 0], output_tensor=c)
            return out_c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, k], dt], b: pl.Tensor[[k, n], dt],
                         c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            c = self.matmul(a, b, c)
            return c

    return MatmulProgram


@pytest.mark.parametrize("dtype", HALF + ("fp32",))
@pytest.mark.parametrize("m,k,n", [(64, 64, 64), (32, 128, 64), (128, 64, 32)])
def test_matmul_mat_left_right_acc(dtype, m, k, n):
    a, b = rand((m, k), dtype, 1), rand((k, n), dtype, 2)
    run_case(get_matmul_program(m, k, n, dtype), {"a": a, "b": b}, {"c": np.zeros((m, n), np.float32)},
             lambda x: {"c": x["a"] @ x["b"]}, "fp32" if dtype == "fp32" else "fp16", terms=k)


def get_matmul_acc_program(m: int, k: int, n: int, kc: int, dtype: str):
    dt = PL[dtype]
    steps = k // kc

    @pl.program
    class MatmulAccProgram:
        @pl.function(type=pl.FunctionType.InCore)
        def matmul_acc(self, a: pl.Tensor[[m, k], dt], b: pl.Tensor[[k, n], dt],
                       c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            a0 = pl.load(a, [0, 0], [m, kc], target_memory=pl.MemorySpace.Mat)
            b0 = pl.load(b, [0, 0], [kc, n], target_memory=pl.MemorySpace.Mat)
            acc = pl.matmul(pl.move(a0, target_memory=pl.MemorySpace.Left),
                            pl.move(b0, target_memory=pl.MemorySpace.Right))
            for i in pl.range(1, steps):
                ai = pl.load(a, [0, i * kc], [m, kc], target_memory=pl.MemorySpace.Mat)
                bi = pl.load(b, [i * kc, 0], [kc, n], target_memory=pl.MemorySpace.Mat)
                acc = pl.matmul_acc(acc, pl.move(ai, target_memory=pl.MemorySpace.Left),
                                    pl.move(bi, target_memory=pl.MemorySpace.Right))
            c = pl.store(acc, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, k], dt], b: pl.Tensor[[k, n], dt],
                         c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            c = self.matmul_acc(a, b, c)
            return c

    return MatmulAccProgram


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("m,k,n,kc", [(64, 256, 64, 64), (32, 128, 128, 32)])
def test_matmul_acc_k_loop(dtype, m, k, n, kc):
    a, b = rand((m, k), dtype, 3), rand((k, n), dtype, 4)
    run_case(get_matmul_acc_program(m, k, n, kc, dtype), {"a": a, "b": b}, {"c": np.zeros((m, n), np.float32)},
             lambda x: {"c": x["a"] @ x["b"]}, "fp16", terms=k)


def get_matmul_acc_init_values_program(m: int, k: int, n: int, kc: int):
    @pl.program
    class MatmulAccInit:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                   c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            a0 = pl.move(pl.load(a, [0, 0], [m, kc], target_memory=pl.MemorySpace.Mat), target_memory=pl.Mem.Left)
            b0 = pl.move(pl.load(b, [0, 0], [kc, n], target_memory=pl.MemorySpace.Mat), target_memory=pl.Mem.Right)
            acc0 = pl.matmul(a0, b0)
            for i, (acc,) in pl.range(1, k // kc, init_values=(acc0,)):
                ai = pl.move(pl.load(a, [0, i * kc], [m, kc], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                bi = pl.move(pl.load(b, [i * kc, 0], [kc, n], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                new_acc = pl.matmul_acc(acc, ai, bi)
                acc_out = pl.yield_(new_acc)
            c = pl.store(acc_out, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                         c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            c = self.kernel(a, b, c)
            return c

    return MatmulAccInit


def test_matmul_acc_explicit_init_values_and_yield():
    m, k, n, kc = 64, 256, 64, 64
    a, b = rand((m, k), "fp16", 5), rand((k, n), "fp16", 6)
    run_case(get_matmul_acc_init_values_program(m, k, n, kc), {"a": a, "b": b},
             {"c": np.zeros((m, n), np.float32)}, lambda x: {"c": x["a"] @ x["b"]}, "fp16", terms=k)


def get_matmul_bias_program(m: int, k: int, n: int):
    @pl.program
    class MatmulBias:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                   bias: pl.Tensor[[1, n], pl.FP32],
                   c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            ta = pl.move(pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            tbias = pl.move(pl.load(bias, [0, 0], [1, n], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
            c = pl.store(pl.matmul_bias(ta, tb, tbias), [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                         bias: pl.Tensor[[1, n], pl.FP32],
                         c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            c = self.kernel(a, b, bias, c)
            return c

    return MatmulBias


def test_matmul_bias():
    m, k, n = 64, 64, 64
    a, b, bias = rand((m, k), "fp16", 7), rand((k, n), "fp16", 8), rand((1, n), "fp32", 9)
    run_case(get_matmul_bias_program(m, k, n), {"a": a, "b": b, "bias": bias}, {"c": np.zeros((m, n), np.float32)},
             lambda x: {"c": x["a"] @ x["b"] + x["bias"]}, "fp16", terms=k)


@pl.jit
def matmul_small(a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16],
                 c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="matmul"):
        c[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return c


K_CHUNK = 128


@pl.jit
def matmul_k_blocked(a: pl.Tensor[[128, 512], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16],
                     c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k_blocked"):
        acc = pl.matmul(a[:, 0:K_CHUNK], b[0:K_CHUNK, :], out_dtype=pl.FP32)
        for k in pl.range(1, 512 // K_CHUNK):
            k0 = k * K_CHUNK
            acc = pl.matmul_acc(acc, a[:, k0: k0 + K_CHUNK], b[k0: k0 + K_CHUNK, :])
        c[:] = acc
    return c


@pytest.mark.parametrize("kernel,k", [(matmul_small, 128), (matmul_k_blocked, 512)])
def test_tutorial_jit_matmuls(kernel, k):
    from tests.pypto_style.st_harness import tol

    a, b = rand((128, k), "fp16", 10), rand((k, 128), "fp16", 11)
    c = np.zeros((128, 128), np.float32)
    kernel(a, b, c, config=RunConfig(platform="a2a3sim"))
    want = a.astype(np.float64) @ b.astype(np.float64)
    rtol, atol = tol("fp16", k)
    assert np.all(np.abs(c - want) <= atol + rtol * np.abs(want))
