"""jit kernels reading single GM elements (pl.read / pl.tensor.read); a real module: @pl.jit reads sources."""

import tilefold.language as pl


@pl.jit
def scaled_rows(a: pl.Tensor[[64, 64], pl.FP32], scale: pl.Tensor[[2, 4], pl.FP32],
                offs: pl.Tensor[[4], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """out = a[offs[1] : offs[1] + 16, :] * scale[1, 2]: one read is an offset, one a multiplier."""
    with pl.at(level=pl.Level.CORE_GROUP):
        row = pl.read(offs, [1])
        s = pl.tensor.read(scale, [1, 2])
        t = pl.load(a, [row, 0], [16, 64])
        pl.store(pl.mul(t, s), [0, 0], out)
    return out


@pl.jit
def read_at(a: pl.Tensor[[16, 64], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """out = a + a[i, 3] (a runtime index: out of range faults on the device)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.read(a, [i, 3])
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(pl.add(t, s), [0, 0], out)
    return out


@pl.jit
def store_then_read(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                    res: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """out = 2 a is stored, then its element [5, 7] is read back (the read must see the store)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(pl.mul(t, 2.0), [0, 0], out)
        s = pl.read(out, [5, 7])
        pl.store(pl.adds(t, s), [0, 0], res)
    return out, res
