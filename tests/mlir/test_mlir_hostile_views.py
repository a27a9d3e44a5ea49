"""Damaged HIVM MLIR that used to be accepted or crash (the hostile2 helper's cases): an integer constant out of
its type's range was an internal error (exit 4) and is a located parse error; a GM view whose static strides are
not a row-major layout (stride 0, overlapping rows) was read as a dense tensor — and mlir-opt split the store of
such a view 1:2, so both sub-blocks wrote the same addresses — and is now refused (mlir-opt limits the function
to sub-block 0)."""

from __future__ import annotations

import contextlib
import io

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold import cli  # noqa: E402

KERNEL = """func.func @scale(%src: memref<?xf32>, %dst: memref<?xf32>) attributes {hacc.entry, \
hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %scale = arith.constant SCALE
  %gm_in = memref.reinterpret_cast %src to offset: [0], sizes: [32, 64], strides: [64, 1] : memref<?xf32> to \
memref<32x64xf32, strided<[64, 1]>>
  %gm_out = memref.reinterpret_cast %dst to offset: [0], sizes: [32, 64], strides: OUT_STRIDES : memref<?xf32> to \
memref<32x64xf32, strided<OUT_STRIDES>>
  %buf = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%gm_in : memref<32x64xf32, strided<[64, 1]>>) outs(%buf : memref<32x64xf32>)
  %x = bufferization.to_tensor %buf restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %y = hivm.hir.vmul ins(%x, %x : tensor<32x64xf32>, tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) -> \
tensor<32x64xf32>
  hivm.hir.store ins(%y : tensor<32x64xf32>) outs(%gm_out : memref<32x64xf32, strided<OUT_STRIDES>>)
  return
}
"""


def _kernel(scale: str = "2.5 : f32", strides: str = "[64, 1]") -> str:
    return KERNEL.replace("SCALE", scale).replace("OUT_STRIDES", strides)


def _cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(argv)
    text = out.getvalue()
    assert "Traceback" not in text and "internal error" not in text, text
    return code, text


@pytest.mark.parametrize("command", ["run", "mlir-opt"])
def test_an_integer_constant_out_of_range_is_a_located_parse_error(tmp_path, command):
    path = tmp_path / "k.mlir"
    path.write_text(_kernel(scale="99999999999999999999999 : i64"))
    code, text = _cli([command, str(path)])
    assert code in (1, 2) and "cannot parse MLIR: Integer value 99999999999999999999999 is out of range" in text
    assert "k.mlir:2:" in text  # the line of the constant


def test_a_row_major_view_with_padded_rows_still_runs(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(_kernel(strides="[128, 1]"))
    code, text = _cli(["run", str(path)])
    assert code == 0 and "MATCH" in text


@pytest.mark.parametrize("strides", ["[0, 1]", "[32, 1]", "[1, 32]", "[0, 0]"])
def test_a_view_that_is_not_row_major_is_refused_and_never_split(tmp_path, strides):
    path = tmp_path / "k.mlir"
    path.write_text(_kernel(strides=strides))
    code, text = _cli(["run", str(path)])
    assert code == 2 and f"strides {strides} is not a row-major layout" in text and "k.mlir:4:" in text
    code, text = _cli(["mlir-opt", str(path), "-hivm-bind-sub-block"])
    assert code == 0 and "limit_sub_block_id0" in text and "sub_block<x>" not in text
