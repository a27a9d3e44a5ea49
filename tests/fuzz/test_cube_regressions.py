"""Minimised cube-side failures found by tests/fuzz/test_cube_pipeline_fuzz.py, one named test each."""

from __future__ import annotations

import textwrap

import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.passes.canonicalize_tile_slice import AccWindowError
from tilefold.testing import run_and_compare

from .cube_fuzz_gen import small_int_inputs


def _program(params: str, body: str, ret: str) -> pl.Program:
    text = (
        "import tilefold.language as pl\n\n\n"
        "@pl.program\n"
        "class Reg:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel(self, {params}) -> {ret}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n"
    )
    return pl.parse(text, filename="<regression>")


def _run(program, target: str = "Ascend910B", block_dim: int = 1):
    return run_and_compare(program, small_int_inputs(program), target=target, block_dim=block_dim)


def _assert_correct(program, target: str = "Ascend910B", block_dim: int = 1) -> None:
    report = _run(program, target, block_dim)
    assert report.fault is None and report.matches, report.summary()


def _line_of(program_text_marker: str, exc: TilefoldError) -> str:
    assert exc.span is not None and exc.span.line, f"no location: {exc}"
    assert exc.hint, f"no hint: {exc}"
    return exc.span.source_line or ""


# ------------------------------------------------------------------------------------------------
# Bug 1: a full-row Acc window that starts inside a 16-column block and crosses into the next one was
# accepted by the Acc window rule ("spans the full row range") and miscompiled: in NZ each fractal row holds
# 16 columns of one block, so such a window interleaves with the parent's other columns and the MAD's dense
# write shifted its second half onto the next row.
# ------------------------------------------------------------------------------------------------


def _full_row_window(m: int, parent_cols: int, cols: int, col: int):
    return _program(
        f"x: pl.Tensor[[{m}, 32], pl.BF16], x2: pl.Tensor[[{m}, 32], pl.BF16], w: pl.Tensor[[32, {parent_cols}], pl.BF16], "
        f"w2: pl.Tensor[[32, {cols}], pl.BF16], out: pl.Out[pl.Tensor[[{m}, {cols}], pl.FP32]]",
        f"""
        xm: pl.Tile[[{m}, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [{m}, 32], target_memory=pl.Mem.Mat)
        x2m: pl.Tile[[{m}, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(x2, [0, 0], [{m}, 32], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[32, {parent_cols}], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, {parent_cols}], target_memory=pl.Mem.Mat)
        w2m: pl.Tile[[32, {cols}], pl.BF16, pl.Mem.Mat] = pl.tile.load(w2, [0, 0], [32, {cols}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {parent_cols}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xm, wm)
        win: pl.Tile[[{m}, {cols}], pl.FP32, pl.Mem.Acc] = pl.tile.slice(c, [{m}, {cols}], [0, {col}])
        win2: pl.Tile[[{m}, {cols}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(win, x2m, w2m)
        out = pl.store(win2, [0, 0], out)
        return out
        """, f"pl.Tensor[[{m}, {cols}], pl.FP32]")


@pytest.mark.parametrize("m,parent_cols,cols,col", [(16, 48, 16, 8), (32, 48, 24, 8), (32, 64, 32, 24)])
def test_full_row_acc_window_starting_mid_block_is_rejected(m, parent_cols, cols, col):
    with pytest.raises(AccWindowError) as info:
        _run(_full_row_window(m, parent_cols, cols, col))
    assert "pl.tile.matmul_acc(win" in _line_of("matmul_acc", info.value)
    assert "16-column block boundary" in info.value.hint


@pytest.mark.parametrize("m,parent_cols,cols,col", [
    (32, 48, 32, 16),  # full rows from a block boundary: two whole column blocks
    (32, 48, 24, 0),   # full rows from a block boundary, ending inside a block
    (32, 32, 8, 8),    # inside one block
    (16, 48, 8, 40),   # inside the last block
])
def test_full_row_acc_windows_on_block_boundaries_stay_correct(m, parent_cols, cols, col):
    _assert_correct(_full_row_window(m, parent_cols, cols, col))


# ------------------------------------------------------------------------------------------------
# Bug 2: an illegal Acc window accumulated into by an oversized matmul_acc (AutoTileMatmulL0 turns it into
# a K pipeline) was rejected by CanonicalizeTileSlice without a location: the pipeline's generated
# statements had no span.
# ------------------------------------------------------------------------------------------------


def test_acc_window_rejection_inside_auto_tiled_k_pipeline_has_location():
    program = _program(
        "a: pl.Tensor[[32, 32], pl.BF16], b: pl.Tensor[[32, 48], pl.BF16], a1: pl.Tensor[[16, 1000], pl.BF16], "
        "b1: pl.Tensor[[1000, 48], pl.BF16], out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]",
        """
        a_m: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        b_m: pl.Tile[[32, 48], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 48], target_memory=pl.Mem.Mat)
        c: pl.Tile[[32, 48], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_m, b_m)
        w: pl.Tile[[16, 48], pl.FP32, pl.Mem.Acc] = pl.tile.slice(c, [16, 48], [16, 0])
        a_m1: pl.Tile[[16, 1000], pl.BF16, pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [16, 1000], target_memory=pl.Mem.Mat)
        b_m1: pl.Tile[[1000, 48], pl.BF16, pl.Mem.Mat] = pl.tile.load(b1, [0, 0], [1000, 48], target_memory=pl.Mem.Mat)
        w_acc: pl.Tile[[16, 48], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a_m1, b_m1)
        out = pl.store(w_acc, [0, 0], out)
        return out
        """, "pl.Tensor[[16, 48], pl.FP32]")
    with pytest.raises(AccWindowError) as info:
        _run(program)
    assert "pl.tile.matmul_acc(w, a_m1, b_m1)" in _line_of("matmul_acc", info.value)


# ------------------------------------------------------------------------------------------------
# Bug 3: a vector-unit op placed in a cube memory (pl.tile.full(..., target_memory=pl.Mem.Acc) as the
# initial value of a K loop accumulator) compiled and trapped on the device ("vector unit operand in Acc").
# Bug 4: pl.tile.load(..., target_memory=pl.Mem.Left) compiled and trapped (no GM -> L0A data path).
# InferTileMemorySpace now rejects both at the op with NotSupportedError.
# ------------------------------------------------------------------------------------------------


def _k_loop_from(init: str):
    return _program(
        "x: pl.Tensor[[32, 128], pl.BF16], w: pl.Tensor[[128, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]",
        f"""
        xm: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 128], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        {init}
        for ko, (c_it,) in pl.pipeline(0, 128, 32, init_values=(c0,), stage=2):
            ak: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, ko, shape=[32, 32], target_memory=pl.Mem.Left)
            bk: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, ko, 0, shape=[32, 64], target_memory=pl.Mem.Right)
            cn: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_it, ak, bk)
            c = pl.yield_(cn)
        out = pl.store(c, [0, 0], out)
        return out
        """, "pl.Tensor[[32, 64], pl.FP32]")


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_vector_fill_of_an_acc_accumulator_is_not_supported(target):
    program = _k_loop_from("c0 = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0, target_memory=pl.Mem.Acc)")
    with pytest.raises(NotSupportedError) as info:
        _run(program, target)
    assert "pl.tile.full(" in _line_of("full", info.value)
    assert "vector unit" in info.value.message and "pl.tile.matmul" in info.value.hint


def test_k_loop_started_by_a_matmul_is_the_supported_form():
    program = _k_loop_from(
        "c0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul("
        "pl.tile.extract(xm, 0, 0, shape=[32, 32], target_memory=pl.Mem.Left), "
        "pl.tile.extract(wm, 0, 0, shape=[32, 64], target_memory=pl.Mem.Right))")
    # positive control: the accumulator starts with a matmul (of step 0, which this loop then adds once more;
    # golden and device agree on that exactly)
    _assert_correct(program)


@pytest.mark.parametrize("mem", ["Left", "Right", "Acc"])
@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C", "Ascend950"])
def test_gm_load_into_a_space_without_a_gm_path_is_not_supported(mem, target):
    other = "Right" if mem != "Right" else "Left"
    lhs, rhs = ("xm", "wm") if mem != "Right" else ("wm", "xm")
    program = _program(
        "x: pl.Tensor[[32, 32], pl.FP16], w: pl.Tensor[[32, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
        f"""
        xm = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.{mem})
        wm_l1: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        wm = pl.tile.extract(wm_l1, 0, 0, shape=[32, 32], target_memory=pl.Mem.{other})
        c = pl.tile.matmul({lhs}, {rhs})
        out = pl.store(c, [0, 0], out)
        return out
        """, "pl.Tensor[[32, 32], pl.FP32]")
    with pytest.raises(NotSupportedError) as info:
        _run(program, target)
    assert f"target_memory=pl.Mem.{mem})" in _line_of("load", info.value)
    assert f"no GM -> {mem} data path" in info.value.message
