"""Clipped per-half stores on the MLIR side: a ``tensor.extract_slice`` window ``[off, off + n)`` of a halved
value, stored (``hivm.hir.store ins(%s) outs(%view)``), becomes in each sub-block the part of the window inside
its half, with upstream-style ``affine.max`` / ``affine.min`` arithmetic on the sub-block index ``%sb``::

    %lo    = min(max(off - sb * H, 0), H)        %hi = min(max(off + n - sb * H, 0), H)
    %count = hi - lo                             %shift = min(max(sb * H - off, 0), n)
    %part  = tensor.extract_slice %half[.., %lo, ..] [.., %count, ..] [1, ..]
    %dst   = memref.subview %view[.., %shift, ..] [.., %count, ..] [1, ..]
    hivm.hir.store ins(%part) outs(%dst) {tiled_op}

The same clipping TileAndBindSubBlock applies to the lowered function (``passes/tile_and_bind_sub_block/
window_stores.py`` for a window, ``prefix_slices.py`` for a prefix ``off = 0``); the pass's decision is what this
module prints. The tilefold side may copy a half into a wider tile so that its static-shape window stays inside
it; MLIR's dynamic-size slice needs no such copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    StridedLayoutAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer


@irdl_op_definition
class AffineMaxOp(IRDLOperation):
    """``affine.max #map(dims)[symbols]`` (xDSL declares only ``affine.min``)."""

    name = "affine.max"
    arguments = var_operand_def(IndexType())
    result = result_def(IndexType())
    map = prop_def(AffineMapAttr)

    def __init__(self, map_operands, affine_map: AffineMapAttr):
        super().__init__(operands=[map_operands], properties={"map": affine_map}, result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser) -> AffineMaxOp:
        pos = parser.pos
        m = parser.parse_attribute()
        if not isinstance(m, AffineMapAttr):
            parser.raise_error("Expected affine map attr", at_position=pos)
        dims = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN,
                                                          lambda: parser.parse_operand(IndexType())) or []
        syms = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE,
                                                          lambda: parser.parse_operand(IndexType())) or []
        return cls(dims + syms, m)

    def print(self, printer: Printer) -> None:
        affine.MinOp.print(self, printer)


@dataclass
class ClippedStore:
    store: Operation  # hivm.hir.store
    slice: tensor.ExtractSliceOp
    axis: int  # MLIR axis of the window
    half: int  # H


def window_axis(op: tensor.ExtractSliceOp, source_shape: list[int]) -> int | None:
    """The one axis on which the slice is a window of its source (every other axis covered from 0), or None."""
    offs = list(op.static_offsets.get_values())
    sizes = list(op.static_sizes.get_values())
    strides = list(op.static_strides.get_values())
    if any(s != 1 for s in strides) or any(s < 0 for s in sizes) or len(sizes) != len(source_shape):
        return None
    axes = [a for a, (o, s) in enumerate(zip(offs, sizes, strict=True)) if o != 0 or s != source_shape[a]]
    return axes[0] if len(axes) == 1 else None


def _offset_of(op: tensor.ExtractSliceOp, axis: int) -> int | SSAValue:
    dyn = iter(op.offsets)
    for a, o in enumerate(op.static_offsets.get_values()):
        v = next(dyn) if o == DYNAMIC_INDEX else o
        if a == axis:
            return v
    raise ValueError(axis)


class _Builder:
    """Index arithmetic inserted before one op."""

    def __init__(self, block: Block, before: Operation, sb: SSAValue) -> None:
        self.block, self.before, self.sb = block, before, sb

    def _add(self, op: Operation) -> SSAValue:
        self.block.insert_op_before(op, self.before)
        return op.results[0]

    def _map(self, operands: list[SSAValue], n_dims: int, n_syms: int, exprs) -> AffineMapAttr:
        return AffineMapAttr(AffineMap(n_dims, n_syms, tuple(exprs)))

    def clamp(self, off: int | SSAValue, scale: int, const: int, upper: int) -> SSAValue:
        """``min(max(sign * (off + const) - sb * H ..., 0), upper)`` for ``scale`` = -H (``off + const - sb*H``)
        or +H (``sb*H - off``), folded when ``off`` is static."""
        d0 = AffineExpr.dimension(0)
        sb_term = d0 * scale
        if isinstance(off, int):
            lin = sb_term + (const + off if scale < 0 else -off)
            operands = [self.sb]
            n_syms = 0
        else:
            s0 = AffineExpr.symbol(0)
            lin = sb_term + s0 + const if scale < 0 else sb_term - s0
            operands = [self.sb, off]
            n_syms = 1
        hi = self._add(AffineMaxOp(operands, self._map(operands, 1, n_syms, [lin, AffineExpr.constant(0)])))
        return self._add(affine.MinOp([hi], self._map([hi], 1, 0, [AffineExpr.dimension(0),
                                                                   AffineExpr.constant(upper)])))

    def difference(self, a: SSAValue, b: SSAValue) -> SSAValue:
        m = AffineMapAttr(AffineMap(2, 0, (AffineExpr.dimension(0) - AffineExpr.dimension(1),)))
        return self._add(affine.ApplyOp([a, b], m))


def memref_strides(t: MemRefType) -> list[int]:
    """The element strides of a memref: its strided layout's, or the row-major ones of its shape."""
    if isinstance(t.layout, StridedLayoutAttr):
        return [s.data if hasattr(s, "data") else s for s in t.layout.get_strides()]
    strides, acc = [], 1
    for dim in reversed(list(t.get_shape())):
        strides.insert(0, acc)
        acc *= dim
    return strides


def _dynamic_memref(t: MemRefType, axis: int) -> MemRefType:
    shape = list(t.get_shape())
    strides = memref_strides(t)
    shape[axis] = DYNAMIC_INDEX
    return MemRefType(t.get_element_type(), shape, StridedLayoutAttr(strides, None), t.memory_space)


def rewrite(c: ClippedStore, sb: SSAValue, replace_operand) -> None:
    """Emit the clipped part of ``c`` for sub-block ``sb`` (see the module rule)."""
    sl, store = c.slice, c.store
    block = store.parent_block()
    b = _Builder(block, store, sb)
    off = _offset_of(sl, c.axis)
    if isinstance(off, IntegerAttr):
        off = off.value.data
    n = sl.static_sizes.get_values()[c.axis]
    lo = b.clamp(off, -c.half, 0, c.half)
    hi = b.clamp(off, -c.half, n, c.half)
    count = b.difference(hi, lo)
    shift = b.clamp(off, c.half, 0, n)
    src = sl.source
    rank = len(src.type.get_shape())
    offs: list[int | SSAValue] = [0] * rank
    offs[c.axis] = lo
    sizes: list[int | SSAValue] = list(src.type.get_shape())
    sizes[c.axis] = count
    res_shape = list(src.type.get_shape())
    res_shape[c.axis] = DYNAMIC_INDEX
    part = tensor.ExtractSliceOp(src, offs, sizes, [1] * rank, TensorType(src.type.get_element_type(), res_shape))
    block.insert_op_before(part, store)
    view = store.group("outs")[0]
    v_offs: list[int | SSAValue] = [0] * rank
    v_offs[c.axis] = shift
    v_sizes: list[int | SSAValue] = list(view.type.get_shape())
    v_sizes[c.axis] = count
    dst = memref.SubviewOp.get(view, v_offs, v_sizes, [1] * rank, _dynamic_memref(view.type, c.axis))
    block.insert_op_before(dst, store)
    replace_operand(store, "ins", 0, part.results[0])
    replace_operand(store, "outs", 0, dst.result)
    if not sl.results[0].uses:
        sl.detach()
        sl.erase()




# ---------------------------------------------------------------------------------------------- clipped inserts
@dataclass
class ClippedInsert:
    """A ``tensor.insert_slice %v into %dst`` whose ``%v`` covers only part of the split axis of the halved ``%dst``
    (TileAndBindSubBlock's clipped assemble, ``passes/tile_and_bind_sub_block/assembles.py``): ``%v`` stays whole and
    each sub-block inserts the part of it inside its half."""

    op: tensor.InsertSliceOp
    axis: int  # MLIR axis of the destination
    source_axis: int  # the same axis in the (possibly rank-reduced) source
    half: int  # H


def _mixed(static: list[int], dynamic) -> list[int | SSAValue]:
    dyn = iter(dynamic)
    return [next(dyn) if s == DYNAMIC_INDEX else s for s in static]


def _split_mixed(values: list[int | SSAValue]) -> tuple[list[int], list[SSAValue]]:
    return ([DYNAMIC_INDEX if isinstance(v, SSAValue) else v for v in values],
            [v for v in values if isinstance(v, SSAValue)])


def rewrite_insert(c: ClippedInsert, sb: SSAValue) -> None:
    """Emit, for sub-block ``sb``, ``%part = tensor.extract_slice %v[shift] [count]`` and ``tensor.insert_slice %part
    into %half[lo] [count]`` on the split axis, with the stored window's clip arithmetic (see the module rule)."""
    op = c.op
    block = op.parent_block()
    b = _Builder(block, op, sb)
    offs = _mixed(list(op.static_offsets.get_values()), op.offsets)
    sizes = _mixed(list(op.static_sizes.get_values()), op.sizes)
    off = offs[c.axis]
    n = sizes[c.axis]
    lo = b.clamp(off, -c.half, 0, c.half)
    hi = b.clamp(off, -c.half, n, c.half)
    count = b.difference(hi, lo)
    shift = b.clamp(off, c.half, 0, n)
    src = op.source
    src_shape = list(src.type.get_shape())
    p_offs: list[int | SSAValue] = [0] * len(src_shape)
    p_offs[c.source_axis] = shift
    p_sizes: list[int | SSAValue] = list(src_shape)
    p_sizes[c.source_axis] = count
    p_shape = list(src_shape)
    p_shape[c.source_axis] = DYNAMIC_INDEX
    part = tensor.ExtractSliceOp(src, p_offs, p_sizes, [1] * len(src_shape),
                                 TensorType(src.type.get_element_type(), p_shape))
    block.insert_op_before(part, op)
    offs[c.axis], sizes[c.axis] = lo, count
    (s_offs, d_offs), (s_sizes, d_sizes) = _split_mixed(offs), _split_mixed(sizes)
    strides = _mixed(list(op.static_strides.get_values()), op.strides)
    s_strides, d_strides = _split_mixed(strides)
    new = tensor.InsertSliceOp.build(
        operands=[part.results[0], op.dest, d_offs, d_sizes, d_strides],
        properties={"static_offsets": DenseArrayBase.from_list(i64, s_offs),
                    "static_sizes": DenseArrayBase.from_list(i64, s_sizes),
                    "static_strides": DenseArrayBase.from_list(i64, s_strides)},
        result_types=[op.dest.type])
    block.insert_op_before(new, op)
    new.results[0].name_hint = op.results[0].name_hint
    op.results[0].replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()
