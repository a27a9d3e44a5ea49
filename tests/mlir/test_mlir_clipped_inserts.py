"""The clip arithmetic printed for a tensor.insert_slice that covers only part of the split axis, evaluated: for
every offset (static and run-time) and both sub-blocks, the rows each sub-block inserts (start in its half, count,
first row of the inserted value) lie inside its half and together are exactly the rows the unsplit insert writes,
each at its own place — an oracle that does not use the printed maps."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from xdsl.dialects import affine, func, tensor  # noqa: E402

from tilefold.mlir.clipped_stores import AffineMaxOp  # noqa: E402
from tilefold.mlir.opt import OptArgs, parse_chunk, run_chunk, split_chunks  # noqa: E402

ROWS, HALF, N = 8, 4, 3  # an 8x64 tile, a 3x32 patch

TEMPLATE = """func.func @p(%a: memref<3x32xf32>, %o: memref<8x64xf32>, %i: index) attributes {{hivm.func_core_type = #hivm.func_core_type<AIV>}} {{
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<3x32xf32>
  hivm.hir.load ins(%a : memref<3x32xf32>) outs(%buf : memref<3x32xf32>)
  %t = bufferization.to_tensor %buf restrict writable : memref<3x32xf32> to tensor<3x32xf32>
  %z = tensor.empty() : tensor<8x64xf32>
  %f = hivm.hir.vbrc ins(%one : f32) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = tensor.insert_slice %t into %f[{off}, 16] [3, 32] [1, 1] : tensor<3x32xf32> into tensor<8x64xf32>
  hivm.hir.store ins(%s : tensor<8x64xf32>) outs(%o : memref<8x64xf32>)
  return
}}
"""


def _transformed(text: str):
    chunk = split_chunks(text, False)[0]
    remarks: list[str] = []
    out = run_chunk(chunk, OptArgs(file="<p>", bind_sub_block=True), remarks)
    assert any("split on axis 0" in r for r in remarks), remarks
    assert "limit_sub_block_id0" not in out
    return parse_chunk(type(chunk)(out, 0), "<printed>")


def _evaluate(module, sb: int, off: int) -> tuple[int, int, int]:
    """(lo, count, shift) of sub-block ``sb``: the printed affine ops interpreted by their maps."""
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    env = {arg: off for arg in fn.body.blocks[0].args if str(arg.type) == "index"}
    for op in fn.walk():
        if op.name == "scf.for":
            env[op.body.blocks[0].args[0]] = sb
        if isinstance(op, affine.ApplyOp | affine.MinOp | AffineMaxOp):
            m = op.map.data
            vals = [env[v] for v in op.operands]
            res = m.eval(vals[:m.num_dims], vals[m.num_dims:])
            env[op.results[0]] = (min(res) if isinstance(op, affine.MinOp) else max(res)
                                  if isinstance(op, AffineMaxOp) else res[0])
        if isinstance(op, tensor.ExtractSliceOp):
            shift, count = env[op.offsets[0]], env[op.sizes[0]]
        if isinstance(op, tensor.InsertSliceOp):
            lo = env[op.offsets[0]]
            assert env[op.sizes[0]] == count
    return lo, count, shift


@pytest.mark.parametrize("static", [True, False])
def test_the_two_halves_insert_exactly_the_patch(static):
    module = None if static else _transformed(TEMPLATE.format(off="%i"))
    for off in range(0, ROWS - N + 1):
        m = _transformed(TEMPLATE.format(off=off)) if static else module
        written: list[int] = []  # destination rows of the whole tile
        for sb in (0, 1):
            lo, count, shift = _evaluate(m, sb, off)
            assert 0 <= lo and 0 <= count and lo + count <= HALF, (off, sb, lo, count)
            assert 0 <= shift and shift + count <= N, (off, sb, shift, count)
            for k in range(count):
                row = sb * HALF + lo + k
                assert row - off == shift + k  # the patch's row shift + k lands where the unsplit insert puts it
                written.append(row)
        assert sorted(written) == list(range(off, off + N)), off
