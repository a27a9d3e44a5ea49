"""`tilefold run FILE.mlir`: an error raised while running the lowered kernel names the MLIR op it came from
(file:line:col of the MLIR file), not a line of the generated `pl` text the user never wrote."""

from __future__ import annotations

from tilefold import cli

KERNEL = """\
func.func @scale(%src: memref<32x64xf32>, %dst: memref<32x64xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %s = arith.constant 2.5 : f32
  %buf = memref.alloc() : memref<32x64xf32>
  hivm.hir.load ins(%src : memref<32x64xf32>) outs(%buf : memref<32x64xf32>)
  %x = bufferization.to_tensor %buf restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  %init = tensor.empty() : tensor<32x64xf32>
  %y = hivm.hir.vmul ins(%x, %s : tensor<32x64xf32>, f32) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  hivm.hir.store ins(%y : tensor<32x64xf32>) outs(%dst : memref<32x64xf32>)
  return
}
"""


def test_a_run_time_error_is_located_in_the_mlir_file(tmp_path, capsys):
    path = tmp_path / "scale.mlir"
    path.write_text(KERNEL)
    code = cli.main(["run", str(path), "--max-steps", "3"])
    err = capsys.readouterr().err
    assert code != 0
    assert "(lowered)" not in err
    located = [line for line in err.splitlines() if line.startswith(f"{path}:")]
    assert located, err
    line = int(located[0].split(":")[1])
    assert "hivm.hir." in KERNEL.splitlines()[line - 1], located[0]  # the op the step budget stopped at
    assert "--max-steps" in err


def test_the_same_kernel_runs_to_a_match(tmp_path, capsys):
    path = tmp_path / "scale.mlir"
    path.write_text(KERNEL)
    assert cli.main(["run", str(path)]) == 0
    assert "MATCH" in capsys.readouterr().out
