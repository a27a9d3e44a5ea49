# exit: 2
# expect: this if chooses between the GM tensors 'y' and 'x' at run time
# expect: jit_tensor_chosen_by_if.py:14
# expect: hint: do the work on each path instead
# argv: run {file} --kernel pick --set f=1
import tilefold.language as pl


@pl.jit
def pick(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], f: pl.Scalar[pl.INDEX],
         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        src = x
        if f > 0:
            src = y  # a GM tensor chosen at run time: the device read x whatever f was
        out[:] = pl.exp(src)
    return out
