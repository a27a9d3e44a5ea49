# exit: 1
# expect: cannot parse MLIR
# expect: mlir_opt_python_file.py:1:1
# argv: mlir-opt {file} -hivm-bind-sub-block
# A Python file given to mlir-opt: a located parse error (the parser's first token failed outside its guard).
import tilefold.language as pl
