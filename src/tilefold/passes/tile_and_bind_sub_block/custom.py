"""Custom-op strategy (the seed's CustomOpBubbleUpStrategy).

Rule: a custom op whose result a consumer wants halved is split into ONE tiled op when the seed's checks pass in
order (safe to duplicate, sliceable inputs, supported explicit maps, only parallel dims shrink, aligned output
inits), the iteration window recovered from every result agrees, and it projects onto each input through that
input's own map. A custom op nobody wants halved runs whole on both sub-blocks when split work reads its result and
it is safe to duplicate (replicated), is fenced to sub-block 0 when nothing unguarded reads it, and otherwise the
function rolls back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefold.analysis.dimensions import ValueKey
from tilefold.ir.affine import AffineBinaryExpr, AffineConstantExpr, AffineDimExpr, AffineMap
from tilefold.ir.expr import Call, ConstInt, Expr, TupleGetItem, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    Stmt,
)
from tilefold.ir.types import ScalarType, TensorType, TileType, TupleType, Type
from tilefold.ops.custom.structured import StructuredView
from tilefold.passes.tile_and_bind_sub_block.common import (
    AXIS_INDEPENDENT_CHECKS,
    FULL,
    REPLICATED,
    TILED_OP,
    Refusal,
    _Abort,
    _key_name,
    _key_type,
    _name,
    _rebuild,
    _result_keys,
    _static,
)

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter



@dataclass
class CustomPlan:
    """The outcome of the custom-op checks: how to build the ONE tiled op."""

    iter_dim: int  # iteration dim that is split
    half: int  # half extent of that dim
    input_axes: list[int | None]  # per input: axis sliced (None: whole / scalar)
    output_axes: list[int]  # per output init / result: axis sliced


def check_safe_to_duplicate(call: Call) -> None:
    """isSafeToDuplicateCustomLike: both sub-blocks will run the kernel on their half."""
    op = call.op_name
    view = StructuredView.of(call)
    seg = view.segments
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
    for j, o in enumerate(StructuredView.of(call).outs):
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
    for k, x in enumerate(StructuredView.of(call).ins):
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
    view = StructuredView.of(call)
    seg = view.segments
    maps = view.indexing_maps
    iters = view.iterator_types
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
    view = StructuredView.of(call)
    seg = view.segments
    maps = view.indexing_maps
    iters = view.iterator_types
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
    view = StructuredView.of(call)
    seg = view.segments
    outs = seg["outs"]
    maps = view.indexing_maps
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
    view = StructuredView.of(call)
    seg = view.segments
    maps = view.indexing_maps
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
    view = StructuredView.of(call)
    seg = view.segments
    maps = view.indexing_maps
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


def reverse(sp: Splitter, var: Var | None, call: Call) -> None:
    keys = _result_keys(var)
    what = f"custom op {call.kwarg('symbol') or call.op_name}"
    result_axes: dict[int, int] = {}
    for j, key in enumerate(keys):
        d = sp.resolve(key)
        if not d:
            continue
        if len(d) > 1 or FULL in d:
            if d == {FULL}:
                continue
            raise _Abort(f"window stuck on {what}: result #{j} is needed both whole and halved")
        result_axes[j] = next(iter(d))
    if result_axes and any(FULL in sp.resolve(k) for k in keys):
        raise _Abort(f"window stuck on {what}: some results are needed whole, others halved")
    if not result_axes:
        _unsplit(sp, call, keys, what)
        return
    try:
        plan = check_custom_op(call, [_key_type(k) for k in keys], result_axes)
    except Refusal as r:
        sp.note("refused", f"refused to split {what}: {r.describe()}",
                   {"check": r.check, "operand": r.operand})
        raise _Abort(f"window stuck on un-split {what}: {r.describe()}",
                     axis_specific=r.check not in AXIS_INDEPENDENT_CHECKS) from None
    sp.custom_plans[id(call)] = plan
    sp.replicated.pop(id(call), None)
    sp.fenced.discard(id(call))
    sp.note("split", f"split {what} on iteration dim d{plan.iter_dim} (half {plan.half})",
               {"iter_dim": plan.iter_dim, "half": plan.half})
    for j, k in enumerate(keys):
        sp.mode[k] = plan.output_axes[j]
    view = StructuredView.of(call)
    seg = view.segments
    for x, a in zip(seg["ins"], plan.input_axes, strict=False):
        if isinstance(x.type, TileType):
            sp.want_expr(x, FULL if a is None else a)
    for o, a in zip(seg["outs"], plan.output_axes, strict=False):
        sp.want_expr(o, a)

def _unsplit(sp: Splitter, call: Call, keys: list[ValueKey], what: str) -> None:
    """A custom op no consumer wants halved. If unguarded work (a split store's producers, a loop, ...)
    reads one of its results, both sub-blocks need that result WHOLE: the op runs unguarded on both
    sub-blocks when it is safe to duplicate, otherwise the function rolls back (fencing it to
    sub-block 0 would leave sub-block 1 reading its uninitialised output init). If only dead work or
    other fenced custom ops read it, it is fenced to sub-block 0 (it runs once)."""
    for k in keys:
        sp.mode[k] = FULL
    needed = [k for k in keys if k in sp.strong]
    if not needed:
        sp.replicated.pop(id(call), None)
        sp.fenced.add(id(call))
        res = ", ".join(_key_name(k) for k in keys) or "none"
        sp.note("fenced", f"{what} (results: {res}) is not split and no split work reads its results: it "
                   "runs on sub-block 0 only", {"op": call.op_name})
        sp.full_operands(call, weak=True)
        return
    names = ", ".join(_key_name(k) for k in needed)
    try:
        check_replicable(call, [_key_type(k) for k in keys])
    except Refusal as r:
        sp.note("refused", f"refused to duplicate {what}: {r.describe()}",
                   {"check": r.check, "operand": r.operand})
        raise _Abort(f"{what} is not split, split work needs its result {names} whole, and it cannot run "
                     f"on both sub-blocks: {r.describe()}", axis_specific=False) from None
    why = (f"{what} is not split: split work needs its result {names} whole (no consumer wants a half); it "
           "is safe to duplicate (no side effects, not builtin, no temp / extra buffers or sync, tile "
           "outputs only), so both sub-blocks compute it whole, unguarded (fencing it to sub-block 0 would "
           "leave sub-block 1 reading the uninitialised output init)")
    sp.fenced.discard(id(call))
    sp.replicated[id(call)] = why
    sp.note("replicated", why, {"op": call.op_name, "results": names})
    sp.full_operands(call)


def rewrite(sp: Splitter, var: Var | None, call: Call, out: list[Stmt]) -> Stmt | None:
    """The ONE tiled op (all results, operands sliced per the plan), the replicated op, or None (unchanged)."""
    plan = sp.custom_plans.get(id(call))
    if plan is None:
        if id(call) not in sp.replicated:
            return None
        # computed whole on both sub-blocks: marked so the final limit step leaves it unguarded
        rep = call.with_fields(kwargs=tuple(kv for kv in call.kwargs if kv[0] != REPLICATED)
                               + ((REPLICATED, True),))
        return AssignStmt(var, rep) if var is not None else EvalStmt(rep)
    view = StructuredView.of(call)
    seg = view.segments
    ins = [sp.operand(x, a, out) for x, a in zip(seg["ins"], plan.input_axes, strict=False)]
    outs = [sp.operand(o, a, out) for o, a in zip(seg["outs"], plan.output_axes, strict=False)]
    args = ins + outs + list(seg["tmps"]) + list(seg["sync_related_args"])
    new = _rebuild(call.op_name, args, {**dict(call.kwargs), TILED_OP: True}, call.span)
    nv = Var(var.name, new.type, var.span)
    for j, k in enumerate(_result_keys(var)):
        sp.half[k] = TupleGetItem(nv, j) if isinstance(var.type, TupleType) else nv
    sp.half[var] = nv
    return AssignStmt(nv, new)
