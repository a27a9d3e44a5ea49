"""Windows of an Acc tile read by an op (a store to GM, a move to Vec, ...) must be addressable in L0C's NZ layout:
the window is read through its parent's block formula from its first element, which is right only when the column
offset starts a 16-column block or the window ends inside the block it starts in (any row offset is fine: inside
a column block the rows of successive fractals follow each other). Other windows used to read the wrong elements
silently (y[:, 8:32] of a matmul result came back with y's columns 16..23 read from the wrong places); now they are a
located AccWindowError. The simulator evidence (pass skipped: wrong; pass on: refused) is at the end."""

from __future__ import annotations

import numpy as np
import pytest
from cts_helpers import kernel, run

import tilefold.language as pl
from tilefold.passes.canonicalize_tile_slice import AccWindowError
from tilefold.runtime import RunConfig

ACC = ("acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, "
       "target_memory=pl.Mem.Acc)\n")
PARAMS = "out: pl.Out[pl.Tensor[[32, 64], pl.FP32]], j: pl.Scalar[pl.INDEX]"


def _store(shape: str, offset: str) -> str:
    return (ACC + f"w: pl.Tile[{shape}, pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, {shape}, {offset})\n"
            "out_1: pl.Tensor[[32, 64], pl.FP32] = pl.store(w, [0, 0], out)\n")


@pytest.mark.parametrize(("shape", "offset"), [("[32, 24]", "[0, 8]"), ("[16, 16]", "[16, 4]"),
                                               ("[1, 20]", "[3, 14]")])
def test_a_store_of_a_window_crossing_a_column_block_from_inside_it_is_refused(shape, offset):
    prog = kernel(PARAMS, _store(shape, offset))
    with pytest.raises(AccWindowError) as info:
        run(prog)
    err = info.value
    assert "tile.store reads a window" in err.message and "is not a multiple of 16" in err.message
    assert err.hint and "multiple of 16 columns" in err.hint
    assert err.span is not None and err.span.line > 0


@pytest.mark.parametrize(("shape", "offset"), [("[16, 64]", "[8, 0]"), ("[32, 32]", "[0, 16]"),
                                               ("[16, 8]", "[16, 36]"), ("[1, 64]", "[19, 0]"),
                                               ("[16, 16]", "[0, j * 16]"), ("[16, 16]", "[0, j * 8]")])
def test_addressable_or_unprovable_windows_are_left_alone(shape, offset):
    prog = kernel(PARAMS, _store(shape, offset))
    assert run(prog) is prog  # no slice to rewrite in Acc, nothing refused


@pl.jit
def _offset_window(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                   c: pl.Out[pl.Tensor[[32, 24], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.matmul(a, b, out_dtype=pl.FP32)
        c[:] = y[:, 8:32]
    return c


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_evidence_the_window_is_wrong_without_the_check_and_refused_with_it(platform):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((32, 64)).astype(np.float16), rng.standard_normal((64, 64)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64))[:, 8:32]
    c = np.zeros((32, 24), np.float32)
    _offset_window(a, b, c, config=RunConfig(platform=platform, skip_passes=("CanonicalizeTileSlice",)))
    wrong = ~np.isclose(c, expected, rtol=1e-5, atol=1e-4)
    # the window's columns 8..15 (y's 16..23) run past the end of the first block's fractal rows
    assert wrong[:, 8:16].all() and not wrong[:, :8].any() and not wrong[:, 16:].any()
    with pytest.raises(AccWindowError) as info:
        _offset_window(a, b, np.zeros((32, 24), np.float32), config=RunConfig(platform=platform))
    assert info.value.span is not None and info.value.span.filename.endswith("test_cts_acc_reads.py")
