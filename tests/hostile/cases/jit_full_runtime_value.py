# exit: 2
# expect: tensor.full: the fill value must be a constant number, but it is a run-time expression
# expect: jit_full_runtime_value.py:12
# expect: hint: fill with a run-time scalar through pl.expands
# argv: run {file} --kernel fill --set s=3
import tilefold.language as pl


@pl.jit
def fill(s: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.full([16, 64], dtype=pl.INT32, value=s * 3)  # was a TypeError inside the golden model
    return out
