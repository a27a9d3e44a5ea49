# exit: 2
# expect: cannot use /nonexistent-tilefold-dir/t.json: No such file or directory
# expect: hint: check the path
# argv: run {file} --trace /nonexistent-tilefold-dir/t.json
# --trace into a missing directory: was "error: [Errno 2] ..." with no hint.
import tilefold.language as pl


@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
