# exit: 3
# expect: DEVICE FAULT
# expect: OutOfBounds: device out-of-bounds access
# expect: jit_fault_reason.py:12
# argv: run {file} --kernel window --set off=60
import tilefold.language as pl


@pl.jit
def window(x: pl.Tensor[[64, 64], pl.FP32], off: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(x[off : off + 16, :])
    return out
