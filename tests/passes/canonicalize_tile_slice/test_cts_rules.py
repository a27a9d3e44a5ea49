"""Rules 1-8 of CanonicalizeTileSlice: positive and negative cases, Before/Expected in the DSL."""

from __future__ import annotations

import pytest
from cts_helpers import calls, check, kernel, run

from tilefold import ir

MAT_X = "x: pl.Tensor[[64, 512], pl.BF16]"
MAT_LOAD = "x_mat: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)"


# ------------------------------------------------------------------------------------------------
# rule 2: slices folded into tile.extract
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offset", "index", "folded"),
    [
        ("[0, 0]", "0, 0", "0, 0"),
        ("[16, 0]", "0, 0", "16, 0"),
        ("[0, 128]", "0, 64", "0, 192"),
        ("[16, 128]", "16, 64", "32, 192"),
    ],
    ids=["zero", "row", "column", "row+column"],
)
def test_extract_of_slice_reads_the_base_at_summed_indices(offset, index, folded):
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        s: pl.Tile[[32, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 256], {offset})
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, {index}, shape=[16, 64], target_memory=pl.Mem.Left)
    """)
    expected = kernel(MAT_X, f"""
        {MAT_LOAD}
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, {folded}, shape=[16, 64], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_symbolic_extract_index_plus_constant_offset_builds_an_index_add():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        s: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        for k in pl.range(0, 512, 128):
            a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 0, k, shape=[32, 128], target_memory=pl.Mem.Left)
            b: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 16, k, shape=[16, 128], target_memory=pl.Mem.Left)
    """)
    expected = kernel(MAT_X, f"""
        {MAT_LOAD}
        for k in pl.range(0, 512, 128):
            a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, k, shape=[32, 128], target_memory=pl.Mem.Left)
            b: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 48, k, shape=[16, 128], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_symbolic_index_and_symbolic_offset_add_as_index_expression():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        p: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        r: pl.Scalar[pl.INDEX] = p * 32
        s: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [r, 0])
        for k in pl.range(0, 512, 128):
            a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 0, k + 0, shape=[32, 128], target_memory=pl.Mem.Left)
    """)
    after = run(before)
    (ext,) = calls(after, "tile.extract")
    assert ext.args[0].name == "x_mat"
    assert isinstance(ext.args[1], ir.Var) and ext.args[1].name == "r"  # 0 + r -> r
    assert not calls(after, "tile.slice")


def test_slice_outside_a_pipelined_loop_is_folded_into_the_extract_inside():
    before = kernel(MAT_X + ", y: pl.Tensor[[512, 64], pl.BF16]", f"""
        {MAT_LOAD}
        y_mat: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(y, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
        lhs_page: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        c0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 512, 256, init_values=(c0,), stage=2):
            a: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(lhs_page, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
            b: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(y_mat, ko, 0, shape=[256, 64], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
            c_out = pl.yield_(c_next)
    """)
    expected = kernel(MAT_X + ", y: pl.Tensor[[512, 64], pl.BF16]", f"""
        {MAT_LOAD}
        y_mat: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(y, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 512, 256, init_values=(c0,), stage=2):
            a: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, ko, shape=[32, 256], target_memory=pl.Mem.Left)
            b: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(y_mat, ko, 0, shape=[256, 64], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
            c_out = pl.yield_(c_next)
    """)
    check(before, expected)


def test_several_extract_consumers_are_all_folded_and_the_slice_dies_after_the_last():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        s: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        a0: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 0, 0, shape=[32, 128], target_memory=pl.Mem.Left)
        a1: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 0, 128, shape=[32, 128], target_memory=pl.Mem.Left)
        a2: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(s, 16, 256, shape=[16, 128], target_memory=pl.Mem.Left)
    """)
    expected = kernel(MAT_X, f"""
        {MAT_LOAD}
        a0: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, 0, shape=[32, 128], target_memory=pl.Mem.Left)
        a1: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, 128, shape=[32, 128], target_memory=pl.Mem.Left)
        a2: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 48, 256, shape=[16, 128], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_chained_slices_are_peeled_and_die_outside_in():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        outer: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        mid: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(outer, [16, 256], [16, 256])
        inner: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(mid, [16, 128], [0, 128])
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(inner, 0, 64, shape=[16, 64], target_memory=pl.Mem.Left)
    """)
    expected = kernel(MAT_X, f"""
        {MAT_LOAD}
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 48, 448, shape=[16, 64], target_memory=pl.Mem.Left)
    """)
    check(before, expected)


def test_chain_with_a_surviving_inner_consumer_keeps_the_inner_slice():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        outer: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        inner: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(outer, [16, 128], [0, 128])
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(inner, 0, 64, shape=[16, 64], target_memory=pl.Mem.Left)
        m: pl.Tile[[32, 512], pl.BF16, pl.Mem.Left] = pl.tile.move(outer, target_memory=pl.Mem.Left)
    """)
    expected = kernel(MAT_X, f"""
        {MAT_LOAD}
        outer: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, 192, shape=[16, 64], target_memory=pl.Mem.Left)
        m: pl.Tile[[32, 512], pl.BF16, pl.Mem.Left] = pl.tile.move(outer, target_memory=pl.Mem.Left)
    """)
    check(before, expected)


# ------------------------------------------------------------------------------------------------
# rule 3: matmul-family operands
# ------------------------------------------------------------------------------------------------

MM_PARAMS = "a: pl.Tensor[[32, 256], pl.BF16], b: pl.Tensor[[256, 128], pl.BF16], bias: pl.Tensor[[1, 64], pl.FP32]"
MM_LOADS = """
lhs_mat: pl.Tile[[32, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 256], target_memory=pl.Mem.Mat)
rhs_mat: pl.Tile[[256, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
"""


def test_matmul_acc_lhs_and_rhs_are_rewritten_but_not_the_accumulator():
    before = kernel(MM_PARAMS, MM_LOADS + """
lhs_s: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [16, 256], [16, 0])
rhs_s: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(rhs_mat, [256, 64], [0, 64])
acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lhs_s, rhs_s)
""")
    expected = kernel(MM_PARAMS, MM_LOADS + """
acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
lhs_s_left: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(lhs_mat, 16, 0, shape=[16, 256], target_memory=pl.Mem.Left)
rhs_s_right: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(rhs_mat, 0, 64, shape=[256, 64], target_memory=pl.Mem.Right)
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lhs_s_left, rhs_s_right)
""")
    check(before, expected)


def test_matmul_bias_rewrites_lhs_rhs_and_leaves_the_bias():
    before = kernel(MM_PARAMS, MM_LOADS + """
bias_t: pl.Tile[[1, 128], pl.FP32, pl.Mem.Bias] = pl.tile.create(shape=[1, 128], dtype=pl.FP32, target_memory=pl.Mem.Bias)
bias_s: pl.Tile[[1, 128], pl.FP32, pl.Mem.Bias] = pl.tile.slice(bias_t, [1, 128], [0, 0])
lhs_s: pl.Tile[[32, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [32, 256], [0, 0])
c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(lhs_s, rhs_mat, bias_s)
""")
    expected = kernel(MM_PARAMS, MM_LOADS + """
bias_t: pl.Tile[[1, 128], pl.FP32, pl.Mem.Bias] = pl.tile.create(shape=[1, 128], dtype=pl.FP32, target_memory=pl.Mem.Bias)
bias_s: pl.Tile[[1, 128], pl.FP32, pl.Mem.Bias] = pl.tile.slice(bias_t, [1, 128], [0, 0])
lhs_left: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(lhs_mat, 0, 0, shape=[32, 256], target_memory=pl.Mem.Left)
c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(lhs_left, rhs_mat, bias_s)
""")
    check(before, expected)


def test_gemv_operands_are_rewritten_through_the_registry_kind():
    before = kernel(MM_PARAMS, MM_LOADS + """
row: pl.Tile[[1, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [1, 256], [3, 0])
c: pl.Tile[[1, 128], pl.FP32, pl.Mem.Acc] = pl.tile.gemv(row, rhs_mat)
""")
    expected = kernel(MM_PARAMS, MM_LOADS + """
row_left: pl.Tile[[1, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(lhs_mat, 3, 0, shape=[1, 256], target_memory=pl.Mem.Left)
c: pl.Tile[[1, 128], pl.FP32, pl.Mem.Acc] = pl.tile.gemv(row_left, rhs_mat)
""")
    check(before, expected)


# ------------------------------------------------------------------------------------------------
# rule 8: Mat slices with other consumers stay
# ------------------------------------------------------------------------------------------------


def test_mat_slice_into_tile_move_is_kept_and_the_program_is_the_same_object():
    before = kernel(MAT_X, f"""
        {MAT_LOAD}
        s: pl.Tile[[32, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 256], [32, 256])
        m: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.move(s, target_memory=pl.Mem.Left)
    """)
    assert run(before) is before


def test_program_without_slices_is_returned_as_the_same_object():
    before = kernel("x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        out = pl.store(y, [0, 0], out)
        return out
    """, ret="pl.Tensor[[16, 64], pl.FP32]")
    after = run(before)
    assert after is before
    assert after.functions[0] is before.functions[0]


def test_only_incore_aic_and_aiv_functions_are_processed():
    from tilefold.passes import canonicalize_tile_slice

    body = """
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 2.0)
    """
    for ftype in ("InCore", "AIC", "AIV"):
        prog = kernel("x: pl.Tensor[[16, 64], pl.FP32]", body, ftype=ftype)
        assert calls(run(prog), "tile.extract"), ftype
    # the raw transform (no verifier: tile ops outside a kernel are invalid input) skips other functions
    opaque = kernel("x: pl.Tensor[[16, 64], pl.FP32]", body, ftype="Opaque")
    assert canonicalize_tile_slice().run(opaque) is opaque


# ------------------------------------------------------------------------------------------------
# rule 4: col_expand family
# ------------------------------------------------------------------------------------------------

VEC_PARAMS = "x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 128], pl.FP32]"
VEC_LOADS = """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
g64: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
g128: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 128])
"""


@pytest.mark.parametrize("op", ["col_expand_mul", "col_expand_add"])
def test_col_expand_with_dynamic_row_offset_is_materialized(op):
    before = kernel(VEC_PARAMS, VEC_LOADS + f"""
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 128], [r, 0])
y: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(row, g128)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + f"""
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
row_ext: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, r, 0, shape=[1, 128], target_memory=pl.Mem.Vec)
y: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(row_ext, g128)
""")
    check(before, expected)


@pytest.mark.parametrize("op", ["col_expand_mul", "col_expand_add"])
def test_col_expand_with_non_contiguous_column_slice_is_materialized(op):
    before = kernel(VEC_PARAMS, VEC_LOADS + f"""
lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(lo, g64)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + f"""
lo_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(lo_ext, g64)
""")
    check(before, expected)


@pytest.mark.parametrize(
    ("shape", "offset", "vec"),
    [("[8, 128]", "[8, 0]", "g128"), ("[1, 128]", "[5, 0]", "g128"), ("[16, 128]", "[0, 0]", "g128"),
     ("[1, 64]", "[3, 64]", "g64")],
    ids=["full-width-multi-row", "single-row-nonzero-row", "full-shape-zero-offset", "single-row-half-width"],
)
@pytest.mark.parametrize("op", ["col_expand_mul", "col_expand_add"])
def test_col_expand_with_constant_contiguous_slice_is_kept(op, shape, offset, vec):
    before = kernel(VEC_PARAMS, VEC_LOADS + f"""
w: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, {shape}, {offset})
y: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.tile.{op}(w, {vec})
""")
    assert run(before) is before


def test_col_expand_checks_both_operands():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
body: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [8, 0])
vec_row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 128], [r, 0])
y: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(body, vec_row)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
body: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [8, 0])
vec_row_ext: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, r, 0, shape=[1, 128], target_memory=pl.Mem.Vec)
y: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(body, vec_row_ext)
""")
    check(before, expected)


def test_col_expand_contiguous_slice_at_a_misaligned_address_is_materialized():
    # single row starting at column 1: contiguous, but the identity copy would sit 4 B past the base (#1789)
    before = kernel(VEC_PARAMS, VEC_LOADS + """
w: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [0, 1])
y: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(w, g64)
""")
    after = run(before)
    assert not calls(after, "tile.slice")
    (ext,) = calls(after, "tile.extract")
    assert [a.value for a in ext.args[1:]] == [0, 1]


# ------------------------------------------------------------------------------------------------
# rule 5: ordinary vector consumers and alignment
# ------------------------------------------------------------------------------------------------


def test_constant_offset_through_scalar_ssa_aligned_is_kept():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
c: pl.Scalar[pl.INDEX] = 8
c2 = c
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, c2])
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w, 1.0)
""")
    assert run(before) is before


def test_constant_offset_through_scalar_ssa_unaligned_is_materialized_with_the_constant():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
c: pl.Scalar[pl.INDEX] = 3
c2 = c
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, c2])
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w, 1.0)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
c: pl.Scalar[pl.INDEX] = 3
c2 = c
w_ext: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 3, shape=[16, 8], target_memory=pl.Mem.Vec)
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w_ext, 1.0)
""")
    check(before, expected)


@pytest.mark.parametrize(
    "col_def",
    ["b * 32", "(b * 16) * 2", "b * 8 + 16", "b * 64 - 8"],
)
def test_dynamic_column_with_provable_multiple_of_8_fp32_is_kept(col_def):
    before = kernel(VEC_PARAMS, VEC_LOADS + f"""
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
c: pl.Scalar[pl.INDEX] = {col_def}
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, c])
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
""")
    assert run(before) is before


@pytest.mark.parametrize("col_def", ["b * 4", "b + 8", "b * 16 + 4"])
def test_dynamic_column_without_provable_multiple_is_materialized(col_def):
    before = kernel(VEC_PARAMS, VEC_LOADS + f"""
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
c: pl.Scalar[pl.INDEX] = {col_def}
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, c])
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + f"""
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
c: pl.Scalar[pl.INDEX] = {col_def}
w_ext: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, c, shape=[16, 8], target_memory=pl.Mem.Vec)
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w_ext)
""")
    check(before, expected)


def test_dynamic_row_with_unaligned_row_pitch_is_materialized():
    # FP16 rows of 8 columns are 16 B apart: a dynamic row is not provably 32-byte aligned
    before = kernel("x: pl.Tensor[[16, 8], pl.FP16]", """
t: pl.Tile[[16, 8], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8])
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
w: pl.Tile[[1, 8], pl.FP16, pl.Mem.Vec] = pl.tile.slice(t, [1, 8], [r, 0])
y: pl.Tile[[1, 8], pl.FP16, pl.Mem.Vec] = pl.tile.exp(w)
""")
    after = run(before)
    assert not calls(after, "tile.slice") and len(calls(after, "tile.extract")) == 1


def test_dynamic_row_whose_multiple_makes_the_pitch_aligned_is_kept():
    # FP16 rows of 8 columns are 16 B apart, but the row offset is a loop var stepping by 2 rows = 32 B
    before = kernel("x: pl.Tensor[[16, 8], pl.FP16]", """
t: pl.Tile[[16, 8], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8])
for r in pl.range(0, 16, 2):
    w: pl.Tile[[2, 8], pl.FP16, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [r, 0])
    y: pl.Tile[[2, 8], pl.FP16, pl.Mem.Vec] = pl.tile.exp(w)
""")
    assert run(before) is before


def test_eval_stmt_consumer_is_rewritten():
    before = kernel(VEC_PARAMS + ", out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]", VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
pl.store(head, [0, 0], out)
""")
    expected = kernel(VEC_PARAMS + ", out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]", VEC_LOADS + """
head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
pl.store(head_ext, [0, 0], out)
""")
    check(before, expected)


def test_memref_byte_offsets_count_in_the_alignment_proof():
    from tilefold.analysis import analyze_slice_windows
    from tilefold.passes.canonicalize_tile_slice import slice_alignment

    prog = kernel(VEC_PARAMS, VEC_LOADS + """
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
""")
    fn = prog.functions[0]
    t_var = fn.body.stmts[0].var

    def alignment_with(memref):
        new_t = t_var.with_fields(type=t_var.type.__class__(t_var.type.shape, t_var.type.dtype,
                                                           t_var.type.memory_space, memref))
        body = ir.substitute(fn.body, {t_var: new_t})
        body = body.with_fields(stmts=(body.stmts[0].with_fields(var=new_t),) + body.stmts[1:])
        analysis = analyze_slice_windows(fn.with_fields(body=body))
        (info,) = analysis.slices.values()
        return slice_alignment(info, analysis.facts)

    mem = ir.MemorySpace.Vec
    assert alignment_with(None).status == "aligned"
    assert alignment_with(ir.MemRef(mem, "buf", None, 8192)).status == "aligned"  # planning sentinel
    assert alignment_with(ir.MemRef(mem, "buf", ir.ConstInt(64), 8192)).status == "aligned"
    off = alignment_with(ir.MemRef(mem, "buf", ir.ConstInt(16), 8192))
    assert off.status == "misaligned" and off.misaligned_bytes == 16
    sym = alignment_with(ir.MemRef(mem, "buf", ir.Var("o", ir.ScalarType(ir.DataType.INDEX)), 8192))
    assert sym.status == "unprovable"


def test_same_slice_used_twice_in_one_call_is_materialized_once():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(head, head)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(head_ext, head_ext)
""")
    check(before, expected)


def test_vec_slice_folded_into_a_vec_extract():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
w: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [8, 0])
e: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.extract(w, 2, 32, shape=[4, 32], target_memory=pl.Mem.Vec)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
e: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 10, 32, shape=[4, 32], target_memory=pl.Mem.Vec)
""")
    check(before, expected)


# ------------------------------------------------------------------------------------------------
# rule 6: SSA escapes
# ------------------------------------------------------------------------------------------------


def test_misaligned_slice_through_a_plain_alias_is_materialized_at_the_alias():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
alias = head
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(alias, 0.5)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
alias: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(alias, 0.5)
""")
    check(before, expected)


def test_aligned_slice_through_a_plain_alias_is_kept():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
alias = w
y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(alias, 0.5)
""")
    assert run(before) is before


def test_misaligned_loop_init_is_materialized_before_the_loop():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
for i, (acc,) in pl.range(0, 4, init_values=(head,)):
    nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
    res = pl.yield_(nxt)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
for i, (acc,) in pl.range(0, 4, init_values=(head_ext,)):
    nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
    res = pl.yield_(nxt)
""")
    check(before, expected)


def test_misaligned_while_loop_init_is_materialized_before_the_loop():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
for (i, acc) in pl.while_(init_values=(0, head)):
    pl.cond(i < 4)
    nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
    i2, res = pl.yield_(i + 1, nxt)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
for (i, acc) in pl.while_(init_values=(0, head_ext)):
    pl.cond(i < 4)
    nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
    i2, res = pl.yield_(i + 1, nxt)
""")
    check(before, expected)


def test_misaligned_yielded_slice_is_materialized_before_the_yield():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
init: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.full(shape=[16, 1], dtype=pl.FP32, value=0.0)
for i, (acc,) in pl.range(0, 4, init_values=(init,)):
    col: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 3])
    res = pl.yield_(col)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(res, 2.0)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
init: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.full(shape=[16, 1], dtype=pl.FP32, value=0.0)
for i, (acc,) in pl.range(0, 4, init_values=(init,)):
    col_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 3, shape=[16, 1], target_memory=pl.Mem.Vec)
    res = pl.yield_(col_ext)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(res, 2.0)
""")
    check(before, expected)


def test_misaligned_slice_yielded_from_an_if_branch_is_materialized():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
if b == 0:
    c1: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
    sel = pl.yield_(c1)
else:
    c8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 8])
    sel = pl.yield_(c8)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(sel, 2.0)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
if b == 0:
    c1_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
    sel = pl.yield_(c1_ext)
else:
    c8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 8])
    sel = pl.yield_(c8)
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(sel, 2.0)
""")
    check(before, expected)


# ------------------------------------------------------------------------------------------------
# rule 1: non-canonical slices
# ------------------------------------------------------------------------------------------------


def test_four_operand_slice_with_valid_shape_is_skipped():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1], [8, 1])
y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 128], [r, 0], [1, 64])
z: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, g128)
""")
    assert run(before) is before


def test_dead_canonical_slice_is_dropped():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS)
    check(before, expected)


def test_dynamic_slice_reaching_col_expand_through_an_alias_is_materialized_at_the_alias():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 128], [r, 0])
alias = row
y: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(alias, g128)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
alias: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, r, 0, shape=[1, 128], target_memory=pl.Mem.Vec)
y: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(alias, g128)
""")
    check(before, expected)


def test_non_contiguous_loop_init_read_by_col_expand_through_the_iter_arg_is_materialized():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
for i, (acc,) in pl.range(0, 2, init_values=(lo,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(acc, g64)
    res = pl.yield_(nxt)
""")
    expected = kernel(VEC_PARAMS, VEC_LOADS + """
lo_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
for i, (acc,) in pl.range(0, 2, init_values=(lo_ext,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(acc, g64)
    res = pl.yield_(nxt)
""")
    check(before, expected)


def test_contiguous_aligned_slice_through_an_alias_into_col_expand_is_kept():
    before = kernel(VEC_PARAMS, VEC_LOADS + """
bottom: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 128], [8, 0])
alias = bottom
y: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(alias, g128)
""")
    assert run(before) is before
