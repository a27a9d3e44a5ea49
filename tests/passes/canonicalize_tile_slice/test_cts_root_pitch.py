"""Issue 9 §4: the #2010 contiguity test resolves a slice's base to its storage root. A slice of a
shape-preserving view (``tile.reshape`` to the same shape, ``tile.set_validshape``) or of a loop iter arg whose
init is a column window lives in the root's rows, so its row pitch is the root's: a multi-row window read by a
col_expand op is repacked (``tile.extract``) instead of being copied in place over the live source."""

from __future__ import annotations

import pytest
from cts_helpers import run_with_remarks

import tilefold.language as pl
from tilefold import ir
from tilefold.testing import run_and_compare

VIEW = '''
import tilefold.language as pl

@pl.program
class V:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.{view}
        {inner}
        r: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(inner, gt)
        out = pl.store(r, [0, 0], out)
        return out
'''
SLICE = "inner: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [8, 64], [8, 0])"
EXTRACT = ("inner: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(v, 8, 0, shape=[8, 64], "
           "target_memory=pl.Mem.Vec)")

LOOP = '''
import tilefold.language as pl

@pl.program
class L:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
        gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        for i, (acc, o) in pl.range(0, 2, init_values=(w, out)):
            {inner}
            r: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(inner, gt)
            o2 = pl.store(r, [0, 0], o)
            acc_out, o_out = pl.yield_(acc, o2)
        return o_out
'''
LOOP_SLICE = SLICE.replace("slice(v,", "slice(acc,")
LOOP_EXTRACT = EXTRACT.replace("extract(v,", "extract(acc,")

CASES = {
    "reshape_same_shape": (VIEW.replace("{view}", "reshape(w, [16, 64])"), SLICE, EXTRACT),
    "set_validshape": (VIEW.replace("{view}", "set_validshape(w, [16, 64])"), SLICE, EXTRACT),
    "loop_iter_arg_of_column_window": (LOOP, LOOP_SLICE, LOOP_EXTRACT),
}


def _program(name: str, expected: bool) -> ir.Program:
    src, before, after = CASES[name]
    return pl.parse(src.replace("{inner}", after if expected else before))


@pytest.mark.parametrize("name", sorted(CASES))
def test_slice_of_a_view_of_a_window_is_repacked(name):
    out, remarks = run_with_remarks(_program(name, expected=False))
    ir.assert_structural_equal(out, _program(name, expected=True), enable_auto_mapping=True)
    mat = [r for r in remarks if r.kind == "materialized"]
    assert mat and "of 128 columns" in mat[0].message and "#2010" in mat[0].message


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("codegen", ["strict", "faithful"])
def test_e2e_root_pitch_strict_and_faithful(name, codegen):
    # before the fix: strict codegen raised an internal error, faithful codegen destroyed the source (loop case)
    for target in ("Ascend910B", "Ascend950"):
        rep = run_and_compare(_program(name, expected=False), "random", target=target, codegen=codegen,
                              options={"enable_auto_bind_sub_block": False})
        assert rep.result == "correct", rep.summary()
