"""Device evidence for every hazard the seed names: with CanonicalizeTileSlice skipped (and codegen emitting
what it is asked to, ``codegen="faithful"``) the simulator gives a wrong result or traps; with the pass the
result matches the golden interpreter."""

from __future__ import annotations

import pytest
from cts_helpers import kernel

from tilefold.passes.canonicalize_tile_slice import AccWindowError
from tilefold.testing import run_and_compare

SKIP = ("CanonicalizeTileSlice",)


def with_and_without(program):
    good = run_and_compare(program, "random", seed=1)
    bad = run_and_compare(program, "random", seed=1, skip_passes=SKIP, codegen="faithful")
    return good, bad


def test_1640_dynamic_row_copy_lands_on_row_0_of_the_live_source():
    program = kernel(
        "x: pl.Tensor[[8, 256], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32], "
        "out: pl.Out[pl.Tensor[[8, 256], pl.FP32]], src: pl.Out[pl.Tensor[[8, 256], pl.FP32]]", """
local: pl.Tile[[8, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 256])
gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256])
for i, (o,) in pl.range(0, 8, init_values=(out,)):
    row: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [i, 0])
    scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
    o2 = pl.store(scaled, [i, 0], o)
    res = pl.yield_(o2)
src = pl.store(local, [0, 0], src)
""")
    good, bad = with_and_without(program)
    assert good.matches, good.first_mismatch
    assert not bad.matches


def test_2010_column_window_repack_destroys_its_source():
    program = kernel(
        "x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], "
        "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], src: pl.Out[pl.Tensor[[16, 128], pl.FP32]]", """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, gamma_t)
out = pl.store(scaled, [0, 0], out)
src = pl.store(t, [0, 0], src)
""")
    good, bad = with_and_without(program)
    assert good.matches, good.first_mismatch
    assert not bad.matches


def test_1789_misaligned_vector_operand_hangs_the_device():
    program = kernel("x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]", """
local: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
out = pl.store(scaled, [0, 0], out)
""")
    good, bad = with_and_without(program)
    assert good.matches, good.first_mismatch
    assert not bad.matches and bad.fault is not None
    assert "Hang" in type(bad.fault).__name__


def test_contiguous_constant_offset_col_expand_slice_at_a_misaligned_address_hangs_the_device():
    # beyond the seed (doc: "an aligned address for the col_expand identity copy"): a single row is contiguous
    # and its offset is constant, so the seed would keep it; the identity copy then sits 4 B past a 32-byte
    # boundary and the col_expand reading it hangs the vector unit
    program = kernel(
        "x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]",
        """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [2, 1])
scaled: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
out = pl.store(scaled, [0, 0], out)
""")
    good, bad = with_and_without(program)
    assert good.matches, good.first_mismatch
    assert not bad.matches and bad.fault is not None
    assert "Hang" in type(bad.fault).__name__


MM_PARAMS = "a: pl.Tensor[[32, 32], pl.BF16], b: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]"
MM_PRELUDE = """
a_mat: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
b_mat: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
a_l: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, shape=[32, 32], target_memory=pl.Mem.Left)
b_r: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, shape=[32, 64], target_memory=pl.Mem.Right)
"""


def test_acc_row_window_is_silently_wrong_on_the_device_and_rejected_by_the_pass():
    program = kernel(MM_PARAMS, MM_PRELUDE + """
a16: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a16, b_r)
out = pl.store(acc, [0, 0], out)
""")
    bad = run_and_compare(program, "random", seed=1, skip_passes=SKIP, codegen="faithful")
    assert not bad.matches and bad.fault is None  # silent: no trap, just wrong numbers
    with pytest.raises(AccWindowError):
        run_and_compare(program, "random", seed=1)


def test_acc_column_window_idiom_from_the_error_message_is_correct_on_the_device():
    program = kernel(MM_PARAMS, MM_PRELUDE + """
b16: pl.Tile[[32, 16], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, shape=[32, 16], target_memory=pl.Mem.Right)
acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
w: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 16], [0, 16])
c: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a_l, b16)
out = pl.store(acc, [0, 0], out)
""")
    good = run_and_compare(program, "random", seed=1)
    assert good.matches, good.first_mismatch
