"""jit kernels whose element reads take other element reads as indices (a real module: @pl.jit reads sources)."""

import tilefold.language as pl


@pl.jit
def add_picked(t: pl.Tensor[[16, 8], pl.FP32], idx: pl.Tensor[[4], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
    """out = t + t[idx[2], 3]: the row of the read is itself read from GM."""
    with pl.at(level=pl.Level.CORE_GROUP):
        v = pl.read(t, [pl.read(idx, [2]), 3])
        x = pl.load(t, [0, 0], [16, 8])
        pl.store(pl.add(x, v), [0, 0], out)
    return out


@pl.jit
def gather_shifted(t: pl.Tensor[[16, 8], pl.FP32], idx: pl.Tensor[[4], pl.INT32],
                   out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    """out[i] = t[idx[i] + 1, :] + t[idx[i], i + 2]: reads inside index arithmetic, in a loop."""
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            r = pl.read(idx, [i]) + 1
            v = pl.read(t, [pl.read(idx, [i]) * 1, i + 2])
            row = pl.load(t, [r, 0], [1, 8])
            pl.store(pl.adds(row, v), [i, 0], out)
    return out


@pl.jit
def gated_copy(t: pl.Tensor[[16, 8], pl.FP32], flags: pl.Tensor[[4], pl.INT32],
               out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    """out[i] = t[i] when flags[i] > 0, else -t[i]: a read as an if condition."""
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            row = pl.load(t, [i, 0], [1, 8])
            if pl.read(flags, [i]) > 0:
                pl.store(row, [i, 0], out)
            else:
                pl.store(pl.neg(row), [i, 0], out)
    return out


@pl.jit
def read_trip_count(t: pl.Tensor[[16, 8], pl.FP32], n: pl.Tensor[[2], pl.INT32],
                    out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
    """out[i] = 2 t[i] for i < n[1]: a read as a loop bound (rows past it keep their values)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(pl.read(n, [1])):
            row = pl.load(t, [i, 0], [1, 8])
            pl.store(pl.muls(row, 2.0), [i, 0], out)
    return out
