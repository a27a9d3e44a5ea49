"""AutoTileMatmulL0: Before / Expected structure, tile-size search properties, golden equivalence, errors."""

from __future__ import annotations

import pytest
from cube_helpers_tiling import assert_same_golden, kernel

from tilefold import ir, passes
from tilefold.errors import NotSupportedError
from tilefold.ir.types import MemorySpace
from tilefold.passes.auto_tile_matmul_l0 import (
    MatmulShape,
    aligned_sizes,
    choose_tile_sizes,
    estimate_cycles,
    fits_l0,
    k_quantum,
    legal_tile_sizes,
    pieces,
)
from tilefold.targets import get_target


def run(program: ir.Program, **kw) -> ir.Program:
    return passes.auto_tile_matmul_l0(**kw)(program)


def mm_params(m: int, k: int, n: int, dt: str = "FP16", acc: str = "FP32") -> str:
    return (f"a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}], "
            f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.{acc}]]")


def mm_kernel(m: int, k: int, n: int, dt: str = "FP16", acc: str = "FP32") -> ir.Program:
    return kernel(mm_params(m, k, n, dt, acc), f"""
        ta: pl.Tile[[{m}, {k}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[{k}, {n}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.{acc}, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)


@pytest.mark.parametrize("shape", [(16, 256, 64, "BF16", "FP32"), (64, 512, 32, "INT8", "INT32")])
def test_l0_sized_matmul_is_left_untouched(shape):
    before = mm_kernel(*shape)
    assert run(before) is before


def test_l0_sized_batch_page_slices_are_left_for_canonicalize_tile_slice():
    params = "a: pl.Tensor[[64, 128], pl.BF16], b: pl.Tensor[[128, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]"
    before = kernel(params, """
        ta: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        a1: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(ta, [32, 128], [32, 0])
        b0: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [128, 64], [0, 0])
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b0)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    assert run(before) is before


def test_128x1024x128_becomes_a_k_pipeline():
    before = mm_kernel(128, 1024, 128)
    expected = kernel(mm_params(128, 1024, 128), """
        ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
        b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
        c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        for ko, (c_iter,) in pl.pipeline(128, 1024, 128, init_values=(c0,), stage=2):
            ak: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, shape=[128, 128], target_memory=pl.Mem.Left)
            bk: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ak, bk)
            c = pl.yield_(c_next)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_matmul_acc_runs_every_k_step_on_its_accumulator():
    params = ("a: pl.Tensor[[64, 1024], pl.FP16], b: pl.Tensor[[1024, 64], pl.FP16], "
              "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        s: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [64, 64], [0, 0])
        t: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [64, 64], [0, 0])
        s0: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(s, 0, 0, shape=[64, 64], target_memory=pl.Mem.Left)
        t0: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(t, 0, 0, shape=[64, 64], target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s0, t0)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before, tile_sizes=(64, 64, 256))
    expected = kernel(params, """
        ta: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        s: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [64, 64], [0, 0])
        t: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [64, 64], [0, 0])
        s0: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(s, 0, 0, shape=[64, 64], target_memory=pl.Mem.Left)
        t0: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(t, 0, 0, shape=[64, 64], target_memory=pl.Mem.Right)
        acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s0, t0)
        for ko, (c_iter,) in pl.pipeline(0, 1024, 256, init_values=(acc,), stage=2):
            ak: pl.Tile[[64, 256], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, shape=[64, 256], target_memory=pl.Mem.Left)
            bk: pl.Tile[[256, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, shape=[256, 64], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ak, bk)
            c = pl.yield_(c_next)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_output_larger_than_acc_becomes_an_mn_grid_of_stored_blocks():
    before = mm_kernel(256, 128, 256)
    expected = kernel(mm_params(256, 128, 256), """
        ta: pl.Tile[[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        for mi, (o_m,) in pl.range(0, 256, 128, init_values=(out,)):
            for ni, (o_n,) in pl.range(0, 256, 128, init_values=(o_m,)):
                a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, mi, 0, shape=[128, 128], target_memory=pl.Mem.Left)
                b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, ni, shape=[128, 128], target_memory=pl.Mem.Right)
                blk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
                o_b: pl.Tensor[[256, 256], pl.FP32] = pl.store(blk, [mi, ni], o_n)
                o_row = pl.yield_(o_b)
            o_all = pl.yield_(o_row)
        return o_all
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_grid_result_with_a_second_use_is_rejected_with_a_hint():
    params = mm_params(256, 128, 256)
    before = kernel(params, """
        ta: pl.Tile[[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        o1: pl.Tensor[[256, 256], pl.FP32] = pl.store(c, [0, 0], out)
        out = pl.store(c, [0, 0], o1)
        return out
    """)
    with pytest.raises(NotSupportedError) as info:
        run(before)
    assert "pl.store" in info.value.hint


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("m,k,n,isz", [(128, 1024, 128, 2), (256, 128, 256, 2), (64, 2048, 64, 1), (512, 512, 256, 2),
                                       (128, 1000, 128, 2), (200, 64, 200, 2), (100, 200, 600, 1)])
def test_choice_is_the_cheapest_legal_size(target, m, k, n, isz):
    shape = MatmulShape(m, n, k, isz, 4)
    t = get_target(target)
    legal = legal_tile_sizes(shape, t)
    assert legal
    kq = k_quantum(isz)
    for mm, nn, kk in legal:  # every candidate respects the double-buffered L0 capacities
        assert mm * kk * isz <= t.capacity(MemorySpace.Left) // 2
        assert kk * nn * isz <= t.capacity(MemorySpace.Right) // 2
        assert -(-mm // 16) * -(-nn // 16) * 256 * 4 <= t.capacity(MemorySpace.Acc)
        # pieces start on the fractal grid: a size is a multiple of the quantum unless it is the whole extent
        assert (mm % 16 == 0 or mm == m) and (nn % 16 == 0 or nn == n) and (kk % kq == 0 or kk == k)
    choice = choose_tile_sizes(shape, t)
    assert choice is not None and choice.sizes in legal
    assert choice.cost == min(estimate_cycles(shape, s, t) for s in legal)


@pytest.mark.parametrize("extent,quantum", [(1024, 16), (1000, 16), (200, 16), (72, 32), (5, 8), (16, 16)])
def test_aligned_sizes_cover_every_piece_count_with_the_smallest_aligned_size(extent, quantum):
    sizes = aligned_sizes(extent, quantum)
    # every divisor on the grid (the old candidates) and the whole extent are still there
    assert extent in sizes
    assert all(d in sizes for d in range(quantum, extent + 1, quantum) if extent % d == 0)
    # any other aligned size is dominated: some candidate makes the same number of pieces and is not larger
    count = {s: sum(c for _, c in pieces(extent, s)) for s in sizes}
    for other in range(quantum, extent + quantum, quantum):
        other = min(other, extent)
        n = sum(c for _, c in pieces(extent, other))
        assert any(count[s] == n and s <= other for s in sizes)


def test_pieces_and_cost_of_a_tail():
    assert pieces(1000, 128) == [(128, 7), (104, 1)]
    assert pieces(1024, 128) == [(128, 8)]
    assert pieces(200, 112) == [(112, 1), (88, 1)]
    t = get_target("Ascend910B")
    tail = estimate_cycles(MatmulShape(128, 128, 1000, 2, 4), (128, 128, 128), t)
    whole = estimate_cycles(MatmulShape(128, 128, 1024, 2, 4), (128, 128, 128), t)
    untiled_k = estimate_cycles(MatmulShape(128, 128, 1000, 2, 4), (16, 16, 1000), t)
    assert tail < whole < untiled_k


def test_bigger_acc_avoids_the_grid_on_950():
    shape = MatmulShape(256, 256, 128, 2, 4)
    assert not fits_l0(shape, "Ascend910B")
    small = choose_tile_sizes(shape, "Ascend910B")
    big = choose_tile_sizes(shape, "Ascend950")
    assert (small.m, small.n) != (256, 256)
    assert big.m * big.n * 4 <= get_target("Ascend950").capacity(MemorySpace.Acc)
    assert big.cost <= small.cost


def test_forced_tile_sizes_must_be_on_the_fractal_grid():
    with pytest.raises(NotSupportedError) as info:
        run(mm_kernel(128, 1024, 128), tile_sizes=(40, 128, 128))
    assert "multiple of 16" in info.value.message and info.value.span is not None
    before = mm_kernel(128, 256, 128)
    after = run(before, tile_sizes=(48, 128, 96))  # not divisors: 48 + 48 + 32 rows, 96 + 96 + 64 of K
    assert after is not before
    assert_same_golden(before, after)


def test_forced_full_size_leaves_the_matmul_alone():
    before = mm_kernel(16, 256, 64)
    assert run(before, tile_sizes=(16, 64, 256)) is before
    after = run(before, tile_sizes=(16, 64, 64))
    assert after is not before
    assert_same_golden(before, after)


# ---------------------------------------------------------------------------------------------------
# tail pieces: sizes that do not divide M / N / K
# ---------------------------------------------------------------------------------------------------


def test_k_that_no_step_divides_gets_a_tail_step_after_the_pipeline():
    """K = 1000: seven 128-wide steps (one peeled, six pipelined) and one 104-wide tail step."""
    before = mm_kernel(128, 1000, 128)
    expected = kernel(mm_params(128, 1000, 128), """
        ta: pl.Tile[[128, 1000], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1000], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1000, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1000, 128], target_memory=pl.Mem.Mat)
        a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
        b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
        c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
        for ko, (c_iter,) in pl.pipeline(128, 896, 128, init_values=(c0,), stage=2):
            ak: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, shape=[128, 128], target_memory=pl.Mem.Left)
            bk: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ak, bk)
            c_full = pl.yield_(c_next)
        at: pl.Tile[[128, 104], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 896, shape=[128, 104], target_memory=pl.Mem.Left)
        bt: pl.Tile[[104, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 896, 0, shape=[104, 128], target_memory=pl.Mem.Right)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_full, at, bt)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_grid_edges_become_tail_regions():
    """[256, 200] output in [128, 128] blocks: an M loop over full-width blocks, then an M loop over the 72-column
    edge; each region carries the output tensor to the next."""
    before = mm_kernel(256, 128, 200)
    expected = kernel(mm_params(256, 128, 200), """
        ta: pl.Tile[[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 200], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 200], target_memory=pl.Mem.Mat)
        for mi, (o_m,) in pl.range(0, 256, 128, init_values=(out,)):
            a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, mi, 0, shape=[128, 128], target_memory=pl.Mem.Left)
            b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            blk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a0, b0)
            o_b: pl.Tensor[[256, 200], pl.FP32] = pl.store(blk, [mi, 0], o_m)
            o_main = pl.yield_(o_b)
        for mj, (o_e,) in pl.range(0, 256, 128, init_values=(o_main,)):
            a1: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, mj, 0, shape=[128, 128], target_memory=pl.Mem.Left)
            b1: pl.Tile[[128, 72], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 128, shape=[128, 72], target_memory=pl.Mem.Right)
            edge: pl.Tile[[128, 72], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a1, b1)
            o_eb: pl.Tensor[[256, 200], pl.FP32] = pl.store(edge, [mj, 128], o_e)
            o_all = pl.yield_(o_eb)
        return o_all
    """)
    after = run(before, tile_sizes=(128, 128, 128))
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_200x64x200_no_longer_needs_a_divisor():
    before = mm_kernel(200, 64, 200)
    after = run(before)
    assert after is not before
    assert_same_golden(before, after)


# ---------------------------------------------------------------------------------------------------
# matmul_bias
# ---------------------------------------------------------------------------------------------------

BIAS_PARAMS = ("a: pl.Tensor[[128, 512], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16], "
               "bias: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]")
BIAS_LOADS = """
        ta: pl.Tile[[128, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        tc: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
"""


def test_oversized_matmul_bias_adds_the_bias_in_the_first_k_step_only():
    before = kernel(BIAS_PARAMS, BIAS_LOADS + """
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(ta, tb, tc)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    expected = kernel(BIAS_PARAMS, BIAS_LOADS + """
        a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
        b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
        c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(a0, b0, tc)
        for ko, (c_iter,) in pl.pipeline(128, 512, 128, init_values=(c0,), stage=2):
            ak: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, shape=[128, 128], target_memory=pl.Mem.Left)
            bk: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ak, bk)
            c = pl.yield_(c_next)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def test_matmul_bias_in_column_blocks_extracts_each_blocks_bias():
    params = ("a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 256], pl.FP16], "
              "bias: pl.Tensor[[1, 256], pl.FP32], out: pl.Out[pl.Tensor[[128, 256], pl.FP32]]")
    loads = """
        ta: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        tc: pl.Tile[[1, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 256], target_memory=pl.Mem.Mat)
"""
    before = kernel(params, loads + """
        c: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(ta, tb, tc)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    expected = kernel(params, loads + """
        for ni, (o_n,) in pl.range(0, 256, 128, init_values=(out,)):
            a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
            b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, ni, shape=[128, 128], target_memory=pl.Mem.Right)
            c0: pl.Tile[[1, 128], pl.FP32, pl.Mem.Bias] = pl.tile.extract(tc, 0, ni, shape=[1, 128], target_memory=pl.Mem.Bias)
            blk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(a0, b0, c0)
            o_b: pl.Tensor[[128, 256], pl.FP32] = pl.store(blk, [0, ni], o_n)
            o_all = pl.yield_(o_b)
        return o_all
    """)
    after = run(before, tile_sizes=(128, 128, 128))
    ir.assert_structural_equal(after, expected)
    assert_same_golden(before, after)


def _vars_named(fn: ir.Function, name: str) -> set[int]:
    """The distinct variable objects of ``fn`` called ``name`` (by identity)."""
    found: set[int] = set()

    class _Walk(ir.IRVisitor):
        def visit_Var(self, expr: ir.Var) -> None:
            if expr.name == name:
                found.add(id(expr))

    _Walk().visit_function(fn)
    return found


def test_made_up_names_never_repeat_a_user_variable_name():
    # the K pipeline's iteration argument would be named c_iter and the first L0 blocks ta_l0 / tb_l0: the user
    # already has variables of those names, so the pass must pick others
    params = mm_params(128, 1024, 128) + ", o2: pl.Out[pl.Tensor[[128, 128], pl.FP16]]"
    before = kernel(params, """
        ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        c_iter: pl.Tile[[128, 128], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128])
        ta_l0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 128], [128, 128])
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        s: pl.Tile[[128, 128], pl.FP16, pl.Mem.Vec] = pl.tile.add(c_iter, ta_l0)
        o2 = pl.store(s, [0, 0], o2)
        return out
    """)
    after = run(before)
    for name in ("c_iter", "ta_l0"):
        user = _vars_named(before.functions[0], name)
        assert len(user) == 1
        assert _vars_named(after.functions[0], name) == user, name
        assert len(_vars_named(after.functions[0], f"{name}_1")) == 1, name  # the pass's, by the one convention
    assert_same_golden(before, after)
