"""ConvertTensorToTileOps: lower tensor-level ops (``tilefold.ops.tensor_ops``) in InCore functions to loads, tile
ops and stores, tiled over rows when the tensors do not fit on-chip memory. See
docs/passes/convert_tensor_to_tile_ops.md.

The tensor ops of a function form one region. Its row extent ``M`` is the row count of the first written tensor.
Every op in the region is row-local (element-wise, scalar, unary, cast, row reductions / expansions, column
expansions by a whole ``[1, N]`` vector, matmul by a whole right-hand side, full-row writes) or the region is not
tiled. A row-local region is cut into ``M / R`` blocks of ``R`` rows, ``R`` the largest divisor of ``M`` whose
tiles all fit: the sum of every tile of one block (no reuse assumed, so the bound is safe) within half of Vec, and
the matmul operands within Mat (chip facts from ``tilefold.targets``). Blocks become a ``pl.range`` loop carrying
the written tensors. Tiles get the memory their first consumer asks for through the registry's op kinds (matmul
operands Mat, everything else Vec); InferTileMemorySpace does the rest.
"""

from __future__ import annotations

from typing import Any

from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import Call, ConstInt, Expr, FloorDiv, IterArg, MakeTuple, Mul, Var
from tilefold.ir.stmt import (
    AssignStmt,
    ForStmt,
    Function,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.ops.registry import OpKind, find_op, make_call, op_of
from tilefold.passes.base import Pass
from tilefold.targets import get_target

_ROW_LOCAL = {OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY, OpKind.CAST, OpKind.ROW_REDUCTION,
              OpKind.ROW_BROADCAST, OpKind.COL_BROADCAST, OpKind.MATMUL}
_IDX = ScalarType(DataType.INDEX)
_MAX_DYNAMIC_BLOCK = 256  # rows per block when the row count is only known at run time


def _is_tensor_op(e: Expr) -> bool:
    op = op_of(e)
    return op is not None and op.name.startswith("tensor.") and "tile_op" in op.extra


def _atomic_of(assemble: Call) -> dict[str, Any]:
    """The store attributes an assemble passes on: its ``atomic=`` (an atomic add stays an atomic add)."""
    atomic = assemble.kwarg("atomic")
    return {"atomic": atomic} if atomic is not None else {}


def _idx(v: int, span: Span | None = None) -> ConstInt:
    return ConstInt(v, DataType.INDEX, span=span) if span is not None else ConstInt(v, DataType.INDEX)


def _tup(values: list[Expr]) -> MakeTuple:
    return MakeTuple(tuple(values))


def _ints(e: Expr) -> list[int]:
    assert isinstance(e, MakeTuple)
    out = []
    for x in e.elements:
        if not isinstance(x, ConstInt):
            raise NotSupportedError("tensor-level windows need constant offsets", span=e.span if e.span.line else None,
                                    hint="use constant slice bounds")
        out.append(x.value)
    return out


def _row_bytes(cols: int, dtype: DataType) -> int:
    """Bytes of one tile row, padded to the 32-byte vector alignment (a [R, 1] vector still takes 32 B a row)."""
    return -(-cols * dtype.bits // 8 // 32) * 32 if cols * dtype.bits // 8 >= 1 else 32


def _shape(t: Any) -> tuple[Any, ...]:
    """Extents: ints where constant, the extent expression where symbolic (a ``pl.dynamic`` row count)."""
    return tuple(e.value if isinstance(e, ConstInt) else e for e in t.shape)


def _same_dim(a: Any, b: Any) -> bool:
    return a == b if isinstance(a, int) and isinstance(b, int) else a is b


def _static_cols(t: Any, span: Span | None) -> int:
    cols = _shape(t)[-1]
    if not isinstance(cols, int):
        raise NotSupportedError("a dynamic column extent is not supported (only a dynamic row count)", span=span,
                                hint="make the last dimension a constant")
    return cols


class _Lowering:
    def __init__(self, fn: Function, region: list[AssignStmt], target: Any) -> None:
        self.fn = fn
        self.region = region
        self.target = target
        self.tiles: dict[Var, Expr] = {}  # tensor-op result -> its tile (or ("concat", a, b) marker)
        self.loads: dict[tuple[Var, bool, MemorySpace], Var] = {}
        self.out: list[Stmt] = []
        self.names: set[str] = {p.name for p in fn.params}
        self.concat: dict[Var, tuple[Expr, Expr]] = {}

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    # -------------------------------------------------------------- planning

    def rows(self) -> int | None:
        """M when the region is row-local, else None."""
        writes = [s for s in self.region if s.value.op_name == "tensor.assemble"]
        if not writes:
            return None
        m = _shape(writes[0].value.args[0].type)[0]
        for s in self.region:
            op = op_of(s.value)
            assert op is not None
            if s.value.op_name == "tensor.assemble":
                dst, val = s.value.args[0].type, s.value.args[1].type
                if not _same_dim(_shape(dst)[0], m) or not _same_dim(_shape(val)[0], m) \
                        or _ints(s.value.args[2])[0] != 0:
                    return None
            elif op.kind not in _ROW_LOCAL:
                return None
            elif len(_shape(s.var.type)) != 2 or not _same_dim(_shape(s.var.type)[0], m):
                return None
        return m

    def row_operand(self, call: Call, i: int, m: int) -> bool:
        op = op_of(call)
        assert op is not None
        t = call.args[i].type
        if op.kind is OpKind.MATMUL and i == 1:
            return False
        if op.kind is OpKind.COL_BROADCAST and i == 1:
            return False
        return isinstance(t, TensorType) and _same_dim(_shape(t)[0], m)

    def block_rows(self, m: int) -> int:
        """Peak bytes of the tiles live at once (a load lives from its first to its last use, a result from its
        op to its last use), per block row and fixed, for Vec and Mat; the largest R dividing M that fits."""
        vec = self.target.capacity(MemorySpace.Vec) // 2
        mat = self.target.capacity(MemorySpace.Mat)
        first: dict[Any, int] = {}
        last: dict[Any, int] = {}
        size: dict[Any, tuple[int, int, bool]] = {}  # key -> (bytes per block row, fixed bytes, in Mat)
        results = {s.var for s in self.region}
        for idx, s in enumerate(self.region):
            call = s.value
            op = op_of(call)
            assert op is not None
            mat_op = op.kind is OpKind.MATMUL
            for i, a in enumerate(call.args):
                if not isinstance(a, Var) or not isinstance(a.type, TensorType):
                    continue
                if call.op_name == "tensor.assemble" and i == 0:
                    continue
                if a in results:
                    key: Any = ("result", a)
                else:
                    row = self.row_operand(call, i, m)
                    key = ("load", a, row, mat_op)
                    shape = _shape(a.type)
                    cols = _static_cols(a.type, call.span if call.span.line else None)
                    if not row and not isinstance(shape[0], int):
                        raise NotSupportedError(f"{call.op_name}: a whole operand with a dynamic extent",
                                                span=call.span if call.span.line else None,
                                                hint="only row-indexed operands may have a dynamic row count")
                    nbytes = _row_bytes(cols, a.type.dtype) * (1 if row else shape[0])
                    size[key] = (nbytes, 0, mat_op) if row else (0, nbytes, mat_op)
                first.setdefault(key, idx)
                last[key] = idx
            if call.op_name != "tensor.assemble" and not mat_op:  # matmul results live in Acc (AutoTileMatmulL0)
                key = ("result", s.var)
                size[key] = (_row_bytes(_static_cols(s.var.type, None), s.var.type.dtype), 0, False)
                first.setdefault(key, idx)
                last.setdefault(key, idx)
        delta: dict[int, list[tuple[int, int, int, int]]] = {}
        for key, (row_b, fixed_b, in_mat) in size.items():
            v = (0, 0, row_b, fixed_b) if in_mat else (row_b, fixed_b, 0, 0)
            delta.setdefault(first[key], []).append(v)
            delta.setdefault(last[key] + 1, []).append(tuple(-x for x in v))  # type: ignore[arg-type]
        cur = [0, 0, 0, 0]
        peak = [0, 0, 0, 0]
        for idx in sorted(delta):
            for d in delta[idx]:
                cur = [c + x for c, x in zip(cur, d, strict=True)]
            # the peak of each quantity (an over-estimate of the joint peak, so still safe)
            peak = [max(pk, c) for pk, c in zip(peak, cur, strict=True)]
        per_row_vec, fixed_vec, per_row_mat, fixed_mat = peak
        best = None
        if not isinstance(m, int):  # a dynamic row count: blocks of a power of two rows, then a 1-row tail loop
            r = 1
            while r * 2 <= _MAX_DYNAMIC_BLOCK and r * 2 * per_row_vec + fixed_vec <= vec \
                    and r * 2 * per_row_mat + fixed_mat <= mat:
                r *= 2
            if per_row_vec + fixed_vec <= vec and per_row_mat + fixed_mat <= mat:
                best = r
        for r in range(m, 0, -1) if isinstance(m, int) else ():
            if m % r == 0 and r * per_row_vec + fixed_vec <= vec and r * per_row_mat + fixed_mat <= mat:
                best = r
                break
        if best is None:
            raise NotSupportedError(
                f"function {self.fn.name!r}: even one row of the tensor-level region needs {per_row_vec} B of Vec "
                f"(+{fixed_vec} B of whole operands; {vec} B available)",
                span=self.fn.span if self.fn.span.line else None,
                hint="split the computation over smaller tensors, or write the tiles yourself with pl.load / pl.store")
        return best

    # -------------------------------------------------------------- emission

    def load(self, v: Var, row: bool, mem: MemorySpace, r: int, row_off: Expr) -> Var:
        key = (v, row, mem)
        got = self.loads.get(key)
        if got is not None:
            return got
        shape = _shape(v.type)
        rank = len(shape)
        if row:
            offs = [row_off] + [_idx(0)] * (rank - 1)
            ext = [r, *shape[1:]]
        else:
            offs = [_idx(0)] * rank
            ext = list(shape)
        call = make_call("tile.load", [v, _tup(offs), _tup([_idx(e) for e in ext])], {"target_memory": mem},
                         span=v.span)
        t = Var(self.fresh(f"{v.name}_tile"), call.type, v.span)
        self.out.append(AssignStmt(t, call, span=v.span))
        self.loads[key] = t
        return t

    def operand(self, call: Call, i: int, mem: MemorySpace, m: int | None, r: int, row_off: Expr) -> Expr:
        a = call.args[i]
        if isinstance(a, Var) and a in self.tiles:
            return self.tiles[a]
        if isinstance(a, Var) and a in self.final:  # a tensor written earlier in the region: read it back
            src = self.current[self.final[a]]
            row = m is not None and self.row_operand(call, i, m)
            return self.load(src, row, mem, r, row_off)
        if isinstance(a, Var) and isinstance(a.type, TensorType):
            row = m is not None and self.row_operand(call, i, m)
            return self.load(a, row, mem, r, row_off)
        return a

    def lower(self, m: int | None, r: int, row_off: Expr, current: dict[Var, Var]) -> None:
        self.current = current
        for s in self.region:
            call = s.value
            op = op_of(call)
            assert op is not None
            name = call.op_name
            span = call.span
            if name == "tensor.assemble":
                dst = call.args[0]
                assert isinstance(dst, Var)
                root = self.root[dst]
                value = call.args[1]
                offs = _ints(call.args[2])
                parts = [(value, 0)]
                if isinstance(value, Var) and value in self.concat:
                    a, b = self.concat[value]
                    parts = [(a, 0), (b, _shape(a.type)[1])]
                for part, col in parts:
                    if isinstance(part, Var) and part in self.tiles:
                        tile = self.tiles[part]
                    elif isinstance(part, Var) and isinstance(part.type, TensorType):
                        row = m is not None
                        tile = self.load(part, row, MemorySpace.Vec, r, row_off)
                    else:
                        raise NotSupportedError("pl.assemble writes a tensor value", span=span if span.line else None,
                                                hint="assemble the result of a tensor op or a tensor parameter")
                    o = [row_off if m is not None else _idx(offs[0])] + [_idx(x) for x in offs[1:]]
                    if m is not None and offs[0]:
                        raise NotSupportedError("internal: row-tiled write at a row offset")
                    if len(o) > 1:
                        o[-1] = _idx(offs[-1] + col)
                    st = make_call("tile.store", [tile, _tup(o), current[root]], _atomic_of(call), span=span)
                    nv = Var(self.fresh(root.name), st.type, span)
                    self.out.append(AssignStmt(nv, st, span=span))
                    current[root] = nv
                self.final[s.var] = root
                continue
            if name == "tensor.concat":
                self.concat[s.var] = (call.args[0], call.args[1])
                continue
            if name == "tensor.slice":
                src = call.args[0]
                if not isinstance(src, Var) or src in self.tiles:
                    raise NotSupportedError("slicing a computed tensor is not supported",
                                            span=span if span.line else None,
                                            hint="slice a tensor parameter: a[0:16, :]")
                ext, offs = _ints(call.args[1]), _ints(call.args[2])
                ld = make_call("tile.load", [src, _tup([_idx(x) for x in offs]), _tup([_idx(x) for x in ext])],
                               {"target_memory": self.cube_operands.get(s.var, MemorySpace.Vec)}, span=span)
                t = Var(self.fresh(s.var.name), ld.type, span)
                self.out.append(AssignStmt(t, ld, span=span))
                self.tiles[s.var] = t
                continue
            tile_op = find_op(op.extra["tile_op"])
            assert tile_op is not None
            mem = MemorySpace.Mat if op.kind is OpKind.MATMUL else MemorySpace.Vec
            args = [self.operand(call, i, mem, m, r, row_off) for i in range(len(call.args))]
            attrs = {k: v for k, v in call.kwargs if k in {p.name for p in tile_op.attr_params}}
            for k, v in call.kwargs:
                if k not in attrs and k not in ("a_trans", "b_trans") and v is not None:
                    raise NotSupportedError(f"{name}: option {k}={v!r} has no tile-level form")
            tc = make_call(tile_op.name, args, attrs, span=span)
            t = Var(self.fresh(s.var.name), tc.type, span)
            self.out.append(AssignStmt(t, tc, span=span))
            self.tiles[s.var] = t

    def run(self) -> tuple[list[Stmt], dict[Var, Var]]:
        """Statements replacing the region and the map written-tensor result -> final tensor."""
        self.tiles_planned: set[Var] = set()
        # a slice read by the cube is loaded straight into Mat (there is no Vec -> Mat path)
        self.cube_operands: dict[Var, MemorySpace] = {
            a: MemorySpace.Mat for s in self.region if (o := op_of(s.value)) is not None and o.kind is OpKind.MATMUL
            for a in s.value.args if isinstance(a, Var)}
        self.root: dict[Var, Var] = {}
        self.final: dict[Var, Var] = {}
        for s in self.region:
            if s.value.op_name == "tensor.assemble":
                dst = s.value.args[0]
                assert isinstance(dst, Var)
                self.root[s.var] = self.root.get(dst, dst)
                self.root.setdefault(dst, self.root[s.var])
        roots = list(dict.fromkeys(self.root.values()))
        m = self.rows()
        r = self.block_rows(m) if m is not None else 0
        if m is None or r == m:
            current = {x: x for x in roots}
            self.lower(None if m is None else m, m or 0, _idx(0), current)
            return self.out, {v: current[root] for v, root in self.final.items()}
        # a loop over row blocks carrying every written tensor
        if isinstance(m, int):
            loop, finals = self.block_loop(m, r, roots, {x: x for x in roots}, _idx(0), _idx(m // r))
            return [loop], {v: finals[root] for v, root in self.final.items()}
        # dynamic row count M: blocks of r rows over [0, M // r * r), then single rows up to M
        full = FloorDiv(m, _idx(r), DataType.INDEX)
        main, after_main = self.block_loop(m, r, roots, {x: x for x in roots}, _idx(0), full)
        tail, finals = self.block_loop(m, 1, roots, after_main, Mul(full, _idx(r), DataType.INDEX), m, unit=True)
        return [main, tail], {v: finals[root] for v, root in self.final.items()}

    def block_loop(self, m: Any, r: int, roots: list[Var], inits: dict[Var, Var], start: Expr, stop: Expr,
                   unit: bool = False) -> tuple[ForStmt, dict[Var, Var]]:
        """``for i in range(start, stop)`` over blocks of ``r`` rows (row ``i`` itself when ``unit``)."""
        self.tiles, self.loads, self.out, self.concat = {}, {}, [], {}
        i = Var(self.fresh("row" if unit else "row_block"), _IDX)
        iter_args = tuple(IterArg(self.fresh(f"{x.name}_iter"), x.type, x.span, init=inits[x]) for x in roots)
        current = dict(zip(roots, iter_args, strict=True))
        row_off = i if unit else Mul(i, _idx(r), DataType.INDEX)
        self.lower(m, r, row_off, current)
        body = [*self.out, YieldStmt(tuple(current[x] for x in roots))]
        rvs = tuple(Var(self.fresh(x.name), x.type, x.span) for x in roots)
        loop = ForStmt(i, start, stop, _idx(1), iter_args, SeqStmts(tuple(body)), rvs, span=self.fn.span)
        return loop, dict(zip(roots, rvs, strict=True))


class _HasTensorOps(IRVisitor):
    def __init__(self) -> None:
        self.nested = False

    def visit_Call(self, expr: Call) -> None:
        if _is_tensor_op(expr):
            self.nested = True
        super().visit_Call(expr)


def _hoist(stmts: list[Stmt]) -> list[Stmt]:
    """Bind nested tensor-op calls (``out[:] = pl.mul(pl.add(a, b), 2.0)``) to variables of their own, in
    evaluation order, so each tensor op is one statement of the region."""
    out: list[Stmt] = []
    count = 0

    def flat(e: Expr) -> Expr:
        nonlocal count
        if not isinstance(e, Call) or not _is_tensor_op(e):
            return e
        args = tuple(flat(a) for a in e.args)
        call = e if all(x is y for x, y in zip(args, e.args, strict=True)) else e.with_fields(args=args)
        count += 1
        v = Var(f"t{count}_{call.op_name.split('.')[1]}", call.type, call.span)
        out.append(AssignStmt(v, call, span=call.span))
        return v

    for s in stmts:
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and _is_tensor_op(s.value):
            args = tuple(flat(a) for a in s.value.args)
            if any(x is not y for x, y in zip(args, s.value.args, strict=True)):
                s = s.with_fields(value=s.value.with_fields(args=args))
        out.append(s)
    return out


class _Structured:
    """Whole-tensor lowering of a function whose tensor-level ops sit in loops (``t = pl.add(t, a)`` carried by
    a ``pl.range``): every computed tensor becomes a tile of its whole shape, loop-carried computed tensors
    become tile iteration arguments, GM tensors are loaded where they are read and ``assemble`` stores. Not
    tiled: the tiles must fit on chip (memory planning says so otherwise)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.tile: dict[Var, Expr] = {}  # computed tensor value -> its tile
        self.gm: dict[Var, Expr] = {}  # tensor variable -> the GM tensor value standing for it now
        self.mat: set[Var] = {a for s in _walk_assigns(fn.body) if (o := op_of(s.value)) is not None
                              and o.kind is OpKind.MATMUL for a in s.value.args if isinstance(a, Var)}

    def operand(self, e: Expr, out: list[Stmt], mem: MemorySpace) -> Expr:
        if isinstance(e, Var) and e in self.tile:
            return self.tile[e]
        if isinstance(e, Var) and isinstance(e.type, TensorType):
            src = self.gm.get(e, e)
            shape = _shape(e.type)
            if not all(isinstance(x, int) for x in shape):
                raise NotSupportedError("a dynamic extent in a tensor-level loop is not supported",
                                        span=e.span if e.span.line else None, hint="use constant extents here")
            call = make_call("tile.load", [src, _tup([_idx(0)] * len(shape)), _tup([_idx(x) for x in shape])],
                             {"target_memory": mem}, span=e.span)
            v = Var(f"{e.name}_tile", call.type, e.span)
            out.append(AssignStmt(v, call, span=e.span))
            return v
        return self.gm.get(e, e) if isinstance(e, Var) else e

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        from tilefold.ir.visitor import substitute

        out: list[Stmt] = []
        for s in _hoist(stmts):
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and _is_tensor_op(s.value):
                self.tensor_op(s, out)
            elif isinstance(s, ForStmt):
                out.append(self.loop(s))
            elif isinstance(s, YieldStmt):
                out.append(s.with_fields(values=tuple(self.tile.get(v, self.gm.get(v, v)) if isinstance(v, Var)
                                                      else v for v in s.values)))
            else:
                probe = _HasTensorOps()
                probe.visit_stmt(s)
                if probe.nested:
                    raise NotSupportedError(f"function {self.fn.name!r}: tensor-level ops inside an if are not "
                                            "supported", span=getattr(s, "span", None),
                                            hint="compute both branches' values before the if, or use tile ops")
                for v in collect_uses(s):
                    if v in self.tile:
                        raise NotSupportedError(f"{v.name!r} is a tensor-level value used by a tile-level statement",
                                                span=getattr(s, "span", None),
                                                hint=f"write it to a tensor first (out[:] = {v.name})")
                out.append(substitute(s, dict(self.gm)) if self.gm else s)
        return out

    def tensor_op(self, s: AssignStmt, out: list[Stmt]) -> None:
        call = s.value
        op = op_of(call)
        assert op is not None and isinstance(call, Call)
        span = call.span
        if call.op_name == "tensor.assemble":
            dst = call.args[0]
            value = self.operand(call.args[1], out, MemorySpace.Vec)
            st = make_call("tile.store", [value, call.args[2], self.gm.get(dst, dst)], _atomic_of(call), span=span)
            nv = Var(s.var.name, st.type, span)
            out.append(AssignStmt(nv, st, span=span))
            self.gm[s.var] = nv
            return
        if call.op_name in ("tensor.slice", "tensor.concat"):
            raise NotSupportedError(f"{call.op_name} inside a loop is not supported", span=span if span.line else None,
                                    hint="slice / concatenate outside the loop")
        mem = MemorySpace.Mat if op.kind is OpKind.MATMUL else MemorySpace.Vec
        tile_op = find_op(op.extra["tile_op"])
        assert tile_op is not None
        args = [self.operand(a, out, mem) for a in call.args]
        attrs = {k: v for k, v in call.kwargs if k in {p.name for p in tile_op.attr_params}}
        tc = make_call(tile_op.name, args, attrs, span=span)
        v = Var(s.var.name, tc.type, span)
        out.append(AssignStmt(v, tc, span=span))
        self.tile[s.var] = v

    def loop(self, s: ForStmt) -> ForStmt:
        new_iters = []
        for ia in s.iter_args:
            init = ia.init
            if isinstance(init, Var) and init in self.tile:
                t0 = self.tile[init]
                nia = IterArg(ia.name, t0.type, ia.span, init=t0)
                self.tile[ia] = nia
            else:
                nia = IterArg(ia.name, ia.type, ia.span, init=self.gm.get(init, init) if isinstance(init, Var)
                              else init)
                if isinstance(ia.type, TensorType):
                    self.gm[ia] = nia
            new_iters.append(nia)
        body = self.block(flatten_stmts(s.body))
        rvs = []
        for ia, rv in zip(new_iters, s.return_vars, strict=True):
            nrv = Var(rv.name, ia.type, rv.span)
            (self.tile if isinstance(ia.type, TileType) else self.gm)[rv] = nrv
            rvs.append(nrv)
        return s.with_fields(iter_args=tuple(new_iters), body=SeqStmts(tuple(body)), return_vars=tuple(rvs))


def _walk_assigns(stmt: Stmt) -> list[AssignStmt]:
    found: list[AssignStmt] = []

    class _A(IRVisitor):
        def visit_AssignStmt(self, s: AssignStmt) -> None:
            found.append(s)
            super().visit_AssignStmt(s)

    _A().visit_stmt(stmt)
    return found


def _convert_structured(fn: Function) -> Function:
    lowering = _Structured(fn)
    body = lowering.block(flatten_stmts(fn.body))
    for s in body:
        if isinstance(s, ReturnStmt):
            for v in s.values:
                if isinstance(v, Var) and v in lowering.tile.values():
                    raise NotSupportedError(f"function {fn.name!r} returns a computed value",
                                            span=s.span if s.span.line else None,
                                            hint="write it to an output tensor: out[:] = value")
    return fn.with_fields(body=SeqStmts(tuple(body)))


def _convert(fn: Function, target: Any) -> Function:
    stmts = _hoist(flatten_stmts(fn.body))
    region = [s for s in stmts if isinstance(s, AssignStmt) and isinstance(s.value, Call) and _is_tensor_op(s.value)]
    nested = False
    for s in stmts:
        if s not in region:
            probe = _HasTensorOps()
            probe.visit_stmt(s)
            nested |= probe.nested
    if nested and all(isinstance(s, (AssignStmt, ForStmt, ReturnStmt, YieldStmt)) for s in stmts):
        return _convert_structured(fn)  # tensor ops in loops: whole-tensor tiles, loop-carried tiles
    if not region and not nested:
        return fn
    first = stmts.index(region[0]) if region else 0
    for s in stmts:
        if s in region:
            continue
        probe = _HasTensorOps()
        probe.visit_stmt(s)
        if probe.nested:
            raise NotSupportedError(f"function {fn.name!r}: tensor-level ops inside loops, ifs or nested "
                                    "expressions are not supported", span=getattr(s, "span", None),
                                    hint="write the tensor ops as straight-line statements of the scope, or use "
                                         "tile ops (pl.load / pl.store) inside the loop")
    for s in stmts[first:]:
        if s not in region and not isinstance(s, ReturnStmt):
            raise NotSupportedError(f"function {fn.name!r}: tile-level statements between tensor-level ops are "
                                    "not supported", span=getattr(s, "span", None),
                                    hint="put tile-level code before the tensor-level ops, or write it all at one "
                                         "level")
    lowering = _Lowering(fn, region, target)
    new, final = lowering.run()
    out = stmts[:first] + new
    for s in stmts[first:]:
        if isinstance(s, ReturnStmt):
            vals = []
            for v in s.values:
                if isinstance(v, Var) and v in final:
                    vals.append(final[v])
                elif isinstance(v, Var) and v in lowering.tiles:
                    raise NotSupportedError(f"function {fn.name!r} returns the computed value {v.name!r}",
                                            span=s.span if s.span.line else None,
                                            hint=f"write it to an output tensor: out[:] = {v.name}")
                else:
                    vals.append(v)
            out.append(s.with_fields(values=tuple(vals)))
    return fn.with_fields(body=SeqStmts(tuple(out)))


def convert_tensor_to_tile_ops(target: Any = None) -> Pass:
    """The ConvertTensorToTileOps pass for ``target`` (a name or ``Target``; default Ascend910B)."""
    tgt = get_target(target)

    def run(program: Program) -> Program:
        fns = []
        changed = False
        for fn in program.functions:
            if fn.func_type.is_incore:
                new = _convert(fn, tgt)
                changed |= new is not fn
                fns.append(new)
            else:
                probe = _HasTensorOps()
                probe.visit_stmt(fn.body)
                if probe.nested:
                    raise NotSupportedError(f"Misplaced tensor op in {fn.func_type.value} function {fn.name!r} "
                                            "(should be inside an InCore scope)",
                                            span=fn.span if fn.span.line else None,
                                            hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):`")
                fns.append(fn)
        return program.with_fields(functions=tuple(fns)) if changed else program

    return Pass("ConvertTensorToTileOps", run)


def is_tensor_level(program: Program) -> bool:
    """Does ``program`` hold ``pl.at`` scopes or tensor-level ops (a ``@pl.jit`` program not lowered yet)?"""
    from tilefold.ir.stmt import ScopeStmt

    class _Find(IRVisitor):
        found = False

        def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
            self.found = True

        def visit_Call(self, expr: Call) -> None:
            if _is_tensor_op(expr):
                self.found = True
            super().visit_Call(expr)

    f = _Find()
    for fn in program.functions:
        f.visit_stmt(fn.body)
        if f.found:
            return True
    return False


def tensor_level_passes(target: Any = None) -> list[Pass]:
    """OutlineIncoreScopes, ConvertTensorToTileOps: what runs before the tile pipeline on tensor-level programs."""
    from tilefold.passes.outline_incore_scopes import outline_incore_scopes

    return [outline_incore_scopes(), convert_tensor_to_tile_ops(target)]


__all__ = ["convert_tensor_to_tile_ops", "is_tensor_level", "tensor_level_passes"]
