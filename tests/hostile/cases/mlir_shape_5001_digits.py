# exit: 2
# expect: an integer literal of 5,001 digits
# expect: mlir_shape_5001_digits.mlir:1:25
# argv: run {data}/mlir_shape_5001_digits.mlir
# a memref extent of 5001 digits: was an unlocated "Exceeds the limit (4300 digits)" message.
