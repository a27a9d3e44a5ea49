"""Memory planning: InitMemRef, MemoryReuse and AllocateMemoryAddr.

Three function passes (on InCore / AIC / AIV functions) turn tiles into concrete storage:

``InitMemRef``
    gives every tile-valued variable a ``MemRef``. A tile produced by a real instruction gets a root
    allocation of its own (``base`` = a fresh name, ``byte_offset`` = 0). A view (registry
    ``output_on_input_storage``: slice, reshape, set_validshape, ...) shares its source's base with a byte
    offset expression (``tile.slice``: the window's first element, computed with the source's row pitch,
    or with the NZ fractal formula in Acc). An op with ``output_reuses_input`` (matmul_acc, gemv_acc) writes
    through the input, so the result gets the input's MemRef. Loop iter args share their init's storage,
    loop results their iter arg's; if results get a root of their own. A destination-passing op (registry
    ``results_reuse_segment``: custom ops write result i into ``outs[i]``) gives result i the MemRef of its
    destination; the tuple-typed variable of a multi-result call carries those MemRefs in its element types.
    Sharing requires exclusive ownership: a loop init whose storage group is still read after the loop
    starts (liveness), is a parameter's, or is the init of another iter arg of the same loop is first
    copied (``tile.move`` inserted before the loop) when the back edge would overwrite it; a custom op whose
    output init is still read afterwards (or is also one of its inputs) gets a fresh ``tile.create``
    destination inserted before it.

``MemoryReuse``
    groups variables that share a base (views and write-through results are an aliasing chain: the group
    is live as long as any member is) and lets a group take over the storage of groups of the same memory
    space whose lifetimes (``analysis.liveness``) have ended. A group may start on the very statement where
    the previous owner dies only when that statement is an in-place-safe same-shape vector op reading the
    previous owner's root (the registry decides); a ``not_inplace_safe`` result never lands on one of its
    inputs' buffers.

``AllocateMemoryAddr``
    lays the storages of every memory space out sequentially, each aligned per the target (Vec / Mat 32 B,
    Acc 512 B), and stamps every MemRef with an absolute address: base address + byte offset when the
    offset folds to a constant; a dynamic offset falls back to the bare base address (upstream behaviour:
    a runtime offset cannot be encoded as a constant address; this is what makes issue #1640 observable).
    A space that overflows raises ``TilefoldError`` naming the function, the space, the bytes needed and
    the bytes available.

Var types are immutable: every pass rebuilds the variables with a new ``TileType(memref=...)`` and
substitutes their uses.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from tilefold.analysis.liveness import compute_liveness
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.expr import (
    Add,
    BinaryExpr,
    Call,
    ConstInt,
    Expr,
    FloorDiv,
    IterArg,
    MakeTuple,
    Mod,
    Mul,
    Sub,
    TupleGetItem,
    Var,
    unique_name,
)
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    SeqStmts,
    Stmt,
    WhileStmt,
    final_yield,
)
from tilefold.ir.types import DataType, MemorySpace, MemRef, TileType, TupleType
from tilefold.ir.visitor import IRMutator
from tilefold.ops import OpKind, make_call, op_of, result_destination_indices, result_destinations, result_memory
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.targets import Target, get_target

# ------------------------------------------------------------------------------------------------
# geometry shared with codegen
# ------------------------------------------------------------------------------------------------


def ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def tile_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    """The [rows, cols] a tile of any rank occupies (leading axes fold into rows)."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, shape[0]
    rows = 1
    for s in shape[:-1]:
        rows *= s
    return rows, shape[-1]


def static_dims(t: TileType, what: str) -> tuple[int, ...]:
    shape = t.static_shape
    if shape is None:
        raise NotSupportedError(f"{what} has a symbolic shape; memory planning needs static tile shapes",
                                hint="give the tile a constant shape and mark its valid region with "
                                     "pl.tile.set_validshape")
    return shape


def is_nz(space: MemorySpace) -> bool:
    return space is MemorySpace.Acc


def storage_bytes(t: TileType, space: MemorySpace, target: Target, what: str = "tile") -> int:
    """Bytes a dense tile of type ``t`` occupies in ``space`` (Acc pads to whole NZ fractals)."""
    rows, cols = tile_2d(static_dims(t, what))
    isz = t.dtype.itemsize
    if is_nz(space):
        fr, fc = target.acc_fractal
        return ceil_to(rows, fr) * ceil_to(cols, fc) * isz
    return rows * cols * isz


def dense_pitch(t: TileType, space: MemorySpace, target: Target) -> int:
    """Row pitch (ND: elements per row) or NZ column-block stride (Acc: padded rows) of a dense tile."""
    rows, cols = tile_2d(static_dims(t, "tile"))
    if is_nz(space):
        return ceil_to(rows, target.acc_fractal[0])
    return cols


def element_offset_bytes(row: Expr, col: Expr, pitch: int, dtype: DataType, space: MemorySpace,
                         target: Target) -> Expr:
    """Byte offset of element (row, col) in a tile with the given pitch, as a folded expression."""
    isz = dtype.itemsize
    if is_nz(space):
        fr, fc = target.acc_fractal
        frac = fr * fc * isz
        blocks = add(mul(floordiv(col, fc), pitch // fr), floordiv(row, fr))
        inner = add(mul(mod(row, fr), fc), mod(col, fc))
        return add(mul(blocks, frac), mul(inner, isz))
    return mul(add(mul(row, pitch), col), isz)


def _c(v: int) -> ConstInt:
    return ConstInt(v, DataType.INDEX)


def _arith(cls: type[BinaryExpr], fold, a: Expr, b: Expr | int) -> Expr:
    if isinstance(b, int):
        b = _c(b)
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return _c(fold(a.value, b.value))
    return cls(a, b, DataType.INDEX)


def add(a: Expr, b: Expr | int) -> Expr:
    if (isinstance(b, int) and b == 0) or (isinstance(b, ConstInt) and b.value == 0):
        return a
    if isinstance(a, ConstInt) and a.value == 0 and not isinstance(b, int):
        return b
    return _arith(Add, lambda x, y: x + y, a, b)


def mul(a: Expr, b: Expr | int) -> Expr:
    if isinstance(b, int) and b == 1:
        return a
    if isinstance(b, int) and b == 0:
        return _c(0)
    return _arith(Mul, lambda x, y: x * y, a, b)


def floordiv(a: Expr, b: int) -> Expr:
    return a if b == 1 else _arith(FloorDiv, lambda x, y: x // y, a, b)


def mod(a: Expr, b: int) -> Expr:
    return _c(0) if b == 1 else _arith(Mod, lambda x, y: x % y, a, b)


class ConstFolder:
    """Folds scalar expressions over ConstInt SSA definitions, aliases and arithmetic on constants."""

    _OPS = {Add: lambda a, b: a + b, Sub: lambda a, b: a - b, Mul: lambda a, b: a * b,
            FloorDiv: lambda a, b: a // b if b else None, Mod: lambda a, b: a % b if b else None}

    def __init__(self, fn: Function) -> None:
        self.values: dict[Var, Expr] = {}
        for stmt in _all_stmts(fn.body):
            if isinstance(stmt, AssignStmt) and not isinstance(stmt.var.type, TileType):
                self.values[stmt.var] = stmt.value

    def value(self, expr: Expr, depth: int = 0) -> int | None:
        if isinstance(expr, ConstInt):
            return expr.value
        if depth > 64:
            return None
        if isinstance(expr, Var) and not isinstance(expr, IterArg):
            d = self.values.get(expr)
            return None if d is None else self.value(d, depth + 1)
        fold = self._OPS.get(type(expr))
        if fold is not None:
            a = self.value(expr.lhs, depth + 1)
            b = self.value(expr.rhs, depth + 1)
            if a is not None and b is not None:
                return fold(a, b)
        return None

    def fold(self, expr: Expr) -> Expr:
        v = self.value(expr)
        return _c(v) if v is not None else expr


def _all_stmts(stmt: Stmt | None):
    if stmt is None:
        return
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            yield from _all_stmts(s)
        return
    yield stmt
    if isinstance(stmt, (ForStmt, WhileStmt)):
        yield from _all_stmts(stmt.body)
    elif isinstance(stmt, IfStmt):
        yield from _all_stmts(stmt.then_body)
        yield from _all_stmts(stmt.else_body)


def tile_space(t: TileType, value: Expr | None = None) -> MemorySpace:
    """The memory space of a tile: its type's, else the producing op's memory rule, else Vec."""
    if t.memory_space is not None:
        return t.memory_space
    if t.memref is not None:
        return t.memref.memory_space
    op = op_of(value) if value is not None else None
    if op is not None:
        mem = result_memory(op, value.args, value.kwargs_dict)
        if mem is not None:
            return mem
    return MemorySpace.Vec


def slice_offsets(call: Call) -> tuple[Expr, ...] | None:
    """The offset operand of a view op that has one (``tile.slice``), else None."""
    op = op_of(call)
    if op is None:
        return None
    for i, p in enumerate(op.operand_params):
        if p.name == "offset" and i < len(call.args) and isinstance(call.args[i], MakeTuple):
            return call.args[i].elements
    return None


def view_offset_2d(offsets: tuple[Expr, ...], src_shape: tuple[int, ...]) -> tuple[Expr, Expr]:
    """(row, col) of an N-D window origin in the source's [rows, cols] folding."""
    if len(offsets) == 1:
        return _c(0), offsets[0]
    row: Expr = _c(0)
    for axis, off in enumerate(offsets[:-1]):
        stride = 1
        for s in src_shape[axis + 1:-1]:
            stride *= s
        row = add(row, mul(off, stride))
    return row, offsets[-1]


# ------------------------------------------------------------------------------------------------
# retyping: rebuild Vars with new TileTypes and substitute every use
# ------------------------------------------------------------------------------------------------


class _Retyper(IRMutator):
    def __init__(self, memrefs: dict[Var, MemRef]) -> None:
        super().__init__()
        self.memrefs = memrefs

    def _new(self, var: Var) -> Var:
        if var in self.var_map:
            return self.var_map[var]  # type: ignore[return-value]
        mr = self.memrefs.get(var)
        if mr is None or not isinstance(var.type, TileType):
            return var
        t = dataclasses.replace(var.type, memref=mr, memory_space=mr.memory_space)
        new = dataclasses.replace(var, type=t)
        self.var_map[var] = new
        return new

    def mutate_AssignStmt(self, stmt: AssignStmt):
        value = self.mutate_expr(stmt.value)
        var = self._new(stmt.var)
        if isinstance(var.type, TupleType) and isinstance(value, Call):
            var = self._tuple_of_destinations(var, value)
        if value is stmt.value and var is stmt.var:
            return stmt
        return stmt.with_fields(var=var, value=value)

    def _tuple_of_destinations(self, var: Var, call: Call) -> Var:
        """A multi-result destination-passing call: element i of its tuple type gets the MemRef of
        destination i, so the printed tuple type states the storage the results live on."""
        dests = result_destinations(call)
        t: TupleType = var.type  # type: ignore[assignment]
        if dests is None or len(dests) != len(t.types):
            return var
        elems = []
        for et, d in zip(t.types, dests, strict=True):
            dt = d.type
            if isinstance(et, TileType) and isinstance(dt, TileType) and dt.memref is not None:
                et = dataclasses.replace(et, memref=dt.memref, memory_space=dt.memref.memory_space)
            elems.append(et)
        new_t = TupleType(tuple(elems))
        if new_t == t:
            return var
        new = dataclasses.replace(var, type=new_t)
        self.var_map[var] = new
        return new

    def _iter_args(self, iter_args: tuple[IterArg, ...]) -> tuple[IterArg, ...]:
        out = []
        for ia in iter_args:
            init = self.mutate_expr(ia.init) if ia.init is not None else None
            mr = self.memrefs.get(ia)
            t = ia.type
            if mr is not None and isinstance(t, TileType):
                t = dataclasses.replace(t, memref=mr, memory_space=mr.memory_space)
            if init is ia.init and t is ia.type:
                out.append(ia)
                continue
            new = dataclasses.replace(ia, init=init, type=t)
            self.var_map[ia] = new
            out.append(new)
        return tuple(out)

    def mutate_ForStmt(self, stmt: ForStmt):
        start, stop, step = (self.mutate_expr(e) for e in (stmt.start, stmt.stop, stmt.step))
        iter_args = self._iter_args(stmt.iter_args)
        body = self._body(stmt.body)
        rvs = tuple(self._new(v) for v in stmt.return_vars)
        return stmt.with_fields(start=start, stop=stop, step=step, iter_args=iter_args, body=body,
                                return_vars=rvs)

    def mutate_WhileStmt(self, stmt: WhileStmt):
        iter_args = self._iter_args(stmt.iter_args)
        cond = self.mutate_expr(stmt.condition)
        body = self._body(stmt.body)
        rvs = tuple(self._new(v) for v in stmt.return_vars)
        return stmt.with_fields(iter_args=iter_args, condition=cond, body=body, return_vars=rvs)

    def mutate_IfStmt(self, stmt: IfStmt):
        cond = self.mutate_expr(stmt.condition)
        rvs = tuple(self._new(v) for v in stmt.return_vars)
        then_body = self._body(stmt.then_body)
        else_body = self._body(stmt.else_body) if stmt.else_body is not None else None
        return stmt.with_fields(condition=cond, then_body=then_body, else_body=else_body, return_vars=rvs)


def retype(fn: Function, memrefs: dict[Var, MemRef]) -> Function:
    """``fn`` with every variable in ``memrefs`` rebuilt to carry its MemRef."""
    if not memrefs:
        return fn
    m = _Retyper(memrefs)
    params = tuple(m._new(p) for p in fn.params)
    body = m._body(fn.body)
    return fn.with_fields(params=params, body=body)


def tile_vars(fn: Function) -> list[tuple[Var, Stmt | None]]:
    """Every tile-typed variable definition in program order, with its defining statement."""
    out: list[tuple[Var, Stmt | None]] = [(p, None) for p in fn.params if isinstance(p.type, TileType)]
    for stmt in _all_stmts(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, TileType):
            out.append((stmt.var, stmt))
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            out.extend((ia, stmt) for ia in stmt.iter_args if isinstance(ia.type, TileType))
            out.extend((rv, stmt) for rv in stmt.return_vars if isinstance(rv.type, TileType))
        elif isinstance(stmt, IfStmt):
            out.extend((rv, stmt) for rv in stmt.return_vars if isinstance(rv.type, TileType))
    return out


# ------------------------------------------------------------------------------------------------
# InitMemRef
# ------------------------------------------------------------------------------------------------


def _root_var(value: Expr) -> Var | None:
    return value if isinstance(value, Var) else None


class _BindNestedTiles(IRMutator):
    """Bind every tile-valued call nested inside another expression to a variable of its own, so that
    each tile value has a variable to carry its MemRef (``a = exp(sub(t, m))`` -> ``tmp = sub(t, m)``;
    ``a = exp(tmp)``)."""

    def __init__(self, fn: Function) -> None:
        super().__init__()
        self.pending: list[Stmt] = []
        self.names: set[str] = {v.name for v, _ in tile_vars(fn)} | {p.name for p in fn.params}

    def _fresh(self, op_name: str) -> str:
        return unique_name(self.names, op_name.split(".")[-1] + "_t", sep="")

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
    for stmt in _all_stmts(fn.body):
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


def _assign_memrefs(fn: Function, target: Target) -> dict[Var, MemRef]:
    """The InitMemRef storage decision for every tile variable of ``fn`` (see the module docstring)."""
    memrefs: dict[Var, MemRef] = {}
    pitches: dict[Var, int] = {}
    folder = ConstFolder(fn)
    used_names: set[str] = set()
    tuple_dests = _tuple_destinations(fn)

    def fresh(var: Var, space: MemorySpace) -> MemRef:
        name = f"{fn.name}.{var.name}"
        k = 1
        while name in used_names:
            name = f"{fn.name}.{var.name}.{k}"
            k += 1
        used_names.add(name)
        t: TileType = var.type  # type: ignore[assignment]
        pitches[var] = dense_pitch(t, space, target)
        return MemRef(space, name, _c(0), storage_bytes(t, space, target, f"tile {var.name!r}"))

    def share(var: Var, src: Expr | None) -> MemRef | None:
        mr = memrefs.get(src) if isinstance(src, Var) else None
        if mr is None:
            return None
        pitches[var] = pitches[src]  # type: ignore[index]
        t: TileType = var.type  # type: ignore[assignment]
        return MemRef(mr.memory_space, mr.base, mr.byte_offset,
                      storage_bytes(t, mr.memory_space, target, f"tile {var.name!r}"))

    def destination(dests: tuple[Expr, ...] | None, index: int, var: Var) -> MemRef | None:
        if dests is None or index >= len(dests):
            return None
        return share(var, dests[index])

    for var, stmt in tile_vars(fn):
        t: TileType = var.type  # type: ignore[assignment]
        mr: MemRef | None = None
        if stmt is None:  # tile parameter: a root of its own
            mr = fresh(var, tile_space(t))
        elif isinstance(stmt, AssignStmt):
            value = stmt.value
            if isinstance(value, Var) and value in memrefs:
                mr = share(var, value)
            elif isinstance(value, TupleGetItem):
                tup = value.tuple_value
                dests = result_destinations(tup) if isinstance(tup, Call) else tuple_dests.get(tup)  # type: ignore
                mr = destination(dests, value.index, var)
            elif isinstance(value, Call):
                op = op_of(value)
                src_idx = op.output_on_input_storage if op is not None else None
                dests = result_destinations(value)
                if dests is not None:  # destination passing: the result lives on its output init
                    mr = destination(dests, 0, var)
                elif src_idx is not None and src_idx < len(value.args) and value.args[src_idx] in memrefs:
                    src = value.args[src_idx]
                    base = memrefs[src]
                    offsets = slice_offsets(value) if op.is_view else None
                    if offsets is not None:
                        src_t: TileType = src.type  # type: ignore[assignment]
                        row, col = view_offset_2d(tuple(folder.fold(o) for o in offsets),
                                                  static_dims(src_t, f"tile {src.name!r}"))
                        rel = element_offset_bytes(row, col, pitches[src], t.dtype, base.memory_space, target)
                        pitches[var] = pitches[src]
                        mr = MemRef(base.memory_space, base.base, add(base.byte_offset, rel),
                                    storage_bytes(t, base.memory_space, target, f"tile {var.name!r}"))
                    elif op.is_view and tile_2d(static_dims(t, "view"))[1] != tile_2d(
                            static_dims(src.type, "view"))[1]:  # type: ignore[arg-type]
                        if _strided_reshape(op, src, t, pitches[src], base.memory_space):
                            # a reshape of a strided window is not a view of the same bytes: codegen copies
                            # the window densely into storage of its own
                            mr = fresh(var, base.memory_space)
                        else:
                            # a reshape / reinterpret of a dense tile: same bytes, dense pitch of the new shape
                            pitches[var] = dense_pitch(t, base.memory_space, target)
                            mr = MemRef(base.memory_space, base.base, base.byte_offset,
                                        storage_bytes(t, base.memory_space, target, f"tile {var.name!r}"))
                    else:
                        mr = share(var, src)
            if mr is None:
                mr = fresh(var, tile_space(t, value))
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            if isinstance(var, IterArg):
                init = _root_var(var.init) if var.init is not None else None
                mr = share(var, init) if init is not None else None
            else:
                idx = stmt.return_vars.index(var)
                mr = share(var, stmt.iter_args[idx])
            if mr is None:
                mr = fresh(var, tile_space(t))
        else:  # IfStmt result: its own root; branches copy their yielded value into it when needed
            mr = fresh(var, tile_space(t))
        memrefs[var] = mr
    return memrefs


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


def _find_isolations(fn: Function, memrefs: dict[Var, MemRef], target: Target) -> _Isolation:
    live = compute_liveness(fn, carried_uses=False)
    members: dict[str, list[Var]] = {}
    for v, mr in memrefs.items():
        members.setdefault(mr.base, []).append(v)
    params = set(fn.params)
    # per storage group: member definition positions (sorted), the running max of their last reads, and
    # whether a parameter is a member -- "is a member defined before pos read after pos" is a bisection
    groups: dict[str, tuple[list[int], list[int], bool]] = {}
    for base, vs in members.items():
        pairs = sorted((live.defs.get(v, -1), live.last_use.get(v, live.defs.get(v, -1))) for v in vs)
        groups[base] = ([d for d, _ in pairs], list(accumulate((u for _, u in pairs), max)),
                        any(v in params for v in vs))
    iso = _Isolation({}, {})

    def shared(dest: Expr | None, pos: int, also_read: set[Var], claimed: set[str]) -> bool:
        """Is ``dest``'s storage still needed (or owned elsewhere) when the statement at ``pos`` writes it?"""
        if not isinstance(dest, Var) or dest not in memrefs:
            return False
        base = memrefs[dest].base
        if base in claimed:
            return True  # the same statement writes this storage through another destination already
        claimed.add(base)
        defs, last_reads, has_param = groups[base]
        if has_param:
            return True  # the caller's storage
        k = bisect_left(defs, pos)  # members defined before the statement (later ones are its own results)
        if k and last_reads[k - 1] > pos:
            return True
        return any(a in memrefs and memrefs[a].base == base for a in also_read)

    def carried_back(stmt: ForStmt | WhileStmt, i: int, yields: tuple[Expr, ...]) -> bool:
        """Does the back edge copy a value into iter arg ``i``'s storage (rather than update it in place)?"""
        ia = stmt.iter_args[i]
        if i >= len(yields):
            return False
        y = yields[i]
        if y is ia:
            return False
        ym, im = memrefs.get(y) if isinstance(y, Var) else None, memrefs.get(ia)
        if ym is not None and im is not None and _same_bytes(ym, im):
            return False  # a write-through chain: the yielded value already is the iter arg's bytes
        space = im.memory_space if im is not None else tile_space(ia.type)  # type: ignore[arg-type]
        return target.supports_path(space, space)

    for stmt in _all_stmts(fn.body):
        if isinstance(stmt, (ForStmt, WhileStmt)):
            pos = live.position(stmt)
            y = final_yield(stmt.body)
            yields = y.values if y is not None else ()
            # the other iter args' inits are read by this loop too (their iter args live on their storage)
            inits: list[Expr | None] = [ia.init if isinstance(ia.type, TileType) else None for ia in stmt.iter_args]
            bad = []
            for i in range(len(inits)):
                if inits[i] is None or not carried_back(stmt, i, yields):
                    continue
                others = {e for j, e in enumerate(inits) if j != i and isinstance(e, Var)}
                if shared(inits[i], pos, others, set()):
                    bad.append(i)
                    inits[i] = None  # it will carry a copy of its own
            if bad:
                iso.copies[id(stmt)] = bad
            continue
        call = _stmt_call(stmt)
        if call is None:
            continue
        dest_idx = result_destination_indices(call)
        if dest_idx is None:
            continue
        pos = live.position(stmt)
        reads = {a for i, a in enumerate(call.args) if i not in dest_idx and isinstance(a, Var)}
        claimed = set()
        bad = [i for i in dest_idx if shared(call.args[i], pos, reads, claimed)]
        if bad:
            iso.fresh_outs[id(stmt)] = bad
    return iso


class _Isolate(IRMutator):
    def __init__(self, fn: Function, iso: _Isolation, target: Target) -> None:
        super().__init__()
        self.iso = iso
        self.target = target
        self.names: set[str] = {v.name for v, _ in tile_vars(fn)} | {p.name for p in fn.params}

    def _fresh_name(self, base: str) -> str:
        return unique_name(self.names, base, sep="")

    def _copy(self, src: Expr, span) -> tuple[Var, AssignStmt]:
        t = src.type
        assert isinstance(t, TileType)
        call = make_call("tile.move", [src], {"target_memory": tile_space(t)}, span)
        var = Var(self._fresh_name(f"{getattr(src, 'name', 'init')}_copy"), call.type, span)
        return var, AssignStmt(var, call, span)

    def _loop(self, stmt, base_method):
        bad = self.iso.copies.get(id(stmt))
        if not bad:
            return base_method(stmt)
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
    if not (iso.copies or iso.fresh_outs):
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


def _target_of(target) -> Target:
    return get_target(target)


def init_mem_ref(target: str | Target | None = None) -> Pass:
    """InitMemRef: give every tile a MemRef (views share their source's base with a byte offset)."""
    tgt = _target_of(target)
    return function_pass("InitMemRef", lambda fn, program: init_mem_ref_function(fn, tgt),
                         required=(), produced=(), invalidated=())


# ------------------------------------------------------------------------------------------------
# MemoryReuse
# ------------------------------------------------------------------------------------------------


_INPLACE_KINDS = (OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY)


@dataclass
class _Group:
    base: str
    space: MemorySpace
    start: int
    end: int
    size: int
    members: list[Var]
    root: Var | None = None


def _memref(var: Var) -> MemRef | None:
    t = var.type
    return t.memref if isinstance(t, TileType) else None


def memory_reuse_function(fn: Function) -> Function:
    live = compute_liveness(fn)
    groups: dict[str, _Group] = {}
    defs: dict[Var, Stmt | None] = {}
    for var, stmt in tile_vars(fn):
        mr = _memref(var)
        if mr is None:
            continue
        defs[var] = stmt
        a, b = live.interval(var)
        g = groups.get(mr.base)
        if g is None:
            groups[mr.base] = _Group(mr.base, mr.memory_space, a, b, mr.size, [var])
        else:
            g.start, g.end = min(g.start, a), max(g.end, b)
            g.members.append(var)
            if isinstance(mr.byte_offset, ConstInt):
                g.size = max(g.size, mr.byte_offset.value + mr.size)
        if isinstance(mr.byte_offset, ConstInt) and mr.byte_offset.value == 0 and groups[mr.base].root is None:
            groups[mr.base].root = var

    # storages: host base -> list of groups placed in it
    storages: list[tuple[str, MemorySpace, list[_Group]]] = []
    new_base: dict[str, str] = {}
    for g in sorted(groups.values(), key=lambda g: g.start):
        if g.root is None or defs.get(g.root) is None or g.start < 0:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
            continue
        chosen = None
        for host, space, placed in storages:
            if space is not g.space:
                continue
            if all(_can_follow(p, g, defs, live) for p in placed):
                chosen = (host, placed)
                break
        if chosen is None:
            storages.append((g.base, g.space, [g]))
            new_base[g.base] = g.base
        else:
            chosen[1].append(g)
            new_base[g.base] = chosen[0]

    memrefs: dict[Var, MemRef] = {}
    for g in groups.values():
        host = new_base[g.base]
        if host == g.base:
            continue
        for v in g.members:
            mr = _memref(v)
            memrefs[v] = dataclasses.replace(mr, base=host)  # type: ignore[arg-type]
    return retype(fn, memrefs)


def _can_follow(prev: _Group, g: _Group, defs: dict[Var, Stmt | None], live) -> bool:
    """May group ``g`` occupy storage that group ``prev`` used before it?"""
    if prev.end < g.start:
        return True
    if prev.end > g.start or prev.start >= g.start:
        return False
    # prev dies on the statement that defines g: only an in-place-safe same-shape vector op may write its
    # result over one of its own operands.
    stmt = defs.get(g.root)  # type: ignore[arg-type]
    if not isinstance(stmt, AssignStmt) or not isinstance(stmt.value, Call):
        return False
    op = op_of(stmt.value)
    if op is None or op.not_inplace_safe or op.kind not in _INPLACE_KINDS:
        return False
    if prev.size != g.size:
        return False
    reads_prev_root = False
    for a in stmt.value.args:
        if isinstance(a, Var) and a in prev.members:
            mr = _memref(a)
            if a is not prev.root or mr is None or mr.size != g.size:
                return False  # a view operand: the write would not line up with the read
            reads_prev_root = True
    return reads_prev_root


def memory_reuse() -> Pass:
    """MemoryReuse: lifetime-based sharing of storage inside one memory space."""
    return function_pass("MemoryReuse", lambda fn, program: memory_reuse_function(fn))


# ------------------------------------------------------------------------------------------------
# AllocateMemoryAddr
# ------------------------------------------------------------------------------------------------


def allocate_memory_addr_function(fn: Function, target: Target) -> Function:
    folder = ConstFolder(fn)
    roots: dict[str, tuple[MemorySpace, int, int]] = {}  # base -> (space, size, first position)
    defined_by: dict[str, tuple[Var, Stmt | None]] = {}  # base -> the first tile (and statement) using it
    tiles = tile_vars(fn)
    entries = [(v, _memref(v)) for v, _ in tiles]
    for order, (_v, mr) in enumerate(entries):
        if mr is None:
            continue
        defined_by.setdefault(mr.base, tiles[order])
        off = folder.value(mr.byte_offset) if mr.byte_offset is not None else 0
        need = mr.size + (off if off is not None and off > 0 else 0)
        space, size, first = roots.get(mr.base, (mr.memory_space, 0, order))
        roots[mr.base] = (space, max(size, need), first)

    addresses: dict[str, int] = {}
    cursor: dict[MemorySpace, int] = {}
    overflow: dict[MemorySpace, str] = {}  # space -> the first storage that ends past its capacity
    for base, (space, size, _) in sorted(roots.items(), key=lambda kv: kv[1][2]):
        align = target.align(space)
        addr = ceil_to(cursor.get(space, 0), align)
        addresses[base] = addr
        cursor[space] = addr + size
        if addr + size > target.capacity(space):
            overflow.setdefault(space, base)
    for space, used in cursor.items():
        capacity = target.capacity(space)
        if used > capacity:
            base = overflow[space]
            var, stmt = defined_by[base]
            size = roots[base][1]
            span = stmt.span if stmt is not None and stmt.span.line else var.span if var.span.line else fn.span
            raise TilefoldError(
                f"function '{fn.name}' does not fit in {space.name}: it needs {used} bytes but {target.name} "
                f"has {capacity} bytes available; the first allocation past the end is tile '{var.name}' "
                f"({size} bytes at {space.name} address {addresses[base]})",
                span=span if span.line else None,
                hint="process the data in smaller tiles (e.g. loop over row blocks) or shorten tile lifetimes",
            )

    memrefs: dict[Var, MemRef] = {}
    for v, mr in entries:
        if mr is None:
            continue
        off = folder.value(mr.byte_offset) if mr.byte_offset is not None else 0
        base_addr = addresses[mr.base]
        addr = base_addr + off if off is not None else base_addr  # dynamic offset: bare base address
        memrefs[v] = dataclasses.replace(mr, address=addr)
    return retype(fn, memrefs)


def allocate_memory_addr(target: str | Target | None = None) -> Pass:
    """AllocateMemoryAddr: sequential, per-space aligned addresses for every MemRef."""
    tgt = _target_of(target)
    return function_pass("AllocateMemoryAddr", lambda fn, program: allocate_memory_addr_function(fn, tgt),
                         produced=(IRProperty.MemRefAllocated,))


def plan_memory(program: Program, target: str | Target | None = None) -> Program:
    """Run the three planning passes directly (without a PassContext)."""
    for p in (init_mem_ref(target), memory_reuse(), allocate_memory_addr(target)):
        program = p.run(program)
    return program


__all__ = [
    "allocate_memory_addr", "init_mem_ref", "memory_reuse", "plan_memory", "retype", "tile_vars",
    "storage_bytes", "dense_pitch", "element_offset_bytes", "ConstFolder",
]
