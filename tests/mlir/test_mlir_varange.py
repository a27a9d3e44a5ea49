"""``hivm.hir.varange`` with any 2-D strides: element ``[i, j]`` is ``offset + i * s0 + j * s1`` (HIVMDialect.md:
offset 1, strides [1, 2] on 2x4 gives [[1, 3, 5, 7], [2, 4, 6, 8]]). Lowered, simulated with TileAndBindSubBlock on
and off, against numpy; the split's halves start where their half starts."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold.errors import TilefoldError  # noqa: E402
from tilefold.mlir import load_program  # noqa: E402
from tilefold.mlir.opt import OptArgs, run_chunk, split_chunks  # noqa: E402
from tilefold.testing import run_and_compare  # noqa: E402

OFF = {"enable_auto_bind_sub_block": False}

KERNEL = """func.func @ramp(%x: memref<{m}x{n}x{dt}>, %dst: memref<{m}x{n}x{dt}>, %o: index, %s0: index, %s1: index) attributes {{hivm.func_core_type = #hivm.func_core_type<AIV>}} {{
  %b = memref.alloc() : memref<{m}x{n}x{dt}>
  hivm.hir.load ins(%x : memref<{m}x{n}x{dt}>) outs(%b : memref<{m}x{n}x{dt}>)
  %t = bufferization.to_tensor %b restrict writable : memref<{m}x{n}x{dt}> to tensor<{m}x{n}x{dt}>
  %e = tensor.empty() : tensor<{m}x{n}x{dt}>
  %r = hivm.hir.varange offset[%o] strides[%s0, %s1] outs(%e : tensor<{m}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}>
  %y = hivm.hir.vadd ins(%t, %r : tensor<{m}x{n}x{dt}>, tensor<{m}x{n}x{dt}>) outs(%e : tensor<{m}x{n}x{dt}>) -> tensor<{m}x{n}x{dt}>
  hivm.hir.store ins(%y : tensor<{m}x{n}x{dt}>) outs(%dst : memref<{m}x{n}x{dt}>)
  return
}}
"""

DOC_EXAMPLE = """func.func @doc(%dst: memref<2x4xi32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<2x4xi32>
  %r = hivm.hir.varange offset[%c1] strides[%c1, %c2] outs(%e : tensor<2x4xi32>) -> tensor<2x4xi32>
  hivm.hir.store ins(%r : tensor<2x4xi32>) outs(%dst : memref<2x4xi32>)
  return
}
"""


def _ramp(m: int, n: int, o: int, s0: int, s1: int) -> np.ndarray:
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    return o + i * s0 + j * s1


def _run(text: str, tmp_path, name: str, inputs: dict, want: dict) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    program = load_program(str(path), name)
    for options in ({}, OFF):
        report = run_and_compare(program, {k: getattr(v, "copy", lambda v=v: v)() for k, v in inputs.items()},
                                 options=options)
        assert report.matches, report.details
        for k, v in want.items():
            np.testing.assert_array_equal(report.outputs[k], v)


def test_the_documented_example(tmp_path):
    _run(DOC_EXAMPLE, tmp_path, "doc", {"dst": np.zeros((2, 4), np.int32)},
         {"dst": np.array([[1, 3, 5, 7], [2, 4, 6, 8]], np.int32)})


# (rows, cols, dtype, offset, s0, s1): strides that are not [cols, 1], row- or column-major, zero, negative
CASES = [(16, 64, "i32", 5, 1, 16), (16, 64, "i32", 0, 64, 2), (8, 64, "i32", -3, 0, 1), (3, 64, "i32", 7, 100, 3),
         (16, 8, "f32", 2, 8, -1), (4, 64, "f32", 0, 1, 4)]


@pytest.mark.parametrize("m,n,dt,o,s0,s1", CASES)
def test_strided_2d_varange_matches_numpy_on_and_off(m, n, dt, o, s0, s1, tmp_path):
    np_dt = np.int32 if dt == "i32" else np.float32
    x = np.random.default_rng(m * n + s1).integers(-50, 50, (m, n)).astype(np_dt)
    want = x + _ramp(m, n, o, s0, s1).astype(np_dt)
    _run(KERNEL.format(m=m, n=n, dt=dt), tmp_path, "ramp",
         {"x": x, "dst": np.zeros((m, n), np_dt), "o": o, "s0": s0, "s1": s1}, {"dst": want})


@pytest.mark.parametrize("m,axis", [(16, 0), (3, 1)])
def test_split_halves_start_where_they_start(m, axis):
    """16 rows split on rows: the half's offset is o + sb * 8 * s0; 3 rows split on columns: o + sb * 32 * s1."""
    chunk = split_chunks(KERNEL.format(m=m, n=64, dt="i32"), False)[0]
    remarks: list[str] = []
    out = run_chunk(chunk, OptArgs(file="<k>", bind_sub_block=True), remarks)
    assert any(f"split on axis {axis}" in r for r in remarks), remarks
    half = m // 2 if axis == 0 else 32
    stride = "%s0" if axis == 0 else "%s1"
    lines = out.splitlines()
    k = next(i for i, line in enumerate(lines) if f"arith.constant {half} : index" in line)
    block = "\n".join(lines[k:k + 4])
    assert "arith.muli %sb" in block and f", {stride} : index" in block and "arith.addi %o" in block, block
    shape = f"{m // 2}x64" if axis == 0 else f"{m}x32"
    assert "hivm.hir.varange offset[%" in out and "outs(%" in out and f"tensor<{shape}xi32>" in out


def test_three_strides_of_a_2d_result_are_a_located_refusal(tmp_path):
    text = DOC_EXAMPLE.replace("strides[%c1, %c2]", "strides[%c1, %c2, %c2]").replace("@doc", "@bad")
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    with pytest.raises(TilefoldError, match="varange with 3 strides of a rank-2 result") as info:
        load_program(str(path), "bad")
    assert info.value.span is not None and info.value.span.line == 5
