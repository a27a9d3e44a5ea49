"""TileAndBindSubBlock: split vector (AIV) work 1:2 across the two vector sub-blocks.

Contract
--------
Applies to AIV functions and to InCore functions whose work is all vector (no cube op, no tile outside
Vec). For each such function it either

* **splits** it: one parallel axis class (chosen with ``tilefold.analysis.dimensions``) is halved in
  every store and, transitively, in every producer of the stored tiles. Sub-block ``sb =
  get_subblock_idx()`` computes the window at offset ``sb * half`` on that axis. Stores and custom ops
  that were split carry the ``tiled_op=True`` attribute; the function becomes ``AIV`` (it runs on both
  sub-blocks) and gets the attribute ``sub_block_axis``. A custom op no consumer wants halved but whose
  result split work reads whole runs whole on both sub-blocks (``sub_block_replicated=True``) when it is
  safe to duplicate (else the function rolls back); one nothing unguarded reads is fenced to sub-block 0;
  or
* **rolls back**: the untouched original function is kept, and LimitUniqueSubBlockIdToStoreCopy puts
  every store and every custom op not marked ``tiled_op`` under ``if get_subblock_idx() == 0`` (an
  ``IfStmt`` tagged ``limit_sub_block_id0``; an op with results yields its output inits on the other
  branch). The function gets ``tile_and_bind_subblock_reverted=<reason>`` and the program
  ``tile_and_bind_subblock_reverted=True``.

Either way the results are unchanged. Every decision is reported as a remark (pass name
``TileAndBindSubBlock``): the chosen axis and why, each op split, each refusal with the failed check
and the operand, each rollback with its reason.

With ``enable_auto_bind_sub_block=False`` nothing is split, but the device still runs every AIV function on
both sub-blocks, so LimitUniqueSubBlockIdToStoreCopy still guards every store and custom op of each
candidate function that does not read ``get_subblock_idx`` (upstream's ``enable-tile=false``).

Required: SSAForm, TypeChecked, NormalizedStmtStructure, TileMemoryInferred. Produces the same
properties (new IR is built with the registry's type inference and keeps SSA form).

Algorithm (all analysis happens before any IR is created, so a refusal never leaves a half rewrite):

0. tile-valued nested calls are hoisted into fresh variables (a rollback keeps the original function);
   a function without any store is rolled back when it has custom ops (they are fenced to sub-block 0);
1. dimension analysis; a "broadcast on two different axes" conflict turns strict mode off for this
   function only (other conflicts are recorded, strict mode kept); an unranked custom operand gives up on
   the function;
2. axis choice per store: parallel, static, even, a column split's half row a multiple of 32 bytes;
   one axis class must cover every store; the outer axis is preferred, and each candidate is tried in turn
   when the demand pass refuses the previous one (e.g. a loaded / intermediate tile halved on its columns
   with a half row under 32 B);
3. demand propagation (the bubbling of the marked half-windows), in reverse program order, one
   strategy per ``OpKind``; custom ops follow the seed's checks in order (see ``check_custom_op``); loop
   demands are iterated to a fixpoint before anything is decided;
4. rewrite: loads get narrowed GM windows, elementwise / broadcast / reduction / custom ops are
   re-emitted on half tiles, loops and ifs carry halves, stores write ``[off + sb * half]``. A flattened
   2-D tile of an N-D tensor (FlattenTileNdTo2D's ``tile.load(..., flatten=True)`` /
   ``tile.store(..., shapes=...)``) is split on the N-D window axis its halving maps to
   (``analysis.dimensions.flattened_split_axis``), or the axis is refused (``flattened_window``).

The pass never raises for a valid program: an unexpected failure (a bug of this pass) rolls the function
back with the reason ``internal: ...`` and an ``internal-error`` remark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilefold.analysis.dimensions import DimensionAnalyzer, ValueKey, flattened_split_axis
from tilefold.ir.affine import AffineBinaryExpr, AffineConstantExpr, AffineDimExpr, AffineMap
from tilefold.ir.expr import Add, Call, ConstInt, Eq, Expr, GlobalVar, IterArg, MakeTuple, Mul, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
    flatten_stmts,
)
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType, TupleType, Type
from tilefold.ir.visitor import IRMutator, IRVisitor
from tilefold.ops.registry import OpDef, OpKind, ParamKind, Unit, get_op, make_call, op_of
from tilefold.ops.tile_ops import custom_segments
from tilefold.passes.base import IRProperty, Pass

PASS_NAME = "TileAndBindSubBlock"
LIMIT_PASS_NAME = "LimitUniqueSubBlockIdToStoreCopy"
TILED_OP = "tiled_op"
LIMIT_TAG = "limit_sub_block_id0"
REVERTED = "tile_and_bind_subblock_reverted"
AXIS_ATTR = "sub_block_axis"
REPLICATED = "sub_block_replicated"  # call attribute: an un-split custom op both sub-blocks compute whole
FULL = -1  # demand: the whole value is needed
FOLLOW = -2  # mode of an unused tuple element: halved with its (split) op, else whole
VECTOR_ALIGN = 32  # bytes: a column half-row must keep vector operands 32 B aligned
# soft demand ``SOFT - axis``: a window copy (``tile.extract``) covering its source on ``axis`` can read the
# source's ``axis``-half with its index unchanged OR the whole source with the index offset by ``sb * half``;
# the source's other consumers decide (see ``_Splitter._resolve``)
SOFT = -10

INDEX = DataType.INDEX


# =================================================================================================
# remarks
# =================================================================================================


def _remark(pass_name: str, function: str, kind: str, message: str, **details: Any) -> None:
    try:
        from tilefold.passes import remarks
    except ImportError:  # the remarks module is optional at import time
        return
    try:
        remarks.emit(remarks.Remark(pass_name, function, kind, message, details))
    except Exception:  # noqa: BLE001 - a remark must never break compilation
        return


# =================================================================================================
# refusals
# =================================================================================================


class Refusal(Exception):
    """A check failed: the function cannot be split (or, non-strict, a window stays on an op)."""

    def __init__(self, check: str, message: str, operand: str = "", op: str = "") -> None:
        self.check = check
        self.message = message
        self.operand = operand
        self.op = op
        super().__init__(self.describe())

    def describe(self) -> str:
        where = f" ({self.op}" + (f", operand {self.operand}" if self.operand else "") + ")" if self.op else ""
        return f"{self.check}: {self.message}{where}"


class _Abort(Exception):
    """Give up on the whole function (rollback). ``axis_specific=False``: the refusal holds whatever the
    split axis (e.g. a custom op with side effects), so no other candidate axis is tried."""

    def __init__(self, reason: str, axis_specific: bool = True) -> None:
        self.reason = reason
        self.axis_specific = axis_specific
        super().__init__(reason)


# custom-op checks whose outcome does not depend on the split axis
AXIS_INDEPENDENT_CHECKS = frozenset({"safe_to_duplicate", "sliceable_inputs", "supported_explicit_maps",
                                     "aligned_output_inits", "replicable"})


# =================================================================================================
# custom-op strategy (the seed's CustomOpBubbleUpStrategy): checks in order, then projection
# =================================================================================================


@dataclass
class CustomPlan:
    """The outcome of the custom-op checks: how to build the ONE tiled op."""

    iter_dim: int  # iteration dim that is split
    half: int  # half extent of that dim
    input_axes: list[int | None]  # per input: axis sliced (None: whole / scalar)
    output_axes: list[int]  # per output init / result: axis sliced


def _name(e: Expr) -> str:
    return e.name if isinstance(e, Var) else repr(e)


def _static(t: Type) -> tuple[int, ...] | None:
    return t.static_shape if isinstance(t, (TileType, TensorType)) else None


def check_safe_to_duplicate(call: Call) -> None:
    """isSafeToDuplicateCustomLike: both sub-blocks will run the kernel on their half."""
    op = call.op_name
    seg = custom_segments(call)
    if not call.kwarg("no_side_effect", False):
        raise Refusal("safe_to_duplicate", "custom op may have side effects (no_side_effect is not set)", op=op)
    if call.kwarg("builtin", False):
        raise Refusal("safe_to_duplicate", "builtin custom ops are compiler library calls and are never split",
                      op=op)
    if seg["tmps"]:
        raise Refusal("safe_to_duplicate", "custom op has temp buffers", operand=_name(seg["tmps"][0]), op=op)
    if call.kwarg("extra_buffers_info"):
        raise Refusal("safe_to_duplicate", "custom op has extra_buffers_info", op=op)
    if op == "tile.custom_macro":
        if call.kwarg("sync_event_slots"):
            raise Refusal("safe_to_duplicate", "custom_macro has sync_event_slots", op=op)
        if seg["sync_related_args"]:
            raise Refusal("safe_to_duplicate", "custom_macro has sync_related_args",
                          operand=_name(seg["sync_related_args"][0]), op=op)


def check_replicable(call: Call, result_types: list[Type]) -> None:
    """An un-split custom op whose result split work needs WHOLE runs on both sub-blocks (unguarded). That
    is only sound when running it twice is harmless: ``safe_to_duplicate`` holds and it writes nothing but
    its own Vec tile outputs (a GM tensor output init or result would be written by both sub-blocks, racing
    with the other sub-block's split stores)."""
    check_safe_to_duplicate(call)
    op = call.op_name
    for j, o in enumerate(custom_segments(call)["outs"]):
        if not isinstance(o.type, TileType):
            raise Refusal("replicable", f"output init #{j} is a {type(o.type).__name__}, not a tile: the kernel "
                          "writes global memory", operand=_name(o), op=op)
    for j, rt in enumerate(result_types):
        if not isinstance(rt, TileType):
            raise Refusal("replicable", f"result #{j} is a {type(rt).__name__}, not a tile",
                          operand=f"result #{j}", op=op)


def check_sliceable_inputs(call: Call) -> None:
    """hasSliceableCustomInputs: ranked tiles are sliced, scalars pass through, the rest is refused."""
    op = call.op_name
    for k, x in enumerate(custom_segments(call)["ins"]):
        t = x.type
        if isinstance(t, ScalarType):
            continue
        if isinstance(t, TensorType):
            raise Refusal("sliceable_inputs", f"input #{k} is a GM tensor (memref-like), not a tile",
                          operand=_name(x), op=op)
        if not isinstance(t, TileType):
            raise Refusal("sliceable_inputs", f"input #{k} is unranked ({type(t).__name__})", operand=_name(x), op=op)


def _check_map_results(m: AffineMap, k: int, operand: Expr, op: str) -> None:
    last = -1
    seen: set[int] = set()
    for e in m.results:
        if isinstance(e, AffineDimExpr):
            if e.position in seen:
                raise Refusal("supported_explicit_maps", f"map #{k} '{m}' repeats d{e.position}",
                              operand=_name(operand), op=op)
            if e.position < last:
                raise Refusal("supported_explicit_maps", f"map #{k} '{m}' is transposed (dims out of order)",
                              operand=_name(operand), op=op)
            seen.add(e.position)
            last = e.position
        elif isinstance(e, AffineConstantExpr):
            if e.value != 0:
                raise Refusal("supported_explicit_maps", f"map #{k} '{m}' has the non-zero constant {e.value}",
                              operand=_name(operand), op=op)
        else:
            raise Refusal("supported_explicit_maps", f"map #{k} '{m}' has the compound expression '{e}'",
                          operand=_name(operand), op=op)


def check_supported_explicit_maps(call: Call) -> None:
    """hasSupportedExplicitIndexingMaps."""
    op = call.op_name
    seg = custom_segments(call)
    maps = call.kwarg("indexing_maps") or ()
    iters = call.kwarg("iterator_types") or ()
    operands = list(seg["ins"]) + list(seg["outs"])
    if not maps or not iters:
        raise Refusal("supported_explicit_maps", "custom op has no explicit indexing_maps / iterator_types", op=op)
    if len(maps) != len(operands):
        raise Refusal("supported_explicit_maps",
                      f"{len(maps)} maps for {len(seg['ins'])} ins + {len(seg['outs'])} outs "
                      "(ops with temp buffers are not supported)", op=op)
    for k, (m, x) in enumerate(zip(maps, operands, strict=False)):
        if m.num_dims != len(iters):
            raise Refusal("supported_explicit_maps", f"map #{k} '{m}' has {m.num_dims} dims for {len(iters)} "
                          "iterators", operand=_name(x), op=op)
        if m.num_symbols:
            raise Refusal("supported_explicit_maps", f"map #{k} '{m}' uses symbols", operand=_name(x), op=op)
        t = x.type
        if isinstance(t, (TileType, TensorType)) and m.num_results != t.rank:
            raise Refusal("supported_explicit_maps", f"map #{k} '{m}' has {m.num_results} results for rank "
                          f"{t.rank}", operand=_name(x), op=op)
        _check_map_results(m, k, x, op)


def check_slices_only_parallel_dimensions(call: Call, result_axes: dict[int, int]) -> None:
    """slicesOnlyParallelDimensions: each result axis that shrinks maps to a parallel iterator dN."""
    op = call.op_name
    seg = custom_segments(call)
    maps = call.kwarg("indexing_maps")
    iters = call.kwarg("iterator_types")
    n_ins = len(seg["ins"])
    for j, axis in result_axes.items():
        m = maps[n_ins + j]
        e = m.results[axis]
        if not isinstance(e, AffineDimExpr):
            raise Refusal("slices_only_parallel_dimensions",
                          f"result #{j} axis {axis} maps to '{e}', not to an iterator", operand=f"result #{j}", op=op)
        if iters[e.position] != "parallel":
            raise Refusal("slices_only_parallel_dimensions",
                          f"result #{j} axis {axis} maps to d{e.position}, a {iters[e.position]} iterator",
                          operand=f"result #{j}", op=op)


def check_aligned_output_inits(call: Call, result_types: list[Type]) -> None:
    """hasAlignedOutputInits: output init ``j`` <-> result ``j`` (by position); both are ranked static tiles
    and the output init has the shape of ITS OWN result. The output init's map is the result's map (result
    ``j`` is written through output init ``j`` and both use ``indexing_maps[len(ins) + j]``); it is checked to
    fit the result's rank. Only then can the output init be sliced exactly like the result it belongs to."""
    op = call.op_name
    seg = custom_segments(call)
    outs = seg["outs"]
    maps = call.kwarg("indexing_maps")
    n_ins = len(seg["ins"])
    if len(outs) != len(result_types):
        raise Refusal("aligned_output_inits", f"{len(outs)} output inits for {len(result_types)} results", op=op)
    for j, (o, rt) in enumerate(zip(outs, result_types, strict=True)):
        if not isinstance(o.type, TileType) or o.type.static_shape is None:
            raise Refusal("aligned_output_inits", f"output init #{j} is not a ranked static tile "
                          f"({type(o.type).__name__})", operand=_name(o), op=op)
        if not isinstance(rt, TileType) or rt.static_shape is None:
            raise Refusal("aligned_output_inits", f"result #{j} is not a ranked static tile ({type(rt).__name__})",
                          operand=f"result #{j}", op=op)
        if o.type.static_shape != rt.static_shape:
            raise Refusal("aligned_output_inits",
                          f"output init #{j} shape {list(o.type.static_shape)} differs from the shape "
                          f"{list(rt.static_shape)} of result #{j}", operand=_name(o), op=op)
        m = maps[n_ins + j]
        if m.num_results != rt.rank:
            raise Refusal("aligned_output_inits", f"output init #{j} map '{m}' has {m.num_results} results for "
                          f"the rank-{rt.rank} result #{j}", operand=_name(o), op=op)


def recover_result_windows(call: Call, result_types: list[Type],
                           result_axes: dict[int, int]) -> tuple[int, int, list[int]]:
    """Recover the iteration-space window from EVERY result of the op and require them to be equal.

    A demanded result ``j`` (``result_axes[j]`` = the axis its consumers want halved) gives the split
    iteration dim ``dN`` through its map; the ONE tiled op halves every result, so every other result must
    bind ``dN`` too. Each result's window is ``{dim: (offset, size)}`` over the dims its map binds: the split
    dim covers ``[sb * half, half)``, every other bound dim its full extent ``[0, extent)``. Two results
    must agree on every dim both bind (the seed only compared result window types: its assumption 3).
    Returns ``(split dim, full extent, per-result axis bound to the split dim)``."""
    op = call.op_name
    seg = custom_segments(call)
    maps = call.kwarg("indexing_maps")
    n_ins = len(seg["ins"])
    split: tuple[int, int] | None = None  # (dim, full extent)
    for j, axis in sorted(result_axes.items()):
        e = maps[n_ins + j].results[axis]
        w = (e.position, _static(result_types[j])[axis])
        if split is None:
            split = w
        elif w != split:
            raise Refusal("recover_iteration_window",
                          f"result #{j} gives iteration window d{w[0]}[{w[1]}] but another result gives "
                          f"d{split[0]}[{split[1]}]", operand=f"result #{j}", op=op)
    assert split is not None
    dim, extent = split
    output_axes: list[int] = []
    windows: dict[int, tuple[str, int]] = {}  # dim -> (offset, size) of the first result binding it
    owner: dict[int, int] = {}
    for j, rt in enumerate(result_types):
        shape = _static(rt)
        res = maps[n_ins + j].results
        bound = [(i, e.position) for i, e in enumerate(res) if isinstance(e, AffineDimExpr)]
        axes = [i for i, p in bound if p == dim]
        if not axes:
            raise Refusal("recover_iteration_window",
                          f"result #{j} map '{maps[n_ins + j]}' does not bind the split iteration dim d{dim}: "
                          "its window cannot be halved with the others", operand=f"result #{j}", op=op)
        output_axes.append(axes[0])
        for i, p in bound:
            if p == dim and shape[i] != extent:
                raise Refusal("recover_iteration_window",
                              f"result #{j} axis {i} covers the split dim d{dim} with extent {shape[i]}, another "
                              f"result with {extent}", operand=f"result #{j}", op=op)
            win = (f"sb * {extent // 2}", extent // 2) if p == dim else ("0", shape[i])
            if p not in windows:
                windows[p], owner[p] = win, j
            elif windows[p] != win:
                raise Refusal("recover_iteration_window",
                              f"result #{j} covers d{p} with [{win[0]}, +{win[1]}) but result #{owner[p]} with "
                              f"[{windows[p][0]}, +{windows[p][1]})", operand=f"result #{j}", op=op)
    return dim, extent, output_axes


def recover_iteration_window(call: Call, result_types: list[Type], result_axes: dict[int, int]) -> tuple[int, int]:
    """The split iteration dim and its full extent, recovered from every result (see
    ``recover_result_windows``); raises ``Refusal`` when the results disagree."""
    dim, extent, _ = recover_result_windows(call, result_types, result_axes)
    return dim, extent


def project_to_inputs(call: Call, iter_dim: int, extent: int) -> list[int | None]:
    """Project the iteration window onto each input through its map. Unbound dims and the broadcast
    constant 0 take the operand's full static range; a dynamic full range fails."""
    op = call.op_name
    seg = custom_segments(call)
    maps = call.kwarg("indexing_maps")
    axes: list[int | None] = []
    for k, x in enumerate(seg["ins"]):
        t = x.type
        if not isinstance(t, TileType):
            axes.append(None)
            continue
        sliced: int | None = None
        for axis, (e, ext) in enumerate(zip(maps[k].results, t.shape, strict=False)):
            if isinstance(e, AffineDimExpr) and e.position == iter_dim:
                if not (isinstance(ext, ConstInt) and ext.value == extent):
                    raise Refusal("project_to_inputs", f"input #{k} axis {axis} has extent {ext!r}, not the "
                                  f"iteration extent {extent} of d{iter_dim}", operand=_name(x), op=op)
                sliced = axis
            elif not isinstance(ext, ConstInt):
                raise Refusal("project_to_inputs", f"input #{k} axis {axis} needs its full range but its extent "
                              f"{ext!r} is dynamic", operand=_name(x), op=op)
            elif isinstance(e, AffineBinaryExpr):  # defensive: checked earlier
                raise Refusal("project_to_inputs", f"cannot project '{e}'", operand=_name(x), op=op)
        axes.append(sliced)
    return axes


def check_custom_op(call: Call, result_types: list[Type], result_axes: dict[int, int]) -> CustomPlan:
    """All checks of the custom-op strategy, in the seed's order; raises ``Refusal`` on the first failure.
    ``result_axes`` maps a result index to the axis its consumers want halved."""
    check_safe_to_duplicate(call)
    check_sliceable_inputs(call)
    check_supported_explicit_maps(call)
    check_slices_only_parallel_dimensions(call, result_axes)
    check_aligned_output_inits(call, result_types)
    for j, axis in result_axes.items():
        ext = _static(result_types[j])[axis]
        if ext % 2:
            raise Refusal("recover_iteration_window", f"result #{j} axis {axis} extent {ext} is odd",
                          operand=f"result #{j}", op=call.op_name)
    iter_dim, extent, output_axes = recover_result_windows(call, result_types, result_axes)
    input_axes = project_to_inputs(call, iter_dim, extent)
    return CustomPlan(iter_dim, extent // 2, input_axes, output_axes)


# =================================================================================================
# helpers
# =================================================================================================


def _result_keys(var: Var | None) -> list[ValueKey]:
    if var is None:
        return []
    if isinstance(var.type, TupleType):
        return [(var, j) for j in range(len(var.type.types))]
    return [var]


def _key_type(key: ValueKey) -> Type:
    if isinstance(key, Var):
        return key.type
    var, j = key
    return var.type.types[j]


def _key_name(key: ValueKey) -> str:
    return key.name if isinstance(key, Var) else f"{key[0].name}[{key[1]}]"


def _half_type(t: TileType, axis: int) -> TileType:
    shape = list(t.shape)
    shape[axis] = ConstInt(shape[axis].value // 2, INDEX)
    view = t.tile_view
    if view is not None and view.valid_shape is not None:
        view = None  # a halved window of a full valid shape; partial valid shapes are refused earlier
    return TileType(tuple(shape), t.dtype, t.memory_space, None, view)


def _halvable(t: Type, axis: int) -> str | None:
    """None if axis of t is static and even; else the reason."""
    if not isinstance(t, TileType):
        return f"{type(t).__name__} is not a tile"
    if axis >= t.rank:
        return f"axis {axis} out of range"
    ext = t.shape[axis]
    if not isinstance(ext, ConstInt):
        return f"extent {ext!r} on axis {axis} is dynamic"
    if ext.value % 2:
        return f"extent {ext.value} on axis {axis} is odd"
    if t.tile_view is not None and t.tile_view.valid_shape is not None:
        vs = t.tile_view.valid_shape
        if not all(isinstance(a, ConstInt) and isinstance(b, ConstInt) and a.value == b.value
                   for a, b in zip(vs, t.shape, strict=False)):
            return "tile has a partial valid shape"
    return None


def _split_reason(t: Type, axis: int) -> str | None:
    """None if ``t`` can be halved on ``axis`` (static, even, a column half row a multiple of 32 B)."""
    reason = _halvable(t, axis)
    if reason is None and axis == t.rank - 1:
        half_bytes = t.shape[axis].value // 2 * t.dtype.itemsize
        if half_bytes % VECTOR_ALIGN:
            reason = (f"column split: half row of {half_bytes} B ({t.shape[axis].value // 2} x "
                      f"{t.dtype.itemsize} B) is not a multiple of {VECTOR_ALIGN} B")
    return reason


def copy_window(op: OpDef, call: Call) -> tuple[list[int], tuple[int, ...]] | None:
    """For an ``OpKind.COPY`` op that copies a window of its tile operand (registry facts: one SCALAR index
    operand per result axis and a ``shape`` attribute, e.g. ``tile.extract``): (argument positions of the
    per-axis index operands, the window shape). None for a whole-tile copy (e.g. ``tile.move``)."""
    idx = [i for i, p in enumerate(op.operand_params) if p.kind is ParamKind.SCALAR]
    shape = call.kwarg("shape")
    if not idx or shape is None or not any(p.name == "shape" for p in op.attr_params):
        return None
    return idx, tuple(int(v.value if isinstance(v, ConstInt) else v) for v in shape)


def _offset_plus(orig: Expr, sb: Var, half: int) -> Expr:
    term = Mul(sb, ConstInt(half, INDEX), INDEX)
    if isinstance(orig, ConstInt) and orig.value == 0:
        return term
    return Add(orig, term, INDEX)


def _rebuild(name: str, args: list[Expr], kwargs: dict[str, Any], span: Any) -> Call:
    """``make_call`` for a re-emitted op: the op's own attributes go through type inference, extra IR
    attributes the op does not declare (``ir_attrs={...}`` in the DSL) are carried over unchanged."""
    declared = {p.name for p in get_op(name).attr_params}
    extra = tuple((k, v) for k, v in kwargs.items() if k not in declared)
    call = make_call(name, args, {k: v for k, v in kwargs.items() if k in declared}, span=span)
    return call.with_fields(kwargs=call.kwargs + extra) if extra else call


def store_window(call: Call) -> list[int | None] | None:
    """The N-D tensor window of a store of a flattened 2-D tile (FlattenTileNdTo2D's ``shapes=``), else None."""
    shapes = call.kwarg("shapes")
    if shapes is None:
        return None
    return [int(v) if isinstance(v, int) else (v.value if isinstance(v, ConstInt) else None) for v in shapes]


def load_window(call: Call) -> list[int | None] | None:
    """The N-D tensor window of a ``flatten=True`` load (its tile is the flattened 2-D window), else None."""
    if not call.kwarg("flatten", False) or len(call.args) < 3 or not isinstance(call.args[2], MakeTuple):
        return None
    shapes = call.args[2].elements
    if len(shapes) <= 2:
        return None
    return [e.value if isinstance(e, ConstInt) else None for e in shapes]


def _window_axis(window: list[int | None] | None, axis: int, half: int, what: str, op: str) -> tuple[int, int]:
    """The GM-window axis and half extent that halve ``axis`` of the tile (identity without a flattened
    window); raises ``Refusal`` when a flattened window cannot be halved as one N-D box."""
    if window is None:
        return axis, half
    r = flattened_split_axis(window, axis)
    if isinstance(r, str):
        raise Refusal("flattened_window", f"axis {axis} of the flattened 2-D tile: {r}", operand=what, op=op)
    return r


class _UsesSubblock(IRVisitor):
    def __init__(self) -> None:
        self.found = False
        self.vector_only = True
        self.stores = 0
        self.customs = 0

    def visit_Call(self, expr: Call) -> None:
        if isinstance(expr.op, GlobalVar):
            self.vector_only = False
        else:
            op = op_of(expr)
            if expr.op_name == "tile.get_subblock_idx":
                self.found = True
            if op is None or op.unit is Unit.CUBE:
                self.vector_only = False
            if op is not None and op.kind is OpKind.STORE:
                self.stores += 1
            if op is not None and op.kind is OpKind.CUSTOM:
                self.customs += 1
            if isinstance(expr.type, TileType) and expr.type.memory_space not in (None, MemorySpace.Vec):
                self.vector_only = False
        super().visit_Call(expr)


def _scan(fn: Function) -> _UsesSubblock:
    v = _UsesSubblock()
    v.visit_function(fn)
    return v


def is_candidate(fn: Function) -> bool:
    """AIV functions, and InCore functions whose work is all vector."""
    if fn.func_type is FunctionType.AIV:
        return True
    if fn.func_type is FunctionType.InCore:
        return _scan(fn).vector_only
    return False


# =================================================================================================
# the splitter: analysis (demands) then rewrite
# =================================================================================================


class _Splitter:
    def __init__(self, fn: Function, strict: bool, analyzer: DimensionAnalyzer) -> None:
        self.fn = fn
        self.strict = strict
        self.an = analyzer
        self.demand: dict[ValueKey, set[int]] = {}
        self.mode: dict[ValueKey, int] = {}  # value -> half axis (FULL = whole)
        self.custom_plans: dict[int, CustomPlan] = {}  # id(call) -> plan
        self.store_axes: dict[int, int] = {}  # id(store call) -> axis of its tile
        self.left: list[str] = []  # windows left on ops (non-strict)
        self.notes: list[tuple[str, str, dict]] = []
        # values some unguarded work reads (a store, a pure op, a loop / if, a replicated custom op...); a
        # demand that only comes from custom ops fenced to sub-block 0 is "weak" and not in this set
        self.strong: set[ValueKey] = set()
        self.replicated: dict[int, str] = {}  # id(custom call) -> why it is computed whole on both
        self.fenced: set[int] = set()  # id(custom call): un-split, results unused by unguarded work
        self.sb = Var("subblock_idx", ScalarType(INDEX))

    def _note(self, kind: str, message: str, details: dict) -> None:
        if not any(k == kind and m == message for k, m, _ in self.notes):
            self.notes.append((kind, message, details))

    # ----------------------------------------------------------------------------- demands

    def _want(self, key: ValueKey, axis: int, weak: bool = False) -> None:
        if not isinstance(_key_type(key), TileType):
            return
        self.demand.setdefault(key, set()).add(axis)
        if not weak:
            self.strong.add(key)

    def _want_expr(self, e: Expr, axis: int, weak: bool = False) -> None:
        if isinstance(e, Var):
            self._want(e, axis, weak)
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            self._want((e.tuple_value, e.index), axis, weak)
        elif isinstance(e.type, TileType):
            # a tile-valued expression that is not a variable (nested calls are hoisted into variables
            # before the analysis, so this is only reached for exotic expressions): nothing to bubble into
            self._leave("window on a non-variable tile expression", repr(e), custom=False)

    def _leave(self, reason: str, what: str, custom: bool) -> None:
        if custom or self.strict:
            raise _Abort(f"window stuck on {what}: {reason}")
        self.left.append(f"{what}: {reason}")

    def _decide(self, key: ValueKey, what: str, custom: bool = False) -> int | None:
        """The single demanded half axis of ``key`` or None (whole)."""
        d = self._resolve(key)
        if not d or d == {FULL}:
            return None
        if len(d) > 1:
            self._leave("value is needed both whole and halved" if FULL in d else "value is halved on two axes",
                        what, custom)
            return None
        (axis,) = d
        return axis

    def _resolve(self, key: ValueKey) -> set[int]:
        """The demand set of ``key`` with soft demands resolved: a soft ``axis`` demand is the ``axis``-half
        when every other demand agrees (or there is none and all soft demands agree), else the whole value
        (the window copy then reads the whole source at an offset index)."""
        d = self.demand.get(key, set())
        soft = {SOFT - a for a in d if a <= SOFT}
        if not soft:
            return d
        hard = {a for a in d if a > SOFT}
        if not hard:
            return soft if len(soft) == 1 else {FULL}
        return hard | ({FULL} if soft - hard else set())

    def _soft_only(self, key: ValueKey) -> bool:
        d = self.demand.get(key, set())
        return bool(d) and all(a <= SOFT for a in d)

    def run_demands(self, store_plan: dict[int, int]) -> None:
        self.store_plan = store_plan
        self._reverse_body(self.fn.body)
        self._check_halves()

    def _check_halves(self) -> None:
        """Every tile halved along its last (column) axis — loads, intermediates, custom operands, iter
        args, not only the stored tiles — must keep a half row that is a multiple of 32 B (the vector base
        alignment); every halved axis must be static and even."""
        seen: set[tuple[ValueKey, int]] = set()
        items = [(k, a) for k, d in self.demand.items() for a in d] + list(self.mode.items())
        for key, axis in items:
            if axis is None or axis < 0 or (key, axis) in seen:
                continue
            seen.add((key, axis))
            t = _key_type(key)
            if not isinstance(t, TileType):
                continue
            reason = _split_reason(t, axis)
            if reason is not None:
                raise _Abort(f"cannot halve {_key_name(key)} on axis {axis}: {reason}")

    def _reverse_body(self, body: Stmt | None) -> None:
        for stmt in reversed(flatten_stmts(body)):
            self._reverse_stmt(stmt)

    def _reverse_stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, AssignStmt):
            self._reverse_assign(stmt.var, stmt.value)
        elif isinstance(stmt, EvalStmt):
            if isinstance(stmt.expr, Call):
                self._reverse_call(None, stmt.expr)
        elif isinstance(stmt, ReturnStmt):
            for v in stmt.values:  # returns normally carry tensors; a returned tile keeps its type
                for sub in _tile_subexprs(v):
                    self._want_expr(sub, FULL)
        elif isinstance(stmt, YieldStmt):
            pass  # yields are handled by their loop / if
        elif isinstance(stmt, ForStmt):
            self._reverse_for(stmt)
        elif isinstance(stmt, IfStmt):
            self._reverse_if(stmt)
        elif isinstance(stmt, WhileStmt):
            self._reverse_while(stmt)
        elif isinstance(stmt, SeqStmts):
            self._reverse_body(stmt)

    def _reverse_assign(self, var: Var, value: Expr) -> None:
        if isinstance(value, Call):
            self._reverse_call(var, value)
        elif isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
            if isinstance(var.type, TileType) and not self.demand.get(var):
                # an unused result of a multi-result op (``m, e = custom(...)`` with ``m`` dead) does not
                # force the op whole: it is halved with the op if the op is split
                self.mode[var] = FOLLOW
                return
            axis = self._decide(var, f"{var.name} = {value.tuple_value.name}[{value.index}]")
            self.mode[var] = FULL if axis is None else axis
            if isinstance(var.type, TileType):
                self._want((value.tuple_value, value.index), FULL if axis is None else axis)
        elif isinstance(value, Var):
            axis = self._decide(var, f"{var.name} = {value.name}")
            self.mode[var] = FULL if axis is None else axis
            if isinstance(var.type, TileType):
                self._want(value, FULL if axis is None else axis)
        else:
            for sub in _tile_subexprs(value):
                self._want_expr(sub, FULL)

    def _full_operands(self, call: Call, weak: bool = False) -> None:
        for a in call.args:
            if isinstance(a.type, TileType):
                self._want_expr(a, FULL, weak)
            elif isinstance(a, MakeTuple):
                for e in a.elements:
                    if isinstance(e.type, TileType):
                        self._want_expr(e, FULL, weak)

    def _reverse_call(self, var: Var | None, call: Call) -> None:
        op = op_of(call)
        if op is not None and op.kind is OpKind.STORE:
            axis = self.store_plan.get(id(call))
            if axis is None:
                raise _Abort("a store has no split axis")
            self._want_expr(call.args[0], axis)
            return
        if op is not None and op.kind is OpKind.CUSTOM:
            self._reverse_custom(var, call)
            return
        what = f"{call.op_name}" + (f" -> {var.name}" if var is not None else "")
        axis = self._decide(var, what) if var is not None else None
        if axis is None:
            if var is not None:
                self.mode[var] = FULL
            self._full_operands(call)
            return
        try:
            operand_axes = self._strategy(var, call, axis)
        except Refusal as r:
            if self._soft_only(var):  # only window copies want a half: they read the whole value instead
                self.mode[var] = FULL
                self._full_operands(call)
                return
            self._leave(r.describe(), what, custom=False)
            self._note("window-left", f"window left on {what}: {r.describe()}", {"check": r.check})
            self.mode[var] = FULL
            self._full_operands(call)
            return
        self.mode[var] = axis
        for e, a in operand_axes:
            self._want_expr(e, a)

    def _strategy(self, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
        """Operand demands for producing the ``axis``-half of ``var = call``; raises Refusal."""
        op = op_of(call)
        name = call.op_name
        if op is None:
            raise Refusal("supported_producer", f"{name} is not a registered op", op=name)
        reason = _halvable(var.type, axis)
        if reason is not None:
            raise Refusal("halvable", reason, operand=var.name, op=name)
        kind = op.kind
        tiles = [a for a in call.args if isinstance(a.type, TileType)]
        if kind in (OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY, OpKind.CAST):
            return [(a, axis) for a in tiles]
        if kind in (OpKind.ROW_BROADCAST, OpKind.COL_BROADCAST):
            bcast = op.extra.get("axis", 1 if kind is OpKind.ROW_BROADCAST else 0)
            target, vec = call.args[0], call.args[1]
            return [(target, axis), (vec, FULL if axis == bcast else axis)]
        if kind in (OpKind.ROW_REDUCTION, OpKind.COL_REDUCTION):
            red = op.extra.get("axis", 1 if kind is OpKind.ROW_REDUCTION else 0)
            if axis == red:
                raise Refusal("reduction_axis", f"axis {axis} is the reduced axis of {name}", operand=var.name,
                              op=name)
            return [(call.args[0], axis)]
        if kind is OpKind.LOAD:
            if var.type.memory_space not in (None, MemorySpace.Vec):
                raise Refusal("supported_producer", "load into a non-Vec memory", op=name)
            # a flattened N-D window must halve as one box of the tensor
            _window_axis(load_window(call), axis, var.type.shape[axis].value // 2, var.name, name)
            return []
        if kind is OpKind.CREATE:
            return []
        if kind is OpKind.VIEW and name == "tile.slice" and len(call.args) == 3:
            src = call.args[0]
            st = src.type
            shape, offs = call.args[1].elements, call.args[2].elements
            if not (isinstance(st, TileType) and isinstance(offs[axis], ConstInt) and offs[axis].value == 0
                    and isinstance(shape[axis], ConstInt) and isinstance(st.shape[axis], ConstInt)
                    and shape[axis].value == st.shape[axis].value):
                raise Refusal("slice_window", f"the slice does not cover its source on axis {axis}",
                              operand=_name(src), op=name)
            return [(src, axis)]
        if kind is OpKind.COPY:
            return self._copy_strategy(op, var, call, axis)
        raise Refusal("supported_producer", f"no sub-block strategy for {name} ({kind.value})", op=name)

    def _copy_strategy(self, op: OpDef, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
        """COPY ops. A whole-tile copy within Vec (``tile.move``) copies the half of its source. A window copy
        (``tile.extract(src, index_row, index_col, shape=)``): the ``axis``-half of the result is the window
        ``[index + sb * half, +half)`` of the source. When the window covers the source on ``axis`` (index 0,
        full extent) that is exactly the source's own half: a *soft* demand lets the source's other consumers
        decide between its half (index unchanged) and the whole source (index offset by ``sb * half``).
        Otherwise the source is needed whole and only the index moves."""
        name = call.op_name
        src = call.args[0]
        st = src.type
        if not isinstance(st, TileType) or var.type.memory_space not in (None, MemorySpace.Vec) \
                or st.memory_space not in (None, MemorySpace.Vec):
            raise Refusal("supported_producer", f"{name} outside Vec", operand=_name(src), op=name)
        win = copy_window(op, call)
        if win is None:
            if _static(st) != _static(var.type):
                raise Refusal("copy_window", f"{name} changes the shape", operand=_name(src), op=name)
            return [(src, axis)]
        idx, shape = win
        if len(idx) != var.type.rank or axis >= len(idx) or len(shape) != var.type.rank:
            raise Refusal("copy_window", f"{name} has no index operand for axis {axis}", operand=_name(src), op=name)
        index = call.args[idx[axis]]
        covers = (isinstance(index, ConstInt) and index.value == 0 and _static(st) is not None
                  and _static(st)[axis] == shape[axis] and _split_reason(st, axis) is None)
        return [(src, SOFT - axis if covers else FULL)]

    def _reverse_custom(self, var: Var | None, call: Call) -> None:
        keys = _result_keys(var)
        what = f"custom op {call.kwarg('symbol') or call.op_name}"
        result_axes: dict[int, int] = {}
        for j, key in enumerate(keys):
            d = self._resolve(key)
            if not d:
                continue
            if len(d) > 1 or FULL in d:
                if d == {FULL}:
                    continue
                raise _Abort(f"window stuck on {what}: result #{j} is needed both whole and halved")
            result_axes[j] = next(iter(d))
        if result_axes and any(FULL in self._resolve(k) for k in keys):
            raise _Abort(f"window stuck on {what}: some results are needed whole, others halved")
        if not result_axes:
            self._unsplit_custom(call, keys, what)
            return
        try:
            plan = check_custom_op(call, [_key_type(k) for k in keys], result_axes)
        except Refusal as r:
            self._note("refused", f"refused to split {what}: {r.describe()}",
                       {"check": r.check, "operand": r.operand})
            raise _Abort(f"window stuck on un-split {what}: {r.describe()}",
                         axis_specific=r.check not in AXIS_INDEPENDENT_CHECKS) from None
        self.custom_plans[id(call)] = plan
        self.replicated.pop(id(call), None)
        self.fenced.discard(id(call))
        self._note("split", f"split {what} on iteration dim d{plan.iter_dim} (half {plan.half})",
                   {"iter_dim": plan.iter_dim, "half": plan.half})
        for j, k in enumerate(keys):
            self.mode[k] = plan.output_axes[j]
        seg = custom_segments(call)
        for x, a in zip(seg["ins"], plan.input_axes, strict=False):
            if isinstance(x.type, TileType):
                self._want_expr(x, FULL if a is None else a)
        for o, a in zip(seg["outs"], plan.output_axes, strict=False):
            self._want_expr(o, a)

    def _unsplit_custom(self, call: Call, keys: list[ValueKey], what: str) -> None:
        """A custom op no consumer wants halved. If unguarded work (a split store's producers, a loop, ...)
        reads one of its results, both sub-blocks need that result WHOLE: the op runs unguarded on both
        sub-blocks when it is safe to duplicate, otherwise the function rolls back (fencing it to
        sub-block 0 would leave sub-block 1 reading its uninitialised output init). If only dead work or
        other fenced custom ops read it, it is fenced to sub-block 0 (it runs once)."""
        for k in keys:
            self.mode[k] = FULL
        needed = [k for k in keys if k in self.strong]
        if not needed:
            self.replicated.pop(id(call), None)
            self.fenced.add(id(call))
            res = ", ".join(_key_name(k) for k in keys) or "none"
            self._note("fenced", f"{what} (results: {res}) is not split and no split work reads its results: it "
                       "runs on sub-block 0 only", {"op": call.op_name})
            self._full_operands(call, weak=True)
            return
        names = ", ".join(_key_name(k) for k in needed)
        try:
            check_replicable(call, [_key_type(k) for k in keys])
        except Refusal as r:
            self._note("refused", f"refused to duplicate {what}: {r.describe()}",
                       {"check": r.check, "operand": r.operand})
            raise _Abort(f"{what} is not split, split work needs its result {names} whole, and it cannot run "
                         f"on both sub-blocks: {r.describe()}", axis_specific=False) from None
        why = (f"{what} is not split: split work needs its result {names} whole (no consumer wants a half); it "
               "is safe to duplicate (no side effects, not builtin, no temp / extra buffers or sync, tile "
               "outputs only), so both sub-blocks compute it whole, unguarded (fencing it to sub-block 0 would "
               "leave sub-block 1 reading the uninitialised output init)")
        self.fenced.discard(id(call))
        self.replicated[id(call)] = why
        self._note("replicated", why, {"op": call.op_name, "results": names})
        self._full_operands(call)

    def _snapshot(self) -> tuple[dict[ValueKey, set[int]], set[ValueKey]]:
        return {k: set(v) for k, v in self.demand.items()}, set(self.strong)

    def _expr_mode(self, e: Expr) -> int:
        key: ValueKey | None = None
        if isinstance(e, Var):
            key = e
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            key = (e.tuple_value, e.index)
        m = self.mode.get(key, FULL) if key is not None else FULL
        return m if m is not None and m >= 0 else FULL

    def _reverse_for(self, stmt: ForStmt) -> None:
        """Loop-carried windows: the demand on each iter arg (from after the loop, through its result, and
        from its uses in the body) is iterated to a fixpoint before anything is decided. An iter arg nobody
        demands yet starts with *no* demand (it does not force its yielded value whole); demands only grow,
        so the walk stops after at most one round per (iter arg, axis). Notes of superseded rounds are
        dropped. An iter arg that stays undemanded follows the half of the value it yields."""
        ias, rvs = stmt.iter_args, stmt.return_vars
        base, base_strong = self._snapshot()
        n_notes, n_left = len(self.notes), len(self.left)
        extra: list[set[int]] = [set() for _ in ias]
        rounds = 2 + sum((ia.type.rank + 1) if isinstance(ia.type, TileType) else 0 for ia in ias)
        y = final_yield(stmt.body)
        seeded: list[set[int]] = []
        for _ in range(rounds):
            self.demand = {k: set(v) for k, v in base.items()}
            self.strong = set(base_strong)
            del self.notes[n_notes:]
            del self.left[n_left:]
            seeded = []
            for k, ia in enumerate(ias):
                d = set(base.get(ia, set())) | extra[k]
                if k < len(rvs):
                    d |= base.get(rvs[k], set())
                if d:
                    self.demand[ia] = set(d)
                seeded.append(d)
            for k, ia in enumerate(ias):
                if not seeded[k]:
                    continue  # no demand yet: decided after the fixpoint
                axis = self._decide(ia, f"loop-carried {ia.name}")
                self.mode[ia] = FULL if axis is None else axis
                if k < len(rvs):
                    self.mode[rvs[k]] = self.mode[ia]
                if y is not None and k < len(y.values) and isinstance(ia.type, TileType):
                    self._want_expr(y.values[k], self.mode[ia])
            self._reverse_body(stmt.body)
            # inner uses of the iter args may have added demands: iterate until stable
            inner = [set(self.demand.get(ia, set())) for ia in ias]
            if inner == seeded:
                break
            extra = [e | i for e, i in zip(extra, inner, strict=True)]
        else:
            raise _Abort("loop-carried windows did not stabilise")
        for k, ia in enumerate(ias):
            if seeded[k]:
                continue
            m = FULL
            if y is not None and k < len(y.values) and isinstance(ia.type, TileType):
                m = self._expr_mode(y.values[k])
            self.mode[ia] = m
            if k < len(rvs):
                self.mode[rvs[k]] = m
        for ia in ias:
            if ia.init is not None and isinstance(ia.type, TileType):
                self._want_expr(ia.init, self.mode.get(ia, FULL))

    def _reverse_while(self, stmt: WhileStmt) -> None:
        for ia in stmt.iter_args:
            if isinstance(ia.type, TileType) and (self.demand.get(ia) or any(
                    self.demand.get(rv) for rv in stmt.return_vars)):
                self._leave("while loops carrying tiles are not split", f"while loop ({ia.name})", custom=False)
        for ia in stmt.iter_args:
            self.mode[ia] = FULL
        for rv in stmt.return_vars:
            self.mode[rv] = FULL
        y = final_yield(stmt.body)
        if y is not None:
            for v in y.values:
                if isinstance(v.type, TileType):
                    self._want_expr(v, FULL)
        self._reverse_body(stmt.body)
        for ia in stmt.iter_args:
            if ia.init is not None and isinstance(ia.type, TileType):
                self._want_expr(ia.init, FULL)

    def _reverse_if(self, stmt: IfStmt) -> None:
        axes = []
        for rv in stmt.return_vars:
            axis = self._decide(rv, f"if result {rv.name}")
            self.mode[rv] = FULL if axis is None else axis
            axes.append(self.mode[rv])
        for body in (stmt.then_body, stmt.else_body):
            y = final_yield(body)
            if y is not None:
                for k, v in enumerate(y.values):
                    if k < len(axes) and isinstance(stmt.return_vars[k].type, TileType):
                        self._want_expr(v, axes[k])
            self._reverse_body(body)

    # ----------------------------------------------------------------------------- rewrite

    def rewrite(self) -> Function:
        self.half: dict[ValueKey, Expr] = {}
        body = [AssignStmt(self.sb, make_call("tile.get_subblock_idx", []))]
        body += self._rewrite_body(self.fn.body)
        return self.fn.with_fields(body=SeqStmts(tuple(body)))

    def _rewrite_body(self, body: Stmt | None) -> list[Stmt]:
        out: list[Stmt] = []
        for stmt in flatten_stmts(body):
            out.extend(self._rewrite_stmt(stmt))
        return out

    def _get_half(self, e: Expr, axis: int, out: list[Stmt]) -> Expr:
        """The axis-half of tile expression ``e`` (a marked window left on its producer if needed)."""
        key: ValueKey | None = None
        if isinstance(e, Var):
            key = e
        elif isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var):
            key = (e.tuple_value, e.index)
        if key is not None and key in self.half and self.mode.get(key) == axis:
            return self.half[key]
        t = e.type
        assert isinstance(t, TileType)
        half = t.shape[axis].value // 2
        shape = [s for s in t.shape]
        shape[axis] = ConstInt(half, INDEX)
        offs: list[Expr] = [ConstInt(0, INDEX) for _ in t.shape]
        offs[axis] = _offset_plus(ConstInt(0, INDEX), self.sb, half)
        window = make_call("tile.slice", [e, MakeTuple(tuple(shape)), MakeTuple(tuple(offs))])
        v = Var(f"{_name(e)}_sb", window.type)
        out.append(AssignStmt(v, window))
        return v

    def _operand(self, e: Expr, axis: int | None, out: list[Stmt]) -> Expr:
        if axis is None or axis == FULL or not isinstance(e.type, TileType):
            return e
        return self._get_half(e, axis, out)

    def _rewrite_stmt(self, stmt: Stmt) -> list[Stmt]:
        out: list[Stmt] = []
        if isinstance(stmt, AssignStmt):
            v, value = stmt.var, stmt.value
            if isinstance(value, Call):
                new = self._rewrite_call(v, value, out)
                if new is not None:
                    out.append(new)
                    return out
            axis = self.mode.get(v, FULL)
            if axis == FOLLOW:
                tv = value.tuple_value
                axis = self.mode.get((tv, value.index), FULL) if tv in self.half else FULL
                self.mode[v] = axis
            if axis != FULL and isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
                src = self.half[value.tuple_value]
                nv = Var(v.name, _half_type(v.type, axis), v.span)
                self.half[v] = nv
                out.append(AssignStmt(nv, TupleGetItem(src, value.index)))
                return out
            if axis != FULL and isinstance(value, Var):
                self.half[v] = self._get_half(value, axis, out)
                return out
            out.append(stmt)
            return out
        if isinstance(stmt, EvalStmt):
            if isinstance(stmt.expr, Call):
                new = self._rewrite_call(None, stmt.expr, out)
                if new is not None:
                    out.append(new)
                    return out
            out.append(stmt)
            return out
        if isinstance(stmt, ForStmt):
            return self._rewrite_for(stmt)
        if isinstance(stmt, IfStmt):
            return self._rewrite_if(stmt)
        if isinstance(stmt, WhileStmt):
            body = self._rewrite_body(stmt.body)
            return [stmt.with_fields(body=SeqStmts(tuple(body)))]
        if isinstance(stmt, YieldStmt):
            return [stmt]  # rebuilt by the enclosing loop / if
        return [stmt]

    def _rewrite_call(self, var: Var | None, call: Call, out: list[Stmt]) -> Stmt | None:
        op = op_of(call)
        if op is None:
            return None
        if op.kind is OpKind.STORE:
            axis = self.store_plan[id(call)]
            tile = call.args[0]
            t = tile.type
            half = t.shape[axis].value // 2
            window = store_window(call)
            gm_axis, gm_half = _window_axis(window, axis, half, _name(tile), call.op_name)
            tile_h = self._get_half(tile, axis, out)
            offs = list(call.args[1].elements)
            offs[gm_axis] = _offset_plus(offs[gm_axis], self.sb, gm_half)
            kwargs = {**dict(call.kwargs), TILED_OP: True}
            if window is not None:  # the flattened tile fills the halved N-D window
                shapes = list(call.kwarg("shapes"))
                shapes[gm_axis] = gm_half
                kwargs["shapes"] = tuple(shapes)
            new = _rebuild("tile.store", [tile_h, MakeTuple(tuple(offs)), call.args[2]], kwargs, call.span)
            where = f"half {half}" + (f"; N-D window axis {gm_axis}, half {gm_half}" if window is not None else "")
            self._note("split", f"split store of {_name(tile)} on axis {axis} ({where})",
                       {"axis": axis, "half": half})
            return AssignStmt(var, new) if var is not None else EvalStmt(new)
        if op.kind is OpKind.CUSTOM:
            plan = self.custom_plans.get(id(call))
            if plan is None:
                if id(call) not in self.replicated:
                    return None
                # computed whole on both sub-blocks: marked so the final limit step leaves it unguarded
                rep = call.with_fields(kwargs=tuple(kv for kv in call.kwargs if kv[0] != REPLICATED)
                                       + ((REPLICATED, True),))
                return AssignStmt(var, rep) if var is not None else EvalStmt(rep)
            seg = custom_segments(call)
            ins = [self._operand(x, a, out) for x, a in zip(seg["ins"], plan.input_axes, strict=False)]
            outs = [self._operand(o, a, out) for o, a in zip(seg["outs"], plan.output_axes, strict=False)]
            args = ins + outs + list(seg["tmps"]) + list(seg["sync_related_args"])
            new = _rebuild(call.op_name, args, {**dict(call.kwargs), TILED_OP: True}, call.span)
            nv = Var(var.name, new.type, var.span)
            for j, k in enumerate(_result_keys(var)):
                self.half[k] = TupleGetItem(nv, j) if isinstance(var.type, TupleType) else nv
            self.half[var] = nv
            return AssignStmt(nv, new)
        if var is None:
            return None
        axis = self.mode.get(var, FULL)
        if axis == FULL:
            return None
        kind = op.kind
        if kind is OpKind.LOAD:
            t = var.type
            half = t.shape[axis].value // 2
            gm_axis, gm_half = _window_axis(load_window(call), axis, half, var.name, call.op_name)
            offs = list(call.args[1].elements)
            shapes = list(call.args[2].elements)
            offs[gm_axis] = _offset_plus(offs[gm_axis], self.sb, gm_half)
            shapes[gm_axis] = ConstInt(gm_half, INDEX)
            new = _rebuild("tile.load", [call.args[0], MakeTuple(tuple(offs)), MakeTuple(tuple(shapes))],
                           dict(call.kwargs), call.span)
        elif kind is OpKind.CREATE:
            attrs = dict(call.kwargs)
            shape = list(attrs["shape"])
            shape[axis] //= 2
            attrs["shape"] = tuple(shape)
            new = _rebuild(call.op_name, list(call.args), attrs, call.span)
        elif kind is OpKind.COPY and copy_window(op, call) is not None:
            new = self._rewrite_copy_window(op, var, call, axis)
        elif kind is OpKind.VIEW:
            shape = list(call.args[1].elements)
            shape[axis] = ConstInt(shape[axis].value // 2, INDEX)
            src = self._get_half(call.args[0], axis, out)
            new = _rebuild("tile.slice", [src, MakeTuple(tuple(shape)), call.args[2]], dict(call.kwargs),
                           call.span)
        else:
            operand_axes = dict((id(e), a) for e, a in self._strategy(var, call, axis))
            args = [self._operand(a, operand_axes.get(id(a)), out) for a in call.args]
            new = _rebuild(call.op_name, args, dict(call.kwargs), call.span)
        nv = Var(var.name, new.type, var.span)
        self.half[var] = nv
        self._note("split", f"split {call.op_name} -> {var.name} on axis {axis}",
                   {"op": call.op_name, "axis": axis})
        return AssignStmt(nv, new)

    def _rewrite_copy_window(self, op: OpDef, var: Var, call: Call, axis: int) -> Call:
        """``extract(src, r, c, shape=[R, C])`` halved on ``axis``: on the source's half (computed on the same
        axis) with the index unchanged, else on the whole source with the index moved by ``sb * half``."""
        idx, shape = copy_window(op, call)
        half = shape[axis] // 2
        src = call.args[0]
        key: ValueKey | None = src if isinstance(src, Var) else (
            (src.tuple_value, src.index) if isinstance(src, TupleGetItem) and isinstance(src.tuple_value, Var)
            else None)
        args = list(call.args)
        if key is not None and key in self.half and self.mode.get(key) == axis:
            args[0] = self.half[key]
        else:
            args[idx[axis]] = _offset_plus(args[idx[axis]], self.sb, half)
        attrs = dict(call.kwargs)
        new_shape = list(shape)
        new_shape[axis] = half
        attrs["shape"] = tuple(new_shape)
        return _rebuild(call.op_name, args, attrs, call.span)

    def _rewrite_for(self, stmt: ForStmt) -> list[Stmt]:
        out: list[Stmt] = []
        new_ias = []
        for ia in stmt.iter_args:
            axis = self.mode.get(ia, FULL)
            if axis == FULL or not isinstance(ia.type, TileType):
                new_ias.append(ia)
                continue
            init = self._get_half(ia.init, axis, out)
            nia = IterArg(ia.name, _half_type(ia.type, axis), ia.span, init=init)
            self.half[ia] = nia
            new_ias.append(nia)
        body = self._rewrite_body(stmt.body)
        body = self._fix_yield(body, [self.mode.get(ia, FULL) for ia in stmt.iter_args])
        new_rvs = []
        for _k, rv in enumerate(stmt.return_vars):
            axis = self.mode.get(rv, FULL)
            if axis == FULL or not isinstance(rv.type, TileType):
                new_rvs.append(rv)
            else:
                nrv = Var(rv.name, _half_type(rv.type, axis), rv.span)
                self.half[rv] = nrv
                new_rvs.append(nrv)
        out.append(stmt.with_fields(iter_args=tuple(new_ias), body=SeqStmts(tuple(body)),
                                    return_vars=tuple(new_rvs)))
        return out

    def _fix_yield(self, body: list[Stmt], axes: list[int]) -> list[Stmt]:
        if not body or not isinstance(body[-1], YieldStmt):
            return body
        y = body[-1]
        pre: list[Stmt] = []
        vals = [self._operand(v, axes[k] if k < len(axes) else FULL, pre) for k, v in enumerate(y.values)]
        return body[:-1] + pre + [y.with_fields(values=tuple(vals))]

    def _rewrite_if(self, stmt: IfStmt) -> list[Stmt]:
        axes = [self.mode.get(rv, FULL) for rv in stmt.return_vars]
        then_b = self._fix_yield(self._rewrite_body(stmt.then_body), axes)
        else_b = (self._fix_yield(self._rewrite_body(stmt.else_body), axes)
                  if stmt.else_body is not None else None)
        new_rvs = []
        for rv, axis in zip(stmt.return_vars, axes, strict=False):
            if axis == FULL or not isinstance(rv.type, TileType):
                new_rvs.append(rv)
            else:
                nrv = Var(rv.name, _half_type(rv.type, axis), rv.span)
                self.half[rv] = nrv
                new_rvs.append(nrv)
        return [stmt.with_fields(then_body=SeqStmts(tuple(then_b)),
                                 else_body=SeqStmts(tuple(else_b)) if else_b is not None else None,
                                 return_vars=tuple(new_rvs))]


def _tile_subexprs(e: Expr) -> list[Expr]:
    out = []
    if isinstance(e, MakeTuple):
        for x in e.elements:
            out.extend(_tile_subexprs(x))
    elif isinstance(e.type, TileType):
        out.append(e)
    return out


# =================================================================================================
# axis choice
# =================================================================================================


class _Stores(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[Call] = []

    def visit_Call(self, expr: Call) -> None:
        op = op_of(expr)
        if op is not None and op.kind is OpKind.STORE:
            self.calls.append(expr)
        super().visit_Call(expr)


def _axis_candidates(an: DimensionAnalyzer, store: Call) -> tuple[list[int], list[str]]:
    """Splittable axes of a stored tile (outer first) and the reasons the others were rejected. A flattened
    2-D tile stored into an N-D tensor (``shapes=``) only offers axes that halve one axis of its window."""
    tile = store.args[0]
    window = store_window(store)
    t = tile.type
    ok: list[int] = []
    why: list[str] = []
    if not isinstance(t, TileType) or not isinstance(tile, Var):
        return ok, [f"stored value {_name(tile)} is not a tile variable"]
    for axis in range(t.rank):
        reason = _halvable(t, axis)
        if reason is None and not an.is_parallel((tile, axis)):
            info = an.info((tile, axis))
            reason = f"axis {axis} is a reduction axis" + (f" ({info.reasons[0]})" if info.reasons else "")
        if reason is None and axis == t.rank - 1:
            half_bytes = t.shape[axis].value // 2 * t.dtype.itemsize
            if half_bytes % VECTOR_ALIGN:
                reason = (f"column split: half row of {half_bytes} B is not a multiple of {VECTOR_ALIGN} B")
        if reason is None and window is not None:
            mapped = flattened_split_axis(window, axis)
            if isinstance(mapped, str):
                reason = f"axis {axis} of the flattened tile {_name(tile)}: {mapped}"
        if reason is None:
            ok.append(axis)
        else:
            why.append(reason)
    return ok, why


def axis_plans(an: DimensionAnalyzer, stores: list[Call]) -> list[tuple[dict[int, int], str]]:
    """Every candidate split: per-store axes (all in one axis class) with a justification, outer axis
    first. The pass tries them in order: a producer may still refuse an axis (e.g. a loaded tile whose half
    row is under 32 B, a custom op whose map sends the axis to a reduction iterator), then the next one is
    tried. Raises ``_Abort`` when there is none."""
    if not stores:
        raise _Abort("no store could be split: the function has no store")
    cands = []
    for s in stores:
        ok, why = _axis_candidates(an, s)
        if not ok:
            raise _Abort(f"no store could be split: store of {_name(s.args[0])}: {'; '.join(why)}")
        cands.append((s, ok, why))
    first, first_ok, first_why = cands[0]
    plans = []
    for axis in first_ok:
        root = (first.args[0], axis)
        plan = {id(first): axis}
        for s, ok, _ in cands[1:]:
            match = [a for a in ok if an.same_class(root, (s.args[0], a))]
            if not match:
                break
            plan[id(s)] = match[0]
        else:
            t = first.args[0].type
            reason = (f"axis {axis} of {_name(first.args[0])} (extent {t.shape[axis].value}, half "
                      f"{t.shape[axis].value // 2}) is parallel, static and even and its class covers all "
                      f"{len(stores)} store(s)")
            if first_why:
                reason += "; rejected: " + "; ".join(first_why)
            plans.append((plan, reason))
    if not plans:
        raise _Abort("no single parallel axis class covers every store of the function")
    return plans


def choose_axis(an: DimensionAnalyzer, stores: list[Call]) -> tuple[dict[int, int], str]:
    """The preferred candidate of ``axis_plans``."""
    return axis_plans(an, stores)[0]


# =================================================================================================
# LimitUniqueSubBlockIdToStoreCopy
# =================================================================================================


def _is_guard(stmt: IfStmt) -> bool:
    return bool(stmt.attr(LIMIT_TAG, False))


class _Limiter(IRMutator):
    """Put each untiled store and custom op under ``if get_subblock_idx() == 0``."""

    def __init__(self, sb: Var) -> None:
        super().__init__()
        self.sb = sb
        self.count = 0
        self.tuple_map: dict[Var, tuple[Var, ...]] = {}
        self._hints: list[dict[Var, dict[int, AssignStmt]]] = []
        self._drop: set[int] = set()

    def mutate_SeqStmts(self, stmt: SeqStmts):
        # ``x = res[i]`` bindings of a tuple result in this block: a guarded multi-result op binds them
        # directly as the if's results
        hint: dict[Var, dict[int, AssignStmt]] = {}
        for s in stmt.stmts:
            if (isinstance(s, AssignStmt) and isinstance(s.value, TupleGetItem)
                    and isinstance(s.value.tuple_value, Var)):
                hint.setdefault(s.value.tuple_value, {}).setdefault(s.value.index, s)
        self._hints.append(hint)
        try:
            return super().mutate_SeqStmts(stmt)
        finally:
            self._hints.pop()

    def _needs_guard(self, call: Expr) -> bool:
        op = op_of(call)
        return (op is not None and op.kind in (OpKind.STORE, OpKind.CUSTOM)
                and not call.kwarg(TILED_OP, False) and not call.kwarg(REPLICATED, False))

    def _cond(self) -> Expr:
        return Eq(self.sb, ConstInt(0, INDEX), INDEX)

    def mutate_IfStmt(self, stmt: IfStmt):
        if _is_guard(stmt):
            return stmt
        return super().mutate_IfStmt(stmt)

    def mutate_TupleGetItem(self, expr: TupleGetItem) -> Expr:
        tv = expr.tuple_value
        if isinstance(tv, Var) and tv in self.tuple_map:
            return self.tuple_map[tv][expr.index]
        return super().mutate_TupleGetItem(expr)

    def mutate_AssignStmt(self, stmt: AssignStmt):
        if id(stmt) in self._drop:
            return []
        value = self.mutate_expr(stmt.value)
        if not self._needs_guard(value):
            return stmt if value is stmt.value else stmt.with_fields(value=value)
        self.count += 1
        op = op_of(value)
        tag = ((LIMIT_TAG, True),)
        var = stmt.var
        if op.kind is OpKind.STORE:
            inner = Var(f"{var.name}_sb0", var.type, var.span)
            then_b = SeqStmts((AssignStmt(inner, value), YieldStmt((inner,))))
            else_b = SeqStmts((YieldStmt((value.args[2],)),))
            return IfStmt(self._cond(), then_b, else_b, (var,), attrs=tag)
        outs = custom_segments(value)["outs"]
        inner = Var(f"{var.name}_sb0", var.type, var.span)
        if isinstance(var.type, TupleType):
            n = len(var.type.types)
            bound = self._hints[-1].get(var, {}) if self._hints else {}
            if len(bound) == n:
                rvs = tuple(bound[j].var for j in range(n))
                self._drop.update(id(bound[j]) for j in range(n))
            else:
                rvs = tuple(Var(f"{var.name}_{j}", t, var.span) for j, t in enumerate(var.type.types))
            self.tuple_map[var] = rvs
            then_b = SeqStmts((AssignStmt(inner, value),
                               YieldStmt(tuple(TupleGetItem(inner, j) for j in range(len(rvs))))))
            else_b = SeqStmts((YieldStmt(tuple(outs)),))
            return IfStmt(self._cond(), then_b, else_b, rvs, attrs=tag)
        then_b = SeqStmts((AssignStmt(inner, value), YieldStmt((inner,))))
        else_b = SeqStmts((YieldStmt((outs[0],)),))
        return IfStmt(self._cond(), then_b, else_b, (var,), attrs=tag)

    def mutate_EvalStmt(self, stmt: EvalStmt):
        expr = self.mutate_expr(stmt.expr)
        if not self._needs_guard(expr):
            return stmt if expr is stmt.expr else stmt.with_fields(expr=expr)
        self.count += 1
        return IfStmt(self._cond(), SeqStmts((EvalStmt(expr),)), None, (), attrs=((LIMIT_TAG, True),))


def limit_function_to_sub_block0(fn: Function) -> Function:
    """LimitUniqueSubBlockIdToStoreCopy on one function (returns ``fn`` itself if nothing to guard)."""
    top = flatten_stmts(fn.body)
    sb = None
    for s in top:  # reuse a top-level get_subblock_idx binding if there is one
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.get_subblock_idx":
            sb = s.var
            break
    fresh = sb is None
    if fresh:
        sb = Var("subblock_idx", ScalarType(INDEX))
    lim = _Limiter(sb)
    body = lim.mutate_stmt(fn.body)
    if lim.count == 0:
        return fn
    stmts = flatten_stmts(body if not isinstance(body, list) else SeqStmts(tuple(body)))
    if fresh:
        stmts = [AssignStmt(sb, make_call("tile.get_subblock_idx", []))] + stmts
    _remark(LIMIT_PASS_NAME, fn.name, "limited",
            f"{lim.count} store / custom op(s) limited to sub-block 0", count=lim.count)
    return fn.with_fields(body=SeqStmts(tuple(stmts)))


# =================================================================================================
# driver
# =================================================================================================


class _Hoister:
    """Hoist tile-valued nested calls into fresh variables: ``c = f(r, g(r))`` becomes ``g_1 = g(r)``,
    ``c = f(r, g_1)``, so every tile operand the demand pass sees is a variable it can bubble a window into.
    Innermost calls first; statements inside loops and ifs too (loop iter-arg inits are left alone)."""

    def __init__(self, fn: Function) -> None:
        self.names: set[str] = set()

        class _Names(IRVisitor):
            def visit_Var(inner, expr: Var) -> None:  # noqa: N805
                self.names.add(expr.name)

            def visit_AssignStmt(inner, stmt: AssignStmt) -> None:  # noqa: N805
                self.names.add(stmt.var.name)
                super().visit_AssignStmt(stmt)

        _Names().visit_function(fn)
        for p in fn.params:
            self.names.add(p.name)
        self.changed = False

    def fresh(self, base: str) -> str:
        k = 0
        while f"{base}_{k}" in self.names:
            k += 1
        self.names.add(f"{base}_{k}")
        return f"{base}_{k}"

    def operand(self, e: Expr, pre: list[Stmt]) -> Expr:
        if isinstance(e, Call) and isinstance(e.type, TileType):
            inner = self.call(e, pre)
            v = Var(self.fresh(e.op_name.split(".")[-1]), inner.type, inner.span)
            pre.append(AssignStmt(v, inner))
            self.changed = True
            return v
        if isinstance(e, MakeTuple):
            elems = tuple(self.operand(x, pre) for x in e.elements)
            if any(a is not b for a, b in zip(elems, e.elements, strict=True)):
                return e.with_fields(elements=elems)
        return e

    def call(self, c: Call, pre: list[Stmt]) -> Call:
        args = tuple(self.operand(a, pre) for a in c.args)
        if all(a is b for a, b in zip(args, c.args, strict=True)):
            return c
        return c.with_fields(args=args)

    def body(self, body: Stmt | None) -> SeqStmts | None:
        if body is None:
            return None
        out: list[Stmt] = []
        for s in flatten_stmts(body):
            out.extend(self.stmt(s))
        return SeqStmts(tuple(out))

    def stmt(self, s: Stmt) -> list[Stmt]:
        pre: list[Stmt] = []
        if isinstance(s, AssignStmt) and isinstance(s.value, Call):
            value = self.call(s.value, pre)
            new: Stmt = s if value is s.value else s.with_fields(value=value)
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            expr = self.call(s.expr, pre)
            new = s if expr is s.expr else s.with_fields(expr=expr)
        elif isinstance(s, (YieldStmt, ReturnStmt)):
            values = tuple(self.operand(v, pre) for v in s.values)
            new = s if all(a is b for a, b in zip(values, s.values, strict=True)) else s.with_fields(values=values)
        elif isinstance(s, (ForStmt, WhileStmt)):
            new = s.with_fields(body=self.body(s.body))
        elif isinstance(s, IfStmt):
            new = s.with_fields(then_body=self.body(s.then_body), else_body=self.body(s.else_body))
        else:
            new = s
        return pre + [new]


def hoist_nested_calls(fn: Function) -> Function:
    """``fn`` with every tile-valued nested call bound to a fresh variable (``fn`` itself if there is none)."""
    h = _Hoister(fn)
    body = h.body(fn.body)
    return fn.with_fields(body=body) if h.changed else fn


def _revert(fn: Function, reason: str) -> Function:
    _remark(PASS_NAME, fn.name, "reverted", f"sub-block split rolled back: {reason}", reason=reason)
    out = limit_function_to_sub_block0(fn)
    return out.with_attr(REVERTED, reason)


def split_function(fn: Function) -> tuple[Function, bool]:
    """Split ``fn`` 1:2 across the sub-blocks, or roll back. Returns (function, reverted).

    Never raises for a valid program: an unexpected failure anywhere in the analysis or the rewrite (e.g. a
    type-inference error of a rebuilt op — a bug of this pass, not of the input) rolls the function back
    like any refusal, with the reason ``internal: <error>`` and an ``internal-error`` remark carrying the
    error, so users get the sub-block-0 fallback and tests / tools can still see what happened."""
    try:
        return _split_or_revert(fn)
    except Exception as exc:  # noqa: BLE001 - turned into a visible rollback, see the docstring
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        reason = f"internal: {type(exc).__name__}: {message.splitlines()[0] if message else ''}"
        _remark(PASS_NAME, fn.name, "internal-error", f"unexpected failure, rolling back: {reason}",
                error=type(exc).__name__, error_message=message)
    try:
        return _revert(fn, reason), True
    except Exception as exc:  # noqa: BLE001 - the guards failed too: keep the untouched function
        _remark(PASS_NAME, fn.name, "internal-error",
                f"sub-block-0 guarding failed as well ({type(exc).__name__}: {exc}); function left unchanged",
                error=type(exc).__name__)
        return fn.with_attr(REVERTED, reason), True


def _split_or_revert(fn: Function) -> tuple[Function, bool]:
    original = fn
    fn = hoist_nested_calls(fn)  # ``f(r, g(r))`` -> ``tmp = g(r); f(r, tmp)``: every operand is a variable
    an = DimensionAnalyzer(fn).run()
    strict = True
    broadcast = [c for c in an.conflicts if c.broadcast]
    if broadcast:
        strict = False
        _remark(PASS_NAME, fn.name, "strict-off",
                f"strict mode off for this function: broadcast on two different axes ({broadcast[0]})",
                conflicts=[str(c) for c in broadcast])
    for c in an.conflicts:
        if not c.broadcast:
            _remark(PASS_NAME, fn.name, "dimension-conflict",
                    f"dimension conflict recorded, strict mode kept: {c}", conflict=str(c))
    if an.unranked_custom:
        return _revert(original, "custom op with an unranked shaped operand or result: giving up on the "
                       "function"), True
    stores = _Stores()
    stores.visit_stmt(fn.body)
    emitted: set[tuple[str, str]] = set()

    def emit(notes: list[tuple[str, str, dict]], skip_split: bool) -> None:
        for kind, msg, details in notes:
            if (skip_split and kind == "split") or (kind, msg) in emitted:
                continue  # nothing was split after all / already reported
            emitted.add((kind, msg))
            _remark(PASS_NAME, fn.name, kind, msg, **details)

    try:
        plans = axis_plans(an, stores.calls)
    except _Abort as a:
        return _revert(original, a.reason), True
    failures: list[tuple[int, str]] = []
    for plan, why in plans:
        axis = next(iter(plan.values()))
        sp = _Splitter(fn, strict, an)
        _remark(PASS_NAME, fn.name, "axis", f"split axis {axis}: {why}", axis=axis)
        try:
            sp.run_demands(plan)
            out = sp.rewrite()
        except _Abort as a:
            emit(sp.notes, skip_split=True)
            failures.append((axis, a.reason))
            if not a.axis_specific:
                break  # the refusal holds for every axis
            if len(failures) < len(plans):
                _remark(PASS_NAME, fn.name, "axis-refused", f"split axis {axis} refused ({a.reason}); trying the "
                        "next candidate axis", axis=axis, reason=a.reason)
            continue
        emit(sp.notes, skip_split=False)
        for left in sp.left:
            _remark(PASS_NAME, fn.name, "window-left",
                    f"non-strict: window left on {left} (both sub-blocks compute it)")
        out = out.with_fields(func_type=FunctionType.AIV).with_attr(AXIS_ATTR, axis)
        # custom ops that no split work reads (``sp.fenced``) run on sub-block 0 only; custom ops whose
        # result split work needs whole are marked ``sub_block_replicated`` and stay unguarded. Guarded work
        # therefore never feeds unguarded work: the stores are all split, and a fenced op's results are only
        # read by dead work or by other fenced ops (see ``_Splitter._unsplit_custom``).
        out = limit_function_to_sub_block0(out)
        return out, False
    if len(failures) == 1:
        return _revert(original, failures[0][1]), True
    return _revert(original, "; ".join(f"axis {axis}: {reason}" for axis, reason in failures)), True


def _context_enabled() -> bool:
    """The ``enable_auto_bind_sub_block`` option of the active PassContext (default on)."""
    try:
        from tilefold.passes.pass_manager import PassContext
    except ImportError:  # pragma: no cover
        return True
    return bool(PassContext.current().options.get("enable_auto_bind_sub_block", True))


def _limit_only(program: Program) -> Program:
    """The pass with splitting disabled: every candidate function not yet bound to sub-blocks keeps its work
    whole, and its stores and custom ops run on sub-block 0 only (both sub-blocks execute the function)."""
    fns = []
    changed = False
    for fn in program.functions:
        new = fn
        if is_candidate(fn) and not _scan(fn).found and fn.attr(REVERTED) is None and fn.attr(AXIS_ATTR) is None:
            new = limit_function_to_sub_block0(fn)
            if new is not fn:
                _remark(PASS_NAME, fn.name, "disabled", "enable_auto_bind_sub_block is off: nothing split; stores "
                        "and custom ops limited to sub-block 0")
        changed = changed or new is not fn
        fns.append(new)
    return program.with_fields(functions=tuple(fns)) if changed else program


def _transform(program: Program) -> Program:
    if not _context_enabled():
        return _limit_only(program)
    fns = []
    reverted = False
    changed = False
    for fn in program.functions:
        if not is_candidate(fn):
            fns.append(fn)
            continue
        scan = _scan(fn)
        if scan.found or fn.attr(REVERTED) is not None or fn.attr(AXIS_ATTR) is not None:
            fns.append(fn)  # already bound to sub-blocks
            continue
        if scan.stores == 0:
            if scan.customs == 0:
                _remark(PASS_NAME, fn.name, "skipped", "no store and no custom op: nothing to split or fence")
                fns.append(fn)
                continue
            # the seed: no store could be split -> roll back; the custom ops (e.g. one writing GM through a
            # tensor output init) are fenced to sub-block 0 so they do not run twice
            new = _revert(fn, "no store could be split: the function has no store; its custom ops are fenced "
                          "to sub-block 0")
            reverted = True
            changed = True
            fns.append(new)
            continue
        new, rev = split_function(fn)
        reverted = reverted or rev
        changed = changed or new is not fn
        fns.append(new)
    if not changed:
        return program
    out = program.with_fields(functions=tuple(fns))
    if reverted:
        out = out.with_attr(REVERTED, True)
    return out


_PROPS = dict(
    required=(IRProperty.SSAForm, IRProperty.TypeChecked, IRProperty.NormalizedStmtStructure),
    produced=(IRProperty.SSAForm, IRProperty.TypeChecked, IRProperty.NormalizedStmtStructure),
)


def tile_and_bind_sub_block(enable_auto_bind_sub_block: bool = True) -> Pass:
    """Factory of the TileAndBindSubBlock pass. With ``enable_auto_bind_sub_block=False`` nothing is split and
    the stores / custom ops of every candidate function are limited to sub-block 0."""
    if not enable_auto_bind_sub_block:
        return Pass(PASS_NAME, _limit_only, cli_name="tile-and-bind-sub-block", **_PROPS)
    return Pass(PASS_NAME, _transform, cli_name="tile-and-bind-sub-block", **_PROPS)


def _limit_transform(program: Program) -> Program:
    fns = []
    changed = False
    for fn in program.functions:
        new = limit_function_to_sub_block0(fn) if (fn.func_type is FunctionType.AIV or is_candidate(fn)) else fn
        changed = changed or new is not fn
        fns.append(new)
    return program.with_fields(functions=tuple(fns)) if changed else program


def limit_unique_sub_block_id_to_store_copy() -> Pass:
    """Factory of LimitUniqueSubBlockIdToStoreCopy: each store and each custom op not marked ``tiled_op``
    runs under ``if get_subblock_idx() == 0`` (tagged ``limit_sub_block_id0``)."""
    return Pass(LIMIT_PASS_NAME, _limit_transform, cli_name="limit-unique-sub-block-id-to-store-copy", **_PROPS)


__all__ = [
    "CustomPlan", "Refusal", "check_aligned_output_inits", "check_custom_op", "check_safe_to_duplicate",
    "check_slices_only_parallel_dimensions", "check_sliceable_inputs", "check_supported_explicit_maps",
    "axis_plans", "check_replicable", "choose_axis", "hoist_nested_calls", "is_candidate",
    "limit_function_to_sub_block0", "limit_unique_sub_block_id_to_store_copy",
    "project_to_inputs", "recover_iteration_window", "split_function", "tile_and_bind_sub_block",
]
