"""Byte-level tile access: ND pitch, NZ fractal placement, row-by-row overlapping copies."""

import numpy as np
import pytest

from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import Handle, OutOfBounds, copy_rows, read, write

F = DataType.FP32


def test_nd_read_honours_address_and_pitch():
    mem = np.zeros(4096, dtype=np.uint8)
    full = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    mem[:full.nbytes] = full.view(np.uint8).reshape(-1)
    win = read(mem, Handle(MemorySpace.Vec, (2 * 16 + 4) * 4, 3, 5, 16, F))
    np.testing.assert_array_equal(win, full[2:5, 4:9])


def test_nd_write_leaves_the_gaps_between_rows_alone():
    mem = np.zeros(1024, dtype=np.uint8)
    write(mem, Handle(MemorySpace.Vec, 0, 2, 2, 4, F), np.ones((2, 2), np.float32))
    got = mem[:32].view(np.float32).reshape(2, 4)
    np.testing.assert_array_equal(got, [[1, 1, 0, 0], [1, 1, 0, 0]])


def test_nz_block_placement():
    """Block (r_b, c_b) of an [M, N] NZ tile sits at (c_b * M/16 + r_b) * fractal_bytes."""
    mem = np.zeros(64 * 1024, dtype=np.uint8)
    m, n = 32, 48
    value = np.arange(m * n, dtype=np.float32).reshape(m, n)
    write(mem, Handle(MemorySpace.Acc, 0, m, n, m, F, "NZ"), value)
    frac = 16 * 16 * 4
    for rb in range(m // 16):
        for cb in range(n // 16):
            off = (cb * (m // 16) + rb) * frac
            block = mem[off:off + frac].view(np.float32).reshape(16, 16)
            np.testing.assert_array_equal(block, value[rb * 16:(rb + 1) * 16, cb * 16:(cb + 1) * 16])
    np.testing.assert_array_equal(read(mem, Handle(MemorySpace.Acc, 0, m, n, m, F, "NZ")), value)


def test_nz_window_with_parent_pitch_and_partial_fractals():
    mem = np.zeros(64 * 1024, dtype=np.uint8)
    value = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    write(mem, Handle(MemorySpace.Acc, 0, 32, 32, 32, F, "NZ"), value)
    # column block 1 of the parent (a window covering all rows) starts 2 fractals in
    right = read(mem, Handle(MemorySpace.Acc, 2 * 1024, 32, 16, 32, F, "NZ"))
    np.testing.assert_array_equal(right, value[:, 16:])
    # a 1-row tile occupies a whole (padded) fractal row
    one = np.full((1, 16), 7.0, np.float32)
    write(mem, Handle(MemorySpace.Acc, 8192, 1, 16, 16, F, "NZ"), one)
    np.testing.assert_array_equal(read(mem, Handle(MemorySpace.Acc, 8192, 1, 16, 16, F, "NZ")), one)


def test_overlapping_strided_to_dense_copy_destroys_source_except_row_0():
    """#2010 mechanics: repacking t[:, 64:128] of a [16, 128] FP32 tile densely at t + 256 B."""
    mem = np.zeros(16 * 1024, dtype=np.uint8)
    t = np.arange(16 * 128, dtype=np.float32).reshape(16, 128)
    whole = Handle(MemorySpace.Vec, 0, 16, 128, 128, F)
    write(mem, whole, t)
    src = Handle(MemorySpace.Vec, 256, 16, 64, 128, F)
    dst = Handle(MemorySpace.Vec, 256, 16, 64, 64, F)
    copy_rows(mem, src, mem, dst)
    np.testing.assert_array_equal(read(mem, dst), t[:, 64:])  # the dense copy itself is right
    after = read(mem, whole)
    np.testing.assert_array_equal(after[0], t[0])  # row 0 survives
    assert not np.array_equal(after[1:], t[1:])  # every later row of the source is overwritten
    # the strided view of the source no longer holds its data past row 0
    assert not np.array_equal(read(mem, src)[1:], t[1:, 64:])


def test_identity_overlapping_copy_is_a_no_op():
    mem = np.zeros(4096, dtype=np.uint8)
    h = Handle(MemorySpace.Vec, 64, 1, 16, 16, F)
    write(mem, h, np.arange(16, dtype=np.float32)[None])
    copy_rows(mem, h, mem, Handle(MemorySpace.Vec, 64, 1, 16, 16, F))
    np.testing.assert_array_equal(read(mem, h)[0], np.arange(16))


def test_out_of_bounds_access():
    mem = np.zeros(1024, dtype=np.uint8)
    with pytest.raises(OutOfBounds) as exc:
        read(mem, Handle(MemorySpace.Vec, 1000, 2, 8, 8, F), "tadd %x")
    assert exc.value.address == 1000 and "Vec" in str(exc.value)
