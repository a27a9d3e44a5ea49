"""``tilefold.mlir.bounds.upper_bound``: the static bound of a run-time window size, proved or refused."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold.mlir.bounds import upper_bound  # noqa: E402
from tilefold.mlir.opt import Chunk, parse_chunk  # noqa: E402

TEXT = """
func.func @f(%n: index, %off: index) {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %min_aff = affine.min affine_map<(d0)[s0] -> (64, s0 - d0)>(%off)[%n]
  %min_si = arith.minsi %n, %c16 : index
  %max_si = arith.maxsi %c4, %c16 : index
  %max_open = arith.maxsi %c4, %n : index
  %modc = affine.apply affine_map<(d0) -> (d0 mod 8)>(%n)
  %fdiv = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%min_si)
  %cdiv = affine.apply affine_map<(d0) -> (d0 ceildiv 3)>(%min_si)
  %neg = affine.apply affine_map<(d0) -> (d0 * -2)>(%min_si)
  %sum = arith.addi %min_si, %c4 : index
  %open = arith.subi %c16, %n : index
  scf.for %i = %c0 to %c4 step %c1 {
    %off16 = affine.apply affine_map<(d0) -> (d0 * 16 + 3)>(%i)
    "test.use"(%off16) : (index) -> ()
  }
  return
}
"""

EXPECTED = {"min_aff": 64, "min_si": 16, "max_si": 16, "max_open": None, "modc": 7, "fdiv": 4, "cdiv": 6,
            "neg": None, "sum": 20, "open": None, "n": None, "off16": 51}


def _values():
    module = parse_chunk(Chunk(TEXT, 0), "bounds.mlir")
    out = {}
    for op in module.walk():
        for r in op.results:
            out[r.name_hint] = r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    out[a.name_hint] = a
    return out


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_upper_bound(name):
    assert upper_bound(_values()[name]) == EXPECTED[name]
