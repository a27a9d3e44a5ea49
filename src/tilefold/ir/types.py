"""IR types: data types, memory spaces, scalar / tensor / tile / tuple types, tile views and memrefs.

Types are immutable. Shapes are tuples of expressions (``ConstInt`` for static extents, any scalar
expression for symbolic ones); ``static_shape`` gives plain ints when every extent is constant.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

if TYPE_CHECKING:
    from tilefold.ir.expr import Expr


class DataType(enum.Enum):
    """Element types. Value = (name, bit width, kind) where kind is 'b', 'i', 'u' or 'f'."""

    BOOL = ("BOOL", 8, "b")
    INT4 = ("INT4", 4, "i")
    INT8 = ("INT8", 8, "i")
    INT16 = ("INT16", 16, "i")
    INT32 = ("INT32", 32, "i")
    INT64 = ("INT64", 64, "i")
    UINT4 = ("UINT4", 4, "u")
    UINT8 = ("UINT8", 8, "u")
    UINT16 = ("UINT16", 16, "u")
    UINT32 = ("UINT32", 32, "u")
    UINT64 = ("UINT64", 64, "u")
    FP8E4M3 = ("FP8E4M3", 8, "f")
    FP8E4M3FN = ("FP8E4M3", 8, "f")  # PyPTO's spelling: an alias of FP8E4M3 (E4M3, finite-or-NaN)
    FP8E5M2 = ("FP8E5M2", 8, "f")
    FP8E8M0 = ("FP8E8M0", 8, "f")  # the MX block-scale exponent (2**(e - 127), 0xFF is NaN)
    FP4 = ("FP4", 4, "f")  # MXFP4 E2M1; stored two elements per byte, as PyPTO packs it (``storage_bits``)
    HF4 = ("HF4", 4, "f")  # Hisilicon float formats: PyPTO names them but documents no bit encoding (``encoded``)
    HF8 = ("HF8", 8, "f")
    FP16 = ("FP16", 16, "f")
    BF16 = ("BF16", 16, "f")
    FP32 = ("FP32", 32, "f")
    FP64 = ("FP64", 64, "f")
    INDEX = ("INDEX", 64, "i")

    @property
    def bits(self) -> int:
        return self.value[1]

    @property
    def storage_bits(self) -> int:
        """Bits one element occupies in memory, GM and on chip: the one fact of element sizes. Every 4-bit type
        (FP4, INT4, UINT4, HF4) is packed two per byte (element ``2j`` in the low nibble, ``2j + 1`` in the high
        one), as PyPTO stores it ("PyPTO packs every semantic 4-bit dtype two logical elements per byte"); wider
        types take whole bytes. Sizes of many elements come from ``nbytes``."""
        return 4 if self.value[1] == 4 else max(self.value[1], 8)

    @property
    def packed(self) -> bool:
        """Several elements share a byte (the 4-bit types): an on-chip row must hold a whole number of bytes."""
        return self.storage_bits < 8

    @property
    def encoded(self) -> bool:
        """tilefold knows the type's bit encoding (all but HF4 / HF8, whose encoding PyPTO's pages leave out): only
        such a type can be computed with, moved through the simulator or held in a numpy array."""
        return self in _NUMPY_DTYPES

    def nbytes(self, count: int) -> int:
        """Bytes ``count`` elements occupy (4-bit types: half a byte each, rounded up to whole bytes)."""
        return -(-count * self.storage_bits // 8)

    @property
    def itemsize(self) -> int:
        """Bytes of one element, at least one (a 4-bit element alone still takes a byte); a run of elements takes
        ``nbytes(count)``."""
        return max(self.storage_bits, 8) // 8

    def get_byte(self) -> int:
        """PyPTO's byte-addressable element size, rounded up to one byte (``pl.FP32.get_byte() == 4``; a 4-bit
        type gives 1, though two of its elements share a byte)."""
        return (self.value[1] + 7) // 8

    @property
    def is_float(self) -> bool:
        return self.value[2] == "f"

    @property
    def is_int(self) -> bool:
        return self.value[2] in ("i", "u")

    @property
    def is_bool(self) -> bool:
        return self.value[2] == "b"

    @property
    def np_dtype(self) -> np.dtype:
        np_type = _NUMPY_DTYPES.get(self)
        if np_type is None:
            raise_unencoded(self)
        return np.dtype(np_type)

    @classmethod
    def from_name(cls, name: str) -> DataType:
        try:
            return cls[name.upper()]
        except KeyError as exc:
            raise ValueError(f"unknown data type {name!r}") from exc

    def __repr__(self) -> str:
        return f"DataType.{self.name}"


_NUMPY_DTYPES = {
    DataType.BOOL: np.bool_,
    DataType.INT4: ml_dtypes.int4,
    DataType.INT8: np.int8,
    DataType.INT16: np.int16,
    DataType.INT32: np.int32,
    DataType.INT64: np.int64,
    DataType.UINT4: ml_dtypes.uint4,
    DataType.UINT8: np.uint8,
    DataType.UINT16: np.uint16,
    DataType.UINT32: np.uint32,
    DataType.UINT64: np.uint64,
    DataType.FP8E4M3: ml_dtypes.float8_e4m3fn,
    DataType.FP8E5M2: ml_dtypes.float8_e5m2,
    DataType.FP8E8M0: ml_dtypes.float8_e8m0fnu,
    DataType.FP4: ml_dtypes.float4_e2m1fn,
    DataType.FP16: np.float16,
    DataType.BF16: ml_dtypes.bfloat16,
    DataType.FP32: np.float32,
    DataType.FP64: np.float64,
    DataType.INDEX: np.int64,
}


def raise_unencoded(dtype: DataType, what: str = "", span=None) -> None:
    """The located refusal of a dtype without a documented bit encoding (HF4 / HF8)."""
    from tilefold.errors import NotSupportedError

    raise NotSupportedError(f"{what + ': ' if what else ''}pl.{dtype.name} (a Hisilicon float format) has no "
                            "documented bit encoding: PyPTO's pages name it but do not define its bits, so tilefold "
                            "cannot compute with it, convert it or move it through the simulator", span=span,
                            hint="use a documented type: pl.FP8E4M3FN / pl.FP8E5M2 (8-bit), pl.FP4 (4-bit E2M1), "
                                 "pl.FP16 or pl.BF16")


# numpy dtype -> DataType, the inverse of the table above (INDEX is an int64 too: arrays never carry it)
_FROM_NUMPY = {np.dtype(np_type): dt for dt, np_type in _NUMPY_DTYPES.items() if dt is not DataType.INDEX}


def dtype_from_numpy(np_dtype) -> DataType | None:
    """The DataType of a numpy dtype (None when tilefold has none): the one numpy -> DataType table."""
    try:
        return _FROM_NUMPY.get(np.dtype(np_dtype))
    except TypeError:
        return None


class MemorySpace(enum.Enum):
    """Where a tile lives. DDR is global memory (GM)."""

    DDR = "DDR"
    Vec = "Vec"  # UB of one AIV sub-block
    Mat = "Mat"  # L1 of the cube core
    Left = "Left"  # L0A
    Right = "Right"  # L0B
    Acc = "Acc"  # L0C
    Bias = "Bias"  # bias table

    @classmethod
    def from_name(cls, name: str) -> MemorySpace:
        if name.upper() == "GM":
            return cls.DDR
        for member in cls:
            if member.value.lower() == name.lower():
                return member
        raise ValueError(f"unknown memory space {name!r}")

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


GM = MemorySpace.DDR


class PadValue(enum.Enum):
    """What ``fillpad`` writes outside a tile's valid region (PyPTO's ``pl.PadValue``): ``zero``; ``min`` /
    ``max`` the dtype's lowest / highest value (-inf / +inf for floats, so they never win a max / min);
    ``null`` no padding (the invalid region keeps whatever it holds)."""

    null = "null"
    zero = "zero"
    max = "max"
    min = "min"

    def __repr__(self) -> str:
        return f"PadValue.{self.name}"


class AtomicType(enum.Enum):
    """How a store combines with what GM holds (PyPTO's ``pl.AtomicType``): ``None_`` overwrites, ``Add``
    adds into it (a read-add-write no other unit can interleave with)."""

    None_ = "none"
    Add = "add"

    def __repr__(self) -> str:
        return f"AtomicType.{self.name}"


class PipeType(enum.Enum):
    """The pipes of an AI core as PTO names them (PyPTO's ``pl.PipeType``; HIVM's ``PIPE`` enum): the attribute of
    the in-kernel pipe synchronisation ops (``ops/pipe_sync_ops.py``). ``S`` scalar, ``V`` vector, ``M`` matrix
    (cube), ``MTE1`` L1 -> L0A / L0B, ``MTE2`` GM -> L1 / UB, ``MTE3`` UB -> GM, ``FIX`` the fixpipe (L0C -> GM /
    UB), ``ALL`` every pipe (a ``pipe_barrier`` only). The value is PTO's spelling; which simulated pipe each
    names is a chip fact (``targets.chips.PIPE_TYPE_PIPES``)."""

    S = "PIPE_S"
    V = "PIPE_V"
    M = "PIPE_M"
    MTE1 = "PIPE_MTE1"
    MTE2 = "PIPE_MTE2"
    MTE3 = "PIPE_MTE3"
    FIX = "PIPE_FIX"
    ALL = "PIPE_ALL"

    def __repr__(self) -> str:
        return f"PipeType.{self.name}"


class Type:
    """Base class of IR types."""

    __slots__ = ()


@dataclass(frozen=True)
class ScalarType(Type):
    dtype: DataType


@dataclass(frozen=True)
class UnknownType(Type):
    """Type of expressions that produce nothing (e.g. a store used as a statement)."""


@dataclass(frozen=True)
class TupleType(Type):
    types: tuple[Type, ...]


class _ShapedType(Type):
    """Shape queries shared by tensor and tile types (both have a ``shape`` field)."""

    __slots__ = ()
    shape: tuple[Expr, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def static_shape(self) -> tuple[int, ...] | None:
        return static_shape(self.shape)


@dataclass(frozen=True)
class TensorType(_ShapedType):
    """A tensor in global memory."""

    shape: tuple[Expr, ...]
    dtype: DataType


@dataclass(frozen=True)
class TileView:
    """Non-default view facts of a tile: valid shape, block / scatter layout, fractal, padding.

    A field left ``None`` means the implicit value: the whole shape is valid, and the layout / fractal are
    the ones the tile's memory space implies (``IMPLICIT_LAYOUTS``). The canonical form of a type stores
    only the facts that differ from the implicit ones, and no TileView at all when none does: build views
    through ``canonical_tile_view``.
    """

    valid_shape: tuple[Expr, ...] | None = None
    blayout: str | None = None  # "row_major" | "col_major"
    slayout: str | None = None  # "none_box" | "row_major" | "col_major"
    fractal: int | None = None  # bytes of one fractal
    pad: str | None = None  # "null" (no padding, the implicit value) | "zero" | "max" | "min"


@dataclass(frozen=True)
class ImplicitLayout:
    """The layout a tile has in a memory space when its TileView says nothing else."""

    blayout: str
    slayout: str
    fractal: int  # bytes of one fractal


# The fractal model (PTO tile layouts of the 910B-class cube / vector cores):
# - Vec (UB): plain row-major (ND), no inner boxes.
# - Mat (L1): NZ, column-major blocks of row-major 512-byte fractals (16 rows x 32 bytes).
# - Left (L0A): ZZ, row-major blocks of row-major 512-byte fractals.
# - Right (L0B): ZN, row-major blocks of column-major 512-byte fractals.
# - Acc (L0C): NZ, column-major blocks of row-major 16x16 fractals of 4-byte elements (1024 bytes).
# DDR and Bias have no implicit tile layout: only a full valid shape is implicit there.
IMPLICIT_LAYOUTS: dict[MemorySpace, ImplicitLayout] = {
    MemorySpace.Vec: ImplicitLayout("row_major", "none_box", 512),
    MemorySpace.Mat: ImplicitLayout("col_major", "row_major", 512),
    MemorySpace.Left: ImplicitLayout("row_major", "row_major", 512),
    MemorySpace.Right: ImplicitLayout("row_major", "col_major", 512),
    MemorySpace.Acc: ImplicitLayout("col_major", "row_major", 1024),
}
IMPLICIT_PAD = "null"


def _static_extent(extent: Expr) -> int | None:
    """The value of a ``ConstInt`` extent, else None (``ir.expr`` imports this module, so the class is known by
    its ``is_const_int`` marker)."""
    return extent.value if getattr(extent, "is_const_int", False) else None


def _same_extents(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x is y:
            continue
        vx, vy = _static_extent(x), _static_extent(y)
        if vx is None or vy is None or vx != vy:
            return False
    return True


def canonical_tile_view(shape: tuple[Expr, ...], memory_space: MemorySpace | None,
                        view: TileView | None) -> TileView | None:
    """The canonical form of ``view`` for a tile of ``shape`` in ``memory_space``.

    Drops a valid shape equal to the shape (same ConstInt values or the very same expressions), a pad of
    ``"null"``, and blayout / slayout / fractal equal to the memory space's implicit layout
    (``IMPLICIT_LAYOUTS``; a tile without a memory space has no implicit layout). Returns None when nothing
    remains, ``view`` itself when nothing was dropped.
    """
    if view is None:
        return None
    valid = view.valid_shape
    if valid is not None and _same_extents(valid, shape):
        valid = None
    blayout, slayout, fractal = view.blayout, view.slayout, view.fractal
    implicit = IMPLICIT_LAYOUTS.get(memory_space) if memory_space is not None else None
    if implicit is not None:
        if blayout == implicit.blayout:
            blayout = None
        if slayout == implicit.slayout:
            slayout = None
        if fractal == implicit.fractal:
            fractal = None
    pad = None if view.pad == IMPLICIT_PAD else view.pad
    if valid is None and blayout is None and slayout is None and fractal is None and pad is None:
        return None
    if (valid is view.valid_shape and blayout is view.blayout and slayout is view.slayout
            and fractal is view.fractal and pad is view.pad):
        return view
    return TileView(valid, blayout, slayout, fractal, pad)


@dataclass(frozen=True)
class MemRef:
    """The storage a tile occupies: a base allocation, a byte offset into it, and its size.

    ``base`` names the root allocation, ``size`` is the bytes the tile occupies, ``address`` the absolute
    address AllocateMemoryAddr stamps (None before that pass).

    ``byte_offset`` is the tile's first byte relative to the root, an INDEX expression. InitMemRef
    (``passes/memory_planning/init_mem_ref.py``) always writes an expression, never None: ``ConstInt(0)`` for a tile
    that gets a root allocation of its own, and the source's offset plus the window's byte offset (folded to
    a ``ConstInt`` when static, else a scalar expression such as ``b * 64``) for a view; write-through
    results, iter args and loop results copy the MemRef they share. ``None`` is the planning sentinel: the
    tile sits on an allocated root whose offset, and hence address, is not assigned yet. It only comes from
    hand-written IR (``pl.MemRef(space, base, None, size)``); memory planning reads it as offset 0 when it
    allocates addresses, and MemoryReuse only takes a member with a ``ConstInt(0)`` offset as the root of a
    storage group.
    """

    memory_space: MemorySpace
    base: str
    byte_offset: Expr | None
    size: int
    address: int | None = None  # absolute address after AllocateMemoryAddr


@dataclass(frozen=True)
class TileType(_ShapedType):
    """An on-chip tile."""

    shape: tuple[Expr, ...]
    dtype: DataType
    memory_space: MemorySpace | None = None
    memref: MemRef | None = None
    tile_view: TileView | None = None

    @property
    def num_bytes(self) -> int | None:
        shape = self.static_shape
        if shape is None:
            return None
        count = 1
        for extent in shape:
            count *= extent
        return self.dtype.nbytes(count)


def static_shape(shape: tuple[Expr, ...]) -> tuple[int, ...] | None:
    """Plain ints when every extent is a ConstInt, else None."""
    out = []
    for extent in shape:
        value = _static_extent(extent)
        if value is None:
            return None
        out.append(value)
    return tuple(out)


INDEX = ScalarType(DataType.INDEX)
BOOL = ScalarType(DataType.BOOL)
