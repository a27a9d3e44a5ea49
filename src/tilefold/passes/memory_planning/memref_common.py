"""Helpers shared by the three memory-planning passes (InitMemRef, MemoryReuse, AllocateMemoryAddr).

Var types are immutable: every planning pass rebuilds the variables with a new ``TileType(memref=...)`` and
substitutes their uses (``retype``); ``tile_vars`` lists every tile definition in program order.
"""

from typing import Any

from tilefold.analysis.tile_layout import all_stmts
from tilefold.ir.expr import (
    Call,
    Expr,
    IterArg,
    MakeTuple,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    ForStmt,
    Function,
    IfStmt,
    Stmt,
    WhileStmt,
)
from tilefold.ir.types import MemorySpace, MemRef, TileType, TupleType
from tilefold.ir.visitor import IRMutator
from tilefold.ops import op_of, result_destinations, result_memory
from tilefold.targets import Target, get_target


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
        t = fast_replace(var.type, memref=mr, memory_space=mr.memory_space)
        new = fast_replace(var, type=t)
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
                et = fast_replace(et, memref=dt.memref, memory_space=dt.memref.memory_space)
            elems.append(et)
        new_t = TupleType(tuple(elems))
        if new_t == t:
            return var
        new = fast_replace(var, type=new_t)
        self.var_map[var] = new
        return new

    def _iter_args(self, iter_args: tuple[IterArg, ...]) -> tuple[IterArg, ...]:
        out = []
        for ia in iter_args:
            init = self.mutate_expr(ia.init) if ia.init is not None else None
            mr = self.memrefs.get(ia)
            t = ia.type
            if mr is not None and isinstance(t, TileType):
                t = fast_replace(t, memref=mr, memory_space=mr.memory_space)
            if init is ia.init and t is ia.type:
                out.append(ia)
                continue
            new = fast_replace(ia, init=init, type=t)
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


def fast_replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the IR's frozen dataclasses (no slots, no __post_init__), without the
    per-call field introspection: memory planning rebuilds every tile variable up to three times, and
    ``dataclasses.replace`` was the largest single cost of the planning passes on large kernels."""
    new = object.__new__(type(obj))
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new


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
    for stmt in all_stmts(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, TileType):
            out.append((stmt.var, stmt))
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            out.extend((ia, stmt) for ia in stmt.iter_args if isinstance(ia.type, TileType))
            out.extend((rv, stmt) for rv in stmt.return_vars if isinstance(rv.type, TileType))
        elif isinstance(stmt, IfStmt):
            out.extend((rv, stmt) for rv in stmt.return_vars if isinstance(rv.type, TileType))
    return out


def memref_of(var: Var) -> MemRef | None:
    t = var.type
    return t.memref if isinstance(t, TileType) else None


def target_of(target) -> Target:
    return get_target(target)


__all__ = ["fast_replace", "memref_of", "retype", "slice_offsets", "target_of", "tile_space", "tile_vars"]
