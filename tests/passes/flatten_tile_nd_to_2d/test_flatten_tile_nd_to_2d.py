"""FlattenTileNdTo2D: Before / Expected structure, value equivalence on the golden interpreter, errors."""

from __future__ import annotations

import pytest
from cube_helpers_flatten import assert_same_golden, kernel

from tilefold import ir, passes
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.stmt import AssignStmt, ForStmt, SeqStmts
from tilefold.passes.verifier import verify_properties


def run(program: ir.Program) -> ir.Program:
    return passes.flatten_tile_nd_to_2d()(program)


def check(before: ir.Program, expected: ir.Program) -> ir.Program:
    after = run(before)
    ir.assert_structural_equal(after, expected)
    verify_properties(after, [passes.IRProperty.TileOps2D])
    assert_same_golden(before, after)
    return after


X3 = "x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]"


def test_3d_elementwise_tiles_flatten_with_load_and_store():
    before = kernel(X3, """
        t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        z: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(y, t)
        out = pl.store(z, [0, 0, 0], out)
        return out
    """)
    expected = kernel(X3, """
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec, flatten=True)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        z: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(y, t)
        out = pl.store(z, [0, 0, 0], out, shapes=[2, 16, 64])
        return out
    """)
    check(before, expected)


def test_4d_tile_flattens_all_leading_dims():
    params = "x: pl.Tensor[[2, 3, 16, 32], pl.FP32], out: pl.Out[pl.Tensor[[2, 3, 16, 32], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[2, 3, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 16, 32])
        y: pl.Tile[[2, 3, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        t: pl.Tile[[96, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 16, 32], flatten=True)
        y: pl.Tile[[96, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0, 0, 0], out, shapes=[2, 3, 16, 32])
        return out
    """)
    check(before, expected)


def test_nd_slice_of_whole_pages_becomes_a_row_window():
    params = "x: pl.Tensor[[4, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[4, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [4, 16, 64])
        s: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 16, 64], [2, 0, 0])
        y: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(s, 1.0)
        out = pl.store(y, [0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [4, 16, 64], flatten=True)
        s: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 64], [32, 0])
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(s, 1.0)
        out = pl.store(y, [0, 0, 0], out, shapes=[2, 16, 64])
        return out
    """)
    check(before, expected)


def test_nd_slice_that_is_not_a_rectangle_is_rejected():
    params = "x: pl.Tensor[[4, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 8, 64], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[4, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [4, 16, 64])
        s: pl.Tile[[4, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 8, 64], [0, 8, 0])
        y: pl.Tile[[4, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(s, 1.0)
        out = pl.store(y, [0, 0, 0], out)
        return out
    """)
    with pytest.raises(NotSupportedError) as info:
        run(before)
    assert info.value.hint


def test_2d_program_is_returned_unchanged():
    params = "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        out = pl.store(y, [0, 0], out)
        return out
    """)
    assert run(before) is before


BMM4 = ("a: pl.Tensor[[4, 32, 128], pl.BF16], b: pl.Tensor[[4, 128, 64], pl.BF16], "
        "out: pl.Out[pl.Tensor[[4, 32, 64], pl.FP32]]")


def test_batch_matmul_batch_4_expands_into_page_matmuls_and_page_stores():
    before = kernel(BMM4, """
        ta: pl.Tile[[4, 32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [4, 32, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[4, 128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [4, 128, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4, 32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    expected = kernel(BMM4, """
        ta: pl.Tile[[128, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [4, 32, 128], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [4, 128, 64], target_memory=pl.Mem.Mat, flatten=True)
        a0: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [0, 0])
        b0: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [0, 0])
        c0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        a1: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [32, 0])
        b1: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [128, 0])
        c1: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b1)
        a2: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [64, 0])
        b2: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [256, 0])
        c2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a2, b2)
        a3: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [96, 0])
        b3: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [384, 0])
        c3: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a3, b3)
        o0: pl.Tensor[[4, 32, 64], pl.FP32] = pl.store(c0, [0, 0, 0], out, shapes=[1, 32, 64])
        o1: pl.Tensor[[4, 32, 64], pl.FP32] = pl.store(c1, [1, 0, 0], o0, shapes=[1, 32, 64])
        o2: pl.Tensor[[4, 32, 64], pl.FP32] = pl.store(c2, [2, 0, 0], o1, shapes=[1, 32, 64])
        out = pl.store(c3, [3, 0, 0], o2, shapes=[1, 32, 64])
        return out
    """)
    check(before, expected)


def test_batch_matmul_with_leading_dim_1_still_slices_the_full_page_at_offset_0():
    params = ("a: pl.Tensor[[1, 32, 512], pl.INT8], b: pl.Tensor[[1, 512, 32], pl.INT8], "
              "out: pl.Out[pl.Tensor[[1, 32, 32], pl.INT32]]")
    before = kernel(params, """
        ta: pl.Tile[[1, 32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [1, 32, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1, 512, 32], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [1, 512, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[1, 32, 32], pl.INT32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        ta: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [1, 32, 512], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[512, 32], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [1, 512, 32], target_memory=pl.Mem.Mat, flatten=True)
        a0: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(ta, [32, 512], [0, 0])
        b0: pl.Tile[[512, 32], pl.INT8, pl.Mem.Mat] = pl.tile.slice(tb, [512, 32], [0, 0])
        c0: pl.Tile[[32, 32], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        out = pl.store(c0, [0, 0, 0], out, shapes=[1, 32, 32])
        return out
    """)
    check(before, expected)


def test_broadcast_batch_dims_reuse_the_broadcast_operand_page():
    params = ("a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[1, 32, 16], pl.FP16], "
              "out: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1, 32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [1, 32, 16], target_memory=pl.Mem.Mat)
        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [1, 32, 16], target_memory=pl.Mem.Mat, flatten=True)
        a0: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [0, 0])
        b0: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 16], [0, 0])
        c0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        a1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [16, 0])
        c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b0)
        o0: pl.Tensor[[2, 16, 16], pl.FP32] = pl.store(c0, [0, 0, 0], out, shapes=[1, 16, 16])
        out = pl.store(c1, [1, 0, 0], o0, shapes=[1, 16, 16])
        return out
    """)
    check(before, expected)


def test_2d_rhs_broadcasts_over_the_batch():
    params = ("a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], "
              "out: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        a0: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [0, 0])
        b0: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 16], [0, 0])
        c0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        a1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [16, 0])
        c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b0)
        o0: pl.Tensor[[2, 16, 16], pl.FP32] = pl.store(c0, [0, 0, 0], out, shapes=[1, 16, 16])
        out = pl.store(c1, [1, 0, 0], o0, shapes=[1, 16, 16])
        return out
    """)
    check(before, expected)


ACC = ("a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 32], pl.FP16], "
       "out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]")


def test_opaque_accumulator_is_column_packed():
    before = kernel(ACC, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 32], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    expected = kernel(ACC, """
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 32], target_memory=pl.Mem.Mat, flatten=True)
        acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        acc0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
        acc1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 32])
        a0: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [0, 0])
        b0: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [0, 0])
        c0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc0, a0, b0)
        a1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [16, 0])
        b1: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [32, 0])
        c1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc1, a1, b1)
        o0: pl.Tensor[[2, 16, 32], pl.FP32] = pl.store(c0, [0, 0, 0], out, shapes=[1, 16, 32])
        out = pl.store(c1, [1, 0, 0], o0, shapes=[1, 16, 32])
        return out
    """)
    check(before, expected)


def test_narrow_pages_stay_row_packed():
    params = ("a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 8], pl.FP16], "
              "out: pl.Out[pl.Tensor[[2, 16, 8], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 32, 8], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 8], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[2, 16, 8], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 8], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[2, 16, 8], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    after = run(before)
    slices = [s.value for s in after.functions[0].body.stmts
              if isinstance(s, AssignStmt) and s.value.op_name == "tile.slice"
              and s.value.type.memory_space is ir.MemorySpace.Acc]
    assert [tuple(e.value for e in c.args[2].elements) for c in slices] == [(0, 0), (16, 0)]
    assert slices[0].args[0].type.static_shape == (32, 8)
    assert_same_golden(before, after)


def test_pages_that_can_be_packed_neither_way_raise_with_a_dsl_hint():
    params = ("a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 32, 24], pl.FP16], "
              "out: pl.Out[pl.Tensor[[2, 16, 24], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 32, 24], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 24], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[2, 16, 24], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 24], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[2, 16, 24], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)
    with pytest.raises(TilefoldError) as info:
        run(before)
    err = info.value
    assert "packed neither by columns" in err.message
    assert "pl.tile.create" in err.hint and "pl.tile.slice(acc, [M, N], [0, i * N])" in err.hint
    assert err.span is not None and err.span.line > 0


def test_loop_carried_batch_accumulator_is_carried_page_by_page():
    before = kernel(ACC, """
        ta: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 32], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        for i, (c_it,) in pl.range(0, 2, init_values=(c0,)):
            c_nx: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(c_it, ta, tb)
            c_out = pl.yield_(c_nx)
        out = pl.store(c_out, [0, 0, 0], out)
        return out
    """)
    expected = kernel(ACC, """
        ta: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0], [2, 32, 32], target_memory=pl.Mem.Mat, flatten=True)
        a0: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [0, 0])
        b0: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [0, 0])
        p0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        a1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [16, 0])
        b1: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [32, 0])
        p1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b1)
        for i, (it0, it1) in pl.range(0, 2, init_values=(p0, p1)):
            x0: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [0, 0])
            y0: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [0, 0])
            n0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(it0, x0, y0)
            x1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 32], [16, 0])
            y1: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [32, 32], [32, 0])
            n1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(it1, x1, y1)
            r0, r1 = pl.yield_(n0, n1)
        o0: pl.Tensor[[2, 16, 32], pl.FP32] = pl.store(r0, [0, 0, 0], out, shapes=[1, 16, 32])
        out = pl.store(r1, [1, 0, 0], o0, shapes=[1, 16, 32])
        return out
    """)
    after = check(before, expected)
    loops = [s for s in after.functions[0].body.stmts if isinstance(s, ForStmt)]
    assert len(loops) == 1 and len(loops[0].iter_args) == 2
    assert isinstance(loops[0].body, SeqStmts)


def test_transpose_of_the_last_two_axes_becomes_one_2d_transpose_per_page():
    params = "x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 64, 16], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
        y: pl.Tile[[2, 64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, axis1=1, axis2=2)
        out = pl.store(y, [0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], flatten=True)
        d0: pl.Tile[[128, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[128, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        p0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
        q0: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(p0, axis1=0, axis2=1)
        d1: pl.Tile[[128, 16], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(d0, q0, [0, 0])
        p1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [16, 0])
        q1: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(p1, axis1=0, axis2=1)
        d2: pl.Tile[[128, 16], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(d1, q1, [64, 0])
        out = pl.store(d2, [0, 0, 0], out, shapes=[2, 64, 16])
        return out
    """)
    check(before, expected)


def test_a_swap_of_leading_axes_moves_runs_of_rows():
    params = "x: pl.Tensor[[2, 3, 8, 16], pl.FP32], out: pl.Out[pl.Tensor[[3, 2, 8, 16], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[2, 3, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 8, 16])
        y: pl.Tile[[3, 2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, axis1=0, axis2=1)
        out = pl.store(y, [0, 0, 0, 0], out)
        return out
    """)
    after = run(before)
    calls = [s.value for s in after.functions[0].body.stmts if isinstance(s, AssignStmt)]
    moves = [(c.args[2].elements[0].value, c.args[1].elements[0].value) for c, d in zip(calls, calls[1:], strict=False)
             if c.op_name == "tile.slice" and d.op_name == "tile.assemble"]
    src_rows = [c.args[2].elements[0].value for c in calls if c.op_name == "tile.slice"]
    dst_rows = [c.args[2].elements[0].value for c in calls if c.op_name == "tile.assemble"]
    # output page (j, i) of 8 rows comes from source page (i, j): runs of 8 rows, one per page
    assert [m[1] for m in moves] == [8] * 6
    assert dst_rows == [0, 8, 16, 24, 32, 40]
    assert src_rows == [(i * 3 + j) * 8 for j in range(3) for i in range(2)]


def test_an_nd_transpose_too_large_to_expand_is_refused_by_name():
    params = "x: pl.Tensor[[2, 16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16, 2], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 32])
        y: pl.Tile[[32, 16, 2], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, axis1=0, axis2=2)
        out = pl.store(y, [0, 0, 0], out)
        return out
    """)
    with pytest.raises(NotSupportedError, match=r"tile.transpose of axes \(0, 2\) of a \[2, 16, 32\] tile "
                                                r"expands into more than 1024 tile copies") as info:
        run(before)
    assert info.value.hint


# ---------------------------------------------------------------------------------------------------
# reductions along the last axis
# ---------------------------------------------------------------------------------------------------

R3 = "x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 1], pl.FP32]]"


@pytest.mark.parametrize("red", ["row_sum", "row_max", "row_min"])
def test_3d_row_reduction_flattens_to_a_2d_row_reduction(red):
    before = kernel(R3, f"""
        a: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec)
        r: pl.Tile[[2, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.{red}(a)
        out = pl.store(r, [0, 0, 0], out)
        return out
    """)
    expected = kernel(R3, f"""
        a: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec, flatten=True)
        r: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.{red}(a)
        out = pl.store(r, [0, 0, 0], out, shapes=[2, 16, 1])
        return out
    """)
    check(before, expected)


def test_4d_row_reduction_feeding_elementwise_ops():
    params = "x: pl.Tensor[[2, 3, 16, 32], pl.FP32], out: pl.Out[pl.Tensor[[2, 3, 16, 1], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[2, 3, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 16, 32])
        e: pl.Tile[[2, 3, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s: pl.Tile[[2, 3, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e)
        m: pl.Tile[[2, 3, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        y: pl.Tile[[2, 3, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.sub(s, m)
        out = pl.store(y, [0, 0, 0, 0], out)
        return out
    """)
    expected = kernel(params, """
        t: pl.Tile[[96, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 16, 32], flatten=True)
        e: pl.Tile[[96, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s: pl.Tile[[96, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e)
        m: pl.Tile[[96, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t)
        y: pl.Tile[[96, 1], pl.FP32, pl.Mem.Vec] = pl.tile.sub(s, m)
        out = pl.store(y, [0, 0, 0, 0], out, shapes=[2, 3, 16, 1])
        return out
    """)
    check(before, expected)


def test_nd_row_reduction_golden_reduces_the_last_axis_only():
    import numpy as np

    from tilefold.golden import run_program

    before = kernel(R3, """
        a: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec)
        r: pl.Tile[[2, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(a)
        out = pl.store(r, [0, 0, 0], out)
        return out
    """)
    x = np.random.default_rng(1).standard_normal((2, 16, 64)).astype(np.float32)
    got = run_program(before, {"x": x, "out": np.zeros((2, 16, 1), np.float32)})["out"]
    np.testing.assert_array_equal(got, x.max(axis=-1, keepdims=True))


@pytest.mark.parametrize("red", ["col_sum", "col_max", "col_min"])
def test_nd_column_reduction_is_a_type_error_with_a_hint(red):
    with pytest.raises(TilefoldError) as info:
        kernel("x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]", f"""
            a: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
            r = pl.tile.{red}(a)
            out = pl.store(r, [0, 0, 0], out)
            return out
        """)
    err = info.value
    assert "2-D" in err.message and "batch pages" in err.message
    assert err.span is not None and f"pl.tile.{red}(a)" in err.span.source_line
    assert err.hint and "page" in err.hint


def _vars_named(fn: ir.Function, name: str) -> set[int]:
    """The distinct variable objects of ``fn`` called ``name`` (by identity)."""
    found: set[int] = set()

    class _Walk(ir.IRVisitor):
        def visit_Var(self, expr: ir.Var) -> None:
            if expr.name == name:
                found.add(id(expr))

    _Walk().visit_function(fn)
    return found


def test_made_up_page_names_never_repeat_a_user_variable_name():
    # the packed accumulator's pages would be named acc_page0, acc_page1, acc_page2: the user already has an
    # acc_page0, so the pass must pick another name for its page (two variables of one name are two values the
    # IR can no longer tell apart by name)
    params = ("a: pl.Tensor[[3, 16, 32], pl.FP16], w: pl.Tensor[[3, 32, 32], pl.FP16], "
              "x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[3, 16, 32], pl.FP32]], "
              "o2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]")
    before = kernel(params, """
        acc_page0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        ta: pl.Tile[[3, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [3, 16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[3, 32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [3, 32, 32], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[3, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([3, 16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[3, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        o2 = pl.store(acc_page0, [0, 0], o2)
        return out
    """)
    after = run(before)
    user = _vars_named(before.functions[0], "acc_page0")
    assert len(user) == 1
    assert _vars_named(after.functions[0], "acc_page0") == user
    assert len(_vars_named(after.functions[0], "acc_page0_1")) == 1  # the first page, named by the one convention
    assert_same_golden(before, after)
