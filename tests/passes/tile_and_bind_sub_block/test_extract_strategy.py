"""TileAndBindSubBlock through window copies (``tile.extract``, registry ``OpKind.COPY``) and whole Vec
copies (``tile.move``): Before / Expected for row and column splits with the source split or demanded
whole, and E2E (golden == simulator, pass on and off, full default pipeline) including the user's kernel: a
misaligned Vec column slice that the first CanonicalizeTileSlice run turns into an extract."""

from __future__ import annotations

import pytest
from sb_util import record_cycles, run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.passes.pipeline import default_tile_pipeline
from tilefold.passes.tile_and_bind_sub_block import REVERTED
from tilefold.testing import run_and_compare
from tilefold.testing.sub_block_evidence import sub_block_evidence


def _check(before, expected, axis):
    after, remarks = run_pass(before)
    ir.assert_structural_equal(after, expected)
    ev = sub_block_evidence(after)
    assert ev.split, ev.problems
    assert set(ev.axis.values()) == {axis}
    return after, remarks


# ---------------------------------------------------------------------------------------------------------------
# row split, source split: the extract covers its source's rows, so it reads the source's half, index unchanged
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class RowSrcSplitBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 4, shape=[16, 64],
                                                                    target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class RowSrcSplitExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 128], target_memory=pl.Mem.Vec)
        e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 4, shape=[8, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_row_split_extract_reads_half_source():
    _, remarks = _check(RowSrcSplitBefore, RowSrcSplitExpected, 0)
    assert any(r.kind == "split" and r.details.get("op") == "tile.extract" for r in remarks)


# ---------------------------------------------------------------------------------------------------------------
# row split, source whole: a second extract does not cover the source's rows, so the source is loaded whole and
# both extracts move their row index by sb * half
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class RowSrcWholeBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               o2: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                  pl.Tensor[[8, 64], pl.FP32]]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 4, shape=[16, 64],
                                                                    target_memory=pl.Mem.Vec)
        b: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 2, 64, shape=[8, 64],
                                                                   target_memory=pl.Mem.Vec)
        ya: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 0.5)
        yb: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(b, 1.0)
        o1 = pl.store(ya, [0, 0], o1)
        o2 = pl.store(yb, [0, 0], o2)
        return o1, o2


@pl.program
class RowSrcWholeExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               o2: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                  pl.Tensor[[8, 64], pl.FP32]]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        a: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, sb * 8, 4, shape=[8, 64],
                                                                   target_memory=pl.Mem.Vec)
        b: pl.Tile[[4, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 2 + sb * 4, 64, shape=[4, 64],
                                                                   target_memory=pl.Mem.Vec)
        ya: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 0.5)
        yb: pl.Tile[[4, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(b, 1.0)
        o1 = pl.store(ya, [sb * 8, 0], o1, tiled_op=True)
        o2 = pl.store(yb, [sb * 4, 0], o2, tiled_op=True)
        return o1, o2


def test_row_split_extract_offsets_index_on_whole_source():
    _check(RowSrcWholeBefore, RowSrcWholeExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# column split (15 rows: odd, so the row axis is not offered), source whole: the window starts at column 4
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ColSrcWholeBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[15, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[15, 64], pl.FP32]]) -> pl.Tensor[[15, 64], pl.FP32]:
        t: pl.Tile[[15, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [15, 128], target_memory=pl.Mem.Vec)
        e: pl.Tile[[15, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 4, shape=[15, 64],
                                                                    target_memory=pl.Mem.Vec)
        y: pl.Tile[[15, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ColSrcWholeExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[15, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[15, 64], pl.FP32]]) -> pl.Tensor[[15, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[15, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [15, 128], target_memory=pl.Mem.Vec)
        e: pl.Tile[[15, 32], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 4 + sb * 32, shape=[15, 32],
                                                                    target_memory=pl.Mem.Vec)
        y: pl.Tile[[15, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [0, sb * 32], out, tiled_op=True)
        return out


def test_column_split_extract_offsets_index_on_whole_source():
    _check(ColSrcWholeBefore, ColSrcWholeExpected, 1)


# ---------------------------------------------------------------------------------------------------------------
# column split, source split: the extract covers the source's columns (index_col 0, full width) and drops a row
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ColSrcSplitBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[15, 128], pl.FP32]]) -> pl.Tensor[[15, 128], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        e: pl.Tile[[15, 128], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 1, 0, shape=[15, 128],
                                                                     target_memory=pl.Mem.Vec)
        y: pl.Tile[[15, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ColSrcSplitExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[15, 128], pl.FP32]]) -> pl.Tensor[[15, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, sb * 64], [16, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[15, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 1, 0, shape=[15, 64],
                                                                    target_memory=pl.Mem.Vec)
        y: pl.Tile[[15, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 0.5)
        out = pl.store(y, [0, sb * 64], out, tiled_op=True)
        return out


def test_column_split_extract_reads_half_source():
    _check(ColSrcSplitBefore, ColSrcSplitExpected, 1)


# ---------------------------------------------------------------------------------------------------------------
# whole Vec copy (tile.move within Vec) copies the half of its source
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class MoveBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        m: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(m, 2.0)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class MoveExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        m: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(m, 2.0)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_move_within_vec_copies_half():
    _check(MoveBefore, MoveExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# a covering extract whose source's producer refuses the axis (a reshape [3, 256] -> [16, 48]: result rows map to
# the odd source axis 0) reads the whole source at an offset index instead of rolling the function back
# ---------------------------------------------------------------------------------------------------------------


@pl.program
class ReshapedSourceBefore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[3, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        t: pl.Tile[[3, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [3, 256], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 48], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [16, 48])
        e: pl.Tile[[16, 48], pl.FP32, pl.Mem.Vec] = pl.tile.extract(r, 0, 0, shape=[16, 48], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 48], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 3.0)
        out = pl.store(y, [0, 0], out)
        return out


@pl.program
class ReshapedSourceExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[3, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[3, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [3, 256], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 48], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [16, 48])
        e: pl.Tile[[8, 48], pl.FP32, pl.Mem.Vec] = pl.tile.extract(r, sb * 8, 0, shape=[8, 48],
                                                                   target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 48], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 3.0)
        out = pl.store(y, [sb * 8, 0], out, tiled_op=True)
        return out


def test_covering_extract_of_unsplittable_source_reads_it_whole():
    _check(ReshapedSourceBefore, ReshapedSourceExpected, 0)


# ---------------------------------------------------------------------------------------------------------------
# E2E: golden == simulator, pass off and on, through the full default pipeline
# ---------------------------------------------------------------------------------------------------------------

USER_SRC = '''
import tilefold.language as pl

@pl.program
class UserMisalignedSlice:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 4])
        y = pl.tile.muls(hi, 0.5)
        out = pl.store(y, [0, 0], out)
        return out
'''

E2E = {
    "user_misaligned_col_slice": pl.parse(USER_SRC),
    "extract_row_src_split": RowSrcSplitBefore,
    "extract_row_src_whole": RowSrcWholeBefore,
    "extract_col_src_whole": ColSrcWholeBefore,
    "extract_col_src_split": ColSrcSplitBefore,
    "move_within_vec": MoveBefore,
    "extract_of_reshaped_source": ReshapedSourceBefore,
}


def _through_sub_block(program):
    """The program right after TileAndBindSubBlock in the default pipeline (so the first
    CanonicalizeTileSlice run has already turned misaligned slices into extracts)."""
    cur = program
    for p in default_tile_pipeline():
        cur = p(cur)
        if p.name == "TileAndBindSubBlock":
            return cur
    raise AssertionError("TileAndBindSubBlock is not in the default pipeline")


@pytest.mark.parametrize("name", sorted(E2E))
def test_extract_e2e_golden_on_and_off(name):
    program = E2E[name]
    base = run_and_compare(program, "random", options={"enable_auto_bind_sub_block": False})
    tiled = run_and_compare(program, "random")
    assert base.result == "correct", base.summary()
    assert tiled.result == "correct", tiled.summary()
    ev = sub_block_evidence(_through_sub_block(program))
    assert ev.split, ev.problems
    assert len(tiled.unit_cycles) == 2 * len(base.unit_cycles)
    record_cycles(name, "split", base, tiled)


def test_user_kernel_slice_becomes_split_extract():
    after = _through_sub_block(pl.parse(USER_SRC))
    text = after.as_python()
    assert "tile.extract(t, 0, 4, shape=[8, 64]" in text
    assert REVERTED not in text
