"""jit kernels with partial tiles: pl.load(..., valid_shapes=...), pl.fillpad with pl.PadValue, reductions over
the padded tile; a real module: @pl.jit reads sources."""

import tilefold.language as pl

BLOCK = 32


@pl.jit
def block_row_max(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    """out[r] = max(x[r, :n]): the tile is loaded with n valid columns and padded with the dtype's minimum."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[16, n])
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        tmp = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        pl.store(pl.row_max(p, tmp), [0, 0], out)
    return out


@pl.jit
def padded_copy(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """A static valid region [10, 40], the rest of the tile filled (positional PadValue, PyPTO's spelling)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[10, 40])
        pl.store(pl.fillpad(t, pl.PadValue.max), [0, 0], out)
    return out


@pl.jit
def column_sums(x: pl.Tensor[[pl.dynamic("M"), 64], pl.FP32], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    """out = x.sum(0) over a dynamic row count: blocks of BLOCK rows, the last one partial (min(...) valid
    rows), zero-padded before the column sum, accumulated in a loop-carried tile (M >= 1)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.tensor.dim(x, 0)
        first = pl.load(x, [0, 0], [BLOCK, 64], valid_shapes=[pl.min(m, BLOCK), 64])
        acc = pl.col_sum(pl.fillpad(first, pad_value=pl.PadValue.zero))
        for i in pl.range(1, (m + BLOCK - 1) // BLOCK):
            rows = pl.min(m - i * BLOCK, BLOCK)
            t = pl.load(x, [i * BLOCK, 0], [BLOCK, 64], valid_shapes=[rows, 64])
            z = pl.fillpad(t, pad_value=pl.PadValue.zero)
            acc = pl.add(acc, pl.col_sum(z))
        pl.store(acc, [0, 0], out)
    return out


@pl.jit
def scaled_blocks(x: pl.Tensor[[pl.dynamic("M"), 64], pl.FP32], out: pl.Out[pl.Tensor[[pl.dynamic("M"), 64], pl.FP32]]):
    """out = 2 x + 1 block by block: the partial last block's valid rows flow through the element-wise ops into
    the store, which writes those rows only (the block's window passes the tensor's end)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.tensor.dim(x, 0)
        for i in pl.range(0, (m + BLOCK - 1) // BLOCK):
            rows = pl.min(m - i * BLOCK, BLOCK)
            t = pl.load(x, [i * BLOCK, 0], [BLOCK, 64], valid_shapes=[rows, 64])
            pl.store(pl.adds(pl.mul(t, 2.0), 1.0), [i * BLOCK, 0], out)
    return out
