"""Byte-addressed on-chip memories and tile access in ND, DN and NZ layouts.

A memory space is one ``numpy.uint8`` array per core (Vec: per AIV sub-block), allocated once. A tile is
accessed through a ``Handle`` (space, address, rows, cols, pitch, dtype, layout); reads and writes build a
strided numpy view straight over the bytes, so an access is one vectorised numpy operation:

- ``ND``: element (r, c) at ``address + (r * pitch + c) * itemsize``;
- ``DN``: element (r, c) at ``address + (c * pitch + r) * itemsize`` (transposed views);
- ``NZ``: 16x16 fractals; element (r, c) lies in block (r // 16, c // 16), stored at
  ``address + ((c // 16) * (pitch / 16) + r // 16) * fractal_bytes``, row-major inside the block
  (``pitch`` is the padded row count of the tile the column blocks belong to).

The 4-bit types (``DataType.packed``: FP4, INT4, UINT4) pack two elements per byte: ND only, element (r, c) in byte
``address + (r * pitch + c) // 2``, the even column in the low nibble. Reads unpack (a copy), writes pack;
a row must hold whole bytes (even ``cols`` and ``pitch``), and a DN / NZ 4-bit tile is an ``UnsupportedDataPath``.
"""

from __future__ import annotations

import numpy as np

from tilefold.ir.types import DataType, MemorySpace, dtype_from_numpy

from .faults import OutOfBounds

FR = 16  # fractal rows / cols of the NZ layout


class Handle:
    """A tile in a memory space: address, shape, pitch, dtype and layout (immutable; derived sizes cached)."""

    __slots__ = ("space", "space_name", "address", "rows", "cols", "pitch", "dtype", "layout", "isz", "np_dtype",
                 "nbytes", "lo", "hi", "_views", "packed")

    def __init__(self, space: MemorySpace, address: int, rows: int, cols: int, pitch: int, dtype: DataType,
                 layout: str = "ND") -> None:
        self.space = space
        self.space_name = space.name
        self.address = address
        self.rows = rows
        self.cols = cols
        self.pitch = pitch
        self.dtype = dtype
        self.layout = layout
        self.isz = dtype.itemsize
        self.np_dtype = dtype.np_dtype
        self.packed = dtype.packed
        self.nbytes = dtype.nbytes(rows * cols)
        self.lo, self.hi = self._span()
        self._views: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # id(memory) -> (memory, view)

    def __repr__(self) -> str:
        return f"Handle({self.describe()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Handle) and all(getattr(self, k) == getattr(other, k) for k in
                                                 ("space", "address", "rows", "cols", "pitch", "dtype", "layout"))

    def __hash__(self) -> int:
        return hash((self.space, self.address, self.rows, self.cols, self.pitch, self.dtype, self.layout))

    def span(self) -> tuple[int, int]:
        """[first byte, one past the last byte] the handle touches."""
        return self.lo, self.hi

    def _span(self) -> tuple[int, int]:
        if self.packed:  # ND rows of whole bytes (checked where the tile is accessed)
            return self.address, self.address + self.dtype.nbytes((self.rows - 1) * self.pitch + self.cols)
        isz = self.isz
        if self.layout == "NZ":
            frac = FR * FR * isz
            rb, cb = -(-self.rows // FR), -(-self.cols // FR)
            last = ((cb - 1) * (self.pitch // FR) + (rb - 1)) * frac + frac
            return self.address, self.address + last
        if self.layout == "DN":
            return self.address, self.address + ((self.cols - 1) * self.pitch + self.rows) * isz
        return self.address, self.address + ((self.rows - 1) * self.pitch + self.cols) * isz

    def describe(self) -> str:
        return (f"{self.space.name}[0x{self.address:x}] {self.rows}x{self.cols} {self.dtype.name.lower()} "
                f"pitch={self.pitch} {self.layout}")


def _check(mem: np.ndarray, h: Handle, instr: str) -> None:
    lo, hi = h.lo, h.hi
    if lo < 0 or hi > mem.shape[0]:
        raise OutOfBounds(
            f"tile {h.describe()} spans bytes [0x{lo:x}, 0x{hi:x}) but {h.space.name} has {mem.shape[0]} bytes",
            instruction=instr, address=lo, space=h.space.name,
            hint="the tile does not fit its memory space at this address; check memory planning and offsets")


_MAX_CACHED_VIEWS = 4  # per handle: one per memory it was used with (Vec of both sub-blocks, ...)


def _cached(mem: np.ndarray, h: Handle) -> np.ndarray | None:
    hit = h._views.get(id(mem))
    # the cache entry keeps its memory alive, so an id can never be reused by another live array
    return hit[1] if hit is not None and hit[0] is mem else None


def _remember(mem: np.ndarray, h: Handle, view: np.ndarray) -> np.ndarray:
    if len(h._views) >= _MAX_CACHED_VIEWS:
        h._views.clear()
    h._views[id(mem)] = (mem, view)
    return view


def nd_view(mem: np.ndarray, h: Handle, instr: str = "") -> np.ndarray:
    """A writable numpy view of an ND / DN tile (no copy). Views are built once per (handle, memory)."""
    v = _cached(mem, h)
    if v is not None:
        return v
    if h.lo < 0 or h.hi > mem.shape[0]:
        _check(mem, h, instr)
    isz = h.isz
    strides = (h.pitch * isz, isz) if h.layout == "ND" else (isz, h.pitch * isz)
    return _remember(mem, h, np.ndarray((h.rows, h.cols), dtype=h.np_dtype, buffer=mem, offset=h.address,
                                        strides=strides))


def _nz_view(mem: np.ndarray, h: Handle, instr: str) -> np.ndarray:
    """The tile as a 4-D view (row block, row in block, column block, column in block) over its fractals."""
    v = _cached(mem, h)
    if v is not None:
        return v
    _check(mem, h, instr)
    isz = h.isz
    frac = FR * FR * isz
    rb, cb = -(-h.rows // FR), -(-h.cols // FR)
    return _remember(mem, h, np.ndarray((rb, FR, cb, FR), dtype=h.dtype.np_dtype, buffer=mem, offset=h.address,
                                        strides=(frac, FR * isz, (h.pitch // FR) * frac, isz)))


def _packed_bytes(mem: np.ndarray, h: Handle, instr: str) -> np.ndarray:
    """The bytes of a 4-bit tile: a (rows, cols / 2) uint8 view."""
    from .faults import UnsupportedDataPath

    if h.layout != "ND" or h.cols % 2 or (h.rows > 1 and h.pitch % 2):
        raise UnsupportedDataPath(f"{h.dtype.name} tile {h.describe()}: two elements share a byte, so the tile must be "
                                  "row-major with rows of whole bytes (even columns and pitch)", instruction=instr,
                                  address=h.address, space=h.space.name,
                                  hint="give 4-bit (FP4 / INT4 / UINT4) tiles an even innermost extent; transposed / "
                                       "fractal 4-bit layouts are not modelled: cast to FP16 first")
    _check(mem, h, instr)
    return np.ndarray((h.rows, h.cols // 2), dtype=np.uint8, buffer=mem, offset=h.address,
                      strides=(h.pitch // 2, 1))


def _packed_read(mem: np.ndarray, h: Handle, instr: str) -> np.ndarray:
    b = _packed_bytes(mem, h, instr)
    codes = np.empty((h.rows, h.cols), np.uint8)
    codes[:, 0::2] = b & 0x0F
    codes[:, 1::2] = b >> 4
    return codes.view(h.np_dtype)


def _packed_write(mem: np.ndarray, h: Handle, value: np.ndarray, instr: str) -> None:
    b = _packed_bytes(mem, h, instr)
    full = np.empty((h.rows, h.cols), h.np_dtype)
    assign(full, value)
    codes = full.view(np.uint8) & 0x0F
    b[...] = codes[:, 0::2] | (codes[:, 1::2] << 4)


def read(mem: np.ndarray, h: Handle, instr: str = "") -> np.ndarray:
    """The tile's values. ND / DN reads return a view over memory (callers must not keep it across
    writes); NZ and 4-bit reads return a copy in row-major order."""
    if h.packed:
        return _packed_read(mem, h, instr)
    if h.layout != "NZ":
        hit = h._views.get(id(mem))  # nd_view's cache, inlined: this is the hot path
        if hit is not None and hit[0] is mem:
            return hit[1]
        return nd_view(mem, h, instr)
    v = _nz_view(mem, h, instr)
    rb, cb = v.shape[0], v.shape[2]
    dense = v.reshape(rb * FR, cb * FR)
    if dense.shape != (h.rows, h.cols):
        dense = dense[:h.rows, :h.cols]
    return dense


def write(mem: np.ndarray, h: Handle, value: np.ndarray, instr: str = "") -> None:
    """Store ``value`` (broadcast to the tile shape, converted to its dtype) into the tile."""
    if h.packed:
        _packed_write(mem, h, value, instr)
        return
    if h.layout != "NZ":
        hit = h._views.get(id(mem))
        dst = hit[1] if hit is not None and hit[0] is mem else nd_view(mem, h, instr)
        if type(value) is np.ndarray and value.shape == dst.shape and value.dtype == dst.dtype:
            np.copyto(dst, value)  # assign's common case
            return
        assign(dst, value)
        return
    v = _nz_view(mem, h, instr)
    rb, cb = v.shape[0], v.shape[2]
    if (rb * FR, cb * FR) == (h.rows, h.cols):
        value = np.asarray(value)
        if value.shape == (h.rows, h.cols) and value.dtype.kind == "f" and h.np_dtype.kind == "f":
            v[...] = value.reshape(rb, FR, cb, FR)  # IEEE round-to-nearest, as astype
            return
        full = np.empty((h.rows, h.cols), dtype=h.dtype.np_dtype)
        assign(full, value)
    else:  # partial fractals: read-modify-write the padded blocks
        full = v.reshape(rb * FR, cb * FR).copy()
        assign(full[:h.rows, :h.cols], value)
    v[...] = full.reshape(rb, FR, cb, FR)


def assign(dst: np.ndarray, value) -> None:
    value = np.asarray(value)
    if value.dtype == dst.dtype:
        np.copyto(dst, np.broadcast_to(value, dst.shape) if value.shape != dst.shape else value)
        return
    from tilefold.ops.conversions import is_float_dtype, to_dtype

    if is_float_dtype(dst.dtype) and is_float_dtype(value.dtype):
        np.copyto(dst, value.astype(dst.dtype) if value.dtype.kind == "V" or dst.dtype.kind == "V"
                  else np.broadcast_to(value, dst.shape), casting="unsafe")
        return
    converted = to_dtype(value, _dtype_of(dst.dtype))
    np.copyto(dst, np.broadcast_to(converted, dst.shape))


def _dtype_of(np_dtype: np.dtype) -> DataType:
    dt = dtype_from_numpy(np_dtype)
    if dt is None:
        raise KeyError(np.dtype(np_dtype))
    return dt


def copy_rows(mem_src: np.ndarray, src: Handle, mem_dst: np.ndarray, dst: Handle, instr: str = "") -> None:
    """Copy ``src`` into ``dst`` (same shape) as the hardware's row-by-row copy engine does.

    When both tiles live in the same memory and their byte ranges overlap, rows are copied in order, each
    row read after the previous rows were written. An in-place strided -> dense repack into a buffer
    inside its own source therefore overwrites the source: only row 0, whose dense destination equals
    its source, survives intact."""
    if src.layout == "NZ" or dst.layout == "NZ" or src.packed or dst.packed:  # (4-bit reads are copies)
        write(mem_dst, dst, read(mem_src, src, instr), instr)
        return
    s = nd_view(mem_src, src, instr)
    d = nd_view(mem_dst, dst, instr)
    if mem_src is mem_dst:
        s_lo, s_hi = src.span()
        d_lo, d_hi = dst.span()
        if s_lo < d_hi and d_lo < s_hi:
            if s_lo == d_lo and src.pitch == dst.pitch and src.layout == dst.layout and src.dtype == dst.dtype:
                return  # identity copy
            for r in range(src.rows):
                d[r] = s[r]
            return
    assign(d, s)


__all__ = ["FR", "Handle", "assign", "copy_rows", "nd_view", "read", "write"]
