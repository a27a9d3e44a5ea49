"""Window offsets defined through long chains of scalar definitions that reuse their operands: the affine analysis
expands each definition once per depth (a walk of the expression tree would be exponential in the chain)."""

import numpy as np

import tilefold.language as pl
from tilefold.analysis.affine import affine_form, constant_difference
from tilefold.ir.expr import Add, ConstInt, FloorDiv, Var
from tilefold.ir.types import DataType, ScalarType


def _doubling_chain(n: int) -> tuple[Var, Var, dict[Var, object]]:
    """d0 = i; d_j = d_{j-1} + d_{j-1}: d_n is 2**n * i, its tree has 2**n leaves."""
    t = ScalarType(DataType.INDEX)
    i = Var("i", t)
    defs: dict[Var, object] = {}
    prev = i
    for j in range(1, n + 1):
        d = Var(f"d{j}", t)
        defs[d] = Add(prev, prev, t)
        prev = d
    return i, prev, defs


def test_affine_form_of_a_doubling_chain():
    i, d, defs = _doubling_chain(28)
    assert affine_form(d, defs) == ({i: 2 ** 28}, 0)
    assert constant_difference(Add(d, ConstInt(16, DataType.INDEX), d.type), d, defs) == 16


def test_a_variable_of_a_non_affine_definition_is_an_atom():
    """``r = s // 3``: ``r + 16 - r`` is 16 whatever ``r`` is (it used to prove nothing, so ``x[r : r + 16]`` was
    refused); ``r`` and ``s`` stay unrelated atoms (no range, so the window is checked at run time)."""
    t = ScalarType(DataType.INDEX)
    s, r = Var("s", t), Var("r", t)
    defs = {r: FloorDiv(s, ConstInt(3, DataType.INDEX), t)}
    assert affine_form(r, defs) == ({r: 1}, 0)
    assert constant_difference(Add(r, ConstInt(16, DataType.INDEX), t), r, defs) == 16
    assert constant_difference(Add(r, ConstInt(16, DataType.INDEX), t), s, defs) is None


def test_affine_form_results_are_independent_copies():
    i, d, defs = _doubling_chain(3)
    first = affine_form(d, defs)
    first[0][i] = 0  # a caller changing its form does not change the next answer
    assert affine_form(d, defs) == ({i: 8}, 0)



@pl.jit
def chained_offset(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            d0 = i * 16
            d1 = d0 + d0 - d0
            d2 = d1 + d1 - d1
            d3 = d2 + d2 - d2
            d4 = d3 + d3 - d3
            d5 = d4 + d4 - d4
            d6 = d5 + d5 - d5
            d7 = d6 + d6 - d6
            d8 = d7 + d7 - d7
            d9 = d8 + d8 - d8
            d10 = d9 + d9 - d9
            d11 = d10 + d10 - d10
            d12 = d11 + d11 - d11
            d13 = d12 + d12 - d12
            d14 = d13 + d13 - d13
            d15 = d14 + d14 - d14
            d16 = d15 + d15 - d15
            d17 = d16 + d16 - d16
            d18 = d17 + d17 - d17
            out[d18:d18 + 16, :] = pl.add(x[d18:d18 + 16, :], 1.0)
    return out


def test_window_at_an_offset_defined_by_a_long_chain():
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    out = np.zeros_like(x)
    chained_offset(x, out)
    np.testing.assert_array_equal(out, x + 1.0)
