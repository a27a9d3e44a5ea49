"""ConvertTensorToTileOps: lower tensor-level ops (``tilefold.ops.tensor_ops``) in InCore functions to loads, tile
ops and stores, tiled over rows when the tensors do not fit on-chip memory. See
docs/passes/convert_tensor_to_tile_ops.md.

The tensor ops of a function form one region. Its row extent ``M`` is the row count of the first written tensor.
Every op in the region is row-local (element-wise, scalar, unary, cast, row reductions / expansions, column
expansions by a whole ``[1, N]`` vector, matmul by a whole right-hand side, full-row writes, the index ops whose
rows depend on their operands' rows only: ``_index_op_rows``) or the region is not tiled. A row-local region is cut
into ``M / R`` blocks of ``R`` rows, ``R`` the largest divisor of ``M`` whose tiles all fit (or, when that divisor
is below half of the largest count that fits, that count and one remainder block of ``M % R`` rows: a prime ``M``
does not fall back to 1-row blocks); fitting means the sum of every tile of one block (no reuse assumed, so the
bound is safe) within half of Vec, and the matmul operands within Mat (chip facts from ``tilefold.targets``). Blocks
become a ``pl.range`` loop carrying the written tensors. Column reductions of row-local values whose results are
only written are tiled too: an accumulator starting at the reduction's identity combines each block's partial result
(registry facts ``combine`` / ``identity``). A scatter by index rows (``scatter`` along dim 0, ``scatter_update``)
whose input is a small region input and whose result is only written is cut into blocks of its index / source rows
scattered in order into the input's tile the loop carries (``scatter_accumulates``); one that cannot be and does
not fit is refused at its line (``_refuse_unblocked_scatter``). Tiles get the memory their first consumer asks for
through the registry's op kinds (matmul operands Mat, everything else Vec); InferTileMemorySpace does the rest.

Functions with tensor-level ops inside loops or ifs, or with windows at dynamic offsets, take the structured path
(``_Structured``): whole-value tiles, loop-carried / branch-merged tiles, loads and stores at the windows' offsets,
each dynamic window bounded over the loop ranges (``tilefold.analysis.affine``); a concat is stored part by part
where it is written.

Straight-line element-wise regions over a tensor with a dynamic column (or 1-D) extent become a grid of blocks of
run-time valid shape (``_DynamicGrid``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tilefold.analysis.scalar_facts import add_index
from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import Add, Call, ConstInt, Expr, FloorDiv, IterArg, MakeTuple, Mod, Mul, Sub, Var
from tilefold.ir.names import NameSupply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    flatten_stmts,
)
from tilefold.ir.types import DataType, MemorySpace, PadValue, ScalarType, TensorType, TileType
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.ops.registry import OpKind, find_op, make_call, op_of
from tilefold.passes.base import Pass
from tilefold.passes.option_records import ConvertTensorToTileOpsOptions
from tilefold.passes.options import parse_options
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


def _refuse_assemble_into_computed(call: Call, dst: Var) -> None:
    # the destination is a tile of this kernel, not a GM tensor: a store has nowhere to go (codegen would fail
    # without a location), so the construct is refused here, where the line is known
    raise NotSupportedError(f"pl.assemble into {dst.name!r}, a tensor computed in the kernel, is not supported",
                            span=call.span if call.span.line else None,
                            hint="assemble into a tensor parameter (an Out / InOut tensor, or one from "
                                 "pl.create_tensor in the orchestration), or build the value with pl.concat")


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



def transposed_operands(call: Call, args: list[Expr], out: list[Stmt], fresh: Any) -> list[Expr]:
    """``a_trans`` / ``b_trans`` of a tensor-level matmul: the operand is loaded as stored (natural layout, in
    Mat) and read through a zero-copy ``tile.transpose_view``, as PyPTO's MatmulSlice lowering does."""
    op = op_of(call)
    if op is None or op.kind is not OpKind.MATMUL:
        return args
    names = [p.name for p in op.operand_params]
    for flag, role in (("a_trans", "lhs"), ("b_trans", "rhs")):
        if not call.kwarg(flag) or role not in names:
            continue
        i = names.index(role)
        tv = make_call("tile.transpose_view", [args[i]], {}, span=call.span)
        v = Var(fresh(f"{getattr(args[i], 'name', role)}_t"), tv.type, call.span)
        out.append(AssignStmt(v, tv, span=call.span))
        args = [*args[:i], v, *args[i + 1:]]
    return args

# ------------------------------------------------------------------------------------------------
# index / generator ops in row blocks (issue 19)
# ------------------------------------------------------------------------------------------------

#: tensor forms of the index ops (``ops/index_ops.py``) this pass knows how to cut into row blocks, or not
_INDEX_OPS = frozenset({"tensor.ci", "tensor.random", "tensor.sort32", "tensor.mrgsort", "tensor.gather",
                        "tensor.scatter", "tensor.scatter_update", "tensor.expand_clone"})


def _index_op_rows(call: Call) -> tuple[bool | None, ...] | None:
    """Per operand of an index op: True when rows ``[r0, r0 + R)`` of the result read rows ``[r0, r0 + R)`` of it,
    False when they read all of it, None for a scalar; None for the op when a row block of the result may depend on
    any row of an operand that is not read whole (the op is then not row-local).

    - ``ci`` / ``random``: element k depends on k only; a block starts its count (``start`` / the counter
      ``offset``) at ``r0 * N`` (``_index_op_block``), bit for bit the unblocked values;
    - ``sort32`` / ``mrgsort``: each row is sorted / merged on its own (sort32: 32-element blocks of the row);
    - ``gather`` along dim 1 reads row i of ``src`` and ``index``; along dim 0 any row of ``src`` (read whole)
      and row i of ``index``;
    - ``scatter`` along dim 1 writes row i from row i of each operand; along dim 0 the destination rows are index
      values: not row-local. ``scatter_update`` writes the rows its indices name: not row-local (both: see
      ``_refuse_unblocked_scatter``);
    - ``expand_clone``: a source of the result's rows row by row, a ``[1, N]`` / ``[1, 1]`` source whole."""
    name = call.op_name
    if name in ("tensor.ci", "tensor.random"):
        return (None,) * len(call.args)
    if name in ("tensor.sort32", "tensor.mrgsort"):
        return (True,) * len(call.args)
    dim = call.kwarg("dim")
    along_rows = isinstance(dim, int) and dim % 2 == 1
    if name == "tensor.gather":
        return (True, True) if along_rows else (False, True)
    if name == "tensor.scatter" and along_rows:
        return (True, True, True)
    if name == "tensor.expand_clone":
        return (_shape(call.args[0].type)[0] != 1,)
    return None


def _index_op_block(call: Call, args: list[Expr], attrs: dict[str, Any], r: int, row_off: Expr) -> list[Expr]:
    """The tile op's operands for the row block of ``r`` rows at ``row_off`` (``attrs`` narrowed in place): a
    generated tile (``ci``, ``random``, ``expand_clone``) takes the block's shape, and ``ci`` / ``random`` start
    their count where the block starts (``r0 * N`` elements on)."""
    name = call.op_name
    if "shape" not in attrs or name not in ("tensor.ci", "tensor.random", "tensor.expand_clone"):
        return args
    shape = tuple(attrs["shape"])
    attrs["shape"] = (r, *shape[1:])
    if name == "tensor.expand_clone":
        return args
    step = _idx(row_off.value * shape[1]) if isinstance(row_off, ConstInt) else \
        Mul(row_off, _idx(shape[1]), DataType.INDEX)
    if name == "tensor.ci":
        start = args[0]
        if attrs.get("descending"):
            return [start if isinstance(step, ConstInt) and step.value == 0 else Sub(start, step, DataType.INDEX)]
        return [add_index(start, step)]
    offset = add_index(args[0], step) if args else step
    return [] if isinstance(offset, ConstInt) and offset.value == 0 and not args else [offset]


def _scatter_by_rows(call: Call) -> bool:
    """A scatter whose destination rows are index values: ``scatter`` along dim 0, ``scatter_update``."""
    if call.op_name == "tensor.scatter_update":
        return True
    dim = call.kwarg("dim")
    return call.op_name == "tensor.scatter" and not (isinstance(dim, int) and dim % 2 == 1)


def _refuse_unblocked_scatter(region: list[AssignStmt], target: Any) -> None:
    """A region that is not row-local is lowered on whole tiles. For a scatter whose destination rows are index
    values no row block of the result can be computed from row blocks of the operands (row ``i`` of the result may
    take any source row, and the last source row naming it must win), so it is never cut; when its input, index
    and source (live together at the op) exceed Vec, memory planning must fail: say so here, at the op's line."""
    vec = target.capacity(MemorySpace.Vec)
    for s in region:
        call = s.value
        if not _scatter_by_rows(call):
            continue
        shapes = [_shape(a.type) for a in call.args[:3]]
        if any(len(sh) != 2 or not all(isinstance(e, int) for e in sh) for sh in shapes):
            continue
        need = sum(sh[0] * _row_bytes(sh[1], a.type.dtype) for sh, a in zip(shapes, call.args, strict=False))
        if need <= vec:
            continue
        what = ("row r of the result is the last source row k with index[k] = r" if call.op_name ==
                "tensor.scatter_update" else "element [r, j] of the result is the last src[k, j] with index[k, j] = r")
        raise NotSupportedError(
            f"{call.op_name} does not fit in Vec and cannot be cut into row blocks of its result: {what}, so a row "
            f"block of the result may need any row of the index and source; its input, index and source need "
            f"{need} B together, {target.name} has {vec} B of Vec",
            span=call.span if call.span.line else None,
            hint=f"the op is cut into blocks of its index / source rows when its input is a tensor read whole in at "
                 f"most a quarter of Vec ({vec // 4} B) and its result is only written; else "
                 + ("write the rows into GM with pl.tile.mscatter (row k of a tile to GM row index[k]; a negative "
                    "index masks) over row blocks of the source" if call.op_name == "tensor.scatter_update" else
                    "scatter along dim 1 (row-local)") + ", or scatter into a smaller tensor")


def _tile_form(op: Any, call: Call) -> tuple[Any, dict[str, Any]]:
    """The tile-level op a tensor op lowers to (its ``tile_op``), and the call's keywords that op takes."""
    tile_op = find_op(op.extra["tile_op"])
    assert tile_op is not None
    names = {p.name for p in tile_op.attr_params}
    return tile_op, {k: v for k, v in call.kwargs if k in names}


class _Lowering:
    def __init__(self, fn: Function, region: list[AssignStmt], target: Any) -> None:
        self.fn = fn
        self.region = region
        self.target = target
        self.tiles: dict[Var, Expr] = {}  # tensor-op result -> its tile (or ("concat", a, b) marker)
        self.loads: dict[tuple[Var, bool, MemorySpace], Var] = {}
        self.out: list[Stmt] = []
        self.names = NameSupply(p.name for p in fn.params)
        self.concat: dict[Var, tuple[Expr, Expr]] = {}
        self.scatters: set[Var] = set()  # scatters by index rows cut into blocks of their source rows

    def fresh(self, base: str) -> str:
        return self.names.fresh(base)

    # -------------------------------------------------------------- planning

    def rows(self) -> int | None:
        """M when the region is row-local, else None. A column reduction of row-local values is row-local too
        when its ``[1, N]`` result is only written (each row block adds its partial reduction into an
        accumulator; the writes happen after the blocks). So is a scatter by index rows whose result is only written:
        the blocks are its index / source rows (``scatter_accumulates``)."""
        cols = {s.var for s in self.region if (o := op_of(s.value)) is not None and o.kind is OpKind.COL_REDUCTION}
        if any("combine" not in op_of(s.value).extra for s in self.region if s.var in cols):
            return None  # a product / arg-extremum of row blocks has no element-wise combine: not tiled
        self.scatters = {s.var for s in self.region if _scatter_by_rows(s.value) and self.scatter_accumulates(s)}
        cols |= self.scatters
        for s in self.region:
            for i, a in enumerate(s.value.args):
                if a in cols and not (s.value.op_name == "tensor.assemble" and i == 1):
                    return None  # a column reduction consumed by compute: not tiled
        writes = [s for s in self.region if s.value.op_name == "tensor.assemble"]
        deferred = [w for w in writes if w.value.args[1] in cols]
        row_writes = [w for w in writes if w not in deferred]
        if row_writes:
            m = _shape(row_writes[0].value.args[1].type)[0]  # the rows written (a window of the destination)
        elif cols:
            first = next(s for s in self.region if s.var in cols)
            m = _shape(first.value.args[1 if first.var in self.scatters else 0].type)[0]
        else:
            return None
        self.deferred = {w.var for w in deferred}
        results = {s.var for s in self.region}
        shifted: set[Var] = set()  # tensors written at other rows than the block's own
        for s in self.region:
            op = op_of(s.value)
            assert op is not None
            if s.var in self.deferred:
                _ints(s.value.args[2])  # constant offsets: the accumulator is written whole after the blocks
                continue
            if s.var in cols:
                if not _same_dim(_shape(s.value.args[1 if s.var in self.scatters else 0].type)[0], m):
                    return None
                continue
            if s.value.op_name == "tensor.assemble":
                dst, val = s.value.args[0].type, s.value.args[1].type
                row0 = _ints(s.value.args[2])[0]
                if not _same_dim(_shape(val)[0], m):
                    return None
                if row0 != 0 or not _same_dim(_shape(dst)[0], m):  # a window of rows: static extents only
                    if not isinstance(m, int) or not isinstance(_shape(dst)[0], int):
                        return None
                    shifted.add(self.root[s.var])
            elif s.value.op_name == "tensor.slice":  # a window of m rows of a tensor not written here
                src = s.value.args[0]
                if src in self.root or src in results or _ints(s.value.args[1])[0] != m or not isinstance(m, int):
                    return None
            elif s.value.op_name in _INDEX_OPS:
                if not self.index_op_row_local(s, m, results):
                    return None
            elif op.kind not in _ROW_LOCAL and s.value.op_name != "tensor.full":  # a fill is row-local too
                return None
            elif len(_shape(s.var.type)) != 2 or not _same_dim(_shape(s.var.type)[0], m):
                return None
        for s in self.region:  # a block reading back a tensor written at shifted rows would read other blocks'
            for i, a in enumerate(s.value.args):
                if isinstance(a, Var) and self.root.get(a) in shifted and not (
                        s.value.op_name == "tensor.assemble" and i == 0):
                    return None
        return m

    def scatter_accumulates(self, s: AssignStmt) -> bool:
        """A scatter along dim 0 / ``scatter_update`` is cut into blocks of its index rows (``i`` for
        ``index[i, j]``, ``k`` for an ``[n, 1]`` index) when its input is a tensor this region neither computes nor
        writes, whose tile fits in a quarter of Vec: that tile is an accumulator the block loop carries, each block
        scatters its index / source rows into it in order (so the last write of a destination is still the
        unblocked one, and an index outside the input faults alike), and its writes follow the loop. The index and
        the source need the same row count (the block rows)."""
        call = s.value
        inp, index, src = call.args[0], call.args[1], call.args[2]
        if not (isinstance(inp, Var) and isinstance(inp.type, TensorType)) or inp in self.root or any(
                x.var is inp for x in self.region):
            return False
        shapes = [_shape(a.type) for a in (inp, index, src)]
        if any(len(sh) != 2 or not all(isinstance(e, int) for e in sh) for sh in shapes):
            return False
        if call.op_name == "tensor.scatter_update" and shapes[1][1] != 1:
            return False  # a [1, n] / [p, q] index: its rows are not the source rows
        if shapes[1][0] != shapes[2][0]:
            return False
        return shapes[0][0] * _row_bytes(shapes[0][1], inp.type.dtype) <= self.target.capacity(MemorySpace.Vec) // 4

    def index_op_row_local(self, s: AssignStmt, m: Any, results: set[Var]) -> bool:
        """An index op is row-local when its result has the ``m`` rows, every operand it reads by rows has them too,
        and every operand it reads whole is a tensor this region neither computes nor writes (a block would see
        only its own rows of a computed one, and a partly written one)."""
        rule = _index_op_rows(s.value)
        if rule is None or len(_shape(s.var.type)) != 2 or not _same_dim(_shape(s.var.type)[0], m):
            return False
        for a, by_rows in zip(s.value.args, rule, strict=True):
            if by_rows is None:
                continue
            if not isinstance(a.type, TensorType) or len(_shape(a.type)) != 2:
                return False
            if by_rows and not _same_dim(_shape(a.type)[0], m):
                return False
            if not by_rows and (a in results or a in self.root or not isinstance(a, Var)):
                return False
        return True

    def row_operand(self, call: Call, i: int, m: int) -> bool:
        op = op_of(call)
        assert op is not None
        if _scatter_by_rows(call):  # a scatter accumulator (``scatter_accumulates``): its index / source rows
            return i in (1, 2)
        if call.op_name in _INDEX_OPS:  # the op's own rule (a gather along dim 0 reads all of its source)
            rule = _index_op_rows(call)
            return bool(rule is not None and i < len(rule) and rule[i])
        t = call.args[i].type
        if op.kind is OpKind.MATMUL:  # row blocks of the result need row blocks of lhs / acc, all of rhs
            role = op.operand_params[i].name if i < len(op.operand_params) else ""
            if role not in ("lhs", "acc") or (role == "lhs" and call.kwarg("a_trans")):
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
                if call.op_name in ("tensor.assemble", "tensor.slice") and i == 0:
                    continue  # a destination / a sliced source: only the window moves (sized as the result)
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
        if isinstance(m, int):
            best = _static_block_rows(m, lambda r: r * per_row_vec + fixed_vec <= vec
                                      and r * per_row_mat + fixed_mat <= mat)
        if best is None:
            # name the memory that does not hold one row (Vec: half of it, the other half is the reuse margin)
            if per_row_vec + fixed_vec > vec:
                need, space, have = f"{per_row_vec} B of Vec (+{fixed_vec} B of whole operands", "Vec", vec
            else:
                need, space, have = f"{per_row_mat} B of Mat (L1) (+{fixed_mat} B of whole matmul operands", \
                    "Mat (L1)", mat
            raise NotSupportedError(
                f"function {self.fn.name!r}: even one row of the tensor-level region needs {need}; {have} B of "
                f"{space} available)",
                span=self.fn.span if self.fn.span.line else None,
                hint="split the computation over smaller tensors (a matmul: K-block it with pl.matmul_acc over "
                     "slices of its operands), or write the tiles yourself with pl.load / pl.store")
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
        """Emit the tile form of every statement of the region (one row block of ``r`` rows at ``row_off`` when
        ``m`` is the tiled row count; the whole region when it is None)."""
        self.current = current
        for s in self.region:
            call = s.value
            op = op_of(call)
            assert op is not None
            name = call.op_name
            if name == "tensor.assemble" and s.var in self.deferred:
                if not self.acc_iters:  # not tiled: the reduction's tile is the whole result
                    self.write_whole(s, current)
                continue  # tiled: written after the row blocks
            if op.kind is OpKind.COL_REDUCTION and s.var in self.acc_iters:
                self.lower_col_reduction(s, op, m, r, row_off)
            elif s.var in self.acc_iters:
                self.lower_scatter_block(s, op, m, r, row_off)
            elif name == "tensor.assemble":
                self.lower_assemble(s, m, r, row_off, current)
            elif name == "tensor.concat":
                self.concat[s.var] = (call.args[0], call.args[1])
            elif name == "tensor.slice":
                self.lower_slice(s, m, r, row_off)
            else:
                self.lower_op(s, op, m, r, row_off)

    def lower_col_reduction(self, s: AssignStmt, op: Any, m: int | None, r: int, row_off: Expr) -> None:
        """One block's partial column reduction, combined into the accumulator the row loop carries."""
        call, span = s.value, s.value.span
        part = make_call(op.extra["tile_op"], [self.operand(call, 0, MemorySpace.Vec, m, r, row_off)], {},
                         span=span)
        pv = Var(self.fresh(f"{s.var.name}_part"), part.type, span)
        self.out.append(AssignStmt(pv, part, span=span))
        comb = make_call(op.extra["combine"], [self.acc_current[s.var], pv], {}, span=span)
        cv = Var(self.fresh(s.var.name), comb.type, span)
        self.out.append(AssignStmt(cv, comb, span=span))
        self.acc_current[s.var] = cv
        self.tiles[s.var] = cv

    def lower_scatter_block(self, s: AssignStmt, op: Any, m: int | None, r: int, row_off: Expr) -> None:
        """One block's index / source rows scattered into the accumulator the row loop carries."""
        call, span = s.value, s.value.span
        args = [self.acc_current[s.var], *(self.operand(call, i, MemorySpace.Vec, m, r, row_off) for i in (1, 2))]
        tile_op, attrs = _tile_form(op, call)
        new = make_call(tile_op.name, args, attrs, span=span)
        v = Var(self.fresh(s.var.name), new.type, span)
        self.out.append(AssignStmt(v, new, span=span))
        self.acc_current[s.var] = v
        self.tiles[s.var] = v

    def lower_assemble(self, s: AssignStmt, m: int | None, r: int, row_off: Expr, current: dict[Var, Var]) -> None:
        """``tensor.assemble``: store the value's tile (each part of a concat at its column) into the window."""
        call, span = s.value, s.value.span
        dst = call.args[0]
        assert isinstance(dst, Var)
        root = self.root[dst]
        value = call.args[1]
        offs = _ints(call.args[2])
        parts = [(value, 0)]
        while any(isinstance(p, Var) and p in self.concat for p, _ in parts):  # nested concats: flattened
            parts = [q for p, c in parts for q in (
                [(self.concat[p][0], c), (self.concat[p][1], c + _shape(self.concat[p][0].type)[1])]
                if isinstance(p, Var) and p in self.concat else [(p, c)])]
        for part, col in parts:
            if isinstance(part, Var) and part in self.tiles:
                tile = self.tiles[part]
            elif isinstance(part, Var) and isinstance(part.type, TensorType):
                row = m is not None
                tile = self.load(part, row, MemorySpace.Vec, r, row_off)
            else:
                raise NotSupportedError("pl.assemble writes a tensor value", span=span if span.line else None,
                                        hint="assemble the result of a tensor op or a tensor parameter")
            o = [add_index(_idx(offs[0]), row_off) if m is not None else _idx(offs[0])] \
                + [_idx(x) for x in offs[1:]]
            if len(o) > 1:
                o[-1] = _idx(offs[-1] + col)
            st = make_call("tile.store", [tile, _tup(o), current[root]], _atomic_of(call), span=span)
            nv = Var(self.fresh(root.name), st.type, span)
            self.out.append(AssignStmt(nv, st, span=span))
            current[root] = nv
        self.final[s.var] = root
        self.emitted[s.var] = current[root]

    def lower_slice(self, s: AssignStmt, m: int | None, r: int, row_off: Expr) -> None:
        """``tensor.slice``: a window of a computed tile, or a load of the window of a tensor."""
        call, span = s.value, s.value.span
        src = call.args[0]
        if isinstance(src, Var) and src in self.tiles:  # a window of a computed tile (untiled region)
            self.tiles[s.var] = self.view(s.var, self.tiles[src], call.args[1], call.args[2], span)
            return
        if not isinstance(src, Var):
            raise NotSupportedError("slicing a computed tensor is not supported",
                                    span=span if span.line else None,
                                    hint="slice a tensor parameter: a[0:16, :]")
        ext, offs = _ints(call.args[1]), _ints(call.args[2])
        where: list[Expr] = [_idx(x) for x in offs]
        src = self.emitted.get(src, src)  # a tensor written earlier in the (untiled) region
        if m is not None:  # row-local: this block's rows of the window
            where[0] = add_index(_idx(offs[0]), row_off)
            ext = [r, *ext[1:]]
        ld = make_call("tile.load", [src, _tup(where), _tup([_idx(x) for x in ext])],
                       {"target_memory": self.cube_operands.get(s.var, MemorySpace.Vec)}, span=span)
        t = Var(self.fresh(s.var.name), ld.type, span)
        self.out.append(AssignStmt(t, ld, span=span))
        self.tiles[s.var] = t

    def lower_op(self, s: AssignStmt, op: Any, m: int | None, r: int, row_off: Expr) -> None:
        """Any other tensor op: its tile op on the operands' tiles (loaded windows of tensor operands)."""
        call, span = s.value, s.value.span
        name = call.op_name
        used = next((a for a in call.args if isinstance(a, Var) and a in self.concat), None)
        if used is not None:  # a concat is lowered into the window it is written to: it has no tile
            raise NotSupportedError(f"the result of pl.concat ({used.name!r}) is used by {name}: a concat can "
                                    "only be written to a tensor", span=span if span.line else None,
                                    hint=f"write it to a tensor window (out[:, :] = pl.concat(...)), or apply "
                                         f"{name} to each part before concatenating")
        tile_op, attrs = _tile_form(op, call)
        mem = MemorySpace.Mat if op.kind is OpKind.MATMUL else MemorySpace.Vec
        args = [self.operand(call, i, mem, m, r, row_off) for i in range(len(call.args))]
        for k, v in call.kwargs:
            if k not in attrs and k not in ("a_trans", "b_trans") and v is not None:
                raise NotSupportedError(f"{name}: option {k}={v!r} has no tile-level form")
        if name == "tensor.full" and m is not None:  # one block of the fill
            attrs["shape"] = (r, *tuple(attrs["shape"])[1:])
        elif name in _INDEX_OPS and m is not None:  # one block of a generated tile, its count moved on
            args = _index_op_block(call, args, attrs, r, row_off)
        args = transposed_operands(call, args, self.out, self.fresh)
        tc = make_call(tile_op.name, args, attrs, span=span)
        t = Var(self.fresh(s.var.name), tc.type, span)
        self.out.append(AssignStmt(t, tc, span=span))
        self.tiles[s.var] = t

    def view(self, var: Var, tile: Expr, shape: Expr, offsets: Expr, span: Span) -> Var:
        """``tile.slice`` of a computed tile: a zero-copy window, made safe (or an extract) by
        CanonicalizeTileSlice."""
        sl = make_call("tile.slice", [tile, shape, offsets], {}, span=span)
        v = Var(self.fresh(var.name), sl.type, span)
        self.out.append(AssignStmt(v, sl, span=span))
        return v

    def write_whole(self, s: AssignStmt, current: dict[Var, Var]) -> None:
        """``tensor.assemble`` of a column reduction's ``[1, N]`` tile at its constant offsets."""
        call = s.value
        dst = call.args[0]
        assert isinstance(dst, Var)
        root = self.root[dst]
        st = make_call("tile.store", [self.tiles[call.args[1]], _tup([_idx(x) for x in _ints(call.args[2])]),
                                      current[root]], {}, span=call.span)
        nv = Var(self.fresh(root.name), st.type, call.span)
        self.out.append(AssignStmt(nv, st, span=call.span))
        current[root] = nv
        self.final[s.var] = root

    def run(self) -> tuple[list[Stmt], dict[Var, Var]]:
        """Statements replacing the region and the map written-tensor result -> final tensor."""
        self.tiles_planned: set[Var] = set()
        self.deferred: set[Var] = set()
        self.emitted: dict[Var, Var] = {}  # a written tensor's SSA value -> the store result standing for it
        self.acc_iters: dict[Var, IterArg] = {}
        self.acc_current: dict[Var, Var] = {}
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
        computed = {s.var for s in self.region if s.value.op_name != "tensor.assemble"}
        for s in self.region:
            if s.value.op_name == "tensor.assemble" and self.root[s.var] in computed:
                _refuse_assemble_into_computed(s.value, self.root[s.var])
        m = self.rows()
        if m is None:
            _refuse_unblocked_scatter(self.region, self.target)
        r = self.block_rows(m) if m is not None else 0
        if m is None or r == m:
            current = {x: x for x in roots}
            self.lower(None if m is None else m, m or 0, _idx(0), current)
            return self.out, {v: current[root] for v, root in self.final.items()}
        # column reductions: accumulators of [1, N] carried by the block loops, starting at the identity
        pre: list[Stmt] = []
        accs: dict[Var, Var] = {}
        for s in self.region:
            op = op_of(s.value)
            if op is not None and op.kind is OpKind.COL_REDUCTION:
                t = s.var.type
                init = make_call("tile.full", [], {"shape": tuple(_shape(t)), "dtype": t.dtype,
                                                   "value": op.extra["identity"]}, span=s.value.span)
                v = Var(self.fresh(f"{s.var.name}_init"), init.type, s.value.span)
                pre.append(AssignStmt(v, init, span=s.value.span))
                accs[s.var] = v
            elif s.var in self.scatters:  # the scatter's input, whole: the accumulator's first value
                inp = s.value.args[0]
                whole = _tup([_idx(e) for e in _shape(inp.type)])
                init = make_call("tile.load", [inp, _tup([_idx(0), _idx(0)]), whole],
                                 {"target_memory": MemorySpace.Vec}, span=s.value.span)
                v = Var(self.fresh(f"{inp.name}_tile"), init.type, s.value.span)
                pre.append(AssignStmt(v, init, span=s.value.span))
                accs[s.var] = v
        # a loop over row blocks carrying every written tensor
        if isinstance(m, int) and m % r == 0:
            loop, finals, accs = self.block_loop(m, r, roots, {x: x for x in roots}, _idx(0), _idx(m // r), accs)
            loops = [loop]
        elif isinstance(m, int):  # M // r blocks of r rows, then one block of the M % r remaining rows
            main, after_main, accs = self.block_loop(m, r, roots, {x: x for x in roots}, _idx(0), _idx(m // r), accs)
            tail, finals, accs = self.block_loop(m, m % r, roots, after_main, _idx(0), _idx(1), accs,
                                                 offset=_idx(m // r * r))
            loops = [main, tail]
        else:  # dynamic row count M: blocks of r rows over [0, M // r * r), then single rows up to M
            full = FloorDiv(m, _idx(r), DataType.INDEX)
            main, after_main, accs = self.block_loop(m, r, roots, {x: x for x in roots}, _idx(0), full, accs)
            tail, finals, accs = self.block_loop(m, 1, roots, after_main, Mul(full, _idx(r), DataType.INDEX), m,
                                                 accs, unit=True)
            loops = [main, tail]
        self.out, self.acc_iters = [], {}
        self.tiles = dict(accs)
        for s in self.region:  # the column reductions' results, written after the blocks
            if s.var in self.deferred:
                self.write_whole(s, finals)
        return [*pre, *loops, *self.out], {v: finals[root] for v, root in self.final.items()}

    def block_loop(self, m: Any, r: int, roots: list[Var], inits: dict[Var, Var], start: Expr, stop: Expr,
                   acc_inits: dict[Var, Var], unit: bool = False, offset: Expr | None = None
                   ) -> tuple[ForStmt, dict[Var, Var], dict[Var, Var]]:
        """``for i in range(start, stop)`` over blocks of ``r`` rows (row ``i`` itself when ``unit``; rows from
        ``offset`` when given: a single remainder block), carrying the written tensors and the column-reduction
        accumulators."""
        self.tiles, self.loads, self.out, self.concat = {}, {}, [], {}
        i = Var(self.fresh("row" if unit else "row_block"), _IDX)
        iter_args = tuple(IterArg(self.fresh(f"{x.name}_iter"), x.type, x.span, init=inits[x]) for x in roots)
        self.acc_iters = {v: IterArg(self.fresh(f"{v.name}_acc"), a.type, a.span, init=a)
                          for v, a in acc_inits.items()}
        self.acc_current = dict(self.acc_iters)
        current = dict(zip(roots, iter_args, strict=True))
        row_off = offset if offset is not None else i if unit else Mul(i, _idx(r), DataType.INDEX)
        self.lower(m, r, row_off, current)
        accs = list(self.acc_iters)
        body = [*self.out, YieldStmt(tuple(current[x] for x in roots) + tuple(self.acc_current[v] for v in accs))]
        rvs = tuple(Var(self.fresh(x.name), x.type, x.span) for x in roots)
        acc_rvs = tuple(Var(self.fresh(v.name), self.acc_iters[v].type, v.span) for v in accs)
        loop = ForStmt(i, start, stop, _idx(1), (*iter_args, *self.acc_iters.values()), SeqStmts(tuple(body)),
                       (*rvs, *acc_rvs), span=self.fn.span)
        return loop, dict(zip(roots, rvs, strict=True)), dict(zip(accs, acc_rvs, strict=True))


def _static_block_rows(m: int, fits: Any) -> int | None:
    """Rows per block of a static row count ``m``: the largest divisor of ``m`` that fits, unless it is below half
    of the largest row count that fits at all (a prime ``m`` would give 1-row blocks, 6-7x slower): then that
    count, with one remainder block of ``m % r`` rows. None when not even one row fits."""
    if not fits(1):
        return None
    lo, hi = 1, m  # fits is monotone in r: the largest r <= m that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    largest = lo
    divisor = next(r for r in range(largest, 0, -1) if m % r == 0)
    return divisor if 2 * divisor >= largest else largest


_POSITIONAL = {OpKind.ELEMENTWISE, OpKind.SCALAR_ELEMENTWISE, OpKind.UNARY, OpKind.CAST}
_GRID_COLS = 256  # columns per block of a dynamic column extent (a multiple of 32: every row stays aligned)
_WINDOW_HINT = ("read it in windows of a static extent in a loop: for j in pl.range(pl.tensor.dim(x, 1) // 64): "
                "... x[:, j * 64 : j * 64 + 64] (a partial last window: pl.load(x, [0, j * 64], [rows, 64], "
                "valid_shapes=[rows, pl.min(n - j * 64, 64)]))")


def _dynamic_axis(t: Any) -> int | None:
    """The first axis past the leading one whose extent is a ``pl.dynamic`` expression, if any."""
    if not isinstance(t, TensorType):
        return None
    shape = _shape(t)
    return next((ax for ax, d in enumerate(shape) if (ax > 0 or len(shape) == 1) and not isinstance(d, int)), None)


@dataclass
class _GridBlock:
    """What lowering one block of a ``_DynamicGrid`` region tracks: written tensor -> the tensor it started as
    (``root``), the current value of each root and accumulator, the block's window (``where``, ``extents``, the
    valid extents) and the statements emitted so far."""

    root: dict[Var, Var]
    current: dict[Var, Expr]
    acc: dict[Var, Expr]
    where: MakeTuple
    extents: MakeTuple
    valids: list[Expr]
    body: list[Stmt] = field(default_factory=list)


def _block_count(extent: Any, size: int) -> Expr:
    """The number of blocks of ``size`` covering ``extent`` (a constant, or ``(extent + size - 1) // size``)."""
    from tilefold.ir.expr import Add

    if isinstance(extent, int):
        return _idx(-(-extent // size))
    return FloorDiv(Add(extent, _idx(size - 1), DataType.INDEX), _idx(size), DataType.INDEX)


def _valid_extent(extent: Any, start: Expr, size: int) -> Expr:
    """The valid extent of the block at ``start``: ``size``, or ``min(extent - start, size)`` at a ragged edge."""
    from tilefold.ir.expr import Min, Sub

    if isinstance(extent, int) and extent % size == 0:
        return _idx(size)
    ext = _idx(extent) if isinstance(extent, int) else extent
    return Min(Sub(ext, start, DataType.INDEX), _idx(size), DataType.INDEX)


class _DynamicGrid:
    """A straight-line element-wise region over a tensor with a dynamic column extent (and any row count): a grid
    of ``[R, C]`` blocks, each tile loaded with the valid shape ``[min(M - r0, R), min(N - c0, C)]`` (constant
    where the extent is), computed by position-preserving tile ops (the valid shape flows through them) and
    stored (a store writes its valid region only). Any other region with a dynamic non-leading extent is refused
    (a whole tensor of unknown width has no tile)."""

    def __init__(self, fn: Function, region: list[AssignStmt], target: Any) -> None:
        self.fn, self.region, self.target = fn, region, target
        self.names = NameSupply(p.name for p in fn.params)
        self.tiles: dict[Var, Expr] = {}  # tensor-op result -> its tile in the block

    def fresh(self, base: str) -> str:
        return self.names.fresh(base)

    def check(self) -> tuple[Any, Any]:
        """The region's ``(M, N)``, or a located error naming the op that has no block form."""
        self.reductions = {s.var: s for s in self.region if (o := op_of(s.value)) is not None
                           and o.kind is OpKind.ROW_REDUCTION and "combine" in o.extra}
        written = next((s.value.args[1].type for s in self.region if s.value.op_name == "tensor.assemble"
                        and s.value.args[1] not in self.reductions), None)
        red_in = next((s.value.args[0].type for s in self.reductions.values()), None)
        dims = _shape(red_in if red_in is not None else written) if (red_in or written) is not None else None
        for s in self.region:
            call = s.value
            op = op_of(call)
            where = call.span if call.span.line else None
            dyn = next(((a, ax) for a in (*call.args, s.var) if (ax := _dynamic_axis(a.type)) is not None), None)
            what = f"{call.op_name}: a whole-tensor operand with a dynamic extent"
            if dyn is not None:
                ext = _shape(dyn[0].type)[dyn[1]]
                what += f" ({getattr(ext, 'name', ext)} on axis {dyn[1]})"
            if call.op_name == "tensor.assemble":
                ok = all(isinstance(o, ConstInt) and o.value == 0 for o in call.args[2].elements)
            else:
                ok = op is not None and (op.kind in _POSITIONAL or s.var in self.reductions)
            # a row reduction's [M, 1] result is only written (after the column blocks); its input is [M, N]
            ok = ok and all(a not in self.reductions for i, a in enumerate(call.args)
                            if not (call.op_name == "tensor.assemble" and i == 1))
            reduced = s.var in self.reductions or (call.op_name == "tensor.assemble" and call.args[1] in
                                                    self.reductions)
            shapes = [a.type for a in ((call.args[0],) if s.var in self.reductions else () if reduced else
                                       (*call.args, s.var)) if isinstance(getattr(a, "type", None), TensorType)]
            if reduced and call.op_name == "tensor.assemble" and dims is not None:
                dst = _shape(call.args[0].type)
                ok = ok and len(dims) == 2 and len(dst) == 2 and _same_dim(dst[0], dims[0]) and dst[1] == 1
            ok = ok and dims is not None and len(dims) in (1, 2) and all(
                len(_shape(t)) == len(dims) and all(_same_dim(x, y) for x, y in zip(_shape(t), dims, strict=True))
                for t in shapes)
            if not ok:
                raise NotSupportedError(
                    f"{what} is only lowered in straight-line element-wise regions of one 1-D / 2-D shape, written "
                    "whole, and row reductions of them (tiled into blocks of dynamic valid shape)", span=where,
                    hint=_WINDOW_HINT)
        assert dims is not None
        return dims

    def run(self) -> tuple[list[Stmt], dict[Var, Var]]:
        """The block loops of the region (a column loop inside a row loop; the column loop alone for a 1-D
        tensor) and, per written tensor, the variable holding its final value."""
        dims = self.check()
        flat = len(dims) == 1  # a 1-D tensor: one loop over blocks of C elements
        m, n = (1, dims[0]) if flat else dims
        r, c = self.block_shape(m, n)
        root = self.assemble_roots()
        roots = list(dict.fromkeys(root.values()))
        rb = Var(self.fresh("row_block"), _IDX)
        cb = Var(self.fresh("col_block"), _IDX)
        outer = tuple(IterArg(self.fresh(f"{x.name}_iter"), x.type, x.span, init=x) for x in roots)
        inner = tuple(IterArg(self.fresh(f"{x.name}_iter"), x.type, x.span, init=x if flat else o)
                      for x, o in zip(roots, outer, strict=True))
        pre, acc_iters = self.reduction_inits(r)
        r0 = Mul(rb, _idx(r), DataType.INDEX)
        c0 = Mul(cb, _idx(c), DataType.INDEX)
        blk = _GridBlock(root, dict(zip(roots, inner, strict=True)), dict(acc_iters),
                         where=_tup([c0] if flat else [r0, c0]),
                         extents=_tup([_idx(c)] if flat else [_idx(r), _idx(c)]),
                         valids=[_valid_extent(n, c0, c)] if flat else [_valid_extent(m, r0, r),
                                                                         _valid_extent(n, c0, c)])
        for s in self.region:
            self.lower_in_block(s, blk)
        inner_rvs = tuple(Var(self.fresh(x.name), x.type, x.span) for x in roots)
        acc_rvs = {v: Var(self.fresh(v.name), ia.type, v.span) for v, ia in acc_iters.items()}
        inner_loop = ForStmt(cb, _idx(0), _block_count(n, c), _idx(1), (*inner, *acc_iters.values()),
                             SeqStmts((*blk.body, YieldStmt(tuple(blk.current[x] for x in roots)
                                                            + tuple(blk.acc[v] for v in acc_iters)))),
                             (*inner_rvs, *acc_rvs.values()), span=self.fn.span)
        current = dict(zip(roots, inner_rvs, strict=True))
        after = self.write_reductions(acc_rvs, root, current, blk.valids[0], r, r0)
        written = [s.var for s in self.region if s.value.op_name == "tensor.assemble"]
        if flat:  # the column loop alone, carrying the written tensors from their parameters
            final = dict(zip(roots, inner_rvs, strict=True))
            return [inner_loop], {v: final[root[v]] for v in written}
        rvs = tuple(Var(self.fresh(x.name), x.type, x.span) for x in roots)
        loop = ForStmt(rb, _idx(0), _block_count(m, r), _idx(1), outer,
                       SeqStmts((*pre, inner_loop, *after, YieldStmt(tuple(current[x] for x in roots)))), rvs,
                       span=self.fn.span)
        final = dict(zip(roots, rvs, strict=True))
        return [loop], {v: final[root[v]] for v in written}

    def block_shape(self, m: Any, n: Any) -> tuple[int, int]:
        """``(R, C)``: the largest row count (a divisor of a static M) whose block of every tile of the region fits
        half of Vec, halving C (from the whole width, or ``_GRID_COLS`` for a dynamic one) while none fits."""
        loads = {a for s in self.region for i, a in enumerate(s.value.args) if isinstance(a, Var)
                 and isinstance(a.type, TensorType) and not (s.value.op_name == "tensor.assemble" and i == 0)}
        tile_bytes = sum(a.type.dtype.bits for a in loads) + sum(
            s.var.type.dtype.bits * (2 if s.var in self.reductions else 1)  # + the padded copy
            for s in self.region if s.value.op_name != "tensor.assemble")
        budget = self.target.capacity(MemorySpace.Vec) // 2 * 8  # bits: every tile of a block live at once (safe)
        c = _GRID_COLS if not isinstance(n, int) else n
        rows = [r for r in range(min(m, 1024), 0, -1) if m % r == 0] if isinstance(m, int) else \
            [1 << k for k in range(6, -1, -1)]
        r = next((x for x in rows if x * c * tile_bytes <= budget), None)
        while r is None and c > 32:
            c //= 2
            r = next((x for x in rows if x * c * tile_bytes <= budget), None)
        if r is None:
            raise NotSupportedError(f"function {self.fn.name!r}: one block of the element-wise region needs more "
                                    "Vec than there is", span=self.fn.span if self.fn.span.line else None,
                                    hint=_WINDOW_HINT)
        return r, c

    def assemble_roots(self) -> dict[Var, Var]:
        """Each tensor written in the region (and each version an assemble makes of it) -> the tensor it
        started as (a parameter), which the block loops carry."""
        root: dict[Var, Var] = {}
        for s in self.region:
            if s.value.op_name == "tensor.assemble":
                dst = s.value.args[0]
                root[s.var] = root.get(dst, dst)
                root.setdefault(dst, root[s.var])
        return root

    def reduction_inits(self, r: int) -> tuple[list[Stmt], dict[Var, IterArg]]:
        """Row reductions: an ``[R, 1]`` accumulator per reduction, from the identity, carried by the column
        loop (the statements creating the initial values, and the loop's iter args)."""
        pre: list[Stmt] = []
        acc_iters: dict[Var, IterArg] = {}
        for v, st in self.reductions.items():
            op = op_of(st.value)
            assert op is not None
            init = make_call("tile.full", [], {"shape": (r, 1), "dtype": v.type.dtype,
                                               "value": op.extra["identity"]}, span=st.value.span)
            iv = Var(self.fresh(f"{v.name}_init"), init.type, st.value.span)
            pre.append(AssignStmt(iv, init, span=st.value.span))
            acc_iters[v] = IterArg(self.fresh(f"{v.name}_acc"), init.type, st.value.span, init=iv)
        return pre, acc_iters

    def operand_tile(self, v: Var, blk: _GridBlock) -> Expr:
        """The block's tile of tensor ``v``: computed earlier in the block, or loaded now."""
        if v in self.tiles:
            return self.tiles[v]
        return self.load(v, blk.root, blk.current, blk.where, blk.extents, blk.valids, self.tiles, blk.body)

    def lower_in_block(self, s: AssignStmt, blk: _GridBlock) -> None:
        """The tile statements of region statement ``s`` in one block."""
        call = s.value
        span = call.span
        if call.op_name == "tensor.assemble" and call.args[1] in self.reductions:
            return  # written after the column blocks
        if s.var in self.reductions:
            self.reduce_in_block(s, blk)
            return
        if call.op_name == "tensor.assemble":
            tile = self.operand_tile(call.args[1], blk)
            rt = blk.root[s.var]
            st = make_call("tile.store", [tile, blk.where, blk.current[rt]], _atomic_of(call), span=span)
            nv = Var(self.fresh(rt.name), st.type, span)
            blk.body.append(AssignStmt(nv, st, span=span))
            blk.current[rt] = nv
            return
        op = op_of(call)
        assert op is not None
        args = [self.operand_tile(a, blk) if isinstance(a, Var) and (a in self.tiles or isinstance(a.type, TensorType))
                else a for a in call.args]
        tile_op, attrs = _tile_form(op, call)
        tc = make_call(tile_op.name, args, attrs, span=span)
        t = Var(self.fresh(s.var.name), tc.type, span)
        blk.body.append(AssignStmt(t, tc, span=span))
        self.tiles[s.var] = t

    def reduce_in_block(self, s: AssignStmt, blk: _GridBlock) -> None:
        """A row reduction in one block: pad the invalid columns with the identity, reduce, combine into the
        accumulator."""
        call = s.value
        span = call.span
        op = op_of(call)
        assert op is not None
        src_tile = self.operand_tile(call.args[0], blk)
        pad = {0.0: PadValue.zero, float("-inf"): PadValue.min, float("inf"): PadValue.max}[
            float(op.extra["identity"])]
        steps = [("tile.fillpad", [src_tile], {"pad_value": pad}, "padded"),
                 (op.extra["tile_op"], None, {}, "part"), (op.extra["combine"], None, {}, "")]
        prev: Expr = src_tile
        for name, args, attrs, suffix in steps:
            if args is None:
                args = [prev] if suffix == "part" else [blk.acc[s.var], prev]
            tc = make_call(name, args, attrs, span=span)
            t = Var(self.fresh(f"{s.var.name}_{suffix}" if suffix else s.var.name), tc.type, span)
            blk.body.append(AssignStmt(t, tc, span=span))
            prev = t
        blk.acc[s.var] = prev

    def write_reductions(self, acc_rvs: dict[Var, Var], root: dict[Var, Var], current: dict[Var, Expr],
                         valid_rows: Expr, r: int, r0: Expr) -> list[Stmt]:
        """The reductions' ``[R, 1]`` results, written once their row block is complete (the rows past M stay
        unwritten)."""
        after: list[Stmt] = []
        for st in self.region:
            call = st.value
            if call.op_name == "tensor.assemble" and call.args[1] in self.reductions:
                t: Expr = acc_rvs[call.args[1]]
                if not (isinstance(valid_rows, ConstInt) and valid_rows.value == r):
                    sv = make_call("tile.set_validshape", [t, _tup([valid_rows, _idx(1)])], {}, span=call.span)
                    t = Var(self.fresh(f"{call.args[1].name}_rows"), sv.type, call.span)
                    after.append(AssignStmt(t, sv, span=call.span))
                rt = root[st.var]
                stc = make_call("tile.store", [t, _tup([r0, _idx(0)]), current[rt]], _atomic_of(call), span=call.span)
                nv = Var(self.fresh(rt.name), stc.type, call.span)
                after.append(AssignStmt(nv, stc, span=call.span))
                current[rt] = nv
        return after

    def load(self, v: Var, root: dict[Var, Var], current: dict[Var, Expr], where: MakeTuple, extents: MakeTuple,
             valids: list[Expr], tiles: dict[Var, Expr], body: list[Stmt]) -> Expr:
        """This block's window of a tensor (a tensor written earlier in the region: its current value)."""
        src = current[root[v]] if v in root else v
        partial = any(not (isinstance(x, ConstInt) and x.value == e.value)
                      for x, e in zip(valids, extents.elements, strict=True))
        args = [src, where, extents] + ([_tup(valids)] if partial else [])
        ld = make_call("tile.load", args, {"target_memory": MemorySpace.Vec}, span=v.span)
        t = Var(self.fresh(f"{v.name}_tile"), ld.type, v.span)
        body.append(AssignStmt(t, ld, span=v.span))
        if v not in root:
            tiles[v] = t
        return t


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
        elif isinstance(s, YieldStmt):  # x = pl.yield_(pl.maximum(prev, blk)): the op first, then the yield
            values = tuple(flat(v) for v in s.values)
            if any(x is not y for x, y in zip(values, s.values, strict=True)):
                s = s.with_fields(values=values)
        out.append(s)
    return out


class _Structured:
    """Whole-value lowering of a function whose tensor-level ops sit in loops or ifs, or read / write windows at
    dynamic offsets (``a[k0 : k0 + K, :]``, ``pl.assemble(out, y, [i * 128, 0])``): every computed tensor becomes
    a tile of its whole shape, loop-carried and branch-merged computed tensors become tile iteration arguments /
    if results, a slice of a GM tensor is a ``tile.load`` of its window at its (possibly dynamic) offsets, a
    write is a ``tile.store`` at its offsets into the current value of its tensor. Not tiled: the tiles must fit
    on chip (memory planning says so otherwise). A dynamic window is checked against the tensor from the ranges
    of the loop variables it depends on (``tilefold.analysis.affine``): provably outside is an error, unprovable
    (a scalar parameter offset) is left to the device's bounds check (the simulator's OutOfBounds fault)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.tile: dict[Var, Expr] = {}  # computed tensor value -> its tile
        self.gm: dict[Var, Expr] = {}  # tensor variable -> the GM tensor value standing for it now
        self.mat: set[Var] = set()  # tensor values read by the cube (loaded into Mat)
        self.defs: dict[Var, Expr] = {}  # scalar variable -> its defining expression
        self.ranges: dict[Var, tuple[int, int]] = {}  # loop variable -> [first, last] value
        self.loaded: dict[tuple[Expr, MemorySpace], Var] = {}  # whole-tensor loads visible in the current block
        self.clobbers = 0  # tile-level statements seen that may write a GM tensor (they invalidate loads)
        self.concat: dict[Var, tuple[Expr, Expr]] = {}  # concat result -> its two parts (written part by part)
        self.use_span: Span | None = None  # the tensor op being lowered (where an operand error points)

    def operand(self, e: Expr, out: list[Stmt], mem: MemorySpace, cache: bool = True) -> Expr:
        if isinstance(e, Var) and e in self.tile:
            return self.tile[e]
        if isinstance(e, Var) and isinstance(e.type, TensorType):
            src = self.gm.get(e, e)
            got = self.loaded.get((src, mem))
            if got is not None:  # loaded already in this block or an enclosing one (a write makes a new value)
                return got
            shape = _shape(e.type)
            dyn = next((ax for ax, x in enumerate(shape) if not isinstance(x, int)), None)
            if dyn is not None:  # a whole tensor of unknown extent has no tile (and no static upper bound)
                raise NotSupportedError(
                    f"{e.name!r} is used whole inside a loop, an if or next to a dynamic window, but axis {dyn} has "
                    f"the dynamic extent {getattr(shape[dyn], 'name', shape[dyn])}: a whole-tensor value needs a tile "
                    "of static shape",
                    span=self.use_span or (e.span if e.span.line else None),
                    hint=_WINDOW_HINT)
            call = make_call("tile.load", [src, _tup([_idx(0)] * len(shape)), _tup([_idx(x) for x in shape])],
                             {"target_memory": mem}, span=e.span)
            v = Var(f"{e.name}_tile", call.type, e.span)
            out.append(AssignStmt(v, call, span=e.span))
            if cache:
                self.loaded[(src, mem)] = v
            return v
        return self.gm.get(e, e) if isinstance(e, Var) else e

    def check_window(self, tensor_type: Any, offsets: Expr, extents: list[Any], span: Span | None,
                     what: str) -> None:
        """Refuse a window that provably leaves the tensor for some value of the loop variables."""
        from tilefold.analysis.affine import affine_form, interval
        from tilefold.errors import TypeInferenceError

        if not isinstance(offsets, MakeTuple):
            return
        for axis, (o, ext, dim) in enumerate(zip(offsets.elements, extents, _shape(tensor_type), strict=False)):
            if isinstance(o, ConstInt) or not isinstance(ext, int) or not isinstance(dim, int):
                continue  # constant windows were checked by type inference; dynamic extents at run time
            form = affine_form(o, self.defs)
            iv = interval(form, self.ranges) if form is not None else None
            if iv is not None and (iv[0] < 0 or iv[1] + ext > dim):
                raise TypeInferenceError(
                    f"{what}: the window of {ext} on axis {axis} starts at offsets {iv[0]}..{iv[1]} over the loop, "
                    f"so it leaves the extent {dim} (it must stay inside [0, {dim}))",
                    span=span, hint=f"bound the loop so that offset + {ext} <= {dim} on every iteration")

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        from tilefold.ir.stmt import IfStmt
        from tilefold.ir.visitor import substitute

        stmts = _hoist(stmts)
        for s in stmts:  # slices read by the cube load straight into Mat (there is no Vec -> Mat path)
            if isinstance(s, AssignStmt) and (o := op_of(s.value)) is not None and o.kind is OpKind.MATMUL:
                self.mat.update(a for a in s.value.args if isinstance(a, Var))
        out: list[Stmt] = []
        outer_loads = dict(self.loaded)  # loads made in this block are not visible after it
        clobbers = self.clobbers
        for s in stmts:
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and _is_tensor_op(s.value):
                self.tensor_op(s, out)
            elif isinstance(s, AssignStmt) and isinstance(s.value, Var) and isinstance(s.value.type, TensorType):
                # m = m_new: an alias of a tensor value, no data moves
                if s.value in self.concat:
                    self.concat[s.var] = self.concat[s.value]
                elif s.value in self.tile:
                    self.tile[s.var] = self.tile[s.value]
                else:
                    self.gm[s.var] = self.gm.get(s.value, s.value)
            elif isinstance(s, ForStmt):
                out.append(self.loop(s))
            elif isinstance(s, WhileStmt):
                out.append(self.carry(s, None))
            elif isinstance(s, IfStmt):
                out.append(self.branch(s))
            elif isinstance(s, YieldStmt):
                self.refuse_concat_use(None, s.span if s.span.line else None, s.values)  # type: ignore[arg-type]
                out.append(s.with_fields(values=tuple(self.tile.get(v, self.gm.get(v, v)) if isinstance(v, Var)
                                                      else v for v in s.values)))
            elif isinstance(s, EvalStmt) and isinstance(s.expr, Call) and s.expr.op_name == "tensor.write" \
                    and isinstance(s.expr.args[0], Var) and s.expr.args[0] in self.tile:
                # pl.write into a computed tensor (e.g. a pl.full being staged): it lives in a tile, so the element
                # goes into the tile in place (tile.write); one store writes it out later (dev/10's staged form)
                w = s.expr
                tw = make_call("tile.write", [self.tile[w.args[0]], *w.args[1:]], dict(w.kwargs), span=w.span)
                out.append(EvalStmt(tw, span=s.span))
            else:
                probe = _HasTensorOps()
                probe.visit_stmt(s)
                if probe.nested:
                    raise NotSupportedError(f"function {self.fn.name!r}: tensor-level ops inside a "
                                            f"{type(s).__name__} are not supported", span=getattr(s, "span", None),
                                            hint="use a pl.range loop or an if, or write this part with tile ops")
                for v in collect_uses(s):
                    if v in self.tile or v in self.concat:
                        raise NotSupportedError(f"{v.name!r} is a tensor-level value used by a tile-level statement",
                                                span=getattr(s, "span", None),
                                                hint=f"write it to a tensor first (out[:] = {v.name})")
                s = substitute(s, dict(self.gm)) if self.gm else s
                if _may_write_gm(s):  # a tile-level store into a tensor: whole-tensor loads made before are stale
                    self.loaded = {}
                    self.clobbers += 1
                if isinstance(s, AssignStmt) and isinstance(s.var.type, ScalarType) and not isinstance(s.value, Call):
                    self.defs[s.var] = s.value
                out.append(s)
        self.loaded = outer_loads if self.clobbers == clobbers else {}
        return out

    def tensor_op(self, s: AssignStmt, out: list[Stmt]) -> None:
        call = s.value
        op = op_of(call)
        assert op is not None and isinstance(call, Call)
        span = call.span
        where = span if span.line else None
        self.use_span = where
        self.refuse_concat_use(call, where)
        if call.op_name == "tensor.assemble":
            dst = call.args[0]
            if isinstance(dst, Var) and dst in self.tile:
                _refuse_assemble_into_computed(call, dst)
            offsets = call.args[2]
            cur: Expr = self.gm.get(dst, dst)
            # a concat result is never a tile: each part goes to its own column range of the window
            for part, col in self.concat_parts(call.args[1], _idx(0)):
                value = self.operand(part, out, MemorySpace.Vec)
                offs = offsets
                if isinstance(offsets, MakeTuple) and not (isinstance(col, ConstInt) and col.value == 0):
                    offs = _tup([*offsets.elements[:-1], add_index(offsets.elements[-1], col)])
                self.check_window(dst.type, offs, list(_shape(part.type)), where, "pl.assemble")
                st = make_call("tile.store", [value, offs, cur], _atomic_of(call), span=span)
                nv = Var(s.var.name, st.type, span)
                out.append(AssignStmt(nv, st, span=span))
                cur = nv
            self.gm[s.var] = cur
            return
        if call.op_name == "tensor.slice":
            src = call.args[0]
            if isinstance(src, Var) and src in self.tile:  # a window of a computed tile: a zero-copy view
                self.check_window(src.type, call.args[2], _ints(call.args[1]), where, "tensor slice")
                sl = make_call("tile.slice", [self.tile[src], call.args[1], call.args[2]], {}, span=span)
                v = Var(s.var.name, sl.type, span)
                out.append(AssignStmt(v, sl, span=span))
                self.tile[s.var] = v
                return
            if not isinstance(src, Var):
                raise NotSupportedError("slicing a computed tensor is not supported", span=where,
                                        hint="slice a tensor parameter (a[0:16, :]), or write the computed value "
                                             "to a tensor first")
            ext = _ints(call.args[1])
            self.check_window(src.type, call.args[2], ext, where, "tensor slice")
            mem = MemorySpace.Mat if s.var in self.mat else MemorySpace.Vec
            ld = make_call("tile.load", [self.gm.get(src, src), call.args[2], _tup([_idx(x) for x in ext])],
                           {"target_memory": mem}, span=span)
            v = Var(s.var.name, ld.type, span)
            out.append(AssignStmt(v, ld, span=span))
            self.tile[s.var] = v
            return
        if call.op_name == "tensor.concat":  # lowered where it is written: one store per part
            self.concat[s.var] = (call.args[0], call.args[1])
            return
        if op.extra.get("lowering") == "paged_gather":
            self.tile[s.var] = _paged_gather_loop(s, [self.gm.get(a, a) for a in call.args], out)
            return
        mem = MemorySpace.Mat if op.kind is OpKind.MATMUL else MemorySpace.Vec
        tile_op, attrs = _tile_form(op, call)
        gm = op.extra.get("gm_operands", ())  # operands the tile op reads from GM itself (gather_row's src)
        args = transposed_operands(call, [self.gm.get(a, a) if i in gm else self.operand(a, out, mem)
                                          for i, a in enumerate(call.args)], out, lambda base: f"{base}_t")
        attrs.update(op.extra.get("tile_attrs", {}))  # fixed attributes of the tile form (create_l1: Mat)
        tc = make_call(tile_op.name, args, attrs, span=span)
        v = Var(s.var.name, tc.type, span)
        out.append(AssignStmt(v, tc, span=span))
        self.tile[s.var] = v

    def concat_parts(self, value: Expr, col: Expr) -> list[tuple[Expr, Expr]]:
        """The parts of a (nested) concat with the column each starts at, relative to the concat's own."""
        if not (isinstance(value, Var) and value in self.concat):
            return [(value, col)]
        a, b = self.concat[value]
        width = _shape(a.type)[-1]
        return [*self.concat_parts(a, col),
                *self.concat_parts(b, add_index(col, _idx(width) if isinstance(width, int) else width))]

    def refuse_concat_use(self, call: Call, where: Span | None, values: Any = None) -> None:
        """A concat result is only written (each part stored into its columns); any other use is refused."""
        ok = {1} if call is not None and call.op_name == "tensor.assemble" else set()
        ok |= {0, 1} if call is not None and call.op_name == "tensor.concat" else set()
        args = values if values is not None else call.args
        for i, a in enumerate(args):
            if isinstance(a, Var) and a in self.concat and i not in ok:
                what = call.op_name if call is not None else "a yield"
                raise NotSupportedError(
                    f"the result of pl.concat ({a.name!r}) is used by {what}: inside a loop, an if or next to a "
                    "dynamic window a concat is lowered into the window it is written to, so it can only be written",
                    span=where, hint=f"write it to a tensor window (out[r0 : r1, :] = pl.concat(...)), or apply "
                                     f"{what} to each part before concatenating")

    def carried(self, value: Expr, want_tile: bool, out: list[Stmt]) -> Expr:
        """A value entering a carried slot (init or yield): a GM tensor where a tile is carried is loaded."""
        if want_tile and isinstance(value, Var) and value not in self.tile and isinstance(value.type, TensorType):
            return self.operand(value, out, MemorySpace.Vec, cache=False)
        if isinstance(value, Var):
            return self.tile.get(value, self.gm.get(value, value))
        return value

    def loop(self, s: ForStmt) -> Stmt:
        self.record_range(s)
        return self.carry(s, None)

    def record_range(self, s: ForStmt) -> None:
        from tilefold.analysis.affine import affine_form, interval, loop_value_range

        bounds = []
        for b in (s.start, s.stop, s.step):
            form = affine_form(self.gm.get(b, b) if isinstance(b, Var) else b, self.defs)
            bounds.append(form[1] if form is not None and not form[0] else None)
        if None not in bounds and bounds[2]:
            rng = loop_value_range(*bounds)  # type: ignore[arg-type]
            if rng is not None:
                self.ranges[s.loop_var] = rng
        else:  # symbolic bounds: the variable lies between the bounds' intervals when those are known
            lo = affine_form(s.start, self.defs)
            hi = affine_form(s.stop, self.defs)
            ilo = interval(lo, self.ranges) if lo is not None else None
            ihi = interval(hi, self.ranges) if hi is not None else None
            if ilo is not None and ihi is not None and bounds[2] is not None and bounds[2] > 0:
                self.ranges[s.loop_var] = (ilo[0], ihi[1] - 1)

    def carry(self, s: Any, carried_types: dict[int, TileType] | None) -> Stmt:
        """The loop (for or while) with its body lowered; a carried slot is a tile when its init or its yielded
        value is computed. ``carried_types``: the tile type of a slot whose body yields another memory than the
        initial value's (a matmul result in Acc carried as a vector sum): the slot takes the yield's type and
        InferTileMemorySpace moves the initial value once, before the loop."""
        yielded = _final_yield(s.body)
        pre: list[Stmt] = []
        new_iters = []
        for k, ia in enumerate(s.iter_args):
            init = ia.init
            y = yielded[k] if yielded is not None and k < len(yielded) else None
            want_tile = (isinstance(init, Var) and init in self.tile) or _computed(y, s.body)
            if want_tile and isinstance(ia.type, TensorType):
                t0 = self.carried(init, True, pre)
                nia = IterArg(ia.name, (carried_types or {}).get(k, t0.type), ia.span, init=t0)
                self.tile[ia] = nia
            else:
                new_init = self.gm.get(init, init) if isinstance(init, Var) else init
                # a scalar slot keeps its iter arg (the body refers to it) unless its init changed
                nia = ia if new_init is init and not isinstance(ia.type, TensorType) else IterArg(
                    ia.name, ia.type, ia.span, init=new_init)
                if nia is not ia:
                    self.gm[ia] = nia
            new_iters.append(nia)
        body = self.block(flatten_stmts(s.body))
        body = self.fix_yield(body, [isinstance(ia.type, TileType) for ia in new_iters])
        if carried_types is None and body and isinstance(body[-1], YieldStmt):
            differ = {k: v.type for k, (ia, v) in enumerate(zip(new_iters, body[-1].values, strict=False))
                      if isinstance(ia.type, TileType) and isinstance(v.type, TileType)
                      and v.type.memory_space is not ia.type.memory_space}
            if differ:  # lower the loop again with those slots in the yield's memory
                return self.carry(s, differ)
        rvs = []
        for ia, rv in zip(new_iters, s.return_vars, strict=True):
            if isinstance(ia.type, ScalarType) and ia.type == rv.type:
                rvs.append(rv)  # a scalar result keeps its var: later scalar expressions refer to it as written
                continue
            nrv = Var(rv.name, ia.type, rv.span)
            (self.tile if isinstance(ia.type, TileType) else self.gm)[rv] = nrv
            rvs.append(nrv)
        loop = s.with_fields(iter_args=tuple(new_iters), body=SeqStmts(tuple(body)), return_vars=tuple(rvs))
        if isinstance(s, WhileStmt):  # the condition reads the carried scalars: the new iter args stand for them
            from tilefold.ir.visitor import IRMutator

            m = IRMutator()
            m.var_map = dict(zip(s.iter_args, new_iters, strict=True))
            loop = loop.with_fields(condition=m.mutate_expr(s.condition))
        return SeqStmts((*pre, loop)) if pre else loop

    def fix_yield(self, body: list[Stmt], tiles: list[bool]) -> list[Stmt]:
        """Load the GM tensors a final yield passes where the carried slot is a tile."""
        if not body or not isinstance(body[-1], YieldStmt):
            return body
        y = body[-1]
        extra: list[Stmt] = []
        values = []
        for v, want in zip(y.values, tiles, strict=False):
            if want and isinstance(v, Var) and isinstance(v.type, TensorType):
                v = self.operand(v, extra, MemorySpace.Vec, cache=False)
            values.append(v)
        values += list(y.values[len(values):])
        return [*body[:-1], *extra, y.with_fields(values=tuple(values))]

    def branch(self, s: Any) -> Stmt:
        """An if whose branches hold tensor-level ops: both bodies lowered; a result slot is a tile when either
        branch yields a computed value there (the other branch's GM tensor is then loaded)."""
        then_y = _final_yield(s.then_body) or ()
        else_y = _final_yield(s.else_body) if s.else_body is not None else ()
        then = self.block(flatten_stmts(s.then_body))
        other = self.block(flatten_stmts(s.else_body)) if s.else_body is not None else None
        tiles = []
        for k in range(len(s.return_vars)):
            a = then[-1].values[k] if then and isinstance(then[-1], YieldStmt) else None
            b = other[-1].values[k] if other and isinstance(other[-1], YieldStmt) else None
            tiles.append(isinstance(getattr(a, "type", None), TileType) or isinstance(getattr(b, "type", None),
                                                                                          TileType))
        del then_y, else_y
        then = self.fix_yield(then, tiles)
        other = self.fix_yield(other, tiles) if other is not None else None
        rvs = []
        for k, rv in enumerate(s.return_vars):
            y = then[-1].values[k] if then and isinstance(then[-1], YieldStmt) else rv
            t = y.type if tiles[k] else rv.type
            if isinstance(t, ScalarType) and t == rv.type:
                rvs.append(rv)  # as in carry: a scalar result keeps its var
                continue
            nrv = Var(rv.name, t, rv.span)
            if isinstance(t, TileType):
                self.tile[rv] = nrv
            elif isinstance(t, TensorType):
                self.gm[rv] = nrv
            rvs.append(nrv)
        from tilefold.ir.visitor import IRMutator

        cond = s.condition
        if self.gm:
            m = IRMutator()
            m.var_map = dict(self.gm)
            cond = m.mutate_expr(cond)
        return s.with_fields(condition=cond, then_body=SeqStmts(tuple(then)),
                             else_body=SeqStmts(tuple(other)) if other is not None else None,
                             return_vars=tuple(rvs))


def _may_write_gm(stmt: Stmt) -> bool:
    """Does a tile-level statement call an op with a tensor operand that is not a pure read (a store, an element
    write, a custom op)? Conservative: anything but loads and element reads counts as a write."""
    found = False

    class _Find(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            nonlocal found
            op = op_of(expr)
            if any(isinstance(getattr(a, "type", None), TensorType) for a in expr.args) and (
                    op is None or op.kind not in (OpKind.LOAD, OpKind.ELEMENT_READ)):
                found = True
            super().visit_Call(expr)

    _Find().visit_stmt(stmt)
    return found


def _final_yield(body: Stmt | None) -> tuple[Expr, ...] | None:
    stmts = flatten_stmts(body) if body is not None else []
    return stmts[-1].values if stmts and isinstance(stmts[-1], YieldStmt) else None


def _computed(value: Expr | None, body: Stmt) -> bool:
    """Is ``value`` (a yielded value) the result of a tensor-level compute op in ``body`` (not a write)?"""
    if not isinstance(value, Var) or not isinstance(value.type, TensorType):
        return False
    for s in _walk_assigns(body):
        if s.var is value:
            op = op_of(s.value)
            return op is not None and _is_tensor_op(s.value) and s.value.op_name != "tensor.assemble"
    return False


def _walk_assigns(stmt: Stmt) -> list[AssignStmt]:
    found: list[AssignStmt] = []

    class _A(IRVisitor):
        def visit_AssignStmt(self, s: AssignStmt) -> None:
            found.append(s)
            super().visit_AssignStmt(s)

    _A().visit_stmt(stmt)
    return found


def _through_gm(tile: Var, shape: tuple[int, ...], space: MemorySpace, name: str, span: Span,
                out: list[Stmt]) -> Var:
    """``tile`` (Vec) stored into a kernel-private GM workspace and loaded into ``space`` (the only way into L1)."""
    zeros = _tup([_idx(0) for _ in shape])
    ws_call = make_call("tensor.create", [], {"shape": tuple(shape), "dtype": tile.type.dtype}, span=span)
    ws = Var(f"{name}_zero_gm", ws_call.type, span)
    st = make_call("tile.store", [tile, zeros, ws], span=span)
    stored = Var(f"{name}_zero_stored", st.type, span)
    ld = make_call("tile.load", [stored, zeros, _tup([_idx(d) for d in shape])], {"target_memory": space}, span=span)
    loaded = Var(f"{name}_buf", ld.type, span)
    out += [AssignStmt(ws, ws_call, span=span), AssignStmt(stored, st, span=span), AssignStmt(loaded, ld, span=span)]
    return loaded


def _paged_gather_loop(s: AssignStmt, args: list[Expr], out: list[Stmt]) -> Var:
    """``tensor.paged_gather`` as PyPTO's ConvertTensorToTileOps page lowers it: an on-chip buffer of
    ``max_indices`` rows, filled by a loop over the indices of scalar GM reads (the index, its block-table entry)
    and one ``tile.gather_row`` DMA per row (into row i, or column i when ``is_trans``). Returns the loop's
    result tile."""
    call, span = s.value, s.value.span
    src, indices, table = args
    k = dict(call.kwargs)
    bs, col, trans = int(k["block_size"]), int(k.get("col_offset") or 0), bool(k.get("is_trans"))
    res = call.type.static_shape
    size, capacity = (res[0], res[1]) if trans else (res[1], res[0])
    space, name = k.get("target_memory") or MemorySpace.Mat, s.var.name
    count = indices.type.shape[0]
    if isinstance(count, ConstInt) and count.value == capacity:  # every row is gathered: no fill
        first = make_call("tile.create", [], {"shape": res, "dtype": call.type.dtype, "target_memory": space},
                          span=span)
        init = Var(f"{name}_buf", first.type, span)
    else:  # a run-time (or smaller) count: the rows past it are zero, as golden has them (a Vec fill)
        first = make_call("tile.full", [], {"shape": res, "dtype": call.type.dtype, "value": 0.0}, span=span)
        init = Var(f"{name}_zero" if space is not MemorySpace.Vec else f"{name}_buf", first.type, span)
    out.append(AssignStmt(init, first, span=span))
    if init.type.memory_space is not space:  # L1 is filled from GM only: the zeros go through a workspace
        init = _through_gm(init, res, space, name, span, out)
    acc0 = init
    i = Var(f"{s.var.name}_i", ScalarType(DataType.INDEX), span)
    acc = IterArg(f"{s.var.name}_acc", acc0.type, span, init=init)
    idx = Var(f"{s.var.name}_idx", ScalarType(indices.type.dtype), span)
    page = Var(f"{s.var.name}_page", ScalarType(table.type.dtype), span)
    phys = Var(f"{s.var.name}_row", ScalarType(DataType.INDEX), span)
    body: list[Stmt] = [
        AssignStmt(idx, make_call("tensor.read", [indices, _tup([i])], span=span), span=span),
        AssignStmt(page, make_call("tensor.read", [table, _tup([FloorDiv(idx, _idx(bs))])], span=span), span=span),
        AssignStmt(phys, Add(Mul(page, _idx(bs)), Mod(idx, _idx(bs))), span=span)]
    dst_off = [_idx(0), i] if trans else [i, _idx(0)]
    row = make_call("tile.gather_row", [acc, src, _tup(dst_off), _tup([phys, _idx(col)]), _tup([_idx(1), _idx(size)])],
                    {"transpose": trans}, span=span)
    nxt = Var(f"{s.var.name}_acc_next", row.type, span)
    body += [AssignStmt(nxt, row, span=span), YieldStmt((nxt,), span=span)]
    result = Var(s.var.name, acc0.type, span)
    out.append(ForStmt(i, _idx(0), indices.type.shape[0], _idx(1), (acc,), SeqStmts(tuple(body)), (result,),
                       span=span))
    return result


def _convert_structured(fn: Function) -> Function:
    lowering = _Structured(fn)
    body = lowering.block(flatten_stmts(fn.body))
    for s in body:
        if isinstance(s, ReturnStmt):
            for v in s.values:
                if isinstance(v, Var) and (v in lowering.tile.values() or v in lowering.concat):
                    raise NotSupportedError(f"function {fn.name!r} returns a computed value",
                                            span=s.span if s.span.line else None,
                                            hint="write it to an output tensor: out[:] = value")
    return fn.with_fields(body=SeqStmts(tuple(body)))


def _dynamic_window(call: Call) -> bool:
    """A slice or write at offsets that are not all constants."""
    if call.op_name not in ("tensor.slice", "tensor.assemble"):
        return False
    offs = call.args[2]
    return isinstance(offs, MakeTuple) and not all(isinstance(x, ConstInt) for x in offs.elements)


def _convert(fn: Function, target: Any) -> Function:
    stmts = _hoist(flatten_stmts(fn.body))
    region = [s for s in stmts if isinstance(s, AssignStmt) and isinstance(s.value, Call) and _is_tensor_op(s.value)]
    nested = False
    for s in stmts:
        if s not in region:
            probe = _HasTensorOps()
            probe.visit_stmt(s)
            nested |= probe.nested
    from tilefold.ir.stmt import EvalStmt, IfStmt

    aliases = any(isinstance(s, AssignStmt) and isinstance(s.value, Var) and isinstance(s.value.type, TensorType)
                  for s in stmts)
    # tile-level / scalar statements between tensor-level ops: lowered in order by the structured path
    first_op = stmts.index(region[0]) if region else len(stmts)
    interleaved = any(s not in region and not isinstance(s, ReturnStmt) for s in stmts[first_op:])
    # ops lowered to loops or reading GM themselves (paged_gather, gather_row, create_l1) take the structured path
    own = any(any(k in (op_of(s.value).extra or {}) for k in ("lowering", "gm_operands", "tile_attrs"))
              for s in region)
    if (nested or aliases or interleaved or own or any(_dynamic_window(s.value) for s in region)) \
            and all(isinstance(s, (AssignStmt, EvalStmt, ForStmt, IfStmt, ReturnStmt, WhileStmt, YieldStmt))
                    for s in stmts):
        return _convert_structured(fn)  # loops, ifs, dynamic windows: whole-value tiles, carried tiles
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
    # a whole tensor of dynamic non-leading extent (not the source of a window, nor the target of a write)
    grid = any(_dynamic_axis(a.type) is not None for st in region for i, a in enumerate((*st.value.args, st.var))
               if isinstance(a, Var) and not (st.value.op_name in ("tensor.slice", "tensor.assemble")
                                              and (i == 0 or a is st.var)))
    lowering: Any = (_DynamicGrid if grid else _Lowering)(fn, region, target)
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
    """The ConvertTensorToTileOps pass for ``target`` (a name or ``Target``; default Ascend910B), the field of
    ``ConvertTensorToTileOpsOptions`` (checked)."""
    tgt = get_target(parse_options(ConvertTensorToTileOpsOptions, target=target).target)

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
    """OutlineHierarchyScopes, OutlineIncoreScopes, InlineOrchestrationCalls, ConvertTensorToTileOps: what runs
    before the tile pipeline on tensor-level programs."""
    from tilefold.passes.inline_orchestration_calls import inline_orchestration_calls
    from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes
    from tilefold.passes.tensor_lowering.outline_incore_scopes import outline_incore_scopes

    return [outline_hierarchy_scopes(), outline_incore_scopes(), inline_orchestration_calls(),
            convert_tensor_to_tile_ops(target)]


__all__ = ["ConvertTensorToTileOpsOptions", "convert_tensor_to_tile_ops", "is_tensor_level", "tensor_level_passes"]
