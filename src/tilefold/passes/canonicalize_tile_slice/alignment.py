"""Is a slice's zero-copy address provably 32-byte aligned? (the #1789 fact every Vec rule asks)

Contract: ``slice_alignment(info, facts)`` is a pure function of a canonical slice (``SliceInfo``: base, offsets)
and the scalar facts of its function. It returns an ``Alignment`` whose ``status`` is ``"aligned"`` (proved),
``"misaligned"`` (the constant part is off a 32-byte boundary by ``misaligned_bytes``) or ``"unprovable"``
(treated like a misalignment by every caller), with ``how`` explaining the proof or the failure in words that
go into remarks. It builds no IR and records nothing.

The address is ``bits = memref_byte_offset * 8 + sum_d(off_d * stride_d) * storage_bits`` past the base
allocation, with row-major element strides of the base, and is aligned when ``bits mod 256 == 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefold.analysis.scalar_facts import ScalarFacts
from tilefold.analysis.slice_windows import SliceInfo

ALIGN_BITS = 256  # vector operands need 32-byte aligned base addresses


@dataclass(frozen=True)
class Alignment:
    status: str  # "aligned" | "misaligned" | "unprovable"
    how: str
    misaligned_bytes: int | None = None


def slice_alignment(info: SliceInfo, facts: ScalarFacts) -> Alignment:
    """Is the zero-copy address ``base + offset`` of a slice provably 32-byte aligned?

    bits = memref_byte_offset * 8 + (sum_d off_d * stride_d) * storage_bits, checked mod 256. A concrete
    MemRef byte offset counts; no MemRef or the planning sentinel (byte_offset None) is an aligned root;
    a symbolic byte offset is unprovable. Dynamic offsets count through their known multiple.
    """
    bt = info.base_type
    if bt is None:
        return Alignment("unprovable", "the base is not a tile")
    bits = bt.dtype.storage_bits
    const_bits = 0
    proofs: list[str] = []
    mr = bt.memref
    if mr is not None and mr.byte_offset is not None:
        off = facts.const_value(mr.byte_offset)
        if off is None:
            return Alignment("unprovable", f"the MemRef byte offset of '{info.base.name}' is not a constant")
        const_bits += off * 8
    shape = bt.static_shape
    rank = len(info.offsets)
    for d, off_expr in enumerate(info.offsets):
        c = facts.const_value(off_expr)
        if c == 0:
            continue
        stride = row_major_stride(shape, d, rank)
        if stride is None:
            return Alignment("unprovable", f"the extents of '{info.base.name}' after axis {d} are symbolic")
        if c is not None:
            const_bits += c * stride * bits
            continue
        mult = facts.known_multiple(off_expr)
        step_bits = mult * stride * bits
        if step_bits % ALIGN_BITS:
            what = f"a multiple of {mult}" if mult > 1 else "not a known multiple"
            return Alignment(
                "unprovable",
                f"axis-{d} offset {facts.describe(off_expr)} is {what}; steps of {step_bits // 8} B are not "
                "provably 32-byte aligned",
            )
        proofs.append(f"axis-{d} offset {facts.describe(off_expr)} moves by multiples of {step_bits // 8} B")
    rem = const_bits % ALIGN_BITS
    if rem:
        return Alignment("misaligned", f"the constant part is {const_bits // 8} B, {rem // 8} B past a 32-byte "
                                       "boundary", rem // 8)
    proofs.insert(0, f"constant part {const_bits // 8} B is a multiple of 32 B")
    return Alignment("aligned", "; ".join(proofs))


def row_major_stride(shape: tuple[int, ...] | None, axis: int, rank: int) -> int | None:
    """The element stride of ``axis`` in a row-major tile of ``shape`` (None when an inner extent is unknown)."""
    if axis == rank - 1:
        return 1
    if shape is None or len(shape) != rank:
        return None
    s = 1
    for e in shape[axis + 1:]:
        s *= e
    return s

