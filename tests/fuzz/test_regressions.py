"""Minimised programs from the vector-pipeline fuzzer (tests/fuzz/test_vector_pipeline_fuzz.py).

Each test names the bug, keeps the smallest DSL program that showed it and checks the fixed behaviour
end to end (sub-block pass on and off, block_dim 1 and 2, verification + round-trip instruments) plus the
IR fact that the fix established.
"""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.ir import IfStmt, TupleGetItem, Var
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
#    got TupleGetItem(...)"). Fix: codegen resolves an element of a custom op's result tuple to that output's
#    buffer wherever a tile operand is expected (see 2., which is the same rule for user-written yields).
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


def test_guarded_multi_result_custom_op_is_lowered():
    from tilefold.compiler import compile

    program = pl.parse(GUARDED_MULTI_RESULT)
    after = tile_and_bind_sub_block()(infer_tile_memory_space()(program))
    guards: list[IfStmt] = []

    class _V(IRVisitor):
        def visit_IfStmt(self, stmt: IfStmt) -> None:
            if stmt.attr("limit_sub_block_id0", False):
                guards.append(stmt)
            super().visit_IfStmt(stmt)

    _V().visit_program(after)
    # the custom op is guarded on sub-block 0 and its guard yields the elements of the tuple result
    (custom_guard,) = [g for g in guards if len(g.return_vars) == 2]
    assert all(isinstance(v, (Var, TupleGetItem)) for v in custom_guard.then_body.stmts[-1].values)
    compiled = compile(program, options={"enable_auto_bind_sub_block": True})  # refused before the fix
    assert "fz.split" in compiled.text()


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


# ---------------------------------------------------------------------------------------------------------------
# 3. Wrong result: a loop carries two tiles whose inits share storage (a previous loop's result and the tile
#    that loop was initialised from) and the yield permutes them. InitMemRef decided the isolations in one
#    round on the pre-isolation storage groups, where the swap ``yield_(cb, ...)`` looked like a write-through
#    chain (same base), so ``ca`` carried ``lr`` in place and clobbered it although ``lr`` is read after the
#    loop. Fix: isolations are recomputed to a fixpoint (passes/memory_planning/init_mem_ref.py).
# ---------------------------------------------------------------------------------------------------------------

SHARED_INIT_SWAP = '''
import tilefold.language as pl

@pl.program
class SharedInitSwap:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        t: pl.Tile[[1, 64], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 3, init_values=(t,)):
            nx = pl.tile.muls(acc, 0.5)
            lr = pl.yield_(nx)
        for j, (ca, cb) in pl.range(0, 2, init_values=(lr, t)):
            sw = pl.tile.adds(ca, 0.25)
            r1, r2 = pl.yield_(cb, sw)
        k: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(lr, target_type=pl.FP32)
        out = pl.store(k, [0, 0], out)
        return out
'''


def test_loop_carrying_two_tiles_with_shared_init_storage():
    rng = np.random.default_rng(0)
    import ml_dtypes

    x = rng.uniform(-1, 1, (1, 64)).astype(np.float32).astype(ml_dtypes.bfloat16)
    problems = check_program(SHARED_INIT_SWAP, {"x": x, "out": np.zeros((1, 64), np.float32)}, allow_refusal=False)
    assert not problems, problems


# ---------------------------------------------------------------------------------------------------------------
# 4. Wrong result: a loop's init is a window of a tile and the loop yields another window of the same tile.
#    ``carried_back`` compared only the storage *base*, took the back-edge copy for a write-through and kept
#    the iter arg on the init window's bytes: the copy overwrote ``w`` (a part of ``t``) although ``w`` is read
#    after the loop. Fix: a write-through needs the same bytes (base, offset and size), not just the same root.
# ---------------------------------------------------------------------------------------------------------------

WINDOW_CARRY = '''
import tilefold.language as pl

@pl.program
class WindowCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
        for i, (a,) in pl.range(0, 2, init_values=(w,)):
            s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 0])
            r = pl.yield_(s)
        d = pl.tile.sub(w, r)
        out = pl.store(d, [0, 0], out)
        return out
'''


def test_loop_init_window_not_overwritten_by_sibling_window():
    problems = check_program(WINDOW_CARRY, _inputs(x=(16, 16), out=(16, 8)), allow_refusal=False)
    assert not problems, problems


def test_window_carry_isolates_the_init():
    from tilefold.compiler import compile

    ir = compile(pl.parse(WINDOW_CARRY), options={"enable_auto_bind_sub_block": False}).ir
    text = ir.as_python()
    assert "pl.tile.move(w" in text  # the loop carries a copy of the window, not the window itself


# ---------------------------------------------------------------------------------------------------------------
# 5. Dangling Var (round trip fails: "use of undefined name 'acc_1'"): a misaligned slice used as a loop init
#    is materialized before the loop, which rebuilds the IterArg; a misaligned slice *of that IterArg* in the
#    body was materialized as an extract that still read the old IterArg object. Fix: CanonicalizeTileSlice
#    maps the copies it builds (pre statements, alias / init / yield escapes) through the IterArg renaming.
# ---------------------------------------------------------------------------------------------------------------

SLICE_OF_RENAMED_ITER_ARG = '''
import tilefold.language as pl

@pl.program
class SliceOfIterArg:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 8], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        rm: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        w: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(rm, [4, 1], [n, 0])
        for i, (acc,) in pl.range(0, 1, init_values=(w,)):
            lw: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(acc, [4, 1], [i * 4, 0])
            e = pl.tile.minimum(lw, acc)
            r = pl.yield_(e)
        out = pl.store(r, [0, 0], out)
        return out
'''


def test_slice_of_renamed_iter_arg_reads_the_new_iter_arg():
    from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice_with_remarks
    from tilefold.passes.pass_manager import round_trip_check

    after, _ = canonicalize_tile_slice_with_remarks(pl.parse(SLICE_OF_RENAMED_ITER_ARG))
    round_trip_check(after)  # raised RoundTripError (undefined name) before the fix
    (loop,) = [s for s in after.functions[0].body.stmts if type(s).__name__ == "ForStmt"]
    ext = loop.body.stmts[0].value
    assert ext.op_name == "tile.extract" and ext.args[0] is loop.iter_args[0]


@pytest.mark.parametrize("n", [0, 5, 12])
def test_slice_of_renamed_iter_arg_matches(n):
    problems = check_program(SLICE_OF_RENAMED_ITER_ARG, _inputs(x=(16, 8), n=n, out=(4, 1)), allow_refusal=False)
    assert not problems, problems
