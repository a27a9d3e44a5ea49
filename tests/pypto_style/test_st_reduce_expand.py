"""Reductions, broadcasts and the softmax / normalisation kernels, in the form of PyPTO's tutorials and system
tests: scratch tiles from ``pl.create_tile``, annotated ``pl.Tile[[m, 1], dt]`` results, ``row_expand_*``."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, PL, rand, run_case

import tilefold.language as pl

REDUCE_TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, {n}], pl.{dt}],
               c: pl.Out[pl.Tensor[[{rm}, {rn}], pl.{dt}]]) -> pl.Tensor[[{rm}, {rn}], pl.{dt}]:
        tile_a = pl.load(a, offsets=[0, 0], shapes=[{m}, {n}])
        tmp = pl.create_tile([{m}, {n}], dtype=pl.{dt}, target_memory=pl.MemorySpace.Vec)
        tile_c = {call}
        out_c = pl.store(tile_c, offsets=[0, 0], output_tensor=c)
        return out_c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[{m}, {n}], pl.{dt}],
                     c: pl.Out[pl.Tensor[[{rm}, {rn}], pl.{dt}]]) -> pl.Tensor[[{rm}, {rn}], pl.{dt}]:
        c = self.kernel(a, c)
        return c
"""

# call, reduced axis (1 = row, 0 = col), numpy reference
REDUCE = {
    "pl.row_sum(tile_a, tmp)": (1, lambda a: a.sum(1, keepdims=True)),
    "pl.row_max(tile_a, tmp)": (1, lambda a: a.max(1, keepdims=True)),
    "pl.row_min(tile_a, tmp)": (1, lambda a: a.min(1, keepdims=True)),
    "pl.tile.row_sum(tile_a, tmp)": (1, lambda a: a.sum(1, keepdims=True)),
    "pl.row_sum(tile_a)": (1, lambda a: a.sum(1, keepdims=True)),
    "pl.row_max(tile_a)": (1, lambda a: a.max(1, keepdims=True)),
    "pl.col_sum(tile_a)": (0, lambda a: a.sum(0, keepdims=True)),
    "pl.col_max(tile_a)": (0, lambda a: a.max(0, keepdims=True)),
    "pl.col_min(tile_a)": (0, lambda a: a.min(0, keepdims=True)),
    "pl.col_sum(tile_a, tmp)": (0, lambda a: a.sum(0, keepdims=True)),
}


@pytest.mark.parametrize("call", list(REDUCE))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,n", [(16, 64), (64, 128)])
def test_reductions(call, dtype, m, n):
    axis, ref = REDUCE[call]
    rm, rn = (m, 1) if axis == 1 else (1, n)
    program = pl.parse(REDUCE_TEXT.format(m=m, n=n, rm=rm, rn=rn, dt=dtype.upper(), call=call))
    a = rand((m, n), dtype, 3)
    run_case(program, {"a": a}, {"c": np.zeros((rm, rn), NP[dtype])}, lambda x: {"c": ref(x["a"])}, dtype,
             terms=n if axis == 1 else m)


EXPAND_TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], r: pl.Tensor[[{m}, 1], pl.{dt}],
               k: pl.Tensor[[1, {n}], pl.{dt}],
               c: pl.Out[pl.Tensor[[{m}, {n}], pl.{dt}]]) -> pl.Tensor[[{m}, {n}], pl.{dt}]:
        tile_a = pl.load(a, offsets=[0, 0], shapes=[{m}, {n}])
        row = pl.load(r, offsets=[0, 0], shapes=[{m}, 1])
        col = pl.load(k, offsets=[0, 0], shapes=[1, {n}])
        tile_c = {call}
        out_c = pl.store(tile_c, offsets=[0, 0], output_tensor=c)
        return out_c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], r: pl.Tensor[[{m}, 1], pl.{dt}],
                     k: pl.Tensor[[1, {n}], pl.{dt}],
                     c: pl.Out[pl.Tensor[[{m}, {n}], pl.{dt}]]) -> pl.Tensor[[{m}, {n}], pl.{dt}]:
        c = self.kernel(a, r, k, c)
        return c
"""

EXPAND = {
    "pl.row_expand_add(tile_a, row)": lambda a, r, k: a + r,
    "pl.row_expand_sub(tile_a, row)": lambda a, r, k: a - r,
    "pl.row_expand_mul(tile_a, row)": lambda a, r, k: a * r,
    "pl.row_expand_div(tile_a, row)": lambda a, r, k: a / r,
    "pl.row_expand_max(tile_a, row)": lambda a, r, k: np.maximum(a, r),
    "pl.row_expand_min(tile_a, row)": lambda a, r, k: np.minimum(a, r),
    "pl.row_expand(tile_a, row)": lambda a, r, k: np.broadcast_to(r, a.shape),
    "pl.col_expand_add(tile_a, col)": lambda a, r, k: a + k,
    "pl.col_expand_sub(tile_a, col)": lambda a, r, k: a - k,
    "pl.col_expand_mul(tile_a, col)": lambda a, r, k: a * k,
    "pl.col_expand_div(tile_a, col)": lambda a, r, k: a / k,
    "pl.col_expand_max(tile_a, col)": lambda a, r, k: np.maximum(a, k),
    "pl.col_expand_min(tile_a, col)": lambda a, r, k: np.minimum(a, k),
    "pl.col_expand(tile_a, col)": lambda a, r, k: np.broadcast_to(k, a.shape),
    "pl.row_expand_expdif(tile_a, row)": lambda a, r, k: np.exp(a - r),
    "pl.col_expand_expdif(tile_a, col)": lambda a, r, k: np.exp(a - k),
    "pl.expands(tile_a, 1.25)": lambda a, r, k: np.full(a.shape, 1.25),
}


@pytest.mark.parametrize("call", list(EXPAND))
@pytest.mark.parametrize("dtype", FLOATS)
def test_expand_family(call, dtype):
    m, n = 16, 64
    program = pl.parse(EXPAND_TEXT.format(m=m, n=n, dt=dtype.upper(), call=call))
    a, r, k = rand((m, n), dtype, 4), rand((m, 1), dtype, 5, 0.5, 2.0), rand((1, n), dtype, 6, 0.5, 2.0)
    ref = EXPAND[call]
    run_case(program, {"a": a, "r": r, "k": k}, {"c": np.zeros((m, n), NP[dtype])},
             lambda x: {"c": ref(x["a"], x["r"], x["k"])}, dtype)


def get_softmax_program(m: int, n: int, dtype: str):
    dt = PL[dtype]

    @pl.program
    class SoftmaxProgram:
        @pl.function(type=pl.FunctionType.InCore)
        def softmax(self, a: pl.Tensor[[m, n], dt], out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            tile_a = pl.load(a, [0, 0], [m, n])
            max_tmp = pl.create_tile([m, n], dtype=dt, target_memory=pl.MemorySpace.Vec)
            row_max: pl.Tile[[m, 1], dt] = pl.row_max(tile_a, max_tmp)
            shifted = pl.row_expand_sub(tile_a, row_max)
            exp_shifted = pl.exp(shifted)
            sum_tmp = pl.create_tile([m, n], dtype=dt, target_memory=pl.MemorySpace.Vec)
            row_sum: pl.Tile[[m, 1], dt] = pl.row_sum(exp_shifted, sum_tmp)
            result = pl.row_expand_div(exp_shifted, row_sum)
            out = pl.store(result, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], dt]) -> pl.Tensor[[m, n], dt]:
            out = pl.create_tensor([m, n], dtype=dt)
            out = self.softmax(a, out)
            return out

    return SoftmaxProgram


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,n", [(64, 64), (16, 128)])
def test_softmax_returned_from_orchestration(dtype, m, n):
    """The orchestration creates the output and returns it (PyPTO's ``-> pl.Tensor`` form, output by return)."""
    from tilefold import ir
    from tilefold.runtime import ChipWorker, RunConfig

    compiled = ir.compile(get_softmax_program(m, n, dtype), memory_planner=None)
    a = rand((m, n), dtype, 7, -3.0, 3.0)
    with ChipWorker(config=RunConfig(platform="a2a3sim")) as w:
        got = w.run(compiled, a)
    x = a.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    from tests.pypto_style.st_harness import tol

    rtol, atol = tol(dtype)
    got = np.asarray(got).astype(np.float64)
    assert got.shape == want.shape
    assert np.all(np.abs(got - want) <= atol + rtol * np.abs(want))


def get_rmsnorm_program(m: int, n: int, dtype: str, eps: float = 1e-6):
    dt = PL[dtype]

    @pl.program
    class RMSNorm:
        @pl.function(type=pl.FunctionType.InCore)
        def rmsnorm(self, x: pl.Tensor[[m, n], dt], w: pl.Tensor[[1, n], dt],
                    out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            tx = pl.cast(pl.load(x, [0, 0], [m, n]), target_type=pl.FP32)
            tw = pl.cast(pl.load(w, [0, 0], [1, n]), target_type=pl.FP32)
            tmp = pl.create_tile([m, n], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            sq = pl.mul(tx, tx)
            ms = pl.row_sum(sq, tmp)
            ms = pl.mul(ms, 1.0 / n)
            ms = pl.add(ms, eps)
            inv = pl.rsqrt(ms)
            y = pl.col_expand_mul(pl.row_expand_mul(tx, inv), tw)
            out = pl.store(pl.cast(y, target_type=dt), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, x: pl.Tensor[[m, n], dt], w: pl.Tensor[[1, n], dt],
                         out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            out = self.rmsnorm(x, w, out)
            return out

    return RMSNorm


@pytest.mark.parametrize("dtype", FLOATS)
def test_rmsnorm_closure_constants(dtype):
    m, n = 32, 128
    x, w = rand((m, n), dtype, 8, -2.0, 2.0), rand((1, n), dtype, 9, 0.5, 1.5)

    def ref(v):
        inv = 1.0 / np.sqrt((v["x"] ** 2).mean(1, keepdims=True) + 1e-6)
        return {"out": v["x"] * inv * v["w"]}

    run_case(get_rmsnorm_program(m, n, dtype), {"x": x, "w": w}, {"out": np.zeros((m, n), NP[dtype])}, ref, dtype)
