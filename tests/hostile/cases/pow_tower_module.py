# exit: 2
# expect: too large
# expect: pow_tower_module.py:7:
# argv: opt {file}
import tilefold.language as pl

N = 10 ** 10 ** 10
