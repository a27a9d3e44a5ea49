# exit: 2
# expect: the loop variable 'ROWS' is read after its pl.range loop
# expect: jit_loop_var_shadows_constant.py:15
# expect: hint: rename the loop variable
# argv: run {file} --kernel last_block
import tilefold.language as pl

ROWS = 16


@pl.jit
def last_block(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for ROWS in pl.range(4):
            acc = pl.add(acc, a[ROWS * 16:ROWS * 16 + 16, :])
        out[:] = pl.muls(acc, ROWS + 0.0)  # was silently ROWS = 16 (the constant), not 3
    return out
