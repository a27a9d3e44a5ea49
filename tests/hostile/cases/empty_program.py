# exit: 2
# expect: no functions
# argv: run {file}
import tilefold.language as pl


@pl.program
class P:
    pass
