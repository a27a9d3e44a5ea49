"""Regressions found by the matrix's valid-shape cases: an op whose result is fully valid must not read a partially
valid operand, or the operand's undefined padding is stored as data.

Before the fix ``pl.tile.concat(t, t)`` of a tile loaded with ``valid_shapes=[11, 40]`` of [16, 64] gave a
[16, 128] tile declared fully valid: the store wrote all 2048 elements, 1168 of them padding (zeros on the
simulator, NaN in golden: MISMATCH for floats, and for integers a silent MATCH on made-up zeros). The same for
``tile.assemble`` of a partial value or target. Elementwise ops keep the valid shape (only the valid region is
stored); the whole-tile ops now refuse, as reductions and transposes already did, with the fillpad hint.
"""

from __future__ import annotations

import numpy as np
import pytest
from matrix_support import ALL, EXACT, NP, check, rng, values

from tilefold.errors import TilefoldError

LOAD = "t = pl.load(a, [0, 0], [16, 64], valid_shapes=[11, 40])"

CASES = {
    "concat": ("pl.tile.concat(t, t)", (16, 128)),
    "concat-rhs": ("pl.tile.concat(pl.tile.full([16, 64], dtype=pl.{dt}, value=1), t)", (16, 128)),
    "assemble-value": ("pl.tile.assemble(pl.tile.full([16, 64], dtype=pl.{dt}, value=1), "
                       "pl.tile.slice(t, [8, 32], [8, 16]), [0, 0])", (16, 64)),
    "assemble-target": ("pl.tile.assemble(t, pl.tile.full([4, 16], dtype=pl.{dt}, value=1), [0, 0])", (16, 64)),
    "expand_clone": ("pl.tile.expand_clone(pl.tile.slice(t, [1, 64], [0, 0]), shape=[16, 64])", (16, 64)),
}


@pytest.mark.parametrize("dt", ["FP32", "INT32", "INT8"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_whole_tile_ops_refuse_a_partial_operand(case, dt):
    expr, oshape = CASES[case]
    with pytest.raises(TilefoldError) as info:
        check([("a", (16, 64), dt)], [LOAD, f"pl.store({expr.format(dt=dt)}, [0, 0], out)"], [("out", oshape, dt)],
              {"a": np.zeros((16, 64), NP[dt])}, {}, {})
    assert "valid shape" in str(info.value), str(info.value)
    assert "fillpad" in (info.value.hint or ""), info.value.hint


@pytest.mark.parametrize("dt", ALL)
def test_concat_after_fillpad_is_exact(dt):
    """The documented way: fill the padding, then the whole tile is data."""
    a = values(rng("concat-fill", dt), (16, 64), dt)
    want_half = np.zeros((16, 64), NP[dt])
    want_half[:11, :40] = a[:11, :40]
    want = np.concatenate([want_half, want_half], axis=1)
    body = [LOAD, "f = pl.tile.fillpad(t, pad_value=pl.PadValue.zero)", "pl.store(pl.tile.concat(f, f), [0, 0], out)"]
    check([("a", (16, 64), dt)], body, [("out", (16, 128), dt)], {"a": a}, {"out": want}, {"out": EXACT})
