# exit: 2
# expect: overflows a float
# expect: float_pow_overflow.py:7:
# argv: opt {file}
import tilefold.language as pl

N = 10.0 ** 400
