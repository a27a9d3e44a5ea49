"""The seed's 8 Softmax E2E cases: 7 shapes of a numerically stable softmax custom op (reduce-last
[parallel, reduction]: 64x64, 128x64, 256x64, 128x128; reduce-first [reduction, parallel]: 64x128,
64x256, 128x128) and the simple flash-attention case (QK^T on the cube, the softmax custom op on the
vector sub-blocks, then PV). Each on Ascend910B and Ascend950, TileAndBindSubBlock on and off, against
golden; on, the evidence shows the split along the parallel axis with the reduction axis whole."""

from __future__ import annotations

import numpy as np
import pytest
from e2e_sb_helpers import TARGETS, check_on_and_off, load

from tilefold.custom.library import softmax
from tilefold.ir.expr import Call
from tilefold.ir.types import TileType
from tilefold.ir.visitor import IRVisitor

SHAPES = [  # (kind, rows, cols): reduce-last splits dim 0, reduce-first dim 1
    ("last", 64, 64), ("last", 128, 64), ("last", 256, 64), ("last", 128, 128),
    ("first", 64, 128), ("first", 64, 256), ("first", 128, 128),
]


def _custom_tile_shapes(program, symbol):
    shapes = []

    class _V(IRVisitor):
        def visit_Call(self, call: Call) -> None:
            if call.kwarg("symbol") == symbol and isinstance(call.type, TileType):
                shapes.append(call.type.static_shape)
            super().visit_Call(call)

    for fn in program.functions:
        _V().visit_function(fn)
    return shapes


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("kind", "rows", "cols"), SHAPES)
def test_softmax_custom_op(kind, rows, cols, target):
    axis = 0 if kind == "last" else 1
    program = load(f"e2e_softmax_reduce_{kind}", ROWS=rows, COLS=cols)
    x = np.random.default_rng(rows * cols).uniform(-4, 4, (rows, cols)).astype(np.float16)
    base, tiled = check_on_and_off(f"softmax_{kind} {rows}x{cols}", program, target, {"kernel": axis},
                                   inputs={"x": x})
    want = softmax(x, axis=1 if kind == "last" else 0).astype(np.float16)
    for rep in (base, tiled):
        np.testing.assert_array_equal(rep.outputs["out"], want)
    # the tiled custom op runs on the half along the parallel axis, the reduction axis whole (the seed:
    # 128x128 reduce-first gives [128, 64] tiles, reduce-last [64, 128])
    half = (rows // 2, cols) if kind == "last" else (rows, cols // 2)
    assert _custom_tile_shapes(tiled.compiled.ir, f"e2e.softmax_{kind}") == [half]


@pytest.mark.parametrize("target", TARGETS)
def test_flash_attention_softmax_on_the_vector_sub_blocks(target):
    rng = np.random.default_rng(17)
    q = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    k = rng.uniform(-1, 1, (128, 64)).astype(np.float16)
    v = rng.uniform(-1, 1, (128, 64)).astype(np.float16)
    base, tiled = check_on_and_off("flash_attention", load("e2e_flash_attention"), target, {"softmax": 0},
                                   inputs={"q": q, "k": k, "v": v})
    s = q.astype(np.float32) @ k.astype(np.float32).T * np.float32(0.125)
    p = softmax(s, axis=1).astype(np.float16).astype(np.float32)
    want = p @ v.astype(np.float32)
    for rep in (base, tiled):
        np.testing.assert_allclose(rep.outputs["o"], want, rtol=2e-3, atol=2e-3)
    assert _custom_tile_shapes(tiled.compiled.ir, "e2e.flash_softmax") == [(32, 128)]
