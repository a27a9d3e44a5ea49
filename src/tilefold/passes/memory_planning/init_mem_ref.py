"""InitMemRef: give every tile-valued variable a ``MemRef`` (PyPTO's ``passes.init_mem_ref()``).

A tile produced by a real instruction gets a root allocation of its own (``base`` = a fresh name,
``byte_offset`` = 0). A view (registry ``output_on_input_storage``: slice, reshape, set_validshape, ...)
shares its source's base with a byte offset expression (``tile.slice``: the window's first element, computed
with the source's row pitch, or with the NZ fractal formula in Acc). An op with ``output_reuses_input``
(matmul_acc, gemv_acc) writes through the input, so the result gets the input's MemRef. Loop iter args share
their init's storage, loop results their iter arg's; if results get a root of their own. A
destination-passing op (registry ``results_reuse_segment``: custom ops write result i into ``outs[i]``)
gives result i the MemRef of its destination; the tuple-typed variable of a multi-result call carries those
MemRefs in its element types. Sharing requires exclusive ownership: a loop init whose storage group is still
read after the loop starts (liveness), is a parameter's, or is the init of another iter arg of the same loop
is first copied (``tile.move`` inserted before the loop) when the back edge would overwrite it; a custom op
whose output init is still read afterwards (or is also one of its inputs) gets a fresh ``tile.create``
destination inserted before it. See docs/passes/init_mem_ref.md.
"""

from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from tilefold.analysis.liveness import compute_liveness
from tilefold.analysis.tile_layout import (
    ConstFolder,
    _c,
    add,
    all_stmts,
    dense_pitch,
    element_offset_bytes,
    is_nz,
    static_dims,
    storage_bytes,
    tile_2d,
    view_offset_2d,
)
from tilefold.errors import NotSupportedError
from tilefold.ir.expr import (
    Call,
    ConstInt,
    Expr,
    IterArg,
    TupleGetItem,
    Var,
)
from tilefold.ir.names import NameSupply, name_supply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
    flatten_stmts,
    seq,
)
from tilefold.ir.types import MemorySpace, MemRef, TileType
from tilefold.ir.visitor import IRMutator
from tilefold.ops import make_call, op_of, result_destination_indices, result_destinations
from tilefold.passes.base import Pass, function_pass
from tilefold.passes.memory_planning.memref_common import retype, slice_offsets, target_of, tile_space, tile_vars
from tilefold.passes.option_records import InitMemRefOptions
from tilefold.passes.options import parse_options
from tilefold.targets import Target


def _root_var(value: Expr) -> Var | None:
    return value if isinstance(value, Var) else None


class _BindNestedTiles(IRMutator):
    """Bind every tile-valued call nested inside another expression to a variable of its own, so that
    each tile value has a variable to carry its MemRef (``a = exp(sub(t, m))`` -> ``tmp = sub(t, m)``;
    ``a = exp(tmp)``)."""

    def __init__(self, fn: Function) -> None:
        super().__init__()
        self.pending: list[Stmt] = []
        self.names = name_supply(fn)

    def _fresh(self, op_name: str) -> str:
        return self.names.fresh(op_name.split(".")[-1] + "_t")

    def _hoist_args(self, call: Call) -> Call:
        args = []
        changed = False
        for a in call.args:
            if isinstance(a, Call) and isinstance(a.type, TileType):
                inner = self._hoist_args(a)
                v = Var(self._fresh(a.op_name), a.type, a.span)
                self.pending.append(AssignStmt(v, inner, a.span))
                args.append(v)
                changed = True
            else:
                m = self.mutate_expr(a)
                args.append(m)
                changed = changed or m is not a
        return call.with_fields(args=tuple(args)) if changed else call

    def mutate_Call(self, expr: Call) -> Expr:
        return self._hoist_args(expr)

    def _wrap(self, stmt: Stmt, new: Stmt):
        if not self.pending:
            return new
        out = self.pending + [new]
        self.pending = []
        return out

    def mutate_AssignStmt(self, stmt: AssignStmt):
        value = self.mutate_expr(stmt.value)
        return self._wrap(stmt, stmt if value is stmt.value else stmt.with_fields(value=value))

    def mutate_EvalStmt(self, stmt: EvalStmt):
        expr = self.mutate_expr(stmt.expr)
        return self._wrap(stmt, stmt if expr is stmt.expr else stmt.with_fields(expr=expr))

    def _hoist_values(self, stmt):
        values = []
        for v in stmt.values:
            if isinstance(v, Call) and isinstance(v.type, TileType):
                inner = self._hoist_args(v)
                var = Var(self._fresh(v.op_name), v.type, v.span)
                self.pending.append(AssignStmt(var, inner, v.span))
                values.append(var)
            else:
                values.append(self.mutate_expr(v))
        new = stmt.with_fields(values=tuple(values))
        return self._wrap(stmt, new) if self.pending else stmt

    def _loop(self, stmt, base_method):
        """A tile-valued call as a loop init (``init_values=(pl.tile.full(...),)``) is bound to a variable
        before the loop, so that it is computed and its storage is the one the iter arg carries."""
        saved, self.pending = self.pending, []
        iter_args = []
        for ia in stmt.iter_args:
            init = ia.init
            if isinstance(init, Call) and isinstance(init.type, TileType):
                inner = self._hoist_args(self.mutate_expr(init))  # type: ignore[arg-type]
                v = Var(self._fresh(init.op_name), init.type, init.span)
                self.pending.append(AssignStmt(v, inner, init.span))
                new = ia.with_fields(init=v)
                self.var_map[ia] = new
                ia = new
            iter_args.append(ia)
        pre, self.pending = self.pending, saved
        if not pre:
            return base_method(stmt)
        out = base_method(stmt.with_fields(iter_args=tuple(iter_args)))
        return pre + (out if isinstance(out, list) else [out])

    def mutate_ForStmt(self, stmt: ForStmt):
        return self._loop(stmt, super().mutate_ForStmt)

    def mutate_WhileStmt(self, stmt: WhileStmt):
        return self._loop(stmt, super().mutate_WhileStmt)

    def mutate_YieldStmt(self, stmt):
        return self._hoist_values(stmt)

    def mutate_ReturnStmt(self, stmt):
        return self._hoist_values(stmt)


def bind_nested_tiles(fn: Function) -> Function:
    m = _BindNestedTiles(fn)
    body = m._body(fn.body)
    return fn if body is fn.body else fn.with_fields(body=body)


def _tuple_destinations(fn: Function) -> dict[Var, tuple[Expr, ...]]:
    """Tuple-typed variables bound to a multi-result destination-passing call -> its destinations."""
    out: dict[Var, tuple[Expr, ...]] = {}
    for stmt in all_stmts(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            dests = result_destinations(stmt.value)
            if dests is not None:
                out[stmt.var] = dests
    return out


def _strided_reshape(op, src: Var, t: TileType, src_pitch: int, space: MemorySpace) -> bool:
    """Is this view a same-dtype reshape to a new row length of a row-major window whose rows are not
    adjacent (a slice narrower than its source)? Then it cannot share its source's bytes."""
    if op.pto == "ttransview" or is_nz(space) or t.dtype != src.type.dtype:  # type: ignore[union-attr]
        return False
    rows, cols = tile_2d(static_dims(src.type, f"tile {src.name!r}"))  # type: ignore[arg-type]
    return rows > 1 and src_pitch != cols


class _MemRefAssigner:
    """The InitMemRef storage decision for every tile variable of a function (see the module docstring): a
    root of its own (``fresh``), or its source's storage (``share``), at an offset for a view."""

    def __init__(self, fn: Function, target: Target) -> None:
        self.fn = fn
        self.target = target
        self.memrefs: dict[Var, MemRef] = {}
        self.pitches: dict[Var, int] = {}
        self.folder = ConstFolder(fn)
        self.memref_names = NameSupply()
        self.tuple_dests = _tuple_destinations(fn)

    def run(self) -> dict[Var, MemRef]:
        fn = self.fn
        for var, stmt in tile_vars(fn):
            try:
                self.memrefs[var] = self.memref_for(var, stmt)
            except NotSupportedError as exc:
                if exc.span is not None:
                    raise
                span = stmt.span if stmt is not None and stmt.span.line else var.span
                raise NotSupportedError(f"{exc.message} (tile {var.name!r} in function {fn.name!r})",
                                        span=span if span.line else None, hint=exc.hint) from None
        return self.memrefs

    def fresh(self, var: Var, space: MemorySpace) -> MemRef:
        name = self.memref_names.fresh(f"{self.fn.name}.{var.name}")
        t: TileType = var.type  # type: ignore[assignment]
        self.pitches[var] = dense_pitch(t, space, self.target)
        return MemRef(space, name, _c(0), storage_bytes(t, space, self.target, f"tile {var.name!r}"))

    def share(self, var: Var, src: Expr | None) -> MemRef | None:
        mr = self.memrefs.get(src) if isinstance(src, Var) else None
        if mr is None:
            return None
        self.pitches[var] = self.pitches[src]  # type: ignore[index]
        return self.on_storage_of(var, mr, mr.byte_offset)

    def on_storage_of(self, var: Var, base: MemRef, offset: Expr) -> MemRef:
        t: TileType = var.type  # type: ignore[assignment]
        return MemRef(base.memory_space, base.base, offset,
                      storage_bytes(t, base.memory_space, self.target, f"tile {var.name!r}"))

    def destination(self, dests: tuple[Expr, ...] | None, index: int, var: Var) -> MemRef | None:
        if dests is None or index >= len(dests):
            return None
        return self.share(var, dests[index])

    def memref_for(self, var: Var, stmt: Stmt | None) -> MemRef:
        t: TileType = var.type  # type: ignore[assignment]
        mr: MemRef | None = None
        if stmt is None:  # tile parameter: a root of its own
            return self.fresh(var, tile_space(t))
        if isinstance(stmt, AssignStmt):
            value = stmt.value
            if isinstance(value, Var) and value in self.memrefs:
                mr = self.share(var, value)
            elif isinstance(value, TupleGetItem):
                tup = value.tuple_value
                dests = result_destinations(tup) if isinstance(tup, Call) else self.tuple_dests.get(tup)  # type: ignore
                mr = self.destination(dests, value.index, var)
            elif isinstance(value, Call):
                mr = self.for_call(var, value)
            return mr if mr is not None else self.fresh(var, tile_space(t, value))
        if isinstance(stmt, (ForStmt, WhileStmt)):
            if isinstance(var, IterArg):
                init = _root_var(var.init) if var.init is not None else None
                mr = self.share(var, init) if init is not None else None
            else:
                mr = self.share(var, stmt.iter_args[stmt.return_vars.index(var)])
            return mr if mr is not None else self.fresh(var, tile_space(t))
        # IfStmt result: its own root; branches copy their yielded value into it when needed
        return self.fresh(var, tile_space(t))

    def for_call(self, var: Var, value: Call) -> MemRef | None:
        """The storage of a call's result when it lives on other storage (a destination, its input's), else
        None (a root of its own)."""
        op = op_of(value)
        src_idx = op.output_on_input_storage if op is not None else None
        dests = result_destinations(value)
        if dests is not None:  # destination passing: the result lives on its output init
            return self.destination(dests, 0, var)
        if src_idx is None or src_idx >= len(value.args) or value.args[src_idx] not in self.memrefs:
            return None
        src = value.args[src_idx]
        offsets = slice_offsets(value) if op.is_view else None
        if offsets is not None:
            return self.window_of(var, src, offsets)
        t: TileType = var.type  # type: ignore[assignment]
        if op.is_view and tile_2d(static_dims(t, "view"))[1] != tile_2d(static_dims(src.type, "view"))[1]:  # type: ignore[arg-type]
            return self.reshape_of(var, src, op)
        return self.share(var, src)

    def window_of(self, var: Var, src: Var, offsets: tuple[Expr, ...]) -> MemRef:
        """A slice: its source's storage at the window's byte offset, with the source's row pitch."""
        t: TileType = var.type  # type: ignore[assignment]
        base = self.memrefs[src]
        src_t: TileType = src.type  # type: ignore[assignment]
        row, col = view_offset_2d(tuple(self.folder.fold(o) for o in offsets),
                                  static_dims(src_t, f"tile {src.name!r}"))
        rel = element_offset_bytes(row, col, self.pitches[src], t.dtype, base.memory_space, self.target)
        self.pitches[var] = self.pitches[src]
        return self.on_storage_of(var, base, add(base.byte_offset, rel))

    def reshape_of(self, var: Var, src: Var, op: Any) -> MemRef:
        """A view to a new row length: same bytes for a dense tile (dense pitch of the new shape); a reshape of
        a strided window is not a view of the same bytes: codegen copies the window densely into storage of
        its own."""
        t: TileType = var.type  # type: ignore[assignment]
        base = self.memrefs[src]
        if _strided_reshape(op, src, t, self.pitches[src], base.memory_space):
            return self.fresh(var, base.memory_space)
        self.pitches[var] = dense_pitch(t, base.memory_space, self.target)
        return self.on_storage_of(var, base, base.byte_offset)


def _assign_memrefs(fn: Function, target: Target) -> dict[Var, MemRef]:
    """The InitMemRef storage decision for every tile variable of ``fn`` (see the module docstring)."""
    return _MemRefAssigner(fn, target).run()



# ---- exclusive destinations ---------------------------------------------------------------------
#
# Two constructs write storage that already holds a value. A loop iter arg lives on its init's storage and
# the back edge copies each iteration's yielded value into it; a destination-passing result (custom op
# ``outs``) is written into its output init. The golden model has value semantics for both (the init keeps
# its value; only ``output_reuses_input`` ops such as matmul_acc write in place, in golden and on the device
# alike), so sharing is only correct when the overwritten value is owned exclusively by the construct: no
# variable of the same storage group (aliases, views, a view's source) is read after the statement, the
# storage is not a parameter's, and the statement reads the group through no other operand. Otherwise the
# destination is isolated: the loop init is copied (``tile.move`` within its memory space) just before the
# loop, and a custom op gets a fresh ``tile.create`` output init (outs are pure destinations: the op never
# reads them). A loop whose yielded value already lives on the iter arg's storage (a write-through chain
# such as ``matmul_acc``) updates the init in place in the golden model too and needs no copy; neither does
# a loop whose memory space has no same-space copy path (e.g. Acc: its back-edge copy would not exist either).


@dataclass
class _Isolation:
    copies: dict[int, list[int]]  # id(loop) -> iter-arg indices whose init needs a copy
    fresh_outs: dict[int, list[int]]  # id(assign / eval stmt) -> operand indices needing a fresh destination
    yield_copies: dict[int, list[int]] = field(default_factory=dict)  # id(loop) -> yield indices to copy first


def _stmt_call(stmt: Stmt) -> Call | None:
    if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
        return stmt.value
    if isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
        return stmt.expr
    return None


def _same_bytes(a: MemRef, b: MemRef) -> bool:
    """Do ``a`` and ``b`` provably name the same bytes (same root, same offset, same size)? Two windows of
    one root at different (or unknown) offsets are different storage: copying one into the other on a back
    edge is a real copy."""
    if a.base != b.base or a.size != b.size:
        return False
    if a.byte_offset is b.byte_offset:
        return True
    oa, ob = a.byte_offset, b.byte_offset
    return isinstance(oa, ConstInt) and isinstance(ob, ConstInt) and oa.value == ob.value


class _IsolationFinder:
    """Which loop inits and which destination-passing outputs need storage of their own (see above)."""

    def __init__(self, fn: Function, memrefs: dict[Var, MemRef], target: Target) -> None:
        self.fn, self.memrefs, self.target = fn, memrefs, target
        self.live = live = compute_liveness(fn, carried_uses=False)
        self.members: dict[str, list[Var]] = {}
        for v, mr in memrefs.items():
            self.members.setdefault(mr.base, []).append(v)
        params = set(fn.params)
        # per storage group: member definition positions (sorted), the running max of their last reads, and
        # whether a parameter is a member -- "is a member defined before pos read after pos" is a bisection
        self.groups: dict[str, tuple[list[int], list[int], bool]] = {}
        for base, vs in self.members.items():
            pairs = sorted((live.defs.get(v, -1), live.last_use.get(v, live.defs.get(v, -1))) for v in vs)
            self.groups[base] = ([d for d, _ in pairs], list(accumulate((u for _, u in pairs), max)),
                                 any(v in params for v in vs))
        self.iso = _Isolation({}, {})

    def run(self) -> _Isolation:
        for stmt in all_stmts(self.fn.body):
            if isinstance(stmt, (ForStmt, WhileStmt)):
                self.loop(stmt)
            else:
                self.destinations(stmt)
        return self.iso

    def loop(self, stmt: ForStmt | WhileStmt) -> None:
        """The iter args whose init must be copied before the loop: the back edge copies into its storage and
        the init's value is still needed (or owned elsewhere)."""
        pos = self.live.position(stmt)
        y = final_yield(stmt.body)
        yields = y.values if y is not None else ()
        # the other iter args' inits are read by this loop too (their iter args live on their storage)
        inits: list[Expr | None] = [ia.init if isinstance(ia.type, TileType) else None for ia in stmt.iter_args]
        bad = []
        for i in range(len(inits)):
            if inits[i] is None or not self.carried_back(stmt, i, yields):
                continue
            others = {e for j, e in enumerate(inits) if j != i and isinstance(e, Var)}
            if self.shared(inits[i], pos, others, set()):
                bad.append(i)
                inits[i] = None  # it will carry a copy of its own
        if bad:
            self.iso.copies[id(stmt)] = bad
            return  # the next round (init_mem_ref_function's fixpoint) sees the copies' own storage
        moved = self.yields_on_other_storage(stmt, yields)
        if moved:
            self.iso.yield_copies[id(stmt)] = moved

    def yields_on_other_storage(self, stmt: ForStmt | WhileStmt, yields: tuple[Expr, ...]) -> list[int]:
        """The yielded values that live on the storage of *another* iter arg the back edge writes (``a, b = b, a``,
        a rotation): the back-edge copies run one after another, so one of them would overwrite a value another
        still has to read. Each such value is copied to storage of its own before the yield."""
        bases = {j: self.memrefs[ia].base for j, ia in enumerate(stmt.iter_args)
                 if ia in self.memrefs and self.carried_back(stmt, j, yields)}
        out = []
        for i, y in enumerate(yields):
            ym = self.memrefs.get(y) if isinstance(y, Var) else None
            if ym is not None and any(j != i and b == ym.base for j, b in bases.items()):
                out.append(i)
        return out

    def destinations(self, stmt: Stmt) -> None:
        """The output inits of a destination-passing call that must be fresh ``tile.create``s."""
        call = _stmt_call(stmt)
        if call is None:
            return
        dest_idx = result_destination_indices(call)
        if dest_idx is None:
            return
        pos = self.live.position(stmt)
        reads = {a for i, a in enumerate(call.args) if i not in dest_idx and isinstance(a, Var)}
        claimed: set[str] = set()
        bad = [i for i in dest_idx if self.shared(call.args[i], pos, reads, claimed)]
        if bad:
            self.iso.fresh_outs[id(stmt)] = bad

    def shared(self, dest: Expr | None, pos: int, also_read: set[Var], claimed: set[str]) -> bool:
        """Is ``dest``'s storage still needed (or owned elsewhere) when the statement at ``pos`` writes it?"""
        memrefs = self.memrefs
        if not isinstance(dest, Var) or dest not in memrefs:
            return False
        base = memrefs[dest].base
        if base in claimed:
            return True  # the same statement writes this storage through another destination already
        claimed.add(base)
        defs, last_reads, has_param = self.groups[base]
        if has_param:
            return True  # the caller's storage
        k = bisect_left(defs, pos)  # members defined before the statement (later ones are its own results)
        if k and last_reads[k - 1] > pos and not (pos in self.live.if_stack and self.only_exclusive_reads(base, pos)):
            return True
        return any(a in memrefs and memrefs[a].base == base for a in also_read)

    def only_exclusive_reads(self, base: str, pos: int) -> bool:
        """For a statement inside an if (e.g. a custom op under a sub-block-0 guard): are all later reads of
        its storage either in the other branch of an enclosing if (no execution sees both), or reads of an
        enclosing if's result (the join of this very write)? Exact per-use check, only on this rare path."""
        live = self.live
        joins = {rv for k, _ in live.if_stack[pos] for rv in live.if_return_vars[k]}
        for m in self.members[base]:
            if m in joins or live.defs.get(m, -1) >= pos:
                continue
            for r in live.use_positions.get(m, ()):
                if r > pos and not live.exclusive(pos, r):
                    return False
        return True

    def carried_back(self, stmt: ForStmt | WhileStmt, i: int, yields: tuple[Expr, ...]) -> bool:
        """Does the back edge copy a value into iter arg ``i``'s storage (rather than update it in place)?"""
        ia = stmt.iter_args[i]
        if i >= len(yields):
            return False
        y = yields[i]
        if y is ia:
            return False
        ym, im = self.memrefs.get(y) if isinstance(y, Var) else None, self.memrefs.get(ia)
        if ym is not None and im is not None and _same_bytes(ym, im):
            return False  # a write-through chain: the yielded value already is the iter arg's bytes
        space = im.memory_space if im is not None else tile_space(ia.type)  # type: ignore[arg-type]
        return self.target.supports_path(space, space)


def _find_isolations(fn: Function, memrefs: dict[Var, MemRef], target: Target) -> _Isolation:
    return _IsolationFinder(fn, memrefs, target).run()


class _Isolate(IRMutator):
    def __init__(self, fn: Function, iso: _Isolation, target: Target) -> None:
        super().__init__()
        self.iso = iso
        self.target = target
        self.names = name_supply(fn)

    def _fresh_name(self, base: str) -> str:
        return self.names.fresh(base)

    def _copy(self, src: Expr, span) -> tuple[Var, AssignStmt]:
        t = src.type
        assert isinstance(t, TileType)
        call = make_call("tile.move", [src], {"target_memory": tile_space(t)}, span)
        var = Var(self._fresh_name(f"{getattr(src, 'name', 'init')}_copy"), call.type, span)
        return var, AssignStmt(var, call, span)

    def _loop(self, stmt, base_method):
        bad = self.iso.copies.get(id(stmt), [])
        moved = self.iso.yield_copies.get(id(stmt))
        if not (bad or moved):
            return base_method(stmt)
        if moved:
            stmt = stmt.with_fields(body=self._copy_yielded(stmt.body, moved, stmt.span))
        pre: list[Stmt] = []
        iter_args = list(stmt.iter_args)
        for i in bad:
            ia = iter_args[i]
            init = self.mutate_expr(ia.init)
            var, assign = self._copy(init, stmt.span)
            pre.append(assign)
            new_ia = ia.with_fields(init=var)
            self.var_map[ia] = new_ia
            iter_args[i] = new_ia
        new = base_method(stmt.with_fields(iter_args=tuple(iter_args)))
        return pre + (new if isinstance(new, list) else [new])

    def _copy_yielded(self, body: Stmt, moved: list[int], span) -> Stmt:
        """``body`` whose final yield carries a copy (``tile.move``) of each value at the indices ``moved``."""
        stmts = list(flatten_stmts(body))
        y = stmts[-1]
        assert isinstance(y, YieldStmt)
        values = list(y.values)
        for i in moved:
            var, assign = self._copy(values[i], span)
            stmts.insert(len(stmts) - 1, assign)
            values[i] = var
        stmts[-1] = y.with_fields(values=tuple(values))
        return seq(stmts)

    def mutate_ForStmt(self, stmt: ForStmt):
        return self._loop(stmt, super().mutate_ForStmt)

    def mutate_WhileStmt(self, stmt: WhileStmt):
        return self._loop(stmt, super().mutate_WhileStmt)

    def _call_stmt(self, stmt, call: Call, rebuild):
        outs = self.iso.fresh_outs.get(id(stmt))
        if outs is None:
            return None
        new_call = self.mutate_expr(call)
        args = list(new_call.args)  # type: ignore[union-attr]
        pre: list[Stmt] = []
        for i in outs:
            t = args[i].type
            assert isinstance(t, TileType)
            create = make_call("tile.create", [], {"shape": static_dims(t, "output init"), "dtype": t.dtype,
                                                   "target_memory": tile_space(t)}, call.span)
            var = Var(self._fresh_name(f"{getattr(args[i], 'name', 'out')}_dst"), create.type, call.span)
            pre.append(AssignStmt(var, create, call.span))
            args[i] = var
        return pre + [rebuild(new_call.with_fields(args=tuple(args)))]  # type: ignore[union-attr]

    def mutate_AssignStmt(self, stmt: AssignStmt):
        if isinstance(stmt.value, Call):
            out = self._call_stmt(stmt, stmt.value, lambda c: stmt.with_fields(value=c))
            if out is not None:
                return out
        return super().mutate_AssignStmt(stmt)

    def mutate_EvalStmt(self, stmt: EvalStmt):
        if isinstance(stmt.expr, Call):
            out = self._call_stmt(stmt, stmt.expr, lambda c: stmt.with_fields(expr=c))
            if out is not None:
                return out
        return super().mutate_EvalStmt(stmt)


def isolate_destinations(fn: Function, target: Target, memrefs: dict[Var, MemRef] | None = None) -> Function:
    """``fn`` with every loop init and custom-op output init that is not owned exclusively by the statement
    writing it replaced by a copy / fresh destination (see above)."""
    if memrefs is None:
        memrefs = _assign_memrefs(fn, target)
    iso = _find_isolations(fn, memrefs, target)
    if not (iso.copies or iso.fresh_outs or iso.yield_copies):
        return fn
    m = _Isolate(fn, iso, target)
    body = m._body(fn.body)
    return fn.with_fields(body=body)


def init_mem_ref_function(fn: Function, target: Target) -> Function:
    fn = bind_nested_tiles(fn)
    memrefs = _assign_memrefs(fn, target)
    # Iterate to a fixpoint: an isolation changes the storage groups the next decision sees. Two iter args
    # whose inits share storage (e.g. a loop result and the tile it was initialised from) look like a
    # write-through chain (``carried_back`` is False when the yielded value has the iter arg's base) until one
    # of them gets its own copy; only then is the other's back-edge copy, and its need for isolation, visible.
    # Every round adds at least one copy and a copied init is owned by its loop, so this terminates.
    while True:
        isolated = isolate_destinations(fn, target, memrefs)
        if isolated is fn:
            break
        fn = isolated
        memrefs = _assign_memrefs(fn, target)
    return retype(fn, memrefs)


def init_mem_ref(target: str | Target | None = None) -> Pass:
    """InitMemRef: give every tile a MemRef (views share their source's base with a byte offset). ``target`` is
    the field of ``InitMemRefOptions`` (checked)."""
    tgt = target_of(parse_options(InitMemRefOptions, target=target).target)
    return function_pass("InitMemRef", lambda fn, program: init_mem_ref_function(fn, tgt),
                         required=(), produced=(), invalidated=())


__all__ = ["InitMemRefOptions", "bind_nested_tiles", "init_mem_ref", "init_mem_ref_function", "isolate_destinations"]
