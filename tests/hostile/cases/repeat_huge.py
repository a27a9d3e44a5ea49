# exit: 2
# expect: too large
# expect: repeat_huge.py:
# argv: opt {file}
import tilefold.language as pl

SHAPE = [16] * 1000000000
