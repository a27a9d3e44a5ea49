"""A custom op under the sub-block-0 guard writes its output init in place.

LimitUniqueSubBlockIdToStoreCopy puts an un-split custom op under ``if subblock_idx == 0`` and yields the
output init on the other branch. That yield reads the init, but never in an execution where the custom op
ran, so InitMemRef must not give the op a fresh destination: with one, the un-split baseline of the seed's
256x64 FP32 softmax (input, init, result: 3 x 64 KiB = all of Ascend910B's Vec) does not fit.
"""

import numpy as np

import tilefold
import tilefold.language as pl
from tilefold.analysis.liveness import compute_liveness
from tilefold.compiler import compile as compile_program
from tilefold.ir.stmt import IfStmt
from tilefold.passes.tile_and_bind_sub_block.common import LIMIT_TAG
from tilefold.testing import run_and_compare

SRC = """
import tilefold.language as pl

@pl.program
class GuardedSoftmax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        t: pl.Tile[[256, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [256, 64], target_memory=pl.Mem.Vec)
        init: pl.Tile[[256, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[256, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y: pl.Tile[[256, 64], pl.FP32, pl.Mem.Vec] = pl.tile.custom("test.guarded_softmax", ins=[t], outs=[init], indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")], iterator_types=[pl.parallel, pl.reduction], no_side_effect=True)
        out_1: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [0, 0], out)
        return out_1
"""


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)


def test_guarded_custom_op_baseline_fits_and_matches():
    tilefold.register_custom_op("test.guarded_softmax", _softmax, replace=True)
    program = pl.parse(SRC)
    off = {"enable_auto_bind_sub_block": False}
    compiled = compile_program(program, "Ascend910B", options=off)  # raised "does not fit in Vec" before
    fn = compiled.ir.functions[0]
    assert any(isinstance(s, IfStmt) and s.attr(LIMIT_TAG, False) for s in fn.body.stmts)
    rep = run_and_compare(program, "random", options=off)
    assert rep.fault is None and rep.matches, rep.summary()


def test_branch_exclusivity_of_positions():
    program = pl.parse(SRC)
    from tilefold import passes

    guarded = passes.tile_and_bind_sub_block(enable_auto_bind_sub_block=False)(program).functions[0]
    live = compute_liveness(guarded, carried_uses=False)
    guard = next(s for s in guarded.body.stmts if isinstance(s, IfStmt))
    (t0, t1), (e0, e1) = live.if_branches[0]
    assert t0 < t1 <= e0 < e1
    assert live.exclusive(t0, e0) and live.exclusive(e0, t0)
    assert not live.exclusive(t0, t0) and not live.exclusive(t0, live.position(guard))
