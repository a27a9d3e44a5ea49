"""VerifySplitAivRegions: the placement rules of a mixed kernel that opens ``pl.split_aiv`` regions (PyPTO's
language/04-scopes, "Clusters and AIV lanes" and "Name every tile that crosses a region edge"). See
docs/passes/verify_split_aiv_regions.md.

A region is a ``ForStmt`` over ``range(0, 2)`` with the ``split_aiv`` attribute (``ops/cross_core_ops.py``). Once an
InCore function holds one, the regions own the placement of vector work:

- a vector op (registry unit VECTOR, or any op whose result is a Vec tile) outside every region is an error;
- a cube op (unit CUBE, or a result in Mat / Left / Right / Acc / Bias other than ``pl.aic_gather``'s) inside a
  region is an error;
- a tile produced outside every region and read inside one other than through ``pl.aiv_shard`` (an unnamed C->V
  crossing), and a tile computed in a region and read after it other than as a ``pl.aic_gather`` result (an
  unnamed V->C crossing), are errors naming the value and the op that reads it;
- ``pl.aiv_shard`` / ``pl.aic_gather`` sit at the top level of a region (the transfer runs once per region
  execution: ``backend/cross_core.py`` hoists the shard's push before the region and the gather's pop after it),
  with the region's split; a gather result is not read inside its region (it lives on the cube);
- regions do not nest, carry only tensors (written through) and gathered tiles out, and do not mix with a
  ``pl.split(...)`` request on the same kernel (PyPTO: auto and manual split on one scope);
- the pipes' set-up (``pl.reserve_buffer`` / ``pl.import_peer_buffer`` / ``pl.a*_initialize_pipe``) follows the
  rules of ``ops/pipe_setup.ring_plan``: at the kernel's top level, both ends agreeing, tiles within slot_size,
  every pipe used set up once any is.

The pass changes nothing; it raises a located ``TilefoldError`` (or ``NotSupportedError``) with a fix hint.
"""

from __future__ import annotations

from typing import Any

from tilefold.errors import NotSupportedError, Span, TilefoldError
from tilefold.ir.expr import Call, ConstInt, Expr, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
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
from tilefold.ir.types import MemorySpace, ScalarType, TileType
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.ops import OpKind, Unit, op_of
from tilefold.ops.cross_core_ops import BOUNDARY_OPS, MODE_OF_SPLIT, PIPE_OPS, region_split
from tilefold.ops.pipe_setup import ring_plan
from tilefold.passes.base import Pass, function_pass

_CUBE_SPACES = (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias)
_WRAP = "wrap that phase in `for _ in pl.split_aiv(2, mode=pl.SplitMode.NONE):`"
OUTSIDE, LANE, GATHERED, UNGATHERED, CARRIED = "outside", "lane", "gathered", "ungathered", "carried"


def has_split_aiv_regions(fn: Function) -> bool:
    """Does ``fn``'s body hold a pl.split_aiv region (at any depth)?"""
    stack = list(flatten_stmts(fn.body))
    while stack:
        s = stack.pop()
        if region_split(s) is not None:
            return True
        for sub in (getattr(s, "body", None), getattr(s, "then_body", None), getattr(s, "else_body", None)):
            stack.extend(flatten_stmts(sub))
    return False


def _span(node: Any) -> Span | None:
    span = getattr(node, "span", None)
    return span if span is not None and span.line else None


def _result_space(call: Call) -> MemorySpace | None:
    t = call.type
    return t.memory_space if isinstance(t, TileType) else None


class _Checker:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.where: dict[Var, str] = {p: OUTSIDE for p in fn.params}
        self.producer: dict[Var, str] = {}

    # statements -------------------------------------------------------------------------------------
    def walk(self, body: Stmt | None, region: ForStmt | None) -> None:
        for s in flatten_stmts(body):
            if isinstance(s, AssignStmt):
                self.value(s.value, region, s, top=False)
                self.define(s.var, region, s.value)
            elif isinstance(s, EvalStmt):
                self.value(s.expr, region, s, top=False)
            elif isinstance(s, ForStmt) and region_split(s) is not None:
                self.region(s, region)
            elif isinstance(s, (ForStmt, WhileStmt)):
                self.loop(s, region)
            elif isinstance(s, IfStmt):
                self.uses(s.condition, region, None, s)
                self.walk(s.then_body, region)
                self.walk(s.else_body, region)
                for rv in s.return_vars:
                    self.where[rv] = LANE if region is not None else OUTSIDE
            elif isinstance(s, (YieldStmt, ReturnStmt)):
                for v in s.values:
                    self.uses(v, region, None, s)

    def loop(self, s: ForStmt | WhileStmt, region: ForStmt | None) -> None:
        side = LANE if region is not None else OUTSIDE
        for ia in s.iter_args:
            if ia.init is not None:
                self.uses(ia.init, region, None, s)
            self.where[ia] = side
        if isinstance(s, ForStmt):
            self.where[s.loop_var] = side
            for e in (s.start, s.stop, s.step):
                self.uses(e, region, None, s)
        else:
            self.uses(s.condition, region, None, s)
        self.walk(s.body, region)
        for rv in s.return_vars:
            self.where[rv] = side

    def define(self, var: Var, region: ForStmt | None, value: Expr) -> None:
        op = op_of(value)
        if region is None:
            self.where[var] = OUTSIDE
        else:
            self.where[var] = GATHERED if op is not None and op.name == "tile.aic_gather" else LANE
        if op is not None:
            self.producer[var] = op.name

    # one op ----------------------------------------------------------------------------------------
    def value(self, e: Expr, region: ForStmt | None, s: Stmt, top: bool) -> None:
        op = op_of(e)
        if op is None:
            self.uses(e, region, None, s)
            return
        call: Call = e  # type: ignore[assignment]
        where = _span(call) or _span(s)
        if op.extra.get("pipe_setup"):  # checked (and placed at the kernel's top level) by ring_plan
            if region is not None:
                raise TilefoldError(f"pl.{op.name[5:]} belongs at the top level of the kernel, not in a pl.split_aiv "
                                    "region", span=where, hint="set pipes up once, before the regions that use them")
            return
        if op.name in PIPE_OPS:
            self.pipe_op(op.name, region, where)
        elif op.kind is OpKind.CROSS_CORE and not top:
            raise TilefoldError(f"pl.{op.name.split('.')[1]} belongs at the top level of a pl.split_aiv region",
                                span=where, hint="call it directly in the region's body, not inside a loop, an if "
                                                 "or outside the region")
        space = _result_space(call)
        if region is None and (op.unit is Unit.VECTOR or space is MemorySpace.Vec):
            raise TilefoldError(f"vector op '{op.name}' sits outside every pl.split_aiv region", span=where,
                                hint=f"the function opens a region, so the regions own vector placement: {_WRAP}")
        if region is not None and op.kind is not OpKind.CROSS_CORE and (
                op.unit is Unit.CUBE or op.kind is OpKind.MATMUL or space in _CUBE_SPACES):
            raise TilefoldError(f"cube op '{op.name}' inside a pl.split_aiv region", span=where,
                                hint="a region body is AIV work: move the cube op (pl.matmul, loads into Mat / Left /"
                                     " Right) out of the region")
        self.uses(e, region, op.name, s)

    @staticmethod
    def pipe_op(name: str, region: ForStmt | None, where: Span | None) -> None:
        side = PIPE_OPS[name][1]
        if side == "lane" and region is None:
            raise TilefoldError(f"pl.{name[5:]} runs on a vector lane, outside every pl.split_aiv region", span=where,
                                hint="call it inside `for aiv_id in pl.split_aiv(2, mode=...)`")
        if side == "cube" and region is not None:
            raise TilefoldError(f"pl.{name[5:]} runs on the cube, inside a pl.split_aiv region", span=where,
                                hint="call it before or after the region (a region body is AIV work)")

    def uses(self, e: Expr, region: ForStmt | None, reader: str | None, s: Stmt) -> None:
        op = op_of(e)
        for i, arg in enumerate(getattr(e, "args", ()) if op is not None else ()):
            if isinstance(arg, Var):
                self.use(arg, region, reader, s, e, shard=op is not None and op.name == "tile.aiv_shard" and i == 0)
                continue
            inner = op_of(arg)
            if inner is not None and inner.name in BOUNDARY_OPS:
                raise TilefoldError(f"pl.{inner.name.split('.')[1]} belongs at the top level of a pl.split_aiv "
                                    "region, bound to a name", span=_span(arg) or _span(s),
                                    hint=f"write `h = pl.{inner.name.split('.')[1]}(x)` as its own statement")
            self.uses(arg, region, reader, s)
        if op is None:
            for v in collect_uses(e):
                self.use(v, region, reader, s, e, shard=False)

    def use(self, v: Var, region: ForStmt | None, reader: str | None, s: Stmt, e: Expr, shard: bool) -> None:
        side = self.where.get(v)
        what = f"'{reader}'" if reader else "a statement"
        where = _span(e) or _span(s)
        if region is not None and side == OUTSIDE and isinstance(v.type, TileType) and not shard:
            made = self.producer.get(v, "the cube")
            raise TilefoldError(f"'{v.name}' is produced on the CUBE lane (by '{made}') outside every pl.split_aiv "
                                f"region, but {what} reads it on the VECTOR lane inside one", span=where,
                                hint=f"read it as pl.aiv_shard({v.name}) at the top of the region")
        if region is not None and shard and side != OUTSIDE:
            raise TilefoldError(f"pl.aiv_shard({v.name}): '{v.name}' is computed inside the region, not on the cube",
                                span=where, hint="pl.aiv_shard brings a cube tile produced before the region in")
        if region is not None and side == CARRIED:
            raise TilefoldError(f"'{v.name}' is carried into a pl.split_aiv region, but the two lanes run in "
                                "parallel: neither sees the other's value", span=where,
                                hint="a region carries only tensors written through and pl.aic_gather results")
        if region is not None and side == GATHERED:
            raise TilefoldError(f"'{v.name}' is a pl.aic_gather result: it lives on the cube and is read after the "
                                "region, not inside it", span=where,
                                hint="use the vector value inside the region; read the gathered one after it")
        if region is None and side == UNGATHERED:
            raise TilefoldError(f"'{v.name}' is defined inside a pl.split_aiv region but {what} reads it on the "
                                "CUBE lane outside", span=where,
                                hint=f"gather it inside the region: `{v.name} = pl.aic_gather({v.name})`")

    # one region ------------------------------------------------------------------------------------
    def region(self, s: ForStmt, outer: ForStmt | None) -> None:
        split = region_split(s)
        if outer is not None:
            raise TilefoldError("pl.split_aiv regions cannot nest", span=_span(s), hint="close the outer region first")
        if split not in MODE_OF_SPLIT or s.kind is not ForKind.Sequential or not all(
                isinstance(e, ConstInt) and e.value == want for e, want in ((s.start, 0), (s.stop, 2), (s.step, 1))):
            raise TilefoldError("a pl.split_aiv region runs over the two lanes: range(0, 2) with split 0, 1 or 2",
                                span=_span(s), hint="for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):")
        y = final_yield(s.body)
        gathered_top = {st.var for st in flatten_stmts(s.body)
                        if isinstance(st, AssignStmt) and getattr(op_of(st.value), "name", "") == "tile.aic_gather"}
        for ia in s.iter_args:
            if ia.init is not None:
                self.uses(ia.init, None, None, s)
            self.where[ia] = OUTSIDE if not isinstance(ia.type, TileType) else CARRIED
        self.where[s.loop_var] = LANE
        self.check_boundary_calls(s, split)
        self.walk_region_body(s)
        for i, (ia, rv) in enumerate(zip(s.iter_args, s.return_vars, strict=False)):
            yielded = y.values[i] if y is not None and i < len(y.values) else None
            if isinstance(ia.type, TileType):
                self.where[rv] = OUTSIDE if yielded in gathered_top else UNGATHERED
            elif isinstance(ia.type, ScalarType):
                raise TilefoldError(f"scalar '{rv.name}' leaves a pl.split_aiv region: each lane has its own value",
                                    span=_span(s), hint="only written-through tensors and pl.aic_gather results "
                                                        "leave a region")
            else:
                self.where[rv] = OUTSIDE

    def walk_region_body(self, s: ForStmt) -> None:
        for st in flatten_stmts(s.body):
            op = op_of(st.value) if isinstance(st, AssignStmt) else None
            if op is not None and op.kind is OpKind.CROSS_CORE:
                self.value(st.value, s, st, top=True)
                self.define(st.var, s, st.value)
            elif isinstance(st, YieldStmt):
                continue  # the region's results: checked where they are read
            else:
                self.walk_one(st, s)

    def walk_one(self, st: Stmt, region: ForStmt) -> None:
        self.walk(SeqStmts((st,)), region)

    def check_boundary_calls(self, s: ForStmt, split: int) -> None:
        for st in flatten_stmts(s.body):
            op = op_of(st.value) if isinstance(st, AssignStmt) else None
            if op is not None and op.name in BOUNDARY_OPS and st.value.kwarg("split") != split:
                raise TilefoldError(f"{op.name} has split={st.value.kwarg('split')} in a region of split {split} "
                                    f"({MODE_OF_SPLIT[split]})", span=_span(st.value) or _span(st),
                                    hint="a boundary op takes its region's split")


def _first_cross_core_call(fn: Function) -> Call | None:
    """The first call of a cross-core op (``OpKind.CROSS_CORE``) in ``fn``."""

    class _Find(IRVisitor):
        found: Call | None = None

        def visit_Call(self, expr: Call) -> None:
            op = op_of(expr)
            if self.found is None and op is not None and op.kind is OpKind.CROSS_CORE:
                self.found = expr
            super().visit_Call(expr)

    v = _Find()
    v.visit_stmt(fn.body)
    return v.found


def _run(fn: Function, program: Program) -> Function:
    regions = has_split_aiv_regions(fn)
    xcall = None if regions else _first_cross_core_call(fn)
    if not regions and xcall is None:
        return fn
    if fn.func_type is not FunctionType.InCore:
        what = "pl.split_aiv regions" if regions else f"pl.{xcall.op_name[5:]}"
        raise NotSupportedError(f"{what} in {fn.func_type.value} function {fn.name!r}",
                                span=_span(fn) if regions else (_span(xcall) or _span(fn)),
                                hint="write the cube and the vector side in one mixed (InCore) kernel -- a pl.at "
                                     "scope or an InCore function -- with pl.split_aiv regions for the vector side; "
                                     "separate AIC / AIV kernels co-scheduled on one cluster are not modelled")
    if fn.attr("sub_block_split") is not None:
        raise TilefoldError(f"kernel {fn.name!r} both requests pl.split(...) and opens pl.split_aiv regions",
                            span=_span(fn), hint="use one: the regions split the vector work themselves (PyPTO "
                                                 "rejects any pl.split, NONE included, on a scope with regions)")
    _Checker(fn).walk(fn.body, None)
    ring_plan(fn)  # the pipes' set-up, when the kernel has one (ops/pipe_setup.py)
    return fn


def verify_split_aiv_regions() -> Pass:
    return function_pass("VerifySplitAivRegions", _run, cli_name="verify-split-aiv-regions")


__all__ = ["has_split_aiv_regions", "verify_split_aiv_regions"]
