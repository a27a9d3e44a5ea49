# exit: 2
# expect: no functions
# expect: empty_program.py:9
# argv: run {file}
import tilefold.language as pl


@pl.program
class P:
    pass
