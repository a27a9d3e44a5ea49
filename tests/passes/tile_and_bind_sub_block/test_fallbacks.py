"""Issue 9 §3.8: odd, dynamic and unaligned sizes keep falling back to sub-block 0 (the function is rolled
back, its stores guarded), with the reason, and the fallback gives the golden result."""

from __future__ import annotations

import pytest
from sb_util import e2e_on_off, guards, run_pass

import tilefold.language as pl
from tilefold.passes.tile_and_bind_sub_block import LIMIT_TAG, REVERTED

TEMPLATE = '''
import tilefold.language as pl

@pl.program
class K:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[{r}, {c}], pl.{dt}], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[{r}, {c}], pl.{dt}]]) -> pl.Tensor[[{r}, {c}], pl.{dt}]:
        t: pl.Tile[[{tr}, {c}], pl.{dt}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{tr}, {c}], target_memory=pl.Mem.Vec)
        y: pl.Tile[[{tr}, {c}], pl.{dt}, pl.Mem.Vec] = pl.tile.abs(t)
        out = pl.store(y, [0, 0], out)
        return out
'''

CASES = {
    # odd rows, 15 FP16 columns (odd)
    "odd": (dict(r=15, c=15, tr=15, dt="FP16"), "odd"),
    # even FP16 columns but a 16 B half row, odd rows
    "unaligned": (dict(r=15, c=16, tr=15, dt="FP16"), "not a multiple of 32 B"),
    # a dynamic row extent and a 16 B half row
    "dynamic": (dict(r=16, c=16, tr="n", dt="FP16"), "dynamic"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fallback_to_sub_block0(name):
    fields, why = CASES[name]
    program = pl.parse(TEMPLATE.format(**fields))
    after, _ = run_pass(program)
    reason = after.function("kernel").attr(REVERTED)
    assert reason is not None and why in reason
    (g,) = guards(after)
    assert g.attr(LIMIT_TAG) is True


@pytest.mark.parametrize("name", ["odd", "unaligned"])
def test_e2e_fallbacks_on_and_off(name):
    e2e_on_off(pl.parse(TEMPLATE.format(**CASES[name][0])), split=False, name=f"fallback_{name}")
