"""``-hivm-bind-sub-block`` on HIVM MLIR: lower each AIV function to tilefold, run TileAndBindSubBlock, and apply
its decision to the MLIR function, in upstream's shape.

* **split** (the tilefold function got ``sub_block_axis``): the function body moves into
  ``scf.for %sb = 0 to 2 step 1 {...} {map_for_to_forall, mapping = [#hivm.sub_block<x>]}``; every value the pass
  halved gets the halved type (tensor.empty, memref.alloc, to_tensor, hivm results, loop / if results follow);
  each narrowed load reads, and each split store writes, ``memref.subview %gm[.., %off, ..]`` with
  ``%off = affine.apply (d0 * half)(%sb)``; split stores and custom ops get ``{tiled_op}``; a store the pass left
  whole (partial split) is guarded as below;
* **rolled back / not split** (the pass refused, or ``enable-tile=false``, or the function is not lowered): each
  store, copy and custom op not marked ``tiled_op`` runs under
  ``%idx = hivm.hir.get_sub_block_idx -> i64; %c = arith.cmpi eq, %idx, %c0_i64``,
  ``scf.if %c {...} {limit_sub_block_id0}``.

A function that already reads ``get_sub_block_idx`` (already bound) or is not an AIV function is left alone.
The MLIR side only re-expresses what the pass decided: when a halved value comes from an op this module cannot
re-type (e.g. a ``tensor.extract_slice`` with static sizes), the function is rolled back instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from tilefold.mlir import clipped_stores
from tilefold.mlir.clipped_stores import ClippedInsert, ClippedStore, memref_strides, window_axis
from tilefold.mlir.dialect import HivmOp, ToTensorOp, hivm_op_class
from tilefold.mlir.lower import Lowering, NotLowered, kept_axes, lowered_line_span, op_span, shape_of

TILED = "tiled_op"
#: LimitUniqueSubBlockIdToStoreCopy's ops: what writes memory other than the sub-block's own buffers
GUARDED_OPS = ("hivm.hir.store", "hivm.hir.copy", "hivm.hir.custom", "hivm.hir.custom_macro")
LIMIT = "limit_sub_block_id0"


@dataclass
class Remark:
    function: str
    text: str


@dataclass
class Options:
    enable_tile: bool = True
    remarks: list[Remark] = field(default_factory=list)


def core_type(fn: func.FuncOp) -> str | None:
    attr = fn.attributes.get("hivm.func_core_type")
    if attr is None:
        return None
    text = str(attr)
    for kind in ("AIV", "AIC", "MIX"):
        if kind in text:
            return kind
    return text


def is_candidate(fn: func.FuncOp) -> bool:
    return core_type(fn) == "AIV" and bool(fn.body.blocks)


def _already_bound(fn: func.FuncOp) -> bool:
    return any(op.name == "hivm.hir.get_sub_block_idx" for op in fn.walk())


def run_on_module(module: Operation, filename: str, source: str, opts: Options, line_offset: int = 0) -> None:
    for fn in [op for op in module.walk() if isinstance(op, func.FuncOp)]:
        if core_type(fn) == "AIC" and fn.body.blocks:
            _note_aic(fn, filename, source, opts, line_offset)
            continue
        if not is_candidate(fn) or _already_bound(fn):
            continue
        _run_on_function(fn, filename, source, opts, line_offset)


def _note_aic(fn: func.FuncOp, filename: str, source: str, opts: Options, line_offset: int) -> None:
    """An AIC function is lowered (``lower_ops.CubeLowering``) and left as it is: the pass splits the AIV side
    of a mix kernel only. The remark says whether it lowered, or why not."""
    try:
        lower_to_program(fn, filename, source, line_offset)
    except NotLowered as exc:
        opts.remarks.append(Remark(fn.sym_name.data, f"AIC function not lowered, left as it is: {exc.render()}"))
        return
    except Exception as exc:  # noqa: BLE001 - a bug of the lowering: the function is printed as read anyway
        opts.remarks.append(Remark(fn.sym_name.data, f"AIC function: internal error while lowering, left as it is: "
                                                     f"{type(exc).__name__}: {exc}"))
        return
    opts.remarks.append(Remark(fn.sym_name.data, "AIC function lowered to a tilefold AIC function, left as it is "
                                                 "(the pass splits AIV functions only)"))


def _guard_targets(fn: func.FuncOp) -> list[Operation]:
    return [op for op in fn.walk() if op.name in GUARDED_OPS and TILED not in op.attributes]


def _run_on_function(fn: func.FuncOp, filename: str, source: str, opts: Options, line_offset: int) -> None:
    name = fn.sym_name.data
    if not opts.enable_tile:
        limit_to_sub_block0(fn, _guard_targets(fn))
        opts.remarks.append(Remark(name, "enable-tile=false: nothing split; stores and custom ops limited to "
                                         "sub-block 0"))
        return
    try:
        decision = decide(fn, filename, source, line_offset)
    except NotLowered as exc:
        opts.remarks.append(Remark(name, f"not lowered, rolled back: {exc.render()}"))
        limit_to_sub_block0(fn, _guard_targets(fn))
        return
    except Exception as exc:  # noqa: BLE001 - a bug of the lowering: nothing was rewritten yet, so roll back
        opts.remarks.append(Remark(name, f"internal error while lowering, rolled back: {type(exc).__name__}: {exc}"))
        limit_to_sub_block0(fn, _guard_targets(fn))
        return
    if decision.axis is None:
        opts.remarks.append(Remark(name, f"rolled back: {decision.reason}"))
        limit_to_sub_block0(fn, _guard_targets(fn))
        return
    try:
        plan = plan_split(fn, decision)
    except (NotLowered, KeyError, ValueError, TypeError, AttributeError) as exc:
        opts.remarks.append(Remark(name, f"split not expressible in MLIR, rolled back: {getattr(exc, 'message', exc)}"))
        limit_to_sub_block0(fn, _guard_targets(fn))
        return
    apply_split(fn, decision, plan)
    opts.remarks.append(Remark(name, f"split on axis {decision.axis}"))


# ---------------------------------------------------------------------------------------------- decision
@dataclass
class Decision:
    lowering: Lowering
    axis: int | None  # tile axis, None = rolled back
    reason: str = ""
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # pl name -> shape after the pass
    before: dict[str, tuple[int, ...]] = field(default_factory=dict)
    tiled: set[str] = field(default_factory=set)
    guarded: set[str] = field(default_factory=set)


def lower_to_program(fn: func.FuncOp, filename: str, source: str, line_offset: int = 0):
    """(Lowering, Program) of one function."""
    import tilefold.language as pl
    from tilefold.mlir.lower_cube import CubeLowering

    low = (CubeLowering if core_type(fn) == "AIC" else Lowering)(fn, filename, source, line_offset)
    text = low.lower()
    try:
        program = pl.parse(text, f"{filename}:{fn.sym_name.data} (lowered)")
    except Exception as exc:  # the lowering wrote something the DSL refuses: report at the function
        raise NotLowered(f"function @{fn.sym_name.data}: the lowered program is refused by tilefold: "
                         f"{getattr(exc, 'message', exc)}",
                         span=lowered_line_span(low, getattr(getattr(exc, "span", None), "line", None))
                         or op_span(fn, filename, source, line_offset)) from exc  # a signature line: the function
    return low, program


def _collect(fn_ir) -> tuple[dict[str, tuple[int, ...]], set[str], set[str]]:
    from tilefold.ir.expr import Call, TupleGetItem, Var
    from tilefold.ir.stmt import AssignStmt, ForStmt, IfStmt, SeqStmts, WhileStmt

    shapes: dict[str, tuple[int, ...]] = {}
    tiled: set[str] = set()
    guarded: set[str] = set()
    calls: dict[str, Call] = {}

    def note(var: Var) -> None:
        shape = getattr(var.type, "shape", None)
        if shape is not None:
            try:
                shapes[var.name] = tuple(int(getattr(s, "value", s)) for s in shape)
            except (TypeError, ValueError):
                pass

    def walk(stmt, in_guard: bool) -> None:
        if stmt is None:
            return
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                walk(s, in_guard)
        elif isinstance(stmt, AssignStmt):
            note(stmt.var)
            value = stmt.value
            if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
                value = calls.get(value.tuple_value.name)  # ``r, s = custom(...)``: each result names the op
            if isinstance(value, Call):
                calls[stmt.var.name] = value
                if dict(value.kwargs).get("tiled_op"):
                    tiled.add(stmt.var.name)
                if in_guard:
                    guarded.add(stmt.var.name)
        elif isinstance(stmt, ForStmt | WhileStmt):
            for a in stmt.iter_args:
                note(a)
            for r in stmt.return_vars:
                note(r)
            walk(stmt.body, in_guard)
        elif isinstance(stmt, IfStmt):
            guard = in_guard or dict(stmt.attrs).get(LIMIT) is not None
            for r in stmt.return_vars:
                note(r)
                if guard:  # a guarded store / custom op keeps its name on the if's result
                    guarded.add(r.name)
            walk(stmt.then_body, guard)
            walk(stmt.else_body, guard)

    walk(fn_ir.body, False)
    return shapes, tiled, guarded


def decide(fn: func.FuncOp, filename: str, source: str, line_offset: int = 0) -> Decision:
    from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED, tile_and_bind_sub_block

    low, program = lower_to_program(fn, filename, source, line_offset)
    before_fn = program.functions[0]
    after = tile_and_bind_sub_block()(program)
    after_fn = after.functions[0]
    before, _, _ = _collect(before_fn)
    shapes, tiled, guarded = _collect(after_fn)
    axis = after_fn.attr(AXIS_ATTR)
    reason = str(after_fn.attr(REVERTED) or ("the pass left the function unchanged" if axis is None else ""))
    return Decision(low, axis, reason, shapes, before, tiled, guarded)


# ---------------------------------------------------------------------------------------------- split plan
@dataclass
class SplitPlan:
    retype: dict[SSAValue, Attribute] = field(default_factory=dict)
    narrow_loads: list[HivmOp] = field(default_factory=list)
    tiled_stores: list[HivmOp] = field(default_factory=list)
    guarded: list[Operation] = field(default_factory=list)
    tiled_customs: list[HivmOp] = field(default_factory=list)
    half: dict[Operation, tuple[int, int]] = field(default_factory=dict)  # load/store -> (mlir axis, half)
    fresh_inits: list[tuple[HivmOp, int, Attribute]] = field(default_factory=list)  # (op, outs index, type)
    slices: list[Operation] = field(default_factory=list)  # extract / insert_slices re-emitted on halves
    slice_sizes: dict[Operation, list[int]] = field(default_factory=dict)  # their halved static sizes
    clipped_slices: set[Operation] = field(default_factory=set)  # stored windows of a halved value
    clipped: list[ClippedStore] = field(default_factory=list)  # their stores, clipped per half
    clipped_inserts: list[ClippedInsert] = field(default_factory=list)  # inserts of a whole value, clipped per half
    aranges: list[tuple[HivmOp, int, int, list[int]]] = field(default_factory=list)  # (op, axis, half, shape)


def _mlir_shape(tile: tuple[int, ...], rank: int) -> list[int]:
    return list(tile[1:]) if rank == 1 and len(tile) == 2 else list(tile)


def _retyped(t: Attribute, shape: list[int]) -> Attribute:
    if isinstance(t, TensorType):
        return TensorType(t.get_element_type(), shape)
    if isinstance(t, MemRefType):
        layout = t.layout
        if not isinstance(layout, NoneAttr):
            layout = NoneAttr() if isinstance(layout, StridedLayoutAttr) else layout
        return MemRefType(t.get_element_type(), shape, layout, t.memory_space)
    return t


def plan_split(fn: func.FuncOp, d: Decision) -> SplitPlan:
    low = d.lowering
    plan = SplitPlan()
    _refuse_unexpressed(low)
    changed: dict[str, tuple[int, ...]] = {n: s for n, s in d.shapes.items() if d.before.get(n) not in (None, s)}
    # names -> MLIR values (allocs: every version but their create)
    by_value: dict[SSAValue, set[str]] = {}
    for v, n in low.names.items():
        by_value.setdefault(v, set()).add(n)
    for n, op in low.ops_of.items():
        if isinstance(op, HivmOp) and not op.results:
            for v in op.group("outs"):
                if op.name != "hivm.hir.store":
                    by_value.setdefault(v, set()).add(n)
    for v, n in low.versions:  # a buffer carried through a loop / if: its loop-carried and if-yielded versions
        by_value.setdefault(v, set()).add(n)
    local_subviews: list[tuple[memref.SubviewOp, list[int]]] = []
    for v, names in by_value.items():
        if not isinstance(v.type, TensorType | MemRefType):
            continue
        new = {changed[n] for n in names if n in changed}
        owner = v.owner
        if isinstance(owner, tensor.ExtractSliceOp) and _stored_window(owner, by_value, changed, d.axis):
            plan.clipped_slices.add(owner)  # a stored window: each half stores its clipped part (clipped_stores)
            continue
        if isinstance(owner, memref.AllocOp | memref.AllocaOp | memref.ViewOp):  # a load / op filling it: create dead
            versions = {n for n in names if low.ops_of.get(n) is not owner}
            new = {changed[n] for n in versions if n in changed} or new
        if not new:
            continue
        if len(new) > 1:
            raise NotLowered(f"%{v.name_hint}: versions halved differently")
        shape = _mlir_shape(next(iter(new)), len(shape_of(v.type)))
        if isinstance(owner, memref.SubviewOp) and owner.source in low.alloc_version:
            local_subviews.append((owner, shape))  # re-typed once its buffer's halved type is known
            continue
        if isinstance(owner, tensor.ExtractSliceOp | tensor.InsertSliceOp):
            operand = owner.source if isinstance(owner, tensor.ExtractSliceOp) else owner.dest
            src_new = {changed[n] for n in by_value.get(operand) or () if n in changed}
            if not src_new:
                raise NotLowered(f"a halved {owner.name} of a value that is not halved")
            plan.slices.append(owner)
        elif isinstance(owner, arith.ConstantOp):
            if not (isinstance(owner.value, DenseIntOrFPElementsAttr) and owner.value.is_splat()):
                raise NotLowered("a halved non-splat tensor constant")  # a splat halves to the same splat
        elif not isinstance(owner, HivmOp | memref.AllocOp | memref.AllocaOp | memref.ViewOp | tensor.EmptyOp
                            | ToTensorOp | scf.ForOp | scf.IfOp | scf.WhileOp | Block):
            raise NotLowered(f"{owner.name} produces a halved value")
        plan.retype[v] = _retyped(v.type, shape)
    for n, op in low.ops_of.items():
        if op.name == "hivm.hir.load" and n in changed:
            plan.narrow_loads.append(op)
            plan.half[op] = _half_axis(op.group("outs")[0].type, changed[n], d)
        if op.name == "hivm.hir.store":
            if n in d.guarded:
                plan.guarded.append(op)
            elif n in d.tiled and op.group("ins")[0].owner in plan.clipped_slices:
                sl = op.group("ins")[0].owner
                axis = window_axis(sl, shape_of(sl.source.type))
                plan.clipped.append(ClippedStore(op, sl, axis, shape_of(plan.retype[sl.source])[axis]))
            elif n in d.tiled:
                plan.tiled_stores.append(op)
                src = op.group("ins")[0]
                tile_half = plan.retype.get(src)
                if tile_half is None:
                    raise NotLowered("a split store of a value not halved")
                plan.half[op] = _half_axis(src.type, tuple(shape_of(tile_half)), d, mlir_shape=True)
        if op.name in ("hivm.hir.custom", "hivm.hir.custom_macro"):
            if n in d.tiled:
                plan.tiled_customs.append(op)
            elif n in d.guarded:
                plan.guarded.append(op)
    seen = {sv for sv, _ in local_subviews}
    for v in low.local_views:  # a window only read, of a halved buffer, is halved with it
        if v.owner not in seen and low.local_views[v].base in plan.retype:
            local_subviews.append((v.owner, None))
    for sv, shape in local_subviews:
        plan.retype[sv.result] = _halved_local_subview(sv, shape, plan.retype)
        plan.slices.append(sv)
    plan.aranges = _halved_aranges(fn, plan)
    for op in plan.slices:
        if isinstance(op, tensor.InsertSliceOp) and op.source not in plan.retype:
            plan.clipped_inserts.append(_clipped_insert(op, plan.retype))
        else:
            plan.slice_sizes[op] = _halved_slice_sizes(op, plan.retype)
    for op in fn.walk():  # a halved result needs a halved outs init: a fresh tensor.empty, or a re-typed value
        if isinstance(op, HivmOp) and op.results:
            for i, (r, o) in enumerate(zip(op.results, op.group("outs"), strict=False)):
                rt, ot = plan.retype.get(r, r.type), plan.retype.get(o, o.type)
                if rt == ot:
                    continue
                if isinstance(o.owner, tensor.EmptyOp) and isinstance(rt, TensorType):
                    plan.fresh_inits.append((op, i, rt))
                else:
                    raise NotLowered(f"{op.name}: its outs init %{o.name_hint} is not halved with its result")
    if fn.body.blocks[0].last_op is not None and fn.body.blocks[0].last_op.operands:
        raise NotLowered("a function returning values")
    return plan


def _refuse_unexpressed(low: Lowering) -> None:
    """A run-time-size or strided window, a window of a window, a reshaping cast of a buffer: their halved forms
    (clip arithmetic on dynamic sizes, strided halves, composed offsets, a halved cast) are not re-expressed on the
    MLIR, so a split of a function with one is rolled back."""
    casts = [v.owner for v in low.local_views if not isinstance(v.owner, memref.SubviewOp)]
    found = low.dynamic or low.nested or casts
    if found:
        what = found[0]
        raise NotLowered(f"{what.name} %{what.results[0].name_hint if what.results else '?'}: the split is not "
                         "re-expressed on a run-time-size or strided window, a window of a window or a cast of a "
                         "local buffer")


def _halved_aranges(fn: func.FuncOp, plan: SplitPlan) -> list[tuple[HivmOp, int, int, list[int]]]:
    """(op, MLIR axis, half, shape) of each halved ``varange``: it must start where its half starts."""
    out = []
    for op in fn.walk():
        if op.name == "hivm.hir.varange" and isinstance(op, HivmOp):
            v = op.results[0] if op.results else op.group("outs")[0]
            if v in plan.retype:
                old, new = shape_of(v.type), shape_of(plan.retype[v])
                axis = next(a for a, (x, y) in enumerate(zip(old, new, strict=True)) if x != y)
                out.append((op, axis, new[axis], old))
    return out


def _stored_window(sl: tensor.ExtractSliceOp, by_value: dict, changed: dict, tile_axis: int) -> bool:
    """``sl`` is a window, on the split axis, of a halved value whose only use is the ``ins`` of a store (a
    clipped store)."""
    uses = list(sl.results[0].uses)
    if len(uses) != 1 or uses[0].operation.name != "hivm.hir.store":
        return False
    store = uses[0].operation
    if not isinstance(store, HivmOp) or store.group("ins")[:1] != [sl.results[0]]:
        return False
    if not any(n in changed for n in by_value.get(sl.source, ())):
        return False
    shape = shape_of(sl.source.type)
    return window_axis(sl, shape) == (tile_axis - 1 if len(shape) == 1 else tile_axis)


def _half_axis(t: Attribute, new: tuple[int, ...], d: Decision, mlir_shape: bool = False) -> tuple[int, int]:
    old = shape_of(t)
    new_l = list(new) if mlir_shape else _mlir_shape(new, len(old))
    diffs = [i for i, (a, b) in enumerate(zip(old, new_l, strict=True)) if a != b]
    if len(diffs) != 1:
        raise NotLowered("a window halved on more than one axis")
    return diffs[0], new_l[diffs[0]]


# ---------------------------------------------------------------------------------------------- rewrites
def _index_const(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()), IndexType())


def _subview(src: SSAValue, axis: int, half: int, offset: SSAValue) -> memref.SubviewOp:
    t = src.type
    shape = shape_of(t)
    strides = memref_strides(t)
    sizes = list(shape)
    sizes[axis] = half
    offsets: list[SSAValue | int] = [0] * len(shape)
    offsets[axis] = offset
    layout = StridedLayoutAttr(strides, None)
    result = MemRefType(t.get_element_type(), sizes, layout, t.memory_space)
    return memref.SubviewOp.get(src, offsets, sizes, [1] * len(shape), result)


def apply_split(fn: func.FuncOp, d: Decision, plan: SplitPlan) -> None:
    block = fn.body.blocks[0]
    ret = block.last_op
    for v, t in plan.retype.items():
        v._type = t
        if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, DenseIntOrFPElementsAttr):
            splat = next(iter(v.owner.value.iter_values()))  # a halved splat: the same element, the halved type
            v.owner.properties["value"] = DenseIntOrFPElementsAttr.from_list(t, [splat])
    # results of hivm ops follow their outs; loops / ifs their iter args / yields
    for op in fn.walk():
        if isinstance(op, scf.ForOp):
            body = op.body.blocks[0]
            for a, r in zip(body.args[1:], op.results, strict=True):
                if r in plan.retype:
                    a._type = plan.retype[r]
                elif a in plan.retype:
                    r._type = plan.retype[a]
    c0, c1, c2 = _index_const(0), _index_const(1), _index_const(2)
    for c, n in ((c0, "c0"), (c1, "c1"), (c2, "c2")):
        c.result.name_hint = n
    for c in (c0, c1, c2):
        block.insert_op_before(c, block.first_op)
    loop_body = Block(arg_types=[IndexType()])
    ops = [op for op in block.ops if op not in (c0, c1, c2, ret)]
    for op in ops:
        op.detach()
        loop_body.add_op(op)
    loop_body.add_op(scf.YieldOp())
    loop = scf.ForOp(c0.result, c2.result, c1.result, [], Region(loop_body))
    loop.attributes["map_for_to_forall"] = UnitAttr()
    loop.attributes["mapping"] = ArrayAttr([parse_attr("#hivm.sub_block<x>")])
    block.insert_op_before(loop, ret)
    sb = loop_body.args[0]
    sb.name_hint = "sb"
    offsets: dict[int, SSAValue] = {}

    def offset(half: int) -> SSAValue:
        if half not in offsets:
            m = AffineMapAttr(AffineMap.from_callable(lambda d0: (d0 * half,)))
            ap = affine.ApplyOp([sb], m)
            loop_body.insert_op_before(ap, loop_body.first_op)
            offsets[half] = ap.result
        return offsets[half]

    for op in plan.narrow_loads + plan.tiled_stores:
        axis, half = plan.half[op]
        group = "ins" if op.name == "hivm.hir.load" else "outs"
        gm = op.group(group)[0]
        sv = _subview(gm, axis, half, offset(half))
        op.parent_block().insert_op_before(sv, op)
        _replace_group_operand(op, group, 0, sv.result)
    for c in plan.clipped:
        clipped_stores.rewrite(c, sb, _replace_group_operand)
    for ci in plan.clipped_inserts:
        clipped_stores.rewrite_insert(ci, sb)
    for op, axis, half, shape in plan.aranges:
        _shift_arange(op, axis, half, shape, sb)
    for op in plan.tiled_stores + plan.tiled_customs + [c.store for c in plan.clipped]:
        op.attributes[TILED] = UnitAttr()
    for op, sizes in plan.slice_sizes.items():  # a slice covering its source on the split axis: halved sizes
        op.properties["static_sizes"] = DenseArrayBase.from_list(i64, sizes)
    # one halved init per original tensor.empty, as upstream's own example shares %new_init (AutoSubtiling.md),
    # placed right after the original: it dominates every use of the original
    shared: dict[tuple[int, Attribute], SSAValue] = {}
    for op, i, t in plan.fresh_inits:
        orig = op.group("outs")[i].owner
        if (id(orig), t) not in shared:
            empty = tensor.EmptyOp([], t)
            orig.parent_block().insert_op_after(empty, orig)
            shared[(id(orig), t)] = empty.results[0]
        _replace_group_operand(op, "outs", i, shared[(id(orig), t)])
    for op in [o for o in fn.walk() if isinstance(o, tensor.EmptyOp) and not o.results[0].uses]:
        op.detach()
        op.erase()
    if plan.guarded:
        limit_to_sub_block0(fn, plan.guarded)


def _halved_local_subview(sv: memref.SubviewOp, shape: list[int] | None, retype: dict) -> MemRefType:
    """The halved type of a window of a local buffer: the buffer must be halved on the axis the window's part is
    halved on, the window covering it there (offset 0, the whole extent); the layout follows the halved buffer."""
    base_t = retype.get(sv.source)
    if base_t is None:
        raise NotLowered(f"a halved window %{sv.result.name_hint} of a local buffer that is not halved")
    sizes = list(sv.static_sizes.get_values())
    offsets = list(sv.static_offsets.get_values())
    old_base, new_base = shape_of(sv.source.type), shape_of(base_t)
    kept = kept_axes(sizes, shape_of(sv.result.type))
    if shape is None and kept is not None:  # the window's part follows its buffer on the axes it keeps
        shape = [new_base[a] if sizes[a] == old_base[a] else sizes[a] for a in kept]
    for axis, (a, b) in enumerate(zip(old_base, new_base, strict=True)):
        if a != b and (offsets[axis] != 0 or sizes[axis] != a or kept is None or axis not in kept
                       or shape[kept.index(axis)] != b):
            raise NotLowered(f"the window %{sv.result.name_hint} does not cover its buffer on the halved axis")
    strides = memref_strides(base_t)
    static = all(o != DYNAMIC_INDEX for o in offsets)
    offset = sum(o * st for o, st in zip(offsets, strides, strict=True)) if static else None
    kept_strides = [strides[a] for a in kept]
    t = sv.result.type
    return MemRefType(t.get_element_type(), shape, StridedLayoutAttr(kept_strides, offset), t.memory_space)


def _clipped_insert(op: tensor.InsertSliceOp, retype: dict) -> ClippedInsert:
    """An insert of a whole value into a halved destination: the pass clipped it per half (``assembles``, rule 2).
    The split axis must be one the inserted value keeps (a rank-reduced unit axis cannot take a dynamic count)."""
    if op.dest not in retype or op.results[0] not in retype:
        raise NotLowered(f"tensor.insert_slice %{op.results[0].name_hint}: its destination is not halved with it")
    old, new = shape_of(op.dest.type), shape_of(retype[op.dest])
    axes = [a for a, (x, y) in enumerate(zip(old, new, strict=True)) if x != y]
    kept = kept_axes(list(op.static_sizes.get_values()), shape_of(op.source.type))
    if len(axes) != 1 or kept is None or any(s != 1 for s in op.static_strides.get_values()):
        raise NotLowered(f"tensor.insert_slice %{op.results[0].name_hint}: a clipped insert needs unit strides and "
                         "one halved axis")
    if axes[0] not in kept:
        raise NotLowered(f"tensor.insert_slice %{op.results[0].name_hint}: the split axis {axes[0]} is a unit axis "
                         "the inserted value drops, which a clipped (dynamic-size) part cannot keep")
    if op.static_sizes.get_values()[axes[0]] == DYNAMIC_INDEX:
        raise NotLowered(f"tensor.insert_slice %{op.results[0].name_hint}: a dynamic size on the split axis")
    return ClippedInsert(op, axes[0], kept.index(axes[0]), new[axes[0]])


def _halved_slice_sizes(op: tensor.ExtractSliceOp | tensor.InsertSliceOp, retype: dict) -> list[int]:
    """The static sizes of a slice whose part (the extracted result, the inserted source) is halved: each size the
    part keeps is the part's new extent (a rank-reducing slice's dropped unit sizes stay). A part that is not halved
    with the slice cannot be expressed."""
    part = op.source if isinstance(op, tensor.InsertSliceOp) else op.results[0]
    sizes = list(op.static_sizes.get_values())
    if part not in retype:
        raise NotLowered(f"{op.name}: its part %{part.name_hint} is not halved with it")
    old, new = shape_of(part.type), shape_of(retype[part])
    kept = kept_axes(sizes, old)
    if kept is None or len(kept) != len(new):
        raise NotLowered(f"{op.name}: sizes {sizes} do not match its part {old}")
    for axis, extent in zip(kept, new, strict=True):
        sizes[axis] = extent
    return sizes


def _shift_arange(op: HivmOp, axis: int, half: int, shape: list[int], sb: SSAValue) -> None:
    """A halved ``varange`` starts at ``offset + sb * half * stride[axis]``: the element its half starts with
    (a stride is an SSA index value, so the shift is ``arith`` index arithmetic)."""
    blk = op.parent_block()
    strides = op.group("strides")
    offset = op.group("offset")

    def add(new: Operation) -> SSAValue:
        blk.insert_op_before(new, op)
        return new.results[0]

    h = add(_index_const(half))
    shift = add(arith.MuliOp(add(arith.MuliOp(sb, h)), strides[axis]))
    if offset:
        _replace_group_operand(op, "offset", 0, add(arith.AddiOp(offset[0], shift)))
        return
    from tilefold.mlir.dialect import Piece

    first = next(i for i, p in enumerate(op.layout()) if p.kind == "group" and p.keyword == "strides")
    op.pieces.insert(first, Piece("group", keyword="offset", open="[", items=[("operand",)]))
    before = sum(sum(1 for it in p.items if it[0] == "operand") if p.kind == "group" else
                 p.count if p.kind == "operands" else 1 if p.kind == "attr" and p.text == "%" else 0
                 for p in op.pieces[:first])
    ops = list(op.operands)
    op.operands = ops[:before] + [shift] + ops[before:]


def parse_attr(text: str) -> Attribute:
    from xdsl.parser import Parser

    from tilefold.mlir.dialect import make_context

    return Parser(make_context(), text).parse_attribute()


def _replace_group_operand(op: HivmOp, keyword: str, index: int, value: SSAValue) -> None:
    pos = 0
    for p in op.layout():
        if p.kind == "operands":
            pos += p.count
        elif p.kind == "attr" and p.text == "%":
            pos += 1
        elif p.kind == "group":
            n = sum(1 for item in p.items if item[0] == "operand")
            if p.keyword == keyword:
                op.operands[pos + index] = value
                return
            pos += n


def limit_to_sub_block0(fn: func.FuncOp, targets: list[Operation]) -> None:
    """Each target op runs under ``scf.if (get_sub_block_idx == 0) {...} {limit_sub_block_id0}``; an op with
    results yields them, and its outs inits on the other branch."""
    for op in targets:
        if op.parent_block() is None:
            continue
        blk = op.parent_block()
        idx = hivm_op_class("hivm.hir.get_sub_block_idx").build([], [i64], _idx_pieces())
        zero = arith.ConstantOp(IntegerAttr(0, i64), i64)
        zero.result.name_hint = "c0_i64"
        cmp = arith.CmpiOp(idx.results[0], zero.result, "eq")
        for new in (idx, zero, cmp):
            blk.insert_op_before(new, op)
        results = list(op.results)
        else_vals = op.group("outs")[:len(results)] if isinstance(op, HivmOp) else []
        if results and len(else_vals) != len(results):
            continue  # cannot form the other branch: leave it (only ops without results are limited then)
        then_block = Block()
        if_op = scf.IfOp(cmp.result, [r.type for r in results], Region(then_block),
                         Region(Block()) if results else None)
        if_op.attributes[LIMIT] = UnitAttr()
        blk.insert_op_before(if_op, op)
        old_uses = [(u.operation, u.index) for r in results for u in list(r.uses)]
        op.detach()
        then_block.add_op(op)
        then_block.add_op(scf.YieldOp(*results))
        if results:
            if_op.false_region.blocks[0].add_op(scf.YieldOp(*else_vals))
            mapping = dict(zip(results, if_op.results, strict=True))
            for user, i in old_uses:
                if user.parent_op() is not if_op and user is not then_block.last_op:
                    user.operands[i] = mapping[user.operands[i]]


def _idx_pieces():
    from tilefold.mlir.dialect import Piece

    return [Piece("attrdict"), Piece("results", open="")]
