"""``tile.assemble`` under TileAndBindSubBlock: a value covering its target on the split axis is assembled half into
half at the same offsets; one covering only part of the axis (when no covering split exists) is clipped per half:
each sub-block writes only the part of the value inside its half, an empty part leaving the half as it is."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.tile_and_bind_sub_block import REVERTED
from tilefold.testing import run_and_compare


@pl.program
class RightHalfBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 128], dtype=pl.FP32, value=1.0,
                                                                  target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        a: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, y, [0, 64])
        out = pl.store(a, [0, 0], out)
        return out


@pl.program
class RightHalfExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 128], dtype=pl.FP32, value=1.0,
                                                                 target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        a: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, y, [0, 64])
        out = pl.store(a, [sb * 8, 0], out, tiled_op=True)
        return out


def test_covering_value_is_assembled_half_into_half():
    after, _ = run_pass(RightHalfBefore)
    ir.assert_structural_equal(after, RightHalfExpected)


def test_split_and_whole_simulate_to_numpy():
    x = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    want = np.ones((16, 128), np.float32)
    want[:, 64:] = np.exp(x)
    for options in ({}, {"enable_auto_bind_sub_block": False}):
        report = run_and_compare(RightHalfBefore, {"x": x.copy()}, options=options)
        assert report.matches, report.details
        np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-6)


ON_OFF = ({}, {"enable_auto_bind_sub_block": False})


def _patch(row: int | str, col: int = 32):
    """A 4x32 patch of a loaded tile assembled at ``[row, col]`` of an 8x64 tile of zeros (``row`` a literal or
    the run-time scalar ``r``)."""
    scalar = ", r: pl.Scalar[pl.INDEX]" if isinstance(row, str) else ""
    text = f'''
import tilefold.language as pl


@pl.program
class RowPatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 32], pl.FP32]{scalar},
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[4, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 32], target_memory=pl.Mem.Vec)
        z: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 64], dtype=pl.FP32, value=0.0,
                                                                target_memory=pl.Mem.Vec)
        a: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, t, [{row}, {col}])
        out = pl.store(a, [0, 0], out)
        return out
'''
    return pl.parse(text, f"patch_{row}_{col}.py")


def _expected(x: np.ndarray, row: int, col: int) -> np.ndarray:
    want = np.zeros((8, 64), np.float32)
    want[row:row + 4, col:col + 32] = x
    return want


def _run_all(program, inputs: dict):
    split, _ = run_pass(program)
    for subject, options in ((program, ON_OFF[0]), (program, ON_OFF[1]), (split, {})):
        yield run_and_compare(subject, {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()},
                              options=options)


def test_partial_value_covering_no_axis_is_clipped_on_rows():
    after, remarks = run_pass(_patch(2))
    fn = after.functions[0]
    assert fn.attr("sub_block_axis") == 0 and fn.attr(REVERTED) is None
    assert any("clipped per half on axis 0" in str(r) for r in remarks), remarks


# rows 0 and 4: one sub-block's part is empty; 2 and 3: the patch crosses the halves (3: unequal parts)
@pytest.mark.parametrize("row", [0, 2, 3, 4])
def test_clipped_assemble_matches_numpy_on_and_off(row):
    x = np.random.default_rng(row).standard_normal((4, 32)).astype(np.float32)
    for report in _run_all(_patch(row), {"x": x}):
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"], _expected(x, row, 32))


@pytest.mark.parametrize("r", [0, 1, 3, 4])
def test_run_time_row_is_clipped_and_matches_numpy(r):
    x = np.random.default_rng(10 + r).standard_normal((4, 32)).astype(np.float32)
    program = _patch("r")
    assert run_pass(program)[0].functions[0].attr("sub_block_axis") == 0
    for report in _run_all(program, {"x": x, "r": r}):
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"], _expected(x, r, 32))


def test_out_of_range_run_time_row_still_faults():
    """[5, 9) leaves the 8 rows: the original assemble faults, and so does the split one (each sub-block assembles
    the whole value at the original offset into its frame), never a silently dropped row."""
    x = np.ones((4, 32), np.float32)
    for report in _run_all(_patch("r"), {"x": x, "r": 5}):
        assert report.result == "trap", report.summary()


def test_a_covering_split_on_another_axis_is_preferred():
    """A patch covering all 64 columns at row 2: rows would need clipping, the columns split it as it is."""
    after, remarks = run_pass(_full_rows())
    assert after.functions[0].attr("sub_block_axis") == 1
    assert not any("clipped per half" in str(r) for r in remarks)


def _full_rows():
    text = '''
import tilefold.language as pl


@pl.program
class FullRows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t: pl.Tile[[4, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 64], dtype=pl.FP32, value=0.0,
                                                                target_memory=pl.Mem.Vec)
        a: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, t, [2, 0])
        out = pl.store(a, [0, 0], out)
        return out
'''
    return pl.parse(text, "full_rows.py")
