# exit: 2
# expect: overflow
# expect: float_pow_overflow.py:4:
# argv: opt {file}
import tilefold.language as pl

N = 10.0 ** 400
