# exit: 2
# expect: this loop chooses between the GM tensors 'o1' and 'o2' at run time
# expect: jit_tensor_swapped_in_loop.py:14
# argv: run {file} --kernel ping_pong
import tilefold.language as pl


@pl.jit
def ping_pong(x: pl.Tensor[[64, 64], pl.FP32], o1: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
              o2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        p = o1
        q = o2
        for i in pl.range(4):  # the device wrote every block into o1
            p[i * 16:i * 16 + 16, :] = pl.adds(x[i * 16:i * 16 + 16, :], 1.0)
            p, q = q, p
    return o1, o2
