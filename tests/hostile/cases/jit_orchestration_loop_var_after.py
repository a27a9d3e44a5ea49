# exit: 2
# expect: the loop variable 'OFF' is read after its pl.range loop
# expect: jit_orchestration_loop_var_after.py:12
# argv: run {file} --kernel tail
import tilefold.language as pl

OFF = 0


@pl.jit
def tail(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    for OFF in pl.range(3):  # unrolled orchestration loop
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = a[OFF * 16:OFF * 16 + 16, :]
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = a[OFF:OFF + 16, :]  # was silently the constant 0, not 2
    return out
