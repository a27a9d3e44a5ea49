"""Affine maps printed in mlir-opt's spelling (hand-written expected strings)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from xdsl.ir.affine import AffineExpr, AffineMap  # noqa: E402

from tilefold.mlir.affine_text import map_text  # noqa: E402

d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
s0 = AffineExpr.symbol(0)
c = AffineExpr.constant


@pytest.mark.parametrize("m,text", [
    (AffineMap(1, 0, (d0 * 32,)), "(d0) -> (d0 * 32)"),
    (AffineMap(1, 1, (d0 * -32 + s0, c(0))), "(d0)[s0] -> (d0 * -32 + s0, 0)"),
    (AffineMap(1, 1, (d0 * 32 - s0, c(0))), "(d0)[s0] -> (d0 * 32 - s0, 0)"),
    (AffineMap(2, 0, (d0 - d1,)), "(d0, d1) -> (d0 - d1)"),
    (AffineMap(1, 0, (d0 + c(-1),)), "(d0) -> (d0 - 1)"),
    (AffineMap(1, 0, (d0 * 32 + c(-28), c(0))), "(d0) -> (d0 * 32 - 28, 0)"),
    (AffineMap(2, 0, ((d0 + d1) % 8,)), "(d0, d1) -> ((d0 + d1) mod 8)"),
    (AffineMap(1, 0, (d0 % 8, d0 // 8)), "(d0) -> (d0 mod 8, d0 floordiv 8)"),
    (AffineMap(0, 0, ()), "() -> ()"),
])
def test_mlir_spelling(m, text):
    assert map_text(m) == text
