"""Element-wise tile ops written the way PyPTO's system tests write them: a ``get_program(shape, dtype)`` that
builds a ``@pl.program`` from closure values, keyword arguments ``offsets=`` / ``shapes=`` / ``output_tensor=``,
an Orchestration function that creates nothing and forwards the Out parameter."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, PL, rand, run_case

import tilefold.language as pl

SHAPES = [(64, 64), (32, 128), (128, 128)]

BINARY = {
    "add": (lambda t, u: pl.add(t, u), np.add),
    "sub": (lambda t, u: pl.sub(t, u), np.subtract),
    "mul": (lambda t, u: pl.mul(t, u), np.multiply),
    "div": (lambda t, u: pl.div(t, u), np.divide),
    "maximum": (lambda t, u: pl.maximum(t, u), np.maximum),
    "minimum": (lambda t, u: pl.minimum(t, u), np.minimum),
}


def get_add_program(m: int, n: int, dtype: str):
    dt = PL[dtype]

    @pl.program
    class BinaryProgram:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[m, n], dt], b: pl.Tensor[[m, n], dt],
                   c: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            tile_a = pl.load(a, offsets=[0, 0], shapes=[m, n])
            tile_b = pl.load(b, offsets=[0, 0], shapes=[m, n])
            tile_c = pl.add(tile_a, tile_b)
            out_c = pl.store(tile_c, offsets=[0, 0], output_tensor=c)
            return out_c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], dt], b: pl.Tensor[[m, n], dt],
                         c: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
            c = self.kernel(a, b, c)
            return c

    return BinaryProgram


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,n", SHAPES)
def test_add_closure_program(dtype, m, n):
    a, b = rand((m, n), dtype, 1), rand((m, n), dtype, 2)
    run_case(get_add_program(m, n, dtype), {"a": a, "b": b}, {"c": np.zeros((m, n), NP[dtype])},
             lambda x: {"c": x["a"] + x["b"]}, dtype)


BINARY_TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], b: pl.Tensor[[{m}, {n}], pl.{dt}],
               c: pl.Out[pl.Tensor[[{m}, {n}], pl.{dt}]]) -> pl.Tensor[[{m}, {n}], pl.{dt}]:
        tile_a = pl.load(a, offsets=[0, 0], shapes=[{m}, {n}])
        tile_b = pl.load(b, offsets=[0, 0], shapes=[{m}, {n}])
        tile_c = {call}
        out_c = pl.store(tile_c, offsets=[0, 0], output_tensor=c)
        return out_c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], b: pl.Tensor[[{m}, {n}], pl.{dt}],
                     c: pl.Out[pl.Tensor[[{m}, {n}], pl.{dt}]]) -> pl.Tensor[[{m}, {n}], pl.{dt}]:
        c = self.kernel(a, b, c)
        return c
"""

BINARY = {
    "pl.add(tile_a, tile_b)": np.add,
    "pl.sub(tile_a, tile_b)": np.subtract,
    "pl.mul(tile_a, tile_b)": np.multiply,
    "pl.div(tile_a, tile_b)": np.divide,
    "pl.maximum(tile_a, tile_b)": np.maximum,
    "pl.minimum(tile_a, tile_b)": np.minimum,
    "pl.tile.add(tile_a, tile_b)": np.add,
    "tile_a + tile_b": np.add,
    "tile_a - tile_b": np.subtract,
    "tile_a * tile_b": np.multiply,
    "tile_a / tile_b": np.divide,
    "pl.add(tile_a, 2.0)": lambda a, b: a + 2.0,
    "pl.sub(tile_a, 0.5)": lambda a, b: a - 0.5,
    "pl.mul(tile_a, 3.0)": lambda a, b: a * 3.0,
    "pl.div(tile_a, 4.0)": lambda a, b: a / 4.0,
    "pl.tile.adds(tile_a, 1.5)": lambda a, b: a + 1.5,
    "pl.tile.muls(tile_a, -2.0)": lambda a, b: a * -2.0,
    "pl.tile.subs(tile_a, 1.0)": lambda a, b: a - 1.0,
    "pl.tile.divs(tile_a, 2.0)": lambda a, b: a / 2.0,
    "pl.maximums(tile_a, 0.25)": lambda a, b: np.maximum(a, 0.25),
    "pl.minimums(tile_a, 0.25)": lambda a, b: np.minimum(a, 0.25),
    "tile_a * 2.0": lambda a, b: a * 2.0,
    "tile_a + 1.0": lambda a, b: a + 1.0,
    "pl.exp(tile_a)": lambda a, b: np.exp(a),
    "pl.log(tile_b)": lambda a, b: np.log(b),
    "pl.sqrt(tile_b)": lambda a, b: np.sqrt(b),
    "pl.rsqrt(tile_b)": lambda a, b: 1 / np.sqrt(b),
    "pl.recip(tile_b)": lambda a, b: 1 / b,
    "pl.abs(tile_a)": lambda a, b: np.abs(a),
    "pl.neg(tile_a)": lambda a, b: -a,
    "pl.relu(tile_a)": lambda a, b: np.maximum(a, 0),
    "pl.tile.relu(tile_a)": lambda a, b: np.maximum(a, 0),
    "pl.lrelu(tile_a, 0.1)": lambda a, b: np.where(a > 0, a, 0.1 * a),
    "pl.prelu(tile_a, tile_b)": lambda a, b: np.where(a > 0, a, b * a),
    "pl.fmod(tile_a, tile_b)": np.fmod,
    "pl.fmods(tile_a, 0.3)": lambda a, b: np.fmod(a, 0.3),
    "pl.tile.addc(tile_a, tile_b, tile_a)": lambda a, b: a + b + a,
    "pl.tile.subc(tile_a, tile_b, tile_a)": lambda a, b: a - b + a,  # PTO's tsubc: src0 - src1 + src2
    "pl.tile.addsc(tile_a, 2.0, tile_b)": lambda a, b: a + 2.0 + b,
    "pl.tile.subsc(tile_a, 2.0, tile_b)": lambda a, b: a - 2.0 + b,
    "2.0 * tile_a + tile_b": lambda a, b: 2.0 * a + b,
    "-tile_a + tile_b": lambda a, b: -a + b,
    "+tile_a * tile_b": lambda a, b: a * b,
    "(tile_a - tile_b) / 2.0": lambda a, b: (a - b) / 2.0,
}


CASES = [(c, d) for c in BINARY for d in FLOATS]


@pytest.mark.parametrize("call,dtype", CASES)
def test_elementwise_family(call, dtype):
    m, n = 32, 64
    program = pl.parse(BINARY_TEXT.format(m=m, n=n, dt=dtype.upper(), call=call))
    a, b = rand((m, n), dtype, 1), rand((m, n), dtype, 2, 0.5, 2.0)
    ref = BINARY[call]
    run_case(program, {"a": a, "b": b}, {"c": np.zeros((m, n), NP[dtype])},
             lambda x: {"c": ref(x["a"], x["b"])}, dtype)
