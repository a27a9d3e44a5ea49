"""Rule 9: accumulator destinations that are non-contiguous L0C windows are rejected; unprovable ones are not."""

from __future__ import annotations

import pytest
from cts_helpers import calls, kernel, run

from tilefold import ir
from tilefold.analysis import analyze_slice_windows
from tilefold.errors import TilefoldError
from tilefold.passes.canonicalize_tile_slice import AccWindowError

PARAMS = "n: pl.Scalar[pl.INDEX]"


def operands(m: int, n: int, k: int = 32) -> str:
    return (
        f"a: pl.Tile[[{m}, {k}], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[{m}, {k}], dtype=pl.BF16, "
        "target_memory=pl.Mem.Left)\n"
        f"b: pl.Tile[[{k}, {n}], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[{k}, {n}], dtype=pl.BF16, "
        "target_memory=pl.Mem.Right)\n"
    )


def acc(rows: int = 32, cols: int = 64, mem: str = "Acc", dtype: str = "FP32") -> str:
    return (f"acc: pl.Tile[[{rows}, {cols}], pl.{dtype}, pl.Mem.{mem}] = pl.tile.create(shape=[{rows}, {cols}], "
            f"dtype=pl.{dtype}, target_memory=pl.Mem.{mem})\n")


def program(body: str):
    return kernel(PARAMS, body)


def rejects(body: str) -> AccWindowError:
    prog = program(body)
    with pytest.raises(AccWindowError) as info:
        run(prog)
    return info.value


def accepts(body: str) -> None:
    """The window is a valid matmul destination: the pass leaves the program exactly as it was, every slice a
    zero-copy view (no extract or move materializes one)."""
    prog = program(body)
    after = run(prog)
    ir.assert_structural_equal(after, prog)
    assert len(calls(after, "tile.slice")) == len(calls(prog, "tile.slice")) > 0
    assert not calls(after, "tile.extract") and not calls(after, "tile.move")


# ------------------------------------------------------------------------------------------------
# acceptance
# ------------------------------------------------------------------------------------------------


def test_window_spanning_the_full_row_range_is_accepted():
    accepts(acc() + operands(32, 32) + """
w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 32], [0, 32])
c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")


@pytest.mark.parametrize("offset", ["[16, 16]", "[0, 48]", "[8, 20]"])
def test_window_inside_one_16_column_block_is_accepted(offset):
    cols = "12" if offset == "[8, 20]" else "16"
    accepts(acc() + operands(16, int(cols)) + f"""
w: pl.Tile[[16, {cols}], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, {cols}], {offset})
c: pl.Tile[[16, {cols}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")


def test_dynamic_column_offset_provably_inside_one_block_is_accepted():
    accepts(acc() + operands(16, 16) + """
j: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
col: pl.Scalar[pl.INDEX] = j * 16
w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [16, col])
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")


def test_column_packed_batch_pages_are_accepted():
    accepts(acc(16, 128) + operands(16, 32) + """
for i in pl.range(0, 4):
    page: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, i * 32])
    c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(page, a, b)
""")


# ------------------------------------------------------------------------------------------------
# rejection
# ------------------------------------------------------------------------------------------------


def test_row_window_of_a_multi_block_accumulator_is_rejected_with_the_column_idiom():
    err = rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")
    assert isinstance(err, ValueError) and isinstance(err, TilefoldError)
    text = str(err)
    assert "not contiguous in L0C's block layout" in text
    assert "tile.matmul_acc" in text
    assert "[16, 64] at offset [16, 0]" in text
    assert "'acc' [32, 64]" in text
    assert "[rows, N * tiles]" in text and "slice columns" in text
    assert err.span is not None and err.span.line > 0
    assert "matmul_acc(w, a, b)" in err.span.source_line


def test_narrow_window_straddling_two_blocks_is_rejected():
    err = rejects(acc() + operands(16, 16) + """
w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")
    assert "[8, 24)" in str(err)


def test_four_operand_slice_window_is_rejected():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0], [16, 64])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")


def test_bare_statement_form_is_rejected_too():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
pl.tile.matmul_acc(w, a, b)
""")


def test_gemv_acc_is_covered_through_the_registry():
    err = rejects(acc(4, 64) + operands(1, 32) + """
w: pl.Tile[[1, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [1, 32], [2, 32])
c: pl.Tile[[1, 32], pl.FP32, pl.Mem.Acc] = pl.tile.gemv_acc(w, a, b)
""")
    assert "tile.gemv_acc" in str(err)


def test_window_hoisted_out_of_the_k_loop_is_resolved_through_the_iter_arg():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
for k, (c_iter,) in pl.range(0, n, 1, init_values=(w,)):
    c_next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
    c_out = pl.yield_(c_next)
""")


def test_window_is_resolved_through_a_plain_alias():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
w2 = w
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w2, a, b)
""")


def test_window_is_resolved_through_a_shape_preserving_reshape():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(w, [16, 64])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(r, a, b)
""")


def test_window_is_resolved_through_set_validshape():
    rejects(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.set_validshape(w, [16, 60])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(v, a, b)
""")


def test_window_is_resolved_through_a_chained_matmul_acc():
    prog = program(acc() + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
c1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
c2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c1, a, b)
""")
    analysis = analyze_slice_windows(prog.functions[0])
    by_name = {v.name: w for v, w in analysis.windows.items()}
    assert by_name["c1"] is by_name["w"]
    assert [f.operand.name for f in analysis.acc_findings] == ["w", "c1"]
    assert all(f.verdict.kind == "reject" for f in analysis.acc_findings)
    with pytest.raises(AccWindowError):
        run(prog)


def test_if_whose_branches_yield_the_same_window_is_resolved():
    rejects(acc() + operands(16, 64) + """
b0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
if b0 == 0:
    sel = pl.yield_(w)
else:
    same: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
    sel = pl.yield_(same)
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(sel, a, b)
""")


def test_square_transpose_view_passes_the_extent_rule():
    rejects(acc() + operands(16, 16) + """
w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
tv: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.transpose_view(w)
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(tv, a, b)
""")


def test_loop_back_edge_yielding_a_worse_window_is_checked():
    err = rejects(acc() + operands(16, 16) + """
good: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 0])
for k, (c_iter,) in pl.range(0, 4, 1, init_values=(good,)):
    c_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
    bad: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
    c_out = pl.yield_(bad)
""")
    assert "back edge" in str(err)


# ------------------------------------------------------------------------------------------------
# silence (never a false rejection)
# ------------------------------------------------------------------------------------------------

BACK_EDGE_BODY = """
    c_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
    bad: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
    c_out = pl.yield_(bad)
"""
GOOD_INIT = "good: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 0])\n"


@pytest.mark.parametrize("header", [
    "for k, (c_iter,) in pl.range(0, n, 1, init_values=(good,)):",
    "for k, (c_iter,) in pl.range(0, 1, 1, init_values=(good,)):",
    "for k, (c_iter,) in pl.range(0, 2, 2, init_values=(good,)):",
], ids=["symbolic-trip-count", "single-iteration", "step-covers-range"])
def test_back_edge_is_not_checked_when_the_loop_may_not_repeat(header):
    accepts(acc() + operands(16, 16) + GOOD_INIT + header + BACK_EDGE_BODY)


def test_while_loop_back_edge_stays_silent():
    accepts(acc() + operands(16, 16) + GOOD_INIT + """
for (i, c_iter) in pl.while_(init_values=(0, good)):
    pl.cond(i < 4)
    c_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
    bad: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
    i2, c_out = pl.yield_(i + 1, bad)
""")


def test_read_only_carried_value_is_not_checked_on_the_back_edge():
    accepts(acc() + operands(16, 16) + GOOD_INIT + """
fresh: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
for k, (c_iter,) in pl.range(0, 4, 1, init_values=(good,)):
    c_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(fresh, a, b)
    bad: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [0, 8])
    c_out = pl.yield_(bad)
""")


def test_if_whose_branches_yield_different_windows_stays_silent():
    accepts(acc() + operands(16, 64) + """
b0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
if b0 == 0:
    top: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [0, 0])
    sel = pl.yield_(top)
else:
    bottom: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
    sel = pl.yield_(bottom)
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(sel, a, b)
""")


def test_reinterpret_view_to_another_dtype_stays_silent():
    accepts(acc() + """
a: pl.Tile[[16, 32], pl.INT8, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.INT8, target_memory=pl.Mem.Left)
b: pl.Tile[[32, 64], pl.INT8, pl.Mem.Right] = pl.tile.create(shape=[32, 64], dtype=pl.INT8, target_memory=pl.Mem.Right)
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
v: pl.Tile[[16, 64], pl.INT32, pl.Mem.Acc] = pl.tile.reinterpret_view(w, dtype=pl.INT32)
c: pl.Tile[[16, 64], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(v, a, b)
""")


def test_non_square_transpose_view_stays_silent():
    accepts(acc() + operands(32, 16) + """
w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
tv: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.transpose_view(w)
c: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(tv, a, b)
""")


def test_shape_changing_reshape_stays_silent():
    accepts(acc() + operands(32, 32) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(w, [32, 32])
c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(r, a, b)
""")


def test_dynamic_column_offset_not_provably_inside_one_block_stays_silent():
    accepts(acc() + operands(16, 16) + """
j: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
col: pl.Scalar[pl.INDEX] = j * 8
w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [16, col])
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")


def test_non_acc_parent_stays_silent():
    accepts(acc(mem="Vec") + operands(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(acc, [16, 64], [16, 0])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.matmul_acc(w, a, b)
""")


def test_window_passed_in_as_a_function_parameter_stays_silent():
    prog = kernel("w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc]", operands(16, 64) + """
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")
    assert run(prog) is prog


def test_row_packed_batch_pages_at_most_16_columns_wide_are_accepted():
    # FlattenTileNdTo2D still stacks pages of <= 16 columns along rows: one column block, so contiguous
    accepts(acc(64, 16) + operands(16, 16) + """
for i in pl.range(0, 4):
    page: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [i * 16, 0])
    c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(page, a, b)
""")


def test_row_packed_batch_pages_wider_than_16_columns_are_rejected():
    err = rejects(acc(64, 32) + operands(16, 32) + """
for i in pl.range(0, 4):
    page: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [i * 16, 0])
    c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(page, a, b)
""")
    assert "'acc' [64, 32]" in str(err)
