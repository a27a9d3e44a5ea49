# exit: 2
# expect: File exists
# expect: --dump-dir names a directory
# argv: run {file} --dump-args 1 --dump-dir {file}
# --dump-dir naming an existing file: was "error: [Errno 17] File exists" with no hint.
import tilefold.language as pl


@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    pl.dump_tag(a)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
