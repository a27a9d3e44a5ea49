# exit: 2
# expect: leaves the target extent 8
# expect: mlir_insert_slice_outside.mlir:8:3
# argv: run {data}/mlir_insert_slice_outside.mlir
# A tensor.insert_slice whose static window leaves the destination: the lowered program is refused, and the error
# used to name only the function; it now points at the MLIR op the refused line was lowered from.
