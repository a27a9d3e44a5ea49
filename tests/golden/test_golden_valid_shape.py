"""A store writes its tile's valid region only (TileView.valid_shape, static or dynamic): the rest of the
GM window keeps its bytes, as on the device."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.golden import run_program

SRC = '''import tilefold.language as pl

@pl.program
class Valid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        u = pl.tile.adds(t, 1.0)
        v = pl.tile.set_validshape(u, [{rows}, {cols}])
        out = pl.store(v, [0, 0], out)
        return out
'''


@pytest.mark.parametrize(("rows", "cols", "n", "want"), [
    ("n", "40", 5, (5, 40)),      # dynamic rows
    ("12", "24", 0, (12, 24)),    # static
    ("n", "64", 0, (0, 64)),      # empty valid region: nothing is written
    ("n", "64", 99, (16, 64)),    # a valid extent past the tile is clipped to it
])
def test_store_writes_the_valid_region_only(rows, cols, n, want):
    x = np.random.default_rng(1).uniform(size=(16, 64)).astype(np.float32)
    old = np.full((16, 64), -5.0, np.float32)
    got = run_program(pl.parse(SRC.replace("{rows}", rows).replace("{cols}", cols)),
                      {"x": x, "n": n, "out": old})["out"]
    expected = old.copy()
    expected[:want[0], :want[1]] = x[:want[0], :want[1]] + np.float32(1)
    np.testing.assert_array_equal(got, expected)


MIXING = '''import tilefold.language as pl

@pl.program
class Mixing:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        v = pl.tile.set_validshape(t, [16, n])
        s = pl.tile.row_sum(v)
        out = pl.store(s, [0, 0], out)
        return out
'''


def test_reduction_of_a_partially_valid_tile_is_refused_not_guessed():
    from tilefold.errors import NotSupportedError

    x = np.ones((16, 64), np.float32)
    with pytest.raises(NotSupportedError, match="valid region only") as info:
        run_program(pl.parse(MIXING), {"x": x, "n": 40})
    assert "tile.row_sum" in str(info.value) and info.value.hint
    # a valid shape covering the whole tile is the whole tile: nothing to refuse
    got = run_program(pl.parse(MIXING), {"x": x, "n": 64})["out"]
    np.testing.assert_array_equal(got, np.full((16, 1), 64.0, np.float32))
