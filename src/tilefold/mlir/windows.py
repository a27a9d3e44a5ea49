"""Windows and buffers of the MLIR -> pl lowering that need more than a static slice (mixed into ``Lowering``).

* **Run-time sizes.** A ``tensor.extract_slice`` / ``insert_slice`` or ``memref.subview`` (of a local buffer or of
  a GM view) whose size is an SSA value ``%sz`` becomes a tile of a static bound with ``%sz`` as its run-time
  valid extent. The bound is the smaller of what :func:`tilefold.mlir.bounds.upper_bound` proves for ``%sz``
  (``affine.min (64, n - off)`` gives 64) and what the source leaves past a static offset; with neither the window
  is refused at its file:line:col. Reads are ``tile.slice(.., valid_shape=..)`` / ``tile.load(.., valid_shapes=..)``;
  a store writes the valid region only. A write of such a tile into a window of a buffer keeps the elements past
  the valid extent: ``tile.sel`` of a ``ci < sz`` mask between the value (``fillpad``'ed) and the old window, then
  ``tile.assemble`` -- except into a buffer nothing wrote yet at offset 0, whose next version is the value marked
  partial (``set_validshape``), so that a later read of the undefined part is refused, not made up.
* **Windows of windows.** A subview of a subview of a local buffer is one window of the buffer (offsets added).
* ``memref.reinterpret_cast`` of a local buffer to a contiguous row-major view of all its elements is a reshape
  of it (reads ``tile.reshape``, writes reshape back); any other cast of a local buffer is refused.
* ``arith.constant dense<..>`` of a tensor type: a splat is ``tile.full``; a non-splat one of at most
  :data:`MAX_DENSE` elements is ``tile.full`` + one ``tile.write`` per other element; bigger ones are refused.
"""

from __future__ import annotations

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    NoneAttr,
    TensorType,
    VectorType,
)
from xdsl.ir import Operation, SSAValue

from tilefold.mlir.bounds import upper_bound
from tilefold.mlir.shapes import LocalView, _prod, kept_axes, shape_of, tile_shape

#: the largest non-splat ``dense<..>`` tensor constant lowered (one scalar write per element)
MAX_DENSE = 64


def _tile_axes(values: list, fill) -> list:
    """MLIR axes -> tile axes (a rank-1 value is the tile ``[1, n]``)."""
    return [fill, values[0]] if len(values) == 1 else list(values)


class WindowMixin:
    """Methods of :class:`tilefold.mlir.lower.Lowering` for windows with run-time sizes, nested windows, casts of
    local buffers and tensor constants."""

    # ------------------------------------------------------------ sizes
    def _offsets(self, op: Operation) -> list[str]:
        dyn = list(op.offsets)
        return [self.scalar(dyn.pop(0), op) if o == DYNAMIC_INDEX else str(o)
                for o in op.static_offsets.get_values()]

    def _sizes(self, op: Operation, full: list[int], offs: list[str]) -> tuple[list[int], list[str | None]]:
        """(static bounds, run-time valid extents or None) per MLIR axis of a slice / subview ``op`` of a source of
        shape ``full``. A dynamic size is bounded by what ``upper_bound`` proves and by the source past a static
        offset (the whole source past a run-time one); a local window at a run-time offset must provably fit."""
        dyn = list(op.sizes)
        sizes: list[int] = []
        valid: list[str | None] = []
        for axis, s in enumerate(op.static_sizes.get_values()):
            if s != DYNAMIC_INDEX:
                sizes.append(int(s))
                valid.append(None)
                continue
            v = dyn.pop(0)
            known = [b for b in (upper_bound(v),) if b is not None]
            extent = full[axis] if axis < len(full) and full[axis] >= 0 else None
            if extent is not None:
                known.append(extent - int(offs[axis]) if offs[axis].lstrip("-").isdigit() else extent)
            if not known or min(known) < 1:
                self.fail(op, f"the run-time size %{v.name_hint or '?'} on axis {axis} has no static bound",
                          hint="bound the size, e.g. %sz = affine.min affine_map<(d0)[s0] -> (64, s0 - d0)>(..): "
                               "tilefold lowers the window to a tile of the bound with a run-time valid extent")
            sizes.append(min(known))
            # a negative size (the tail past the end, e.g. min(16, n - off) with off > n) is an empty window
            valid.append(f"pl.max({self.scalar(v, op)}, 0)")
        return sizes, valid

    def _fits(self, op: Operation, full: list[int], offs: list[str], sizes: list[int], dyn_offsets) -> None:
        """A window of a tile at a run-time offset, with a bounded size, must lie inside the tile."""
        it = iter(dyn_offsets)
        for axis, o in enumerate(op.static_offsets.get_values()):
            if o != DYNAMIC_INDEX:
                continue
            ub = upper_bound(next(it))
            if ub is None or ub + sizes[axis] > full[axis]:
                self.fail(op, f"the window [{offs[axis]}, +{sizes[axis]}) on axis {axis} is not provably inside the "
                              f"extent {full[axis]}",
                          hint="tilefold reads the window's static bound: give the offset a bound (an affine.min, "
                               "a loop variable) that keeps offset + bound inside the source")

    def _flat_rectangle(self, op: Operation, full: list[int], offs: list[str], sizes: list[int]) -> None:
        """A window of a rank-3 (or higher) tile must stay a rectangle once FlattenTileNdTo2D lays the tile out
        as ``[prod(leading axes), last]``: FlattenTileNdTo2D's rule is that every leading axis after the first is
        whole (offset 0, the whole extent)."""
        for axis in range(1, len(full) - 1):
            if offs[axis] != "0" or sizes[axis] != full[axis]:
                self.fail(op, f"the window {sizes} of a {full} tile is not a rectangle of the tile flattened to 2-D "
                              "(tilefold lays an N-D tile out as [rows of the leading axes, last axis])",
                          hint="take every leading axis but the first whole (offset 0, full extent), or slice each "
                               "page separately")

    @staticmethod
    def _valid_text(valid: list[str | None], sizes: list[int]) -> str:
        return "[" + ", ".join(v if v is not None else str(s) for v, s in zip(valid, sizes, strict=True)) + "]"

    def _ann(self, shape: list[int], t, op: Operation) -> str:
        return f"pl.Tile[[{', '.join(map(str, shape))}], pl.{self._dt(t, op)}, pl.Mem.Vec]"

    def _note_dynamic(self, v: SSAValue, op: Operation, sizes: list[int], valid: list[str | None]) -> None:
        """``v`` is a tile of the static bound ``sizes`` (tile axes) valid on ``valid``."""
        self.bounds[v] = list(sizes)
        self.valids[v] = list(valid)
        if op not in self.dynamic:
            self.dynamic.append(op)

    def _dynamic_empty(self, op: Operation, d: int) -> None:
        """``tensor.empty(%sz)`` / ``memref.alloc(%sz)`` of a dynamic shape: a tile of the sizes' static bounds,
        valid on the run-time sizes (the init of a run-time-size load)."""

        t = op.results[0].type
        dyn = list(op.operands)
        sizes: list[int] = []
        valid: list[str | None] = []
        for axis, x in enumerate(shape_of(t)):
            if x >= 0:
                sizes.append(x)
                valid.append(None)
                continue
            v = dyn.pop(0) if dyn else None
            ub = upper_bound(v) if v is not None else None
            if ub is None or ub < 1:
                self.fail(op, f"the run-time size on axis {axis} has no static bound",
                          hint="bound the size with an affine.min / arith.minsi against a constant")
            sizes.append(ub)
            valid.append(f"pl.max({self.scalar(v, op)}, 0)")
        sizes, valid = _tile_axes(sizes, 1), _tile_axes(valid, None)
        nm = self.define(op.results[0], op)
        self._note_dynamic(op.results[0], op, sizes, valid)
        self.emit(d, f"{nm}: {self._ann(sizes, t, op)} = pl.tile.set_validshape(pl.tile.create("
                     f"[{', '.join(map(str, sizes))}], dtype=pl.{self._dt(t, op)}, target_memory=pl.Mem.Vec), "
                     f"{self._valid_text(valid, sizes)})")
        if isinstance(op, memref.AllocOp | memref.AllocaOp):
            self.alloc_version[op.results[0]] = nm

    # ------------------------------------------------------------ writes of a partial tile
    def _mask(self, shape: list[int], valid: list[str | None], d: int) -> str:
        """A 1 / 0 INT32 mask of ``shape``: 1 on ``[0, valid)`` of every run-time axis."""
        r, c = shape
        parts = []
        if valid[1] is not None:
            cols = f"pl.tile.ci(0, [1, {c}], dtype=pl.INT32)"
            if r > 1:
                grid = f"pl.tile.full([{r}, {c}], dtype=pl.INT32, value=0, target_memory=pl.Mem.Vec)"
                cols = f"pl.tile.col_expand({grid}, {cols})"
            parts.append(f"pl.tile.cmps({cols}, {valid[1]}, cmp_type='lt')")
        if valid[0] is not None:  # row-major position k = i * c + j: row i < v <=> k < v * c
            parts.append(f"pl.tile.cmps(pl.tile.ci(0, [{r}, {c}], dtype=pl.INT32), ({valid[0]} * {c}), cmp_type='lt')")
        mask = parts[0]
        for p in parts[1:]:
            mask = f"pl.tile.mul({mask}, {p})"
        nm = self.fresh("mask")
        self.emit(d, f"{nm}: pl.Tile[[{r}, {c}], pl.INT32, pl.Mem.Vec] = {mask}")
        return nm

    def _partial_write(self, base: SSAValue, cur: str, value: str, offs: list[str], sizes: list[int],
                       valid: list[str | None], op: Operation, d: int) -> str:
        """The next value of tile ``cur`` (of ``base``'s type) with ``value`` (the partial tile ``sizes``, valid on
        ``valid``) written at ``offs``: outside the valid region the old elements stay."""
        if len(sizes) != 2:
            self.fail(op, "a write of a run-time-size window into a rank-3 (or higher) tile is not lowered")
        full = self._tile_of(base)
        creator = self.ops_of.get(cur)
        made = isinstance(base.owner, memref.AllocOp | memref.AllocaOp | tensor.EmptyOp)  # a buffer, not a value
        fresh = made and creator is not None and creator is base.owner and all(o == "0" for o in offs) and all(
            v is not None or s == f for v, s, f in zip(valid, sizes, full, strict=True))
        ann = self._ann(full, base.type, op)
        new = self.fresh((base.name_hint or "buf") + "_w")
        if fresh:  # nothing wrote the buffer: what lies past the valid extent is undefined, and stays marked so
            expr = value if sizes == full else f"pl.tile.assemble({cur}, {value}, [0, 0])"
            self.emit(d, f"{new}: {ann} = pl.tile.set_validshape({expr}, {self._valid_text(valid, full)})")
            return new
        mask = self._mask(sizes, valid, d)
        old, filled = self.fresh("old"), self.fresh("filled")
        part = self._ann(sizes, base.type, op)
        self.emit(d, f"{old}: {part} = pl.tile.slice({cur}, [{', '.join(map(str, sizes))}], [{', '.join(offs)}])")
        self.emit(d, f"{filled}: {part} = pl.tile.sel({mask}, pl.tile.fillpad({value}, pad_value=pl.PadValue.zero), "
                     f"{old})")
        self.emit(d, f"{new}: {ann} = pl.tile.assemble({cur}, {filled}, [{', '.join(offs)}])")
        return new

    def _tile_of(self, v: SSAValue) -> list[int]:

        return list(self.bounds.get(v) or tile_shape(shape_of(v.type)))

    # ------------------------------------------------------------ loads / stores of run-time-size GM windows
    def _dynamic_load(self, op, view, dst: SSAValue, d: int) -> None:
        """``load ins(%gm_window) outs(%buf_window)`` with run-time sizes on the same axes: the load of the
        destination's bound with the run-time extents as valid shapes, written into the buffer as a partial tile."""

        dst_valid = self.local_views[dst].valid if dst in self.local_views else self.valids.get(dst)
        gm_valid = view.valid or [None] * len(view.sizes)
        dst_valid = dst_valid or [None] * len(tile_shape(shape_of(dst.type)))
        if [v is None for v in gm_valid] != [v is None for v in dst_valid]:
            self.fail(op, "a load whose GM window and buffer do not have their run-time sizes on the same axes",
                      hint="load a run-time-size GM window into a subview of the buffer with the same sizes")
        if op.keyword_attr("pad_mode") is not None:
            self.fail(op, "a padded load of a run-time-size window is not lowered")
        sizes = self.local_views[dst].sizes if dst in self.local_views else self._tile_of(dst)
        valid = [g if g == b or g is None else f"pl.min({g}, {b})" for g, b in zip(gm_valid, dst_valid, strict=True)]
        offs, _ = self._window(view)
        if op.results:
            nm = self.define(op.results[0], op)
            self._note_dynamic(op.results[0], op, sizes, valid)
        else:
            nm = self.fresh((dst.name_hint or "t") + "_part")
            self.ops_of[nm] = op
        self.emit(d, f"{nm}: {self._ann(sizes, dst.type, op)} = pl.tile.load({self.gm_current[view.param]}, {offs}, "
                     f"[{', '.join(map(str, sizes))}], valid_shapes={self._valid_text(valid, sizes)}, "
                     "target_memory=pl.Mem.Vec)")
        if not op.results:
            self._write(dst, nm, op)

    def _stored_tile(self, op, src: SSAValue, view) -> str:
        """The tile a store of ``src`` into the GM window ``view`` writes: a run-time-size window stores the valid
        region of a partial tile with its run-time sizes on the same axes (the window's extents when they are
        other SSA values than the tile's)."""

        tile = self.tile(src, op)
        src_valid = self.local_views[src].valid if src in self.local_views else self.valids.get(src)
        if not view.valid and not src_valid:
            if tile_shape(shape_of(src.type)) != view.sizes:
                self.fail(op, "a store whose tile and window shapes differ is not lowered")
            return tile
        gm_valid = view.valid or [None] * len(view.sizes)
        src_valid = src_valid or [None] * len(gm_valid)
        sizes = self.local_views[src].sizes if src in self.local_views else self._tile_of(src)
        if [v is None for v in gm_valid] != [v is None for v in src_valid] or len(sizes) != len(gm_valid) or any(
                g is None and s != w for g, s, w in zip(gm_valid, sizes, view.sizes, strict=True)):
            self.fail(op, "a store whose tile and GM window do not have the same static sizes and run-time sizes "
                          "on the same axes is not lowered")
        if gm_valid == src_valid:
            return tile
        valid = [g if g == s or g is None else f"pl.min({g}, {s})" for g, s in zip(gm_valid, src_valid, strict=True)]
        return f"pl.tile.set_validshape({tile}, {self._valid_text(valid, sizes)})"

    # ------------------------------------------------------------ casts of local buffers, constants
    def _local_cast(self, op: memref.ReinterpretCastOp) -> None:
        """``memref.reinterpret_cast %buf to offset: [0], sizes: S, strides: row-major(S)`` of a local buffer of as
        many elements: the buffer read as shape S (a reshape both ways). Anything else could alias in a way a tile
        cannot say: refused."""

        base = op.source
        if base in self.local_views:
            self.fail(op, "a reinterpret_cast of a window of a local buffer is not lowered")
        full = shape_of(base.type)
        sizes = list(op.static_sizes.get_values())
        strides = list(op.static_strides.get_values())
        offsets = list(op.static_offsets.get_values())
        row_major = [_prod(sizes[i + 1:]) for i in range(len(sizes))]
        if any(x == DYNAMIC_INDEX for x in sizes + strides + offsets) or offsets != [0] * len(offsets) \
                or strides != row_major or _prod(sizes) != _prod(full) or not isinstance(base.type.layout, NoneAttr):
            self.fail(op, f"a reinterpret_cast of the local buffer %{base.name_hint or '?'} other than a contiguous "
                          "row-major reshape of all its elements (offset 0) is not lowered",
                          hint="tilefold reads such a cast as a reshape of the buffer: keep offset 0, row-major "
                               "strides and the buffer's element count")
        whole = tile_shape(full)
        self.local_views[op.result] = LocalView(base, ["0"] * len(whole), whole, tile_shape(sizes))

    def _nested_subview(self, op: memref.SubviewOp) -> None:
        """A subview of a window of a local buffer: one window of the buffer, at the sum of the offsets."""

        outer = self.local_views[op.source]
        if outer.shape != outer.sizes or outer.valid:
            self.fail(op, "a subview of a rank-reducing (column) or run-time-size window of a local buffer is not "
                          "lowered")
        full = shape_of(op.source.type)
        offs = self._offsets(op)
        sizes, valid = self._sizes(op, full, offs)
        strides = list(op.static_strides.get_values())
        pattern = [DYNAMIC_INDEX if v is not None else s for s, v in zip(sizes, valid, strict=True)]
        part = shape_of(op.result.type)
        if any(x != 1 for x in strides) or kept_axes(pattern, part) is None or any(v is not None for v in valid):
            self.fail(op, "a subview of a window of a local buffer with run-time sizes or non-unit strides is not "
                          "lowered")
        offs, sizes = _tile_axes(offs, "0"), _tile_axes(sizes, 1)
        total = [o2 if o1 == "0" else (o1 if o2 == "0" else f"({o1} + {o2})")
                 for o1, o2 in zip(outer.offsets, offs, strict=True)]
        self.local_views[op.result] = LocalView(outer.base, total, sizes, tile_shape(part) if part else [1, 1])
        self.nested.append(op)

    def _strided_slice(self, op: Operation, src: str, d: int) -> None:
        """``tensor.extract_slice %t[.., o] [.., n] [1, s]`` (a static stride ``s >= 1`` on the last axis only, static
        sizes, rank 1 or 2, not rank-reducing): the rows by ``tile.slice``, then ``tile.gather`` along the last axis
        of the columns ``o + j * s`` (``tile.ci`` scaled and shifted)."""

        full = shape_of(op.source.type)
        strides = list(op.static_strides.get_values())
        offs = self._offsets(op)
        sizes = list(op.static_sizes.get_values())
        if len(full) > 2 or any(x == DYNAMIC_INDEX or x < 1 for x in sizes + strides) or any(
                x != 1 for x in strides[:-1]) or shape_of(op.result.type) != sizes:
            self.fail(op, f"a slice with strides {strides} is not lowered (unit strides, or a static stride on the "
                          "last axis of a rank-1 / rank-2 slice with static sizes)",
                      hint="tilefold reads a strided slice as a gather along the last axis: keep the other strides 1")
        last, step = sizes[-1], strides[-1]
        if offs[-1].lstrip("-").isdigit() and int(offs[-1]) + (last - 1) * step >= full[-1]:
            self.fail(op, f"the strided window [{offs[-1]}, {offs[-1]} + {last - 1} * {step}] leaves the extent "
                          f"{full[-1]}")
        tfull, toffs, tsizes = tile_shape(full), _tile_axes(offs, "0"), _tile_axes(sizes, 1)
        rows = src
        if tsizes[0] != tfull[0]:
            rows = f"pl.tile.slice({src}, [{tsizes[0]}, {tfull[1]}], [{toffs[0]}, 0])"
        cols = f"pl.tile.ci(0, [1, {last}], dtype=pl.INT32)"
        cols = f"pl.tile.muls({cols}, {step})" if step != 1 else cols
        cols = f"pl.tile.adds({cols}, {toffs[1]})" if toffs[1] != "0" else cols
        if tsizes[0] > 1:
            grid = f"pl.tile.full([{tsizes[0]}, {last}], dtype=pl.INT32, value=0, target_memory=pl.Mem.Vec)"
            cols = f"pl.tile.col_expand({grid}, {cols})"
        idx = self.fresh("cols")
        self.emit(d, f"{idx}: pl.Tile[[{tsizes[0]}, {last}], pl.INT32, pl.Mem.Vec] = {cols}")
        nm = self.define(op.result, op)
        self.emit(d, f"{nm}: {self.ttype(op.result.type, op)} = pl.tile.gather({rows}, 1, {idx})")
        self.dynamic.append(op)  # the halved form of a strided slice is not re-expressed on the MLIR

    def _tensor_constant(self, op: Operation, d: int) -> None:
        """``arith.constant dense<..> : tensor<..>``: a splat is ``tile.full``; a non-splat tensor of at most
        ``MAX_DENSE`` elements is ``tile.full`` of its first element plus a ``tile.write`` of each other one."""

        t = op.result.type
        value = op.value
        if isinstance(t, VectorType) or not isinstance(t, TensorType) or not isinstance(
                value, DenseIntOrFPElementsAttr):
            self.fail(op, f"a constant of type {t} is not lowered (scalars and dense tensors are)")
        shape = shape_of(t)
        if any(x < 0 for x in shape):
            self.fail(op, "a dense constant of a dynamic shape")
        n = 1
        for x in shape:
            n *= x
        integral = isinstance(value.get_element_type(), IntegerType | IndexType)
        splat = value.is_splat()
        if not splat and n > MAX_DENSE:
            self.fail(op, f"a non-splat dense constant of {n} elements is not lowered (at most {MAX_DENSE})",
                      hint="a splat dense<v> is a fill; a larger table belongs in a GM argument loaded as a tile")
        values = [next(iter(value.iter_values()))] if splat else list(value.get_values())
        items = [int(x) if integral else float(x) for x in values]
        if not splat and len(items) != n:
            self.fail(op, "a dense constant whose element count does not match its type")
        tshape = tile_shape(shape)
        nm = self.define(op.result, op)
        dt = self._dt(t, op)
        self.emit(d, f"{nm}: {self.ttype(t, op)} = pl.tile.full([{', '.join(map(str, tshape))}], dtype=pl.{dt}, "
                     f"value={items[0]!r}, target_memory=pl.Mem.Vec)")
        if splat:
            return
        cols = tshape[1] if len(tshape) == 2 else None
        if cols is None:
            self.fail(op, "a non-splat dense constant of rank 3 or more is not lowered")
        for k, x in enumerate(items):
            if x == items[0]:
                continue
            cur = self.fresh(nm)
            self.emit(d, f"{cur}: {self.ttype(t, op)} = pl.tile.write({self.names[op.result]}, "
                         f"[{k // cols}, {k % cols}], {x!r})")
            self.names[op.result] = cur
            self.ops_of[cur] = op
