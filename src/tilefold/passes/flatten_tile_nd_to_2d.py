"""FlattenTileNdTo2D: every tile of rank > 2 becomes a 2-D tile ``[prod(leading dims), last]``.

Contract
--------
* Required: nothing beyond a well-typed program. Produced: ``TileOps2D`` (no tile of rank > 2 remains in
  an InCore / AIC / AIV function). Invalidated: nothing.
* Tensors keep their rank. An N-D ``tile.load`` gets ``flatten=True`` (the window is laid out as the 2-D
  tile); a store of a flattened tile gets ``shapes=<N-D window>`` so it still writes the right tensor box.
* Shape-agnostic tile ops (elementwise, scalar, unary, cast, move, ``tile.full`` / ``tile.create``) and
  reductions along the last axis (``OpKind.ROW_REDUCTION``: ``[..., M, N] -> [..., M, 1]``) follow the
  flattening; ``tile.slice`` / ``tile.reshape`` are rewritten when the window stays a 2-D rectangle of
  the flattened tile, and rejected with ``NotSupportedError`` otherwise. An N-D ``tile.transpose`` (any two
  axes) becomes 2-D transposes per page and row moves onto a created tile (``passes/flatten_transpose.py``).
  Other ops whose meaning depends on a non-last axis of an N-D tile (column broadcasts, custom ops) are
  rejected.
* ``tile.batch_matmul`` / ``tile.batch_matmul_acc`` expand into one 2-D matmul per batch page. Operand
  page ``i`` is ``tile.slice(op2d, [rows, cols], [i * rows, 0])`` — also for a leading dim of 1 or a 2-D
  (broadcast) operand, where it is the full window at offset 0. Broadcast batch dims reuse page 0.
* Batched results live in Acc. Each page is its own SSA value (``c_page_i``): stores write each page to
  its GM rows (``store(c_page_i, [.., i, 0, 0], out, shapes=[1, .., M, N])``), loops and ifs carrying a
  batched accumulator carry one value per page. An accumulator that exists as one opaque tile (e.g.
  ``tile.create([B, M, N], target_memory=Acc)``) is allocated column-packed as ``[M, B * N]`` and its pages
  are ``tile.slice(acc, [M, N], [0, i * N])`` — windows covering all rows, which are contiguous in the NZ
  layout of L0C and accepted by CanonicalizeTileSlice. Pages of fewer than 16 columns (N < 16, M a multiple
  of 16) stay row-packed (``[B * M, N]``, one column block). Any other page shape raises NotSupportedError
  with the DSL spelling that works.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import Add, Call, ConstInt, Expr, IterArg, MakeTuple, Mul, TupleGetItem, Var
from tilefold.ir.names import name_supply
from tilefold.ir.shapes import make_shape
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
)
from tilefold.ir.types import MemorySpace, TensorType, TileType, TupleType, Type
from tilefold.ops import OpKind, get_op, make_call, op_of
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.passes.flatten_transpose import flatten_transpose

FRACTAL = 16  # rows / columns of one L0C (NZ) fractal block

# Kinds whose meaning does not depend on how leading axes are grouped: they flatten as-is. Row reductions
# reduce the last axis only, so [..., M, N] -> [..., M, 1] flattens to [P, N] -> [P, 1] with P = prod(..., M).
_SHAPE_AGNOSTIC = {
    OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY, OpKind.CAST, OpKind.COPY, OpKind.CREATE,
    OpKind.ROW_REDUCTION,
}


@dataclass
class _Pages:
    """A batched Acc value kept as one 2-D tile per batch page (row-major over ``batch``)."""

    batch: tuple[int, ...]
    values: list[Expr]


def flatten_tile_nd_to_2d() -> Pass:
    return function_pass(
        "FlattenTileNdTo2D", _run_function, produced=(IRProperty.TileOps2D,), cli_name="flatten-tile-nd-to-2d",
    )


def _run_function(fn: Function, program: Program) -> Function:
    if not _has_nd_tile(fn):
        return fn
    rw = _Flattener(fn)
    params = []
    for p in fn.params:
        t = p.type
        if isinstance(t, TileType) and t.rank > 2:
            if t.memory_space is MemorySpace.Acc:
                raise NotSupportedError(
                    f"{fn.name}: N-D Acc tile parameter {p.name!r} cannot be flattened", span=p.span,
                    hint="pass batched accumulators between kernels through GM tensors")
            new = Var(p.name, _flat_type(t, p.span), p.span)
            rw.vmap[p] = new
            params.append(new)
        else:
            params.append(p)
    body = SeqStmts(tuple(rw.block(fn.body)))
    return fn.with_fields(params=tuple(params), body=body)


def _has_nd_tile(fn: Function) -> bool:
    found = False

    def check(t: Type) -> None:
        nonlocal found
        if isinstance(t, TileType) and t.rank > 2:
            found = True
        elif isinstance(t, TupleType):
            for x in t.types:
                check(x)

    for p in fn.params:
        check(p.type)

    def walk(s: Stmt) -> None:
        if found:
            return
        if isinstance(s, SeqStmts):
            for x in s.stmts:
                walk(x)
        elif isinstance(s, AssignStmt):
            check(s.var.type)
            check(s.value.type)
        elif isinstance(s, EvalStmt):
            check(s.expr.type)
        elif isinstance(s, (ForStmt, WhileStmt)):
            for ia in s.iter_args:
                check(ia.type)
            walk(s.body)
        elif isinstance(s, IfStmt):
            for rv in s.return_vars:
                check(rv.type)
            walk(s.then_body)
            if s.else_body is not None:
                walk(s.else_body)

    walk(fn.body)
    return found


def _static(shape: tuple[Expr, ...], what: str, span: Span | None) -> tuple[int, ...]:
    out = []
    for e in shape:
        if not isinstance(e, ConstInt):
            raise NotSupportedError(f"cannot flatten {what}: its extents must be static", span=span,
                                    hint="give N-D tiles constant shapes, or write them as 2-D tiles")
        out.append(e.value)
    return tuple(out)


def _flat_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    return (math.prod(shape[:-1]), shape[-1])


def _flat_type(t: TileType, span: Span | None = None) -> TileType:
    if t.rank <= 2:
        return t
    shape = _static(t.shape, "an N-D tile", span)
    view = t.tile_view
    if view is not None and view.valid_shape is not None:
        valid = view.valid_shape
        if not (len(valid) == len(t.shape) and all(isinstance(v, ConstInt) and v.value == s
                                                   for v, s in zip(valid, shape, strict=True))):
            raise NotSupportedError("cannot flatten an N-D tile with a partial valid shape", span=span,
                                    hint="set the valid shape after flattening, on the 2-D tile")
        view = None
    return TileType(make_shape(_flat_shape(shape)), t.dtype, t.memory_space, t.memref, view)


def _tuple(values) -> MakeTuple:
    return MakeTuple(tuple(v if isinstance(v, Expr) else ConstInt(int(v)) for v in values))


def _add(a: Expr, b: int) -> Expr:
    if b == 0:
        return a
    if isinstance(a, ConstInt):
        return ConstInt(a.value + b)
    return Add(a, ConstInt(b))


def _packing(m: int, n: int, batch: int, span: Span | None) -> str:
    """How the pages of an opaque [batch, m, n] accumulator are laid out in one 2-D Acc tile."""
    if n % FRACTAL == 0:
        return "cols"
    if n < FRACTAL and m % FRACTAL == 0:
        return "rows"
    raise NotSupportedError(
        f"a batched accumulator of {batch} pages of [{m}, {n}] can be packed neither by columns "
        f"(needs N % {FRACTAL} == 0) nor by rows (needs N < {FRACTAL} and M % {FRACTAL} == 0): a page would be "
        "a strided window of L0C that a MAD cannot write", span=span,
        hint=f"write it in 2-D: allocate acc = pl.tile.create([{m}, {batch} * N], dtype=..., "
             "target_memory=pl.Mem.Acc) with N padded to a multiple of 16, and for each page i use "
             "pl.tile.matmul_acc(pl.tile.slice(acc, [M, N], [0, i * N]), lhs_i, rhs_i); or keep each page in "
             "its own [M, N] tile with pl.tile.matmul")


class _Flattener:
    def __init__(self, fn: Function) -> None:
        self.vmap: dict[Var, Expr] = {}
        self.pages: dict[Var, _Pages] = {}
        self._names = name_supply(fn)

    # ---------------------------------------------------------------------------------------- helpers
    def fresh(self, base: str) -> str:
        return self._names.fresh(base)

    def sub(self, e: Expr) -> Expr:
        """Substitute flattened values into an expression (pages are not allowed here)."""
        if isinstance(e, Var):
            if e in self.pages:
                raise NotSupportedError(
                    f"batched Acc value {e.name!r} is used where one tile is expected", span=e.span,
                    hint="batched matmul results can be stored, accumulated into, or carried by loops; move "
                         "other uses to per-page 2-D tiles")
            return self.vmap.get(e, e)
        if isinstance(e, MakeTuple):
            elems = tuple(self.sub(x) for x in e.elements)
            return e if all(a is b for a, b in zip(elems, e.elements, strict=True)) else MakeTuple(elems)
        if isinstance(e, TupleGetItem):
            t = self.sub(e.tuple_value)
            return e if t is e.tuple_value else e.with_fields(tuple_value=t)
        if isinstance(e, Call):
            args = tuple(self.sub(a) for a in e.args)
            if all(a is b for a, b in zip(args, e.args, strict=True)):
                return e
            return e.with_fields(args=args)
        return e

    def bind(self, out: list[Stmt], name: str, value: Expr, span: Span | None, *, keep_name: bool = False) -> Var:
        """``name = value`` appended to ``out``; ``name`` made fresh unless the new variable takes the place (and
        the name) of one it replaces (``keep_name``)."""
        v = Var(name if keep_name else self.fresh(name), value.type)
        out.append(AssignStmt(v, value) if span is None else AssignStmt(v, value, span=span))
        return v

    def page_list(self, e: Expr) -> _Pages | None:
        return self.pages.get(e) if isinstance(e, Var) else None

    # ---------------------------------------------------------------------------------------- statements
    def block(self, stmt: Stmt) -> list[Stmt]:
        stmts = stmt.stmts if isinstance(stmt, SeqStmts) else (stmt,)
        out: list[Stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: Stmt) -> list[Stmt]:
        if isinstance(s, SeqStmts):
            return self.block(s)
        if isinstance(s, AssignStmt):
            return self.assign(s)
        if isinstance(s, EvalStmt):
            if isinstance(s.expr, Call) and op_of(s.expr) is not None:
                out: list[Stmt] = []
                res = self.call(s.expr, None, out, s.span)
                if isinstance(res, Call):
                    out.append(s if res is s.expr else s.with_fields(expr=res))
                return out
            e = self.sub(s.expr)
            return [s if e is s.expr else s.with_fields(expr=e)]
        if isinstance(s, YieldStmt):
            return [s.with_fields(values=tuple(self.expand_values(s.values)))]
        if isinstance(s, ReturnStmt):
            vals = tuple(self.sub(v) for v in s.values)
            return [s if all(a is b for a, b in zip(vals, s.values, strict=True)) else s.with_fields(values=vals)]
        if isinstance(s, ForStmt):
            return self.loop(s)
        if isinstance(s, WhileStmt):
            return self.loop(s)
        if isinstance(s, IfStmt):
            return self.if_stmt(s)
        return [s]

    def expand_values(self, values: tuple[Expr, ...]) -> list[Expr]:
        out: list[Expr] = []
        for v in values:
            pg = self.page_list(v)
            if pg is not None:
                out.extend(pg.values)
            else:
                out.append(self.sub(v))
        return out

    def assign(self, s: AssignStmt) -> list[Stmt]:
        value = s.value
        if isinstance(value, Var) and value in self.pages:
            self.pages[s.var] = self.pages[value]
            return []
        if isinstance(value, Call) and op_of(value) is not None:
            out: list[Stmt] = []
            res = self.call(value, s.var, out, s.span)
            if isinstance(res, _Pages):
                self.pages[s.var] = res
            elif isinstance(res, Var):  # the op became a pure alias (e.g. a reshape to the same 2-D shape)
                self.vmap[s.var] = res
            elif res is value and not _is_nd(s.var.type):
                out.append(s)
            else:
                out.append(self.rebind(s, res))
            return out
        new_value = self.sub(value)
        if new_value is value and not _is_nd(s.var.type):
            return [s]
        return [self.rebind(s, new_value)]

    def rebind(self, s: AssignStmt, value: Expr) -> AssignStmt:
        t = value.type
        if isinstance(s.var.type, TileType) and not isinstance(t, TileType):
            t = _flat_type(s.var.type, s.span)
        if t == s.var.type and value is s.value:
            return s
        var = s.var if t == s.var.type else Var(s.var.name, t, s.var.span)
        if var is not s.var:
            self.vmap[s.var] = var
        return s.with_fields(var=var, value=value)

    # ---------------------------------------------------------------------------------------- calls
    def call(self, c: Call, var: Var | None, out: list[Stmt], span: Span | None) -> Expr | _Pages:
        op = op_of(c)
        assert op is not None
        orig_types = [a.type for a in c.args]
        if op.kind is OpKind.MATMUL and (_is_nd(c.type) or any(_is_nd(t) for t in orig_types)):
            return self.batch_matmul(c, var, out, span)
        if op.kind is OpKind.STORE:
            pg = self.page_list(c.args[0])
            if pg is not None:
                return self.store_pages(c, pg, var, out, span)
        args = tuple(self.sub(a) for a in c.args)
        kw = dict(c.kwargs)
        changed = any(a is not b for a, b in zip(args, c.args, strict=True))
        nd_in = any(_is_nd(t) for t in orig_types)
        nd_out = _is_nd(c.type)
        if not (changed or nd_in or nd_out):
            return c
        kind = op.kind
        if kind is OpKind.LOAD:
            if nd_out:
                kw["flatten"] = True
        elif kind is OpKind.STORE:
            src_t = orig_types[0]
            if _is_nd(src_t):
                kw["shapes"] = _static(src_t.shape, "the stored tile", span)
        elif kind is OpKind.CREATE:
            if nd_out:
                t = c.type
                shape = _static(t.shape, "a created tile", span)
                if t.memory_space is MemorySpace.Acc:
                    return self.opaque_acc(c, shape, var, out, span)
                kw["shape"] = _flat_shape(shape)
        elif kind is OpKind.VIEW:
            return self.view(c, args, kw, span)
        elif kind in _SHAPE_AGNOSTIC or kind is OpKind.INDEX:
            pass
        elif kind is OpKind.TRANSPOSE and nd_in:  # per-page 2-D transposes and row moves (flatten_transpose)
            shape = _static(orig_types[0].shape, "a transposed tile", span)
            return flatten_transpose(args[0], shape, kw.get("axis1", 0), kw.get("axis2", 1), self.bind, out,
                                     span or c.span)
        elif nd_in or nd_out:
            raise NotSupportedError(
                f"{c.op_name} on an N-D tile cannot be flattened to 2-D: its result depends on a non-last axis",
                span=span or c.span, hint="write this part of the kernel with 2-D tiles (one per batch page)")
        new = make_call(c.op_name, args, kw, span=None)
        return new.with_fields(span=c.span)

    def view(self, c: Call, args: tuple[Expr, ...], kw: dict, span: Span | None) -> Expr:
        name = c.op_name
        src_t = c.args[0].type
        if not _is_nd(src_t) and not _is_nd(c.type):
            return make_call(name, args, kw).with_fields(span=c.span)
        assert isinstance(src_t, TileType)
        src_shape = _static(src_t.shape, "a view source", span)
        if name == "tile.slice":
            shape = _static(c.args[1].elements, "a slice window", span)
            offs = c.args[2].elements
            if len(c.args) >= 4:
                valid = c.args[3].elements
                if not all(isinstance(v, ConstInt) and v.value == s for v, s in zip(valid, shape, strict=True)):
                    raise NotSupportedError("cannot flatten an N-D slice with a partial valid shape", span=span,
                                            hint="slice the flattened 2-D tile instead")
            lead = len(src_shape) - 1
            # rows of the flattened window must be one rectangle: every leading axis after the first full.
            for ax in range(1, lead):
                if shape[ax] != src_shape[ax] or not (isinstance(offs[ax], ConstInt) and offs[ax].value == 0):
                    raise NotSupportedError(
                        f"the N-D slice window {list(shape)} of {list(src_shape)} is not a rectangle of the "
                        "flattened 2-D tile", span=span,
                        hint="slice whole inner batch axes, or slice each page separately")
            page_rows = math.prod(src_shape[1:lead])
            rows = shape[0] * page_rows
            row_off: Expr = offs[0]
            if page_rows != 1:
                row_off = ConstInt(row_off.value * page_rows) if isinstance(row_off, ConstInt) \
                    else Mul(row_off, ConstInt(page_rows))
            new = make_call("tile.slice", (args[0], _tuple((rows, shape[-1])), _tuple((row_off, offs[-1]))))
            return new.with_fields(span=c.span)
        if name == "tile.reshape":
            target = _static(c.args[1].elements, "a reshape target", span)
            flat = _flat_shape(target) if len(target) > 2 else target
            if tuple(args[0].type.shape) and _static(args[0].type.shape, "a reshape source", span) == tuple(flat):
                return args[0]
            return make_call("tile.reshape", (args[0], _tuple(flat))).with_fields(span=c.span)
        if name == "tile.set_validshape":
            valid = c.args[1].elements
            if not all(isinstance(v, ConstInt) and v.value == s for v, s in zip(valid, src_shape, strict=True)):
                raise NotSupportedError("cannot flatten a partial valid shape of an N-D tile", span=span,
                                        hint="set the valid shape on the 2-D tile")
            return args[0]
        if name == "tile.reinterpret_view":
            return make_call(name, args, kw).with_fields(span=c.span)
        raise NotSupportedError(f"{name} of an N-D tile cannot be flattened to 2-D", span=span,
                                hint="apply it to a 2-D tile")

    # ---------------------------------------------------------------------------------------- batch matmul
    def opaque_acc(self, c: Call, shape: tuple[int, ...], var: Var | None, out: list[Stmt],
                   span: Span | None) -> _Pages:
        batch, (m, n) = shape[:-2], shape[-2:]
        count = math.prod(batch)
        packing = _packing(m, n, count, span or c.span)
        packed = (m, count * n) if packing == "cols" else (count * m, n)
        kw = dict(c.kwargs)
        kw["shape"] = packed
        base_name = var.name if var is not None else "acc"
        acc = self.bind(out, base_name, make_call(c.op_name, c.args, kw).with_fields(span=c.span), span,
                        keep_name=var is not None)
        return self.slice_pages(acc, batch, m, n, packing, base_name, out, span)

    def slice_pages(self, acc: Expr, batch: tuple[int, ...], m: int, n: int, packing: str, name: str,
                    out: list[Stmt], span: Span | None) -> _Pages:
        values: list[Expr] = []
        for i in range(math.prod(batch)):
            off = (0, i * n) if packing == "cols" else (i * m, 0)
            sl = make_call("tile.slice", (acc, _tuple((m, n)), _tuple(off)))
            values.append(self.bind(out, f"{name}_page{i}", sl, span))
        return _Pages(batch, values)

    def acc_pages(self, e: Expr, batch: tuple[int, ...], out: list[Stmt], span: Span | None) -> _Pages:
        pg = self.page_list(e)
        if pg is not None:
            return pg
        t = e.type
        assert isinstance(t, TileType)
        shape = _static(t.shape, "a batched accumulator", span)
        flat = self.sub(e)
        m, n = shape[-2:]
        count = math.prod(batch)
        if len(shape) == 2:
            raise NotSupportedError("a 2-D accumulator cannot hold a batched matmul", span=span,
                                    hint="give the accumulator the batch dims of the result")
        packing = _packing(m, n, count, span)
        # An opaque flattened accumulator is row-packed [B*M, N]; only the row packing can be sliced in place.
        if packing != "rows":
            raise NotSupportedError(
                f"the batched accumulator {getattr(e, 'name', '')!r} reaches this matmul as one opaque tile; "
                "its pages cannot be addressed as whole-row windows", span=span,
                hint="create the accumulator with pl.tile.create([B, M, N], ..., target_memory=pl.Mem.Acc) or "
                     "from pl.tile.batch_matmul in the same kernel so that its pages are known")
        return self.slice_pages(flat, batch, m, n, packing, getattr(e, "name", "acc"), out, span)

    def batch_matmul(self, c: Call, var: Var | None, out: list[Stmt], span: Span | None) -> _Pages:
        op = op_of(c)
        assert op is not None
        span = span or c.span
        has_acc = op.output_reuses_input is not None
        lhs, rhs = (c.args[1], c.args[2]) if has_acc else (c.args[0], c.args[1])
        lt, rt, res_t = lhs.type, rhs.type, c.type
        assert isinstance(lt, TileType) and isinstance(rt, TileType) and isinstance(res_t, TileType)
        ls = _static(lt.shape, "a batch matmul operand", span)
        rs = _static(rt.shape, "a batch matmul operand", span)
        res = _static(res_t.shape, "a batch matmul result", span)
        batch = res[:-2]
        m, k, n = ls[-2], ls[-1], rs[-1]
        lb = (1,) * (len(batch) - len(ls[:-2])) + ls[:-2]
        rb = (1,) * (len(batch) - len(rs[:-2])) + rs[:-2]
        acc = self.acc_pages(c.args[0], batch, out, span) if has_acc else None
        lhs2, rhs2 = self.sub(lhs), self.sub(rhs)
        base = var.name if var is not None else "c"
        page_op = c.op_name.replace("batch_", "", 1)
        get_op(page_op)  # the 2-D counterpart must exist
        slices: dict[tuple[int, int], Expr] = {}

        def page_of(operand: Expr, ob: tuple[int, ...], idx: tuple[int, ...], rows: int, cols: int,
                    which: int) -> Expr:
            lin = 0
            for extent, i in zip(ob, idx, strict=True):
                lin = lin * extent + (i if extent > 1 else 0)
            key = (which, lin)
            if key not in slices:
                sl = make_call("tile.slice", (operand, _tuple((rows, cols)), _tuple((lin * rows, 0))))
                name = getattr(operand, "name", "op")
                slices[key] = self.bind(out, f"{name}_page{lin}", sl, span)
            return slices[key]

        kw = dict(c.kwargs)
        values: list[Expr] = []
        for p, idx in enumerate(itertools.product(*(range(b) for b in batch))):
            a_p = page_of(lhs2, lb, idx, m, k, 0)
            b_p = page_of(rhs2, rb, idx, k, n, 1)
            if acc is not None:
                call = make_call(page_op, (acc.values[p], a_p, b_p), kw)
            else:
                call = make_call(page_op, (a_p, b_p), kw)
            values.append(self.bind(out, f"{base}_page{p}", call.with_fields(span=c.span), span))
        return _Pages(batch, values)

    def store_pages(self, c: Call, pg: _Pages, var: Var | None, out: list[Stmt], span: Span | None) -> Expr:
        offsets = c.args[1].elements
        tensor = self.sub(c.args[2])
        tt = tensor.type
        assert isinstance(tt, TensorType)
        nb = len(pg.batch)
        last: Expr = tensor
        for p, idx in enumerate(itertools.product(*(range(b) for b in pg.batch))):
            page_t = pg.values[p].type
            assert isinstance(page_t, TileType)
            m, n = _static(page_t.shape, "a batch page", span)
            lead = len(offsets) - 2 - nb
            offs = list(offsets[:lead]) + [_add(o, i) for o, i in zip(offsets[lead:lead + nb], idx, strict=True)] \
                + list(offsets[-2:])
            window = (1,) * (len(offsets) - 2) + (m, n)
            call = make_call("tile.store", (pg.values[p], _tuple(offs), last), {"shapes": window})
            call = call.with_fields(span=c.span)
            if p == len(pg.values) - 1:
                return call
            last = self.bind(out, f"{getattr(tensor, 'name', 'out')}_p{p}", call, span)
        return last

    # ---------------------------------------------------------------------------------------- control flow
    def _expand_carried(self, iter_args, return_vars, inits: list[Expr | _Pages]):
        new_iter_args: list[IterArg] = []
        new_returns: list[Var] = []
        later: list[tuple[Var, _Pages]] = []
        for ia, rv, init in zip(iter_args, return_vars, inits, strict=True):
            if isinstance(init, _Pages):
                ias = []
                for i, v in enumerate(init.values):
                    new_ia = IterArg(self.fresh(f"{ia.name}_page{i}"), v.type, ia.span, init=v)
                    ias.append(new_ia)
                self.pages[ia] = _Pages(init.batch, list(ias))
                new_iter_args.extend(ias)
                rvs = [Var(self.fresh(f"{rv.name}_page{i}"), v.type, rv.span) for i, v in enumerate(init.values)]
                later.append((rv, _Pages(init.batch, list(rvs))))
                new_returns.extend(rvs)
            else:
                t = ia.type
                nt = _flat_type(t, ia.span) if isinstance(t, TileType) else t
                if nt is t and init is ia.init:
                    new_ia = ia
                else:
                    new_ia = IterArg(ia.name, nt, ia.span, init=init)
                    self.vmap[ia] = new_ia
                new_iter_args.append(new_ia)
                rt = rv.type
                nrt = _flat_type(rt, rv.span) if isinstance(rt, TileType) else rt
                new_rv = rv if nrt is rt else Var(rv.name, nrt, rv.span)
                if new_rv is not rv:
                    self.vmap[rv] = new_rv
                new_returns.append(new_rv)
        return new_iter_args, new_returns, later

    def _init(self, ia: IterArg, out: list[Stmt]) -> Expr | _Pages:
        init = ia.init
        assert init is not None
        pg = self.page_list(init)
        if pg is not None:
            return pg
        t = ia.type
        if isinstance(t, TileType) and t.rank > 2 and t.memory_space is MemorySpace.Acc:
            shape = _static(t.shape, "a loop-carried accumulator", ia.span)
            return self.acc_pages(init, shape[:-2], out, ia.span)
        return self.sub(init)

    def loop(self, s: ForStmt | WhileStmt) -> list[Stmt]:
        out: list[Stmt] = []
        inits = [self._init(ia, out) for ia in s.iter_args]
        iter_args, returns, later = self._expand_carried(s.iter_args, s.return_vars, inits)
        body = SeqStmts(tuple(self.block(s.body)))
        for rv, pg in later:
            self.pages[rv] = pg
        if isinstance(s, ForStmt):
            start, stop, step = self.sub(s.start), self.sub(s.stop), self.sub(s.step)
            new = s.with_fields(start=start, stop=stop, step=step, iter_args=tuple(iter_args), body=body,
                                return_vars=tuple(returns))
        else:
            new = s.with_fields(iter_args=tuple(iter_args), condition=self.sub(s.condition), body=body,
                                return_vars=tuple(returns))
        out.append(new)
        return out

    def if_stmt(self, s: IfStmt) -> list[Stmt]:
        then_body = SeqStmts(tuple(self.block(s.then_body)))
        else_body = SeqStmts(tuple(self.block(s.else_body))) if s.else_body is not None else None
        then_y = final_yield(then_body)
        then_vals = then_y.values if then_y is not None else None
        new_returns: list[Var] = []
        pos = 0
        for rv in s.return_vars:
            t = rv.type
            if isinstance(t, TileType) and t.rank > 2 and t.memory_space is MemorySpace.Acc:
                shape = _static(t.shape, "a batched if result", s.span)
                count = math.prod(shape[:-2])
                vals = then_vals[pos:pos + count] if then_vals is not None else []
                rvs = [Var(self.fresh(f"{rv.name}_page{i}"), vals[i].type if i < len(vals) else _page_type(t),
                           rv.span) for i in range(count)]
                self.pages[rv] = _Pages(shape[:-2], list(rvs))
                new_returns.extend(rvs)
                pos += count
            else:
                nt = _flat_type(t, rv.span) if isinstance(t, TileType) else t
                new_rv = rv if nt is t else Var(rv.name, nt, rv.span)
                if new_rv is not rv:
                    self.vmap[rv] = new_rv
                new_returns.append(new_rv)
                pos += 1
        return [s.with_fields(condition=self.sub(s.condition), then_body=then_body, else_body=else_body,
                              return_vars=tuple(new_returns))]


def _page_type(t: TileType) -> TileType:
    return TileType(t.shape[-2:], t.dtype, t.memory_space)


def _is_nd(t: Type) -> bool:
    return isinstance(t, TileType) and t.rank > 2
