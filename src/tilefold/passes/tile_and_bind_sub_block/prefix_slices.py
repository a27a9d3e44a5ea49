"""Stored prefix slices become clipped stores.

Rule: ``s = tile.slice(src, shape, offsets)`` whose only use is a store, with every offset 0 and, on each axis, an
extent that is either the source's (it covers the axis) or smaller (a prefix of it), stores the same bytes as the
covering slice ``tile.slice(src, src.shape, offsets, valid_shape=shape)``: a store writes only the valid region of
its tile. Rewritten so, the store is a clipped store (``clipping``): the source can be split on a prefix axis and
each half stores the part of the prefix inside it, ``min(max(n - sb * half, 0), half)`` elements — one element of a
64-element vector is stored by sub-block 0, and sub-block 1's part is empty, as upstream clips it. A slice at a
non-zero offset (a window inside the source) is left as it is (refused by the slice strategy when it is halved).

Runs before the analysis, with the hoisting; a rollback keeps the original function.
"""

from __future__ import annotations

from tilefold.ir.expr import Call, ConstInt, MakeTuple, Var
from tilefold.ir.stmt import AssignStmt, Function, Stmt
from tilefold.ir.types import TileType
from tilefold.ir.visitor import IRMutator, IRVisitor
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.tile_and_bind_sub_block.common import INDEX, _rebuild


def _static(shape) -> list[int] | None:
    out = []
    for e in shape:
        v = e.value if isinstance(e, ConstInt) else e
        if not isinstance(v, int):
            return None
        out.append(v)
    return out


def _prefix(call: Call) -> bool:
    if call.op_name != "tile.slice" or len(call.args) != 3:
        return False
    src, shape_t, offs_t = call.args
    st = src.type
    if not (isinstance(st, TileType) and isinstance(shape_t, MakeTuple) and isinstance(offs_t, MakeTuple)):
        return False
    if st.tile_view is not None and st.tile_view.valid_shape is not None:
        return False
    full, shape, offs = _static(st.shape), _static(shape_t.elements), _static(offs_t.elements)
    if full is None or shape is None or offs is None or len(full) != len(shape):
        return False
    return all(o == 0 for o in offs) and all(0 < s <= f for s, f in zip(shape, full, strict=True)) \
        and shape != full


def clip_stored_prefix_slices(fn: Function) -> Function:
    uses: dict[Var, int] = {}
    stored: set[Var] = set()

    class _Uses(IRVisitor):
        def visit_AssignStmt(self, stmt: AssignStmt) -> None:  # a definition is no use
            self.visit_expr(stmt.value)

        def visit_Var(self, expr: Var) -> None:
            uses[expr] = uses.get(expr, 0) + 1

        def visit_Call(self, expr: Call) -> None:
            op = op_of(expr)
            if op is not None and op.kind is OpKind.STORE and isinstance(expr.args[0], Var):
                stored.add(expr.args[0])
            super().visit_Call(expr)

    _Uses().visit_function(fn)
    replaced: dict[Var, Var] = {}  # old slice variable -> the re-typed one (variables compare by identity)

    class _Clip(IRMutator):
        def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt:
            v = stmt.value
            if isinstance(v, Call) and stmt.var in stored and uses.get(stmt.var) == 1 and _prefix(v):
                src, shape_t, offs_t = v.args
                full = MakeTuple(tuple(ConstInt(d, INDEX) for d in _static(src.type.shape)))
                new = _rebuild("tile.slice", [src, full, offs_t, shape_t], dict(v.kwargs), v.span)
                var = Var(stmt.var.name, new.type, stmt.var.span)
                replaced[stmt.var] = var
                return stmt.with_fields(var=var, value=new)
            return super().mutate_AssignStmt(stmt)

        def mutate_Var(self, expr: Var):
            return replaced.get(expr, expr)

    body = _Clip().mutate_stmt(fn.body)
    return fn.with_fields(body=body) if replaced else fn
