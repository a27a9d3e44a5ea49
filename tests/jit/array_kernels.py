"""jit kernels with on-core arrays (pl.array.create in a pl.at scope); a real module: @pl.jit reads sources."""

import tilefold.language as pl


@pl.jit
def reversed_prefix(a: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
    """out[r] = a[r] * c[r], c the running sum 1 + 2 + ... + (r + 1) kept in an array, read backwards."""
    with pl.at(level=pl.Level.CORE_GROUP):
        sums = pl.array.create(8, pl.FP32)
        total = 0.0
        for r in pl.range(8):
            total = total + pl.cast(r + 1, pl.FP32)
            sums[r] = total
        for r in pl.range(8):
            row = pl.load(a, [r, 0], [1, 16])
            pl.store(pl.muls(row, sums[7 - r]), [r, 0], out)
    return out


@pl.jit
def pick_row(a: pl.Tensor[[8, 16], pl.FP32], k: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]):
    """out = a[arr[k]] with arr = [7, 6, ..., 0]: k past the array's end faults on the device."""
    with pl.at(level=pl.Level.CORE_GROUP):
        arr = pl.array.create(8, pl.INDEX)
        for i in pl.range(8):
            arr = pl.array.update_element(arr, i, 7 - i)
        row = pl.load(a, [pl.array.get_element(arr, k), 0], [1, 16])
        pl.store(row, [0, 0], out)
    return out
