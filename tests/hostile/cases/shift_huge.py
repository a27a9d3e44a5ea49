# exit: 2
# expect: too large
# expect: shift_huge.py:
# argv: opt {file}
import tilefold.language as pl

N = 1 << 100000000
