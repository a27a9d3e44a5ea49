# exit: 1
# expect: an integer literal of 5,000 digits (at most 40)
# expect: mlir_integer_5000_digits.mlir:2:23
# argv: mlir-opt {data}/mlir_integer_5000_digits.mlir
# arith.constant with a 5000-digit integer: was "internal error: ValueError: Exceeds the limit (4300 digits)".
