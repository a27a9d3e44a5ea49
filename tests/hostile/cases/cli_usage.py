# exit: 1
# expect: usage:
# argv: run
import tilefold.language as pl
