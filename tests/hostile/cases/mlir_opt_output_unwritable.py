# exit: 1
# expect: cannot write /nonexistent-tilefold-dir/out.mlir
# argv: mlir-opt {data}/mlir_insert_slice_outside.mlir -o /nonexistent-tilefold-dir/out.mlir
# mlir-opt -o into a missing directory: was a FileNotFoundError traceback.
