"""jit kernels writing single GM elements (pl.write / pl.tensor.write); a real module: @pl.jit reads sources."""

import tilefold.language as pl


@pl.jit
def write_ramp(out: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
    """out[r, c] = 10 r + c, every element written with pl.write (no bulk store touches out)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(4):
            for c in pl.range(8):
                pl.write(out, [r, c], r * 10 + c)
    return out


@pl.jit
def scatter_scaled(a: pl.Tensor[[16], pl.FP32], idx: pl.Tensor[[4], pl.INT32], out: pl.InOut[pl.Tensor[[16], pl.FP32]]):
    """out[idx[j]] = 2 a[idx[j]] for j < 4: element reads steering element writes."""
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(4):
            i = pl.read(idx, [j])
            v = pl.read(a, [i])
            pl.tensor.write(out, [i], v * 2.0)
    return out


@pl.jit
def write_then_load(a: pl.Tensor[[16, 64], pl.FP32], flag: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
                    out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """flag[3, 5] = 7 is written, then flag is loaded and added to a (the load must see the write)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.write(flag, [3, 5], 7.0)
        f = pl.load(flag, [0, 0], [16, 64])
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(pl.add(t, f), [0, 0], out)
    return out


@pl.jit
def mixed_store_paths(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    """Rejected: a bulk store and an element write into the same GM tensor (PyPTO's store coherence rule)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(t, [0, 0], out)
        pl.write(out, [0, 3], 1.0)
    return out


@pl.jit
def write_at(a: pl.Tensor[[16, 64], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]):
    """out[i, 2] = a[0, 0] + 1 (a runtime index: out of range faults on the device)."""
    with pl.at(level=pl.Level.CORE_GROUP):
        v = pl.read(a, [0, 0])
        pl.write(out, [i, 2], v + 1.0)
    return out


@pl.jit
def staged_writes(output: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
    """PyPTO's supported staging: element writes into an on-chip tile, then one store of the whole tile."""
    with pl.at(level=pl.Level.CORE_GROUP):
        staged = pl.tile.full([1, 32], dtype=pl.INT32, value=-1)
        for i in pl.range(4):
            pl.write(staged, [0, i], i * 3)
        output[0:1, 0:32] = staged
    return output
