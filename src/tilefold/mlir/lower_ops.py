"""Lowering of the HIVM ops beyond ``lower.py``'s core set: concatenation, padding, scans, sort, atomic stores,
scalar loads from GM, and the cube ops of an AIC function.

``lower.py`` dispatches here (``handles`` / ``lower_op``); each function writes ``pl`` source through the
:class:`~tilefold.mlir.lower.Lowering` it is given, as the core lowering does. Where HIVMDialect.md does not say
what an op computes, the op is refused with a located error saying what is missing (never a guess):

* ``vconcat dim(k) ins(a, b, ..)`` -> ``tile.create`` of the result, one ``tile.assemble`` per input;
* ``vpad ins(x) low[..] high[..] pad_value %v`` (static lengths) -> ``tile.full`` / ``tile.expands`` of ``%v``
  and ``tile.assemble`` of ``x`` at ``low``;
* ``vcumsum`` / ``vcumprod`` ``cum_dims = [k] reverse = r`` -> ``tile.cumsum`` / ``tile.cumprod(x, axis, reverse)``;
* ``vsort`` (one outs: the values) ``descending = d sort_axis = last`` -> ``tile.sort(x, axis=1, descending=d)``;
* ``store .. atomic = <add>``, ``atomic_rmw .. atomic_kind = <add>`` (no result) -> ``pl.store(..,
  atomic=pl.AtomicType.Add)``;
* ``load_scalar %m`` of a one-element GM memref -> ``tile.read(tile.load(m, .., [1, 1]), [0, 0])``;
* in an AIC function (``lower_cube.CubeLowering``): ``memref.alloc`` in ``cbuf`` / ``ca`` / ``cb`` / ``cc`` ->
  ``tile.create`` in Mat / Left / Right / Acc; ``nd2nz`` of a GM window into a 2-D ``cbuf`` buffer ->
  ``tile.load(.., target_memory=Mat)``; ``mmadL1 ins(a, b, init, m, k, n) outs(c)`` -> ``tile.extract`` of a / b
  into Left / Right, then ``tile.matmul`` (a constant true init) or ``tile.matmul_acc(c, .., init)``;
  ``fixpipe {enable_nz2nd} ins(c) outs(gm)`` -> ``pl.store(c, offsets, gm)``.

Refused, with the reason: atomic ``max`` / ``min`` stores (tilefold's atomic store adds only), ``atomic_rmw`` with
a result or another kind, ``atomic_cas`` / ``atomic_xchg`` (they return or compare the old GM value, which no
tilefold op does), ``load_scalar`` of an LLVM pointer or of a memref with several elements, ``vsort``'s index
output (which index a tie gets is not described), scans over several dims, fractal (rank-4 NZ) L1 buffers (the
axis order of the NZ layout is not described), a plain ``load`` into L1 (HIVM's load fills UB only), ``mmadL1``
with ``a_transpose`` / ``b_transpose``, a bias, or ``real_m / k / n`` other than the operands' static extents,
``fixpipe`` with quantisation / ReLU / channel split, without ``enable_nz2nd`` (the NZ order of its output is not
described), into UB, or with several destinations (the references describe no dual destination).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

from tilefold.mlir.dialect import HivmOp
from tilefold.mlir.operands import keyword_operand, shape_of, tile_shape

if TYPE_CHECKING:  # lower.py dispatches here (a lazy import): this module must not import it back
    from tilefold.mlir.lower import Lowering

#: vector ops lowered here (by their short name)
VECTOR_OPS = ("vconcat", "vpad", "vcumsum", "vcumprod", "vsort", "atomic_rmw", "atomic_cas", "atomic_xchg",
              "load_scalar")
#: cube ops lowered here (in an AIC function)
CUBE_OPS = ("mmadL1", "fixpipe", "nd2nz")
#: cube ops refused in any function, with the reason
CUBE_REFUSED = {
    "batchMmadL1": "a batched mmadL1 is not lowered (one mmadL1 per batch is)",
    "nz2nd": "nz2nd reads a fractal (NZ) L1 buffer, whose axis order the references do not describe",
    "matmul": "a GM-to-GM hivm.hir.matmul (tiling_params, descale, ...) is a library macro: lower it to "
              "nd2nz / mmadL1 / fixpipe first",
    "mix_matmul": "mix_matmul is a library macro: lower it to nd2nz / mmadL1 / fixpipe and vector ops first",
    "mix_group_matmul": "mix_group_matmul is a library macro: lower it to nd2nz / mmadL1 / fixpipe first",
}
#: HIVM address spaces of cube buffers -> tilefold memories
CUBE_SPACES = {"cbuf": "Mat", "ca": "Left", "cb": "Right", "cc": "Acc"}


def address_space(t) -> str | None:
    """``cbuf`` of ``memref<.., #hivm.address_space<cbuf>>`` (None: no address space)."""
    space = getattr(t, "memory_space", None)
    text = str(space) if space is not None else ""
    if "address_space<" not in text:
        return None
    return text[text.index("address_space<") + len("address_space<"):].split(">")[0].strip()


def handles(op: HivmOp, short: str) -> bool:
    """Whether ``lower_op`` lowers (or refuses with a reason) this hivm op."""
    if short == "store":
        return op.keyword_attr("atomic") is not None
    if short == "load":
        return bool(op.group("outs")) and address_space(op.group("outs")[0].type) in CUBE_SPACES
    return short in VECTOR_OPS or short in CUBE_OPS or short in CUBE_REFUSED


def lower_op(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    if short in CUBE_REFUSED:
        low.fail(op, CUBE_REFUSED[short])
    fn = {"vconcat": _concat, "vpad": _pad, "vcumsum": _scan, "vcumprod": _scan, "vsort": _sort,
          "store": _atomic_store, "atomic_rmw": _atomic_rmw, "atomic_cas": _atomic_refused,
          "atomic_xchg": _atomic_refused, "load_scalar": _load_scalar, "mmadL1": _mmad, "fixpipe": _fixpipe,
          "nd2nz": _l1_load, "load": _l1_load}[short]
    fn(low, op, short, ins, outs, d)


# ---------------------------------------------------------------------------------------------- helpers
def _result_type(op: HivmOp, outs: list[SSAValue]):
    return op.results[0].type if op.results else outs[0].type


def _one_out(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], n_ins: int = 1):
    if len(outs) != 1 or (n_ins and len(ins) != n_ins):
        low.fail(op, f"{short} needs {n_ins} ins operand(s) and one outs operand")


def _attr_int(low: Lowering, op: HivmOp, keyword: str) -> int | None:
    p = op.keyword_attr(keyword)
    if p is None:
        return None
    if isinstance(p.value, IntegerAttr):
        return p.value.value.data
    low.fail(op, f"{keyword} must be an integer")


def _attr_bool(low: Lowering, op: HivmOp, keyword: str) -> bool:
    p = op.keyword_attr(keyword)
    if p is None:
        return False
    if isinstance(p.value, IntegerAttr):
        return p.value.value.data != 0
    text = (p.text or str(p.value)).strip()
    if text in ("true", "false"):
        return text == "true"
    low.fail(op, f"{keyword} must be true or false")


def _tile_axis(axis: int, rank: int) -> int:
    """The tile axis of MLIR axis ``axis`` (a rank-1 value is the tile ``[1, n]``)."""
    return axis + 1 if rank == 1 else axis


def _tile_type(low: Lowering, t, op: Operation) -> str:
    return low.ttype(t, op)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------------------------- vector ops
def _concat(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``vconcat dim(k)``: the inputs written one after the other along axis ``k`` of a fresh tile."""
    _one_out(low, op, short, ins, outs, 0)
    dims = [p for p in op.layout() if p.kind == "group" and p.keyword == "dim"]
    items = dims[0].items if dims else []
    if len(items) != 1 or items[0][0] != "attr" or not isinstance(items[0][1], IntegerAttr):
        low.fail(op, "vconcat needs a static dim(k)")
    res_t = _result_type(op, outs)
    full = shape_of(res_t)
    rank = len(full)
    dim = items[0][1].value.data
    if not ins or not 0 <= dim < rank or rank > 2:
        low.fail(op, f"vconcat of rank {rank} along dim {dim} is not lowered (rank 1 or 2, a dim of the result)")
    axis = _tile_axis(dim, rank)
    shape = tile_shape(full)
    dtype = low._dt(res_t, op)
    cur = low.fresh((outs[0].name_hint or "cat") + "_base")
    low.emit(d, f"{cur}: {_tile_type(low, res_t, op)} = pl.tile.create([{', '.join(map(str, shape))}], "
                f"dtype=pl.{dtype}, target_memory=pl.Mem.Vec)")
    at = 0
    for k, v in enumerate(ins):
        part = shape_of(v.type)
        if part is None or len(part) != rank:
            low.fail(op, f"input {k} of vconcat is not a rank-{rank} tile")
        pt = tile_shape(part)
        if any(pt[i] != shape[i] for i in range(2) if i != axis):
            low.fail(op, f"input {k} of shape {part} does not match the result {full} off dim {dim}")
        offs = ["0", "0"]
        offs[axis] = str(at)
        expr = f"pl.tile.assemble({cur}, {low.tile(v, op)}, [{', '.join(offs)}])"
        at += pt[axis]
        if k == len(ins) - 1:
            if at != shape[axis]:
                low.fail(op, f"the inputs' extents along dim {dim} add up to {at}, the result has {shape[axis]}")
            low._define_compute(op, outs, _tile_type(low, res_t, op), expr, d)
            return
        nxt = low.fresh((outs[0].name_hint or "cat") + "_part")
        low.emit(d, f"{nxt}: {_tile_type(low, res_t, op)} = {expr}")
        cur = nxt


def _static_lengths(low: Lowering, op: HivmOp, keyword: str) -> list[int]:
    groups = [p for p in op.layout() if p.kind == "group" and p.keyword == keyword]
    if len(groups) != 1:
        low.fail(op, f"vpad needs {keyword}[..]")
    operands = iter(op.group(keyword))
    out = []
    for item in groups[0].items:
        if item[0] == "attr" and isinstance(item[1], IntegerAttr):
            out.append(item[1].value.data)
        elif item[0] == "operand":
            text = low.scalar(next(operands), op)
            if not text.isdigit():
                low.fail(op, f"a vpad with a run-time {keyword} length is not lowered (the result shape must be "
                             "static)")
            out.append(int(text))
        else:
            low.fail(op, f"vpad {keyword}[..] must list integers")
    return out


def _pad(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``vpad`` (as ``tensor.pad``): the result is ``pad_value`` everywhere but the window ``[low, low + n)`` of
    each axis, which holds the source."""
    _one_out(low, op, short, ins, outs)
    src = shape_of(ins[0].type)
    res_t = _result_type(op, outs)
    res = shape_of(res_t)
    lo, hi = _static_lengths(low, op, "low"), _static_lengths(low, op, "high")
    if src is None or res is None or not len(src) == len(res) == len(lo) == len(hi) or len(src) > 2:
        low.fail(op, "vpad needs one low and one high length per axis of a rank-1 or rank-2 source and result")
    if any(x < 0 for x in lo + hi) or [s + a + b for s, a, b in zip(src, lo, hi, strict=True)] != res:
        low.fail(op, f"a source {src} padded by low {lo} / high {hi} is not the result {res} (negative padding, "
                     "a crop, is not lowered)")
    pad = keyword_operand(op, "pad_value")
    if pad is None:
        low.fail(op, "vpad needs a pad_value")
    value = low.scalar(pad, op)
    shape, dtype = tile_shape(res), low._dt(res_t, op)
    base = low.fresh((outs[0].name_hint or "pad") + "_fill")
    if _is_number(value):
        fill = (f"pl.tile.full([{', '.join(map(str, shape))}], dtype=pl.{dtype}, value={value}, "
                "target_memory=pl.Mem.Vec)")
    else:
        fill = f"pl.tile.expands({low._init(outs[0], op, d)}, {value})"
    low.emit(d, f"{base}: {_tile_type(low, res_t, op)} = {fill}")
    offs = ["0", str(lo[0])] if len(lo) == 1 else [str(x) for x in lo]
    low._define_compute(op, outs, _tile_type(low, res_t, op),
                        f"pl.tile.assemble({base}, {low.tile(ins[0], op)}, [{', '.join(offs)}])", d)


def _scan(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``vcumsum`` / ``vcumprod cum_dims = [k] reverse = r`` -> ``tile.cumsum`` / ``tile.cumprod``."""
    _one_out(low, op, short, ins, outs)
    p = op.keyword_attr("cum_dims")
    dims = [a.value.data for a in p.value.data] if p is not None and isinstance(p.value, ArrayAttr) else None
    rank = len(shape_of(ins[0].type) or [])
    if dims is None or len(dims) != 1 or not 0 <= dims[0] < rank or rank > 2:
        low.fail(op, f"{short} needs cum_dims = [k] naming one axis of a rank-1 or rank-2 value (a scan over "
                     "several dims is not described)")
    if op.keyword_attr("reverse") is None:
        low.fail(op, f"{short} needs reverse = true / false")
    fn = "cumsum" if short == "vcumsum" else "cumprod"
    res_t = _result_type(op, outs)
    expr = (f"pl.tile.{fn}({low.tile(ins[0], op)}, axis={_tile_axis(dims[0], rank)}, "
            f"reverse={_attr_bool(low, op, 'reverse')})")
    low._define_compute(op, outs, _tile_type(low, res_t, op), expr, d)


def _sort(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``vsort`` of the values (one outs) along the last axis -> ``tile.sort``."""
    if len(ins) != 1 or len(outs) != 1:
        low.fail(op, "vsort with an index output is not lowered: HIVMDialect.md does not say which index equal "
                     "values get, so the index of a tie would be a guess",
                 hint="sort the values only (one outs operand), or build the order with vcmp / vsel")
    rank = len(shape_of(ins[0].type) or [])
    axis = _attr_int(low, op, "sort_axis")
    if axis is None or axis != rank - 1 or rank > 2:
        low.fail(op, "vsort sorts the last axis only (HIVMDialect.md: tail axis sorting), of a rank-1 or rank-2 "
                     "value")
    res_t = _result_type(op, outs)
    expr = f"pl.tile.sort({low.tile(ins[0], op)}, axis=1, descending={_attr_bool(low, op, 'descending')})"
    low._define_compute(op, outs, _tile_type(low, res_t, op), expr, d)


# ---------------------------------------------------------------------------------------------- atomics
def _atomic_kind(piece) -> str:
    text = (piece.text or str(piece.value) or "").strip()
    return text[text.find("<") + 1:text.rfind(">")].strip() if "<" in text else text


def _gm_store(low: Lowering, op: HivmOp, src: SSAValue, dst: SSAValue, d: int, atomic: str) -> None:
    view = low.views.get(dst)
    if view is None:
        low.fail(op, "the atomic store does not write a GM window")
    if op.results:
        low.fail(op, "an atomic with a tensor result is not lowered")
    tile = low.tile(src, op)
    if tile_shape(shape_of(src.type)) != view.sizes:
        low.fail(op, "an atomic store whose tile and window shapes differ is not lowered")
    offs, _ = low._window(view)
    nm = low.fresh(view.param)
    low.ops_of[nm] = op
    low.stores.append(op)
    kw = ", atomic=pl.AtomicType.Add" if atomic == "add" else ""
    low.emit(d, f"{nm} = pl.store({tile}, {offs}, {low.gm_current[view.param]}{kw})")
    low.gm_current[view.param] = nm


def _atomic_store(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``store .. atomic = <add>``: the tile added into GM (``<none>``: a plain store)."""
    _one_out(low, op, short, ins, outs)
    kind = _atomic_kind(op.keyword_attr("atomic"))
    if kind not in ("add", "none"):
        low.fail(op, f"an atomic {kind} store is not lowered: tilefold's atomic store adds only "
                     "(pl.AtomicType.Add)", hint="store with atomic = <add>, or load, combine with vmax / vmin and "
                                                 "store")
    _gm_store(low, op, ins[0], outs[0], d, kind)


def _atomic_rmw(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``atomic_rmw ins(src) outs(gm) atomic_kind = <add>`` without a result: an atomic add store."""
    _one_out(low, op, short, ins, outs)
    p = op.keyword_attr("atomic_kind")
    kind = _atomic_kind(p) if p is not None else op.enum()
    if op.results or kind != "add":
        low.fail(op, f"atomic_rmw {'with a result' if op.results else f'of kind {kind}'} is not lowered: tilefold's "
                     "only atomic is the adding store, which returns no old value")
    _gm_store(low, op, ins[0], outs[0], d, "add")


def _atomic_refused(low: Lowering, op: HivmOp, short: str, ins, outs, d: int) -> None:
    low.fail(op, f"{short} is not lowered: it {'compares' if short == 'atomic_cas' else 'exchanges'} GM values and "
                 "returns the old ones atomically, which no tilefold op does (its only atomic is the adding store)")


def _load_scalar(low: Lowering, op: HivmOp, short: str, ins, outs, d: int) -> None:
    """``load_scalar %m : memref<1x..xT, gm> -> T``: the one element of a GM window, through a [1, 1] tile."""
    src = op.operands[0] if op.operands else None
    view = low.views.get(src) if src is not None else None
    if view is None or not isinstance(src.type, MemRefType) or any(s != 1 for s in view.sizes) or not op.results:
        low.fail(op, "load_scalar is lowered for a one-element GM memref only: HIVMDialect.md gives it an LLVM "
                     "pointer operand, which tilefold cannot follow, and does not say which element a larger "
                     "memref gives")
    offs, sizes = low._window(view)
    dtype = low._dt(src.type, op)
    cell = low.fresh((op.results[0].name_hint or "s") + "_cell")
    low.emit(d, f"{cell}: pl.Tile[[1, 1], pl.{dtype}, pl.Mem.Vec] = pl.tile.load("
                f"{low.gm_current[view.param]}, {offs}, {sizes}, target_memory=pl.Mem.Vec)")
    nm = low.define(op.results[0], op)
    low.emit(d, f"{nm}: pl.Scalar[pl.{dtype}] = pl.tile.read({cell}, [0, 0])")
    low.exprs[op.results[0]] = nm


# ---------------------------------------------------------------------------------------------- cube ops
def _cube_only(low: Lowering, op: HivmOp, short: str) -> None:
    if getattr(low, "function_type", "AIV") != "AIC":
        low.fail(op, f"{short} is a cube op: it is lowered in an AIC function (hivm.func_core_type = "
                     "#hivm.func_core_type<AIC>) only")


def _l1_load(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``nd2nz`` of a GM window into a 2-D L1 (``cbuf``) buffer -> ``tile.load`` into Mat. A plain ``load`` into
    L1 is refused: HIVMDialect.md's load "currently only support[s] loading to the unified buffer"."""
    if short == "load":
        low.fail(op, "a load into L1 (cbuf) is not lowered: HIVMDialect.md's hivm.hir.load loads to the unified "
                     "buffer only", hint="fill L1 with hivm.hir.nd2nz")
    _cube_only(low, op, short)
    _one_out(low, op, short, ins, outs)
    dst = outs[0]
    if address_space(dst.type) != "cbuf":
        low.fail(op, f"{short} into {address_space(dst.type)} is not lowered (into L1, cbuf, only)")
    view = low.views.get(ins[0])
    if view is None:
        low.fail(op, f"the {short} does not read a GM window")
    shape = shape_of(dst.type)
    if shape is None or len(shape) != 2:
        low.fail(op, f"an L1 buffer of shape {shape} is not lowered: the fractal (NZ) layout's axis order is not "
                     "described in the references, so only a 2-D L1 buffer (tilefold keeps the layout) is read",
                 hint="declare the L1 buffer with the window's 2-D shape")
    if view.sizes != shape:
        low.fail(op, f"a {view.sizes} window loaded into a {shape} L1 buffer is not lowered (padding into L1 is not "
                     "described)")
    if _attr_bool(low, op, "init_out_buffer") or keyword_operand(op, "pad_value") is not None:
        low.fail(op, f"{short} with init_out_buffer / pad_value is not lowered")
    offs, sizes = low._window(view)
    expr = f"pl.tile.load({low.gm_current[view.param]}, {offs}, {sizes}, target_memory=pl.Mem.Mat)"
    low._define_compute(op, outs, _cube_type(low, dst.type, op), expr, d)


def _cube_type(low: Lowering, t, op: Operation) -> str:
    space = CUBE_SPACES.get(address_space(t) or "")
    if space is None:
        low.fail(op, f"{t} is not a cube buffer (cbuf / ca / cb / cc)")
    return low.ttype(t, op).replace("pl.Mem.Vec", f"pl.Mem.{space}")


def _static_extent(low: Lowering, op: HivmOp, v: SSAValue, want: int, what: str) -> None:
    text = low.scalar(v, op)
    if not text.isdigit() or int(text) != want:
        low.fail(op, f"mmadL1's {what} = {text} is not the operands' static extent {want}: a partial (valid-shape) "
                     "product is not lowered")


def _mmad(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``mmadL1 ins(a, b, init, m, k, n) outs(c)``: ``C = A x B`` where ``init`` holds, else ``C = C + A x B``
    (HIVMDialect.md's formula; our reading of ``init_condition``: when it holds the accumulator starts afresh,
    as tilefold's ``matmul_acc(init_cond=)``)."""
    _cube_only(low, op, short)
    if len(ins) != 6 or len(outs) != 1:
        low.fail(op, "mmadL1 with a per-channel bias (or without init / m / k / n) is not lowered")
    for flag in ("a_transpose", "b_transpose", "enable_HF32"):
        if flag in op.attributes or any(p.kind == "word" and p.text == flag for p in op.layout()):
            low.fail(op, f"mmadL1 with {flag} is not lowered")
    a, b, init, m, k, n = ins
    (am, ak), (bk, bn) = shape_of(a.type), shape_of(b.type)
    c = outs[0]
    if ak != bk or shape_of(c.type) != [am, bn] or address_space(c.type) != "cc":
        low.fail(op, f"mmadL1 of [{am}, {ak}] x [{bk}, {bn}] into {c.type} does not fit (C in L0C, cc)")
    for v, want, what in ((m, am, "real_m"), (k, ak, "real_k"), (n, bn, "real_n")):
        _static_extent(low, op, v, want, what)
    left, right = low.fresh((a.name_hint or "a") + "_l0a"), low.fresh((b.name_hint or "b") + "_l0b")
    dt_a, dt_b = low._dt(a.type, op), low._dt(b.type, op)
    low.emit(d, f"{left}: pl.Tile[[{am}, {ak}], pl.{dt_a}, pl.Mem.Left] = pl.tile.extract({low.tile(a, op)}, 0, 0, "
                f"shape=[{am}, {ak}], target_memory=pl.Mem.Left)")
    low.emit(d, f"{right}: pl.Tile[[{bk}, {bn}], pl.{dt_b}, pl.Mem.Right] = pl.tile.extract({low.tile(b, op)}, 0, 0, "
                f"shape=[{bk}, {bn}], target_memory=pl.Mem.Right)")
    cond = low.scalar(init, op)
    out_dt = low._dt(c.type, op)
    if cond.lstrip("-").isdigit() and int(cond) != 0:
        expr = f"pl.tile.matmul({left}, {right}, out_dtype=pl.{out_dt})"
    elif cond.lstrip("-").isdigit():
        expr = f"pl.tile.matmul_acc({low.tile(c, op)}, {left}, {right})"
    else:
        expr = f"pl.tile.matmul_acc({low.tile(c, op)}, {left}, {right}, {cond})"
    low._define_compute(op, outs, _cube_type(low, c.type, op), expr, d)


def _fixpipe(low: Lowering, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
    """``fixpipe ins(c) outs(gm)``: the L0C tile stored into the GM window (no conversion on the way)."""
    _cube_only(low, op, short)
    if len(ins) != 1 or len(outs) != 1:
        low.fail(op, "a fixpipe with several destinations is not lowered: the references describe no dual "
                     "destination (which part goes where)")
    for attr in ("pre_quant", "pre_relu", "channel_split"):
        if attr in op.attributes or op.keyword_attr(attr) is not None:
            low.fail(op, f"fixpipe with {attr} is not lowered (the conversion's parameters are not described)")
    src, dst = ins[0], outs[0]
    if address_space(src.type) != "cc":
        low.fail(op, "fixpipe reads L0C (cc)")
    if dst not in low.views:
        low.fail(op, f"fixpipe into {address_space(dst.type) or dst.type} is not lowered: into UB it hands the "
                     "product to the vector core, which a tilefold AIC function cannot reach (tilefold moves it "
                     "with tile.tpush_to_aiv); into GM it is a store",
                 hint="write the product to GM and load it in the AIV function")
    if "enable_nz2nd" not in op.attributes and not any(p.kind == "word" and p.text == "enable_nz2nd"
                                                       for p in op.layout()):
        low.fail(op, "a fixpipe to GM without enable_nz2nd is not lowered: the L0C tile would leave in its fractal "
                     "(NZ) arrangement, whose axis order the references do not describe",
                 hint="write {enable_nz2nd} on the fixpipe to store the product in ND (row-major) order")
    if low._dt(src.type, op) != low._dt(dst.type, op):
        low.fail(op, f"fixpipe from {src.type} to {dst.type} converts the dtype: the quantisation mode is not "
                     "given, so it is not lowered")
    _gm_store(low, op, src, dst, d, "none")


def cube_alloc(low: Lowering, op: Operation, d: int) -> bool:
    """A ``memref.alloc`` of a cube buffer in an AIC function -> a created tile in its memory (True if handled)."""
    if not isinstance(op, memref.AllocOp) or address_space(op.results[0].type) not in CUBE_SPACES:
        return False
    t = op.results[0].type
    shape = shape_of(t)
    if shape is None or len(shape) != 2:
        low.fail(op, f"a cube buffer of shape {shape} is not lowered: the fractal (NZ) layout's axis order is not "
                     "described in the references, so only 2-D cube buffers are read")
    nm = low.define(op.results[0], op)
    space = CUBE_SPACES[address_space(t)]
    low.emit(d, f"{nm}: {_cube_type(low, t, op)} = pl.tile.create([{', '.join(map(str, shape))}], "
                f"dtype=pl.{low._dt(t, op)}, target_memory=pl.Mem.{space})")
    low.alloc_version[op.results[0]] = nm
    return True

