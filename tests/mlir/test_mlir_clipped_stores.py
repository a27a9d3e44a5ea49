"""The clip arithmetic printed for a stored window (``tilefold.mlir.clipped_stores``), evaluated: for every offset
and both sub-blocks, the parts the two sub-blocks store (half-local start, count, destination shift) are disjoint,
lie inside their halves, and together are exactly the window — checked element by element against the window
itself, an oracle that does not use the printed maps."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from xdsl.dialects import affine, func, tensor  # noqa: E402

from tilefold.mlir.clipped_stores import AffineMaxOp  # noqa: E402
from tilefold.mlir.opt import OptArgs, parse_chunk, print_module, run_chunk, split_chunks  # noqa: E402

TEMPLATE = """func.func @w(%a: memref<64xf32>, %o: memref<64xf32>, %off: index) attributes {{hivm.func_core_type = #hivm.func_core_type<AIV>}} {{
  %buf = memref.alloc() : memref<64xf32>
  hivm.hir.load ins(%a : memref<64xf32>) outs(%buf : memref<64xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %y = hivm.hir.vexp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = tensor.extract_slice %y[{off}] [{n}] [1] : tensor<64xf32> to tensor<{n}xf32>
  %v = memref.subview %o[{off}] [{n}] [1] : memref<64xf32> to memref<{n}xf32, strided<[1], offset: ?>>
  hivm.hir.store ins(%s : tensor<{n}xf32>) outs(%v : memref<{n}xf32, strided<[1], offset: ?>>)
  return
}}
"""


def _transformed(text: str):
    chunk = split_chunks(text, False)[0]
    remarks: list[str] = []
    out = run_chunk(chunk, OptArgs(file="<w>", bind_sub_block=True), remarks)
    assert any("split on axis 1" in r for r in remarks), remarks
    assert "{tiled_op}" in out and "limit_sub_block_id0" not in out
    return parse_chunk(type(chunk)(out, 0), "<printed>")


def _evaluate(module, sb: int, off: int) -> tuple[int, int, int]:
    """(lo, count, shift) of sub-block ``sb``: the printed affine ops interpreted by their maps."""
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    env = {}
    for op in fn.walk():
        if op.name == "scf.for":
            env[op.body.blocks[0].args[0]] = sb
    for arg in fn.body.blocks[0].args:
        if str(arg.type) == "index":
            env[arg] = off
    for op in fn.walk():
        if isinstance(op, affine.ApplyOp | affine.MinOp | AffineMaxOp):
            m = op.map.data
            vals = [env[v] for v in op.operands]
            res = m.eval(vals[:m.num_dims], vals[m.num_dims:])
            env[op.results[0]] = (min(res) if isinstance(op, affine.MinOp) else max(res)
                                  if isinstance(op, AffineMaxOp) else res[0])
        if isinstance(op, tensor.ExtractSliceOp) and op.offsets:
            lo, count = env[op.offsets[0]], env[op.sizes[0]]
        if op.name == "memref.subview" and len(op.sizes) == 1:
            shift = env[op.offsets[0]]
    return lo, count, shift


@pytest.mark.parametrize("n", [1, 16, 30])
@pytest.mark.parametrize("static", [True, False])
def test_the_two_halves_store_exactly_the_window(n, static):
    offsets = range(0, 64 - n + 1)
    module = None if static else _transformed(TEMPLATE.format(off="%off", n=n))
    for off in offsets:
        m = _transformed(TEMPLATE.format(off=off, n=n)) if static else module
        written: list[int] = []  # source positions; their destinations relative to the window start
        for sb in (0, 1):
            lo, count, shift = _evaluate(m, sb, off)
            assert 0 <= lo and 0 <= count and lo + count <= 32, (off, sb, lo, count)
            assert 0 <= shift and shift + count <= n, (off, sb, shift, count)
            for k in range(count):
                src = sb * 32 + lo + k
                assert src - off == shift + k  # each element lands where the unsplit store puts it
                written.append(src)
        assert sorted(written) == list(range(off, off + n)), off
        if static and off > 8:
            break  # static maps are folded per offset: a handful suffice, the run-time form covers them all


def test_printed_form_reads_back():
    text = print_module(_transformed(TEMPLATE.format(off="%off", n=16)))
    assert "affine.max" in text and "affine.min" in text
    assert print_module(parse_chunk(split_chunks(text, False)[0], "<again>")) == text
