"""Cube kernels end to end: default pipeline -> PTO -> simulator, compared with the golden reference."""

from __future__ import annotations

import pytest
from cube_e2e_helpers import batch_matmul_kernel, kernel, mat_slices, matmul_kernel

from tilefold import passes
from tilefold.compiler import compile
from tilefold.ir.stmt import ForKind, ForStmt, flatten_stmts
from tilefold.testing import run_and_compare


def loops(program, kind=None):
    out = []

    def walk(body):
        for s in flatten_stmts(body):
            if isinstance(s, ForStmt):
                if kind is None or s.kind is kind:
                    out.append(s)
                walk(s.body)

    for fn in program.functions:
        walk(fn.body)
    return out


@pytest.mark.parametrize("m,k,n,dt,acc", [
    (16, 256, 64, "BF16", "FP32"),
    (128, 1024, 128, "FP16", "FP32"),
    (64, 512, 32, "INT8", "INT32"),
])
def test_matmul_matches_golden(m, k, n, dt, acc):
    report = run_and_compare(matmul_kernel(m, k, n, dt, acc), "random")
    assert report.fault is None, report.summary()
    assert report.matches, report.summary()


def test_oversized_matmul_really_runs_as_a_k_pipeline():
    compiled = compile(matmul_kernel(128, 1024, 128, "FP16"))
    pipes = loops(compiled.ir, ForKind.Pipeline)
    assert len(pipes) == 1 and pipes[0].attr("stage") == 2
    assert "tmatmul_acc" in compiled.pto.text()


def test_matmul_whose_output_needs_an_mn_grid():
    program = matmul_kernel(256, 128, 256, "FP16")
    compiled = compile(program)
    grid = loops(compiled.ir, ForKind.Sequential)
    assert len(grid) == 2  # M and N block loops
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()


def test_grid_with_k_pipeline_inside():
    program = matmul_kernel(256, 256, 256, "FP16")
    compiled = compile(program)
    assert loops(compiled.ir, ForKind.Sequential) and loops(compiled.ir, ForKind.Pipeline)
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C"])
def test_batch_matmul_4x32x128x64(target):
    report = run_and_compare(batch_matmul_kernel(4, 32, 128, 64), "random", target=target)
    assert report.fault is None and report.matches, report.summary()


def test_broadcast_batch_matmul():
    report = run_and_compare(batch_matmul_kernel(3, 16, 64, 32, "FP16", rhs_batch=1), "random", target="Ascend910C")
    assert report.fault is None and report.matches, report.summary()


def test_nd_vector_kernel_round_trips_through_flattened_loads_and_stores():
    program = kernel("x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]", """
        t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
        y: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        out = pl.store(y, [0, 0, 0], out)
        return out
    """)
    # Sub-block splitting of stores into N-D tensors is TileAndBindSubBlock's business; keep this test on the
    # flattened load / store path only.
    report = run_and_compare(program, "random", options={"enable_auto_bind_sub_block": False})
    assert report.fault is None and report.matches, report.summary()


def test_column_packed_accumulator_pages_end_to_end():
    program = kernel(
        "a: pl.Tensor[[2, 16, 64], pl.FP16], w: pl.Tensor[[2, 64, 32], pl.FP16], "
        "out: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]", """
        ta: pl.Tile[[2, 16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[2, 64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [2, 64, 32], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        for i, (c_it,) in pl.range(0, 3, init_values=(c0,)):
            c_nx: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(c_it, ta, tb)
            c_out = pl.yield_(c_nx)
        out = pl.store(c_out, [0, 0, 0], out)
        return out
    """)
    report = run_and_compare(program, "random", target="Ascend910C")
    assert report.fault is None and report.matches, report.summary()


# ---------------------------------------------------------------------------------------------------
# The seed's story: batch_matmul -> FlattenTileNdTo2D -> AutoTileMatmulL0 -> CanonicalizeTileSlice
# ---------------------------------------------------------------------------------------------------

STORY = [
    (4, 32, 128, 64, "BF16"),  # L0-sized pages: the page slices reach CanonicalizeTileSlice's matmul rule
    (2, 64, 1024, 64, "FP16"),  # oversized pages: AutoTileMatmulL0's extracts read the page slices
]


@pytest.mark.parametrize("shape", STORY)
def test_seed_story_pass_by_pass(shape):
    program = batch_matmul_kernel(*shape)
    flat = passes.flatten_tile_nd_to_2d()(program)
    assert mat_slices(flat), "FlattenTileNdTo2D pages the batch with Mat slices"
    tiled = passes.auto_tile_matmul_l0(target="Ascend910C")(flat)
    canon = passes.canonicalize_tile_slice()(tiled)
    assert not mat_slices(canon), "CanonicalizeTileSlice leaves no Mat slice"
    placed = passes.infer_tile_memory_space(target="Ascend910C")(canon)
    passes.verify_properties(placed, [passes.IRProperty.TileOps2D, passes.IRProperty.TileMemoryInferred])


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C"])
@pytest.mark.parametrize("shape", STORY)
def test_seed_story_simulator_equals_golden(shape, target):
    program = batch_matmul_kernel(*shape)
    compiled = compile(program, target=target)
    assert not mat_slices(compiled.ir)
    report = run_and_compare(program, "random", target=target)
    assert report.fault is None and report.matches, report.summary()


def test_without_canonicalization_the_page_slice_extracts_trap_on_910c():
    """Oversized pages: AutoTileMatmulL0's per-iteration extracts read the Mat page slices. Left as they are,
    codegen materializes each slice with an L1 -> L1 copy, a path Ascend910C does not have."""
    program = batch_matmul_kernel(*STORY[1])
    report = run_and_compare(program, "random", target="Ascend910C", skip_passes=("CanonicalizeTileSlice",),
                             codegen="faithful")
    assert report.fault is not None, report.summary()
    fine = run_and_compare(program, "random", target="Ascend910C", codegen="faithful")
    assert fine.fault is None and fine.matches, fine.summary()


def test_l0_sized_pages_become_single_extracts_with_canonicalization():
    """L0-sized pages: with CanonicalizeTileSlice each page operand is one Mat -> L0 textract; without it
    the Mat slice survives to InferTileMemorySpace, which can only move the subview."""
    program = batch_matmul_kernel(*STORY[0])
    with_cts = compile(program, target="Ascend910C").pto.text()
    without = compile(program, target="Ascend910C", skip_passes=("CanonicalizeTileSlice",),
                      codegen="faithful").pto.text()
    assert "tsubview" not in with_cts and with_cts.count("textract") == 8
    assert "tsubview" in without


def test_column_packed_pages_are_accepted_where_row_packed_wide_pages_would_be_wrong():
    """The page layout matters: writing the same pages as row windows of a [B*M, N] accumulator is the
    strided L0C destination CanonicalizeTileSlice rejects (pto-isa#253)."""
    from tilefold.errors import TilefoldError

    rows = kernel(
        "a: pl.Tensor[[2, 16, 64], pl.FP16], w: pl.Tensor[[2, 64, 32], pl.FP16], "
        "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]", """
        ta: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Mat, flatten=True)
        tb: pl.Tile[[128, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [2, 64, 32], target_memory=pl.Mem.Mat, flatten=True)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        p1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        a1: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ta, [16, 64], [16, 0])
        b1: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(tb, [64, 32], [64, 0])
        c1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(p1, a1, b1)
        out = pl.store(c1, [16, 0], out)
        return out
    """)
    with pytest.raises(TilefoldError):
        passes.canonicalize_tile_slice()(rows)


# ---------------------------------------------------------------------------------------------------
# tail pieces, matmul_bias, N-D row reductions
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("m,k,n,dt,acc,target", [
    (128, 1000, 128, "FP16", "FP32", "Ascend910B"),  # K tail of 104 after a K pipeline
    (200, 64, 200, "FP16", "FP32", "Ascend910B"),  # M and N edge blocks of 88 rows / columns
    (200, 64, 200, "FP16", "FP32", "Ascend910C"),
    (128, 1000, 64, "INT8", "INT32", "Ascend910B"),  # K tail of 8 with the 32-byte INT8 K quantum
])
def test_tail_tiled_matmul_matches_golden(m, k, n, dt, acc, target):
    program = matmul_kernel(m, k, n, dt, acc)
    compiled = compile(program, target=target)
    assert loops(compiled.ir, ForKind.Pipeline) or loops(compiled.ir, ForKind.Sequential) \
        or compiled.pto.text().count("tmatmul") > 1, "the matmul was tiled"
    report = run_and_compare(program, "random", target=target)
    assert report.fault is None and report.matches, report.summary()


def test_k_1000_is_pipelined_with_one_tail_step():
    compiled = compile(matmul_kernel(128, 1000, 128, "FP16"))
    pipes = loops(compiled.ir, ForKind.Pipeline)
    assert len(pipes) == 1 and not loops(compiled.ir, ForKind.Sequential)
    text = compiled.pto.text()
    assert text.count("tmatmul_acc") == 2  # the pipelined step and the tail step
    assert "128x104" in text and "104x128" in text  # the tail pieces


def test_forced_tail_sizes_match_golden_through_the_pipeline():
    program = matmul_kernel(256, 256, 200, "FP16")
    report = run_and_compare(program, "random", options={"tile_sizes": (96, 112, 96)})
    assert report.fault is None and report.matches, report.summary()


def bias_kernel(m: int, k: int, n: int):
    return kernel(
        f"a: pl.Tensor[[{m}, {k}], pl.FP16], b: pl.Tensor[[{k}, {n}], pl.FP16], bias: pl.Tensor[[1, {n}], pl.FP32], "
        f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]", f"""
        ta: pl.Tile[[{m}, {k}], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[{k}, {n}], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        tc: pl.Tile[[1, {n}], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(ta, tb, tc)
        out = pl.store(c, [0, 0], out)
        return out
    """)


@pytest.mark.parametrize("m,k,n", [(128, 512, 128), (128, 256, 512)])
def test_oversized_matmul_bias_is_tiled_and_matches_golden(m, k, n):
    program = bias_kernel(m, k, n)
    text = compile(program).pto.text()
    assert text.count("tmatmul_bias") == 1 and "tmatmul_acc" in text  # the bias is added once per block
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()


def test_untiled_oversized_matmul_points_at_the_matmul():
    from tilefold.errors import TilefoldError

    with pytest.raises(TilefoldError) as info:
        compile(matmul_kernel(128, 512, 128), skip_passes=("AutoTileMatmulL0",))
    assert "does not fit in Left" in info.value.message
    assert info.value.span is not None and "pl.tile.matmul(ta, tb)" in info.value.span.source_line


@pytest.mark.parametrize("bind", [False, True])
def test_nd_row_reductions_match_golden(bind):
    program = kernel(
        "x: pl.Tensor[[2, 16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[2, 16, 1], pl.FP32]], "
        "o2: pl.Out[pl.Tensor[[2, 16, 1], pl.FP32]]", """
        a: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(a)
        m: pl.Tile[[2, 16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(a)
        o1 = pl.store(s, [0, 0, 0], o1)
        o2 = pl.store(m, [0, 0, 0], o2)
        return o1
    """)
    report = run_and_compare(program, "random", options={"enable_auto_bind_sub_block": bind})
    assert report.fault is None and report.matches, report.summary()
