"""Minimised programs from the vector-pipeline fuzzer (tests/fuzz/test_vector_pipeline_fuzz.py).

Each test names the bug, keeps the smallest DSL program that showed it and checks the fixed behaviour
end to end (sub-block pass on and off, block_dim 1 and 2, verification + round-trip instruments) plus the
IR fact that the fix established.
"""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.ir import AssignStmt, IfStmt, TupleGetItem, Var, YieldStmt
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.infer_tile_memory_space import infer_tile_memory_space
from tilefold.passes.tile_and_bind_sub_block import tile_and_bind_sub_block

from .fuzzcheck import check_program
from .fuzzgen import register_fuzz_kernels

MAPS3 = ('indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)"), '
         'pl.affine_map("(d0, d1) -> (d0, d1)")], iterator_types=[pl.parallel, pl.parallel]')


@pytest.fixture(autouse=True, scope="module")
def _kernels():
    register_fuzz_kernels()


def _inputs(**shapes_and_scalars):
    rng = np.random.default_rng(0)
    out = {}
    for name, v in shapes_and_scalars.items():
        if isinstance(v, tuple):
            out[name] = (np.zeros(v, np.float32) if name.startswith("out")
                         else rng.uniform(-1, 1, v).astype(np.float32))
        else:
            out[name] = v
    return out


# ---------------------------------------------------------------------------------------------------------------
# 1. A multi-result custom op with side effects (no_side_effect=False) in a function TileAndBindSubBlock
#    rolls back: LimitUniqueSubBlockIdToStoreCopy guarded it on sub-block 0 and yielded the tuple elements
#    as ``TupleGetItem`` expressions; codegen then refused the valid program ("expected a tile variable,
#    got TupleGetItem(...)"). Fix: the guard binds each element to a Var and yields the Vars.
# ---------------------------------------------------------------------------------------------------------------

GUARDED_MULTI_RESULT = f'''
import tilefold.language as pl

@pl.program
class GuardedSplit:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        i1 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        p, q = pl.tile.custom("fz.split", ins=[t], outs=[i1, i2], {MAPS3}, no_side_effect=False)
        out = pl.store(p, [0, 0], out)
        return out
'''


def test_guarded_multi_result_custom_op_compiles_and_matches():
    problems = check_program(GUARDED_MULTI_RESULT, _inputs(x=(16, 16), out=(16, 16)), allow_refusal=False)
    assert not problems, problems


def test_guarded_multi_result_custom_op_yields_vars():
    after = tile_and_bind_sub_block()(infer_tile_memory_space()(pl.parse(GUARDED_MULTI_RESULT)))
    yields: list[YieldStmt] = []
    item_defs: list[AssignStmt] = []

    class _V(IRVisitor):
        def visit_IfStmt(self, stmt: IfStmt) -> None:
            if stmt.attr("limit_sub_block_id0", False):
                yields.append(stmt.then_body.stmts[-1])
                item_defs.extend(s for s in stmt.then_body.stmts
                                 if isinstance(s, AssignStmt) and isinstance(s.value, TupleGetItem))
            super().visit_IfStmt(stmt)

    _V().visit_program(after)
    assert yields, "the custom op was not guarded"
    for y in yields:
        assert all(isinstance(v, Var) for v in y.values), y.values
    assert len(item_defs) == 2  # p_sb0 = tuple[0]; q_sb0 = tuple[1]


# ---------------------------------------------------------------------------------------------------------------
# 2. A user program yielding elements of a multi-result custom op (``r = pl.yield_(pair[0])``) was refused
#    by codegen for the same reason, with or without the sub-block pass. Fix: codegen resolves an element of a
#    custom op's result tuple to that output's buffer wherever a tile operand is expected.
# ---------------------------------------------------------------------------------------------------------------

YIELD_TUPLE_ITEM = f'''
import tilefold.language as pl

@pl.program
class YieldItem:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        i1 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        i2 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        pair: pl.Tuple[pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]] = \\
            pl.tile.custom("fz.split", ins=[t], outs=[i1, i2], {MAPS3}, no_side_effect=True)
        if n > 1:
            r = pl.yield_(pair[0])
        else:
            r = pl.yield_(pair[1])
        out = pl.store(r, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("n", [0, 2])
def test_yield_of_custom_tuple_element_compiles_and_matches(n):
    problems = check_program(YIELD_TUPLE_ITEM, _inputs(x=(16, 16), n=n, out=(16, 16)), allow_refusal=False)
    assert not problems, problems
