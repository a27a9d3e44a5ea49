"""PyPTO's run / compile API on programs whose orchestration creates its output and returns it
(``out = pl.create_tensor(...); out = self.kernel(..., out); return out``), the form of PyPTO's older system
tests: ``runner.run`` with an output ``TensorSpec`` that names no parameter, ``ir.compile`` then a call with and
without a destination array for the returned tensor."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.runtime.runner import RunConfig, run
from tilefold.runtime.tensor_spec import TensorSpec


def get_program(m: int, n: int):
    @pl.program
    class CreateAndReturn:
        @pl.function(type=pl.FunctionType.InCore)
        def tile_add(self, a: pl.Tensor[[m, n], pl.FP32], b: pl.Tensor[[m, n], pl.FP32],
                     c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            tile_a = pl.load(a, offsets=[0, 0], shapes=[m, n])
            tile_b = pl.load(b, offsets=[0, 0], shapes=[m, n])
            return pl.store(pl.add(tile_a, tile_b), offsets=[0, 0], output_tensor=c)

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], pl.FP32],
                         b: pl.Tensor[[m, n], pl.FP32]) -> pl.Tensor[[m, n], pl.FP32]:
            out_c = pl.create_tensor([m, n], dtype=pl.FP32)
            out_c = self.tile_add(a, b, out_c)
            return out_c

    return CreateAndReturn


M, N = 32, 64
A = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
B = np.random.default_rng(1).standard_normal((M, N)).astype(np.float32)


def _specs():
    return [TensorSpec("a", [M, N], np.float32, init_value=A), TensorSpec("b", [M, N], np.float32, init_value=B),
            TensorSpec("c", [M, N], np.float32, is_output=True)]


def test_run_binds_the_returned_tensor_to_the_output_spec():
    def golden(tensors):
        tensors["c"][:] = tensors["a"] + tensors["b"]

    result = run(get_program(M, N), _specs(), golden, RunConfig(platform="a2a3sim", rtol=1e-6, atol=1e-6))
    assert result.passed, result.error
    np.testing.assert_array_equal(result.outputs["c"], A + B)


def test_run_without_golden_compares_the_returned_tensor():
    result = run(get_program(M, N), _specs(), None, RunConfig(platform="a2a3sim"))
    assert result.passed, result.error
    np.testing.assert_array_equal(result.outputs["c"], A + B)


def test_run_with_a_wrong_golden_fails():
    def golden(tensors):
        tensors["c"][:] = tensors["a"] - tensors["b"]

    assert not run(get_program(M, N), _specs(), golden, RunConfig(platform="a2a3sim")).passed


def test_run_with_too_many_unnamed_outputs_is_an_error():
    specs = _specs() + [TensorSpec("d", [M, N], np.float32, is_output=True)]
    result = run(get_program(M, N), specs, None, RunConfig(platform="a2a3sim"))
    assert not result.passed and "name no parameter" in result.error


def test_compiled_call_returns_the_created_tensor():
    compiled = ir.compile(get_program(M, N), memory_planner=None)
    got = compiled(A, B)
    np.testing.assert_array_equal(np.asarray(got), A + B)


def test_compiled_call_writes_a_destination_for_the_returned_tensor():
    compiled = ir.compile(get_program(M, N))
    c = np.zeros((M, N), np.float32)
    compiled(A, B, c)
    np.testing.assert_array_equal(c, A + B)


def test_compiled_call_with_a_wrong_count_names_the_parameters():
    from tilefold.errors import TilefoldError

    compiled = ir.compile(get_program(M, N))
    with pytest.raises(TilefoldError, match="returned tensor"):
        compiled(A)
