# exit: 2
# expect: byte 0xff at offset 328 is not UTF-8 text
# expect: mlir_not_utf8.mlir:7:1
# argv: run {data}/mlir_not_utf8.mlir
# A HIVM file whose last line holds bytes that are not UTF-8: was a raw UnicodeDecodeError (a traceback from mlir-opt).
