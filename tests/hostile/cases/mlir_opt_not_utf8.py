# exit: 1
# expect: byte 0xff at offset 328 is not UTF-8 text
# expect: is this a binary (bytecode) file?
# argv: mlir-opt {data}/mlir_not_utf8.mlir -hivm-bind-sub-block
# mlir-opt on bytes that are not UTF-8: was a traceback (UnicodeDecodeError while reading the file).
