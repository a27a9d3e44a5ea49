"""InferTileMemorySpace: give every tile a memory space and make producers agree with consumers.

Contract
--------
* Required: ``TileOps2D``. Produced: ``TileMemoryInferred`` (every tile-typed variable, iter arg, return var
  and call result in an InCore / AIC / AIV function has a memory space). Invalidated: nothing.
* Demand (backward): each op operand with a placement rule asks for a memory space. The rules come from
  registry facts: operands of ``OpKind.MATMUL`` ops are placed by parameter role (``lhs`` -> Left,
  ``rhs`` -> Right, ``acc`` -> Acc, ``bias`` -> Bias); tile operands of vector-unit ops ask for Vec.
  Demand flows from a view result to its source (views share the source's storage, ``MemoryRule.INHERIT``),
  from an iter arg to its initial value and from loop / if results to the yielded values. Demand only
  decides tiles whose memory no forward rule fixes.
* Assignment (forward): results take their op's memory rule (``target_memory`` kwarg, fixed space, or the
  inherited operand's space); tiles left open take their demand, else Vec (a tile nobody constrains is a
  vector tile). Iter args take their initial value's space; a yielded value in another space is moved
  before the yield. If results take the then-branch's space when the else branch can reach it (else the
  demanded or the else-branch space); the other branch moves to it.
* Repair: where an operand's space differs from what its consumer needs, a ``tile.move(x, target_memory=..)``
  is inserted before the consumer (reused within a block) when the target has that data path — e.g. a
  Mat tile fed whole to a matmul moves to Left / Right. In a mixed (InCore) kernel a missing path is routed
  through a kernel-private GM workspace when both legs exist (an Acc tile into a vector op on a chip without
  L0C -> UB; a Vec tile into the cube via GM -> L1 -> L0), as PyPTO's cross-core pipe does on A2/A3.
  Otherwise (e.g. in an AIC kernel) the pass raises ``TypeInferenceError`` with a fix hint.
* Producers: a GM load into a space without a GM -> space data path (e.g. Left) and a vector-unit op whose
  result is placed outside Vec (e.g. ``tile.full(..., target_memory=pl.Mem.Acc)``) raise ``NotSupportedError``
  at the op: either would trap on the device.
* Capacity: a single tile (an op result or a moved operand) larger than the whole of its non-Vec memory space
  (Acc padded to NZ fractals) raises ``NotSupportedError`` at the op's source location, naming the space and
  the sizes, instead of failing later in memory planning at the function. Vec is left to memory planning
  (TileAndBindSubBlock may still halve Vec tiles).
"""

from __future__ import annotations

from typing import Any

from tilefold.errors import NotSupportedError, Span, TypeInferenceError
from tilefold.ir.expr import Call, ConstInt, Expr, IterArg, MakeTuple, TupleGetItem, Var
from tilefold.ir.names import name_supply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
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
)
from tilefold.ir.types import MemorySpace, TileType, TupleType, Type, canonical_tile_view
from tilefold.ops import MemoryRuleKind, OpKind, Unit, make_call, op_of
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.passes.option_records import InferTileMemorySpaceOptions
from tilefold.passes.options import parse_options

Mem = MemorySpace

# operand role (registry parameter name) of a cube op -> the L0 buffer the cube reads it from
#: (MX matmuls: a scale tile lives beside its data tile, ops/mx_ops.py)
_CUBE_ROLES = {"lhs": Mem.Left, "rhs": Mem.Right, "acc": Mem.Acc, "bias": Mem.Bias, "lhs_scale": Mem.Left,
               "rhs_scale": Mem.Right}


def infer_tile_memory_space(target: Any = None) -> Pass:
    """Factory of InferTileMemorySpace; ``target`` is the field of ``InferTileMemorySpaceOptions`` (checked)."""
    opts = parse_options(InferTileMemorySpaceOptions, target=target)

    def run(fn: Function, program: Program) -> Function:
        return _Inferer(fn, opts.target).run()

    return function_pass(
        "InferTileMemorySpace", run, required=(IRProperty.TileOps2D,), produced=(IRProperty.TileMemoryInferred,),
        cli_name="infer-tile-memory-space",
    )


def operand_demands(call: Call) -> list[tuple[int, MemorySpace]]:
    """(operand index, required memory space) for every operand of ``call`` whose placement is fixed."""
    op = op_of(call)
    if op is None:
        return []
    out: list[tuple[int, MemorySpace]] = []
    if op.kind is OpKind.MATMUL:
        for i, p in enumerate(op.operand_params[:len(call.args)]):
            mem = _CUBE_ROLES.get(p.name)
            if mem is not None and isinstance(call.args[i].type, TileType):
                out.append((i, mem))
        return out
    if op.unit is Unit.VECTOR and op.kind is not OpKind.CREATE:
        for i, a in enumerate(call.args):
            if isinstance(a.type, TileType):
                out.append((i, Mem.Vec))
    return out


def _tile(t: Type) -> TileType | None:
    return t if isinstance(t, TileType) else None


def _with_mem(t: Type, mem: MemorySpace) -> Type:
    if isinstance(t, TileType) and t.memory_space is not mem:
        return TileType(t.shape, t.dtype, mem, t.memref, canonical_tile_view(t.shape, mem, t.tile_view))
    return t


class _Inferer:
    def __init__(self, fn: Function, target: Any) -> None:
        self.fn = fn
        self.target = _resolve_target(target)
        self.demand: dict[Var, MemorySpace] = {}
        self.vmap: dict[Var, Expr] = {}
        self._names = name_supply(fn)

    # ------------------------------------------------------------------------------------ demand
    def collect_demand(self) -> None:
        links: dict[Var, list[Var]] = {}  # var -> vars that should inherit its demand

        def link(src: Expr, dst: Expr) -> None:
            if isinstance(src, Var) and isinstance(dst, Var):
                links.setdefault(src, []).append(dst)

        def ask(e: Expr, mem: MemorySpace) -> None:
            if isinstance(e, Var) and e not in self.demand:
                self.demand[e] = mem

        def visit(s: Stmt, returns: tuple[Var, ...] = ()) -> None:
            if isinstance(s, SeqStmts):
                for x in s.stmts:
                    visit(x, returns)
            elif isinstance(s, (AssignStmt, EvalStmt)):
                value = s.value if isinstance(s, AssignStmt) else s.expr
                if isinstance(value, Call):
                    for i, mem in operand_demands(value):
                        ask(value.args[i], mem)
                    op = op_of(value)
                    if isinstance(s, AssignStmt) and op is not None and op.memory.kind is MemoryRuleKind.INHERIT:
                        if op.memory.operand < len(value.args):
                            link(s.var, value.args[op.memory.operand])
                elif isinstance(s, AssignStmt) and isinstance(value, Var):
                    link(s.var, value)
            elif isinstance(s, (ForStmt, WhileStmt)):
                for ia, rv in zip(s.iter_args, s.return_vars, strict=True):
                    if ia.init is not None:
                        link(ia, ia.init)
                    link(rv, ia)
                visit(s.body, tuple(s.iter_args))
            elif isinstance(s, IfStmt):
                visit(s.then_body, tuple(s.return_vars))
                if s.else_body is not None:
                    visit(s.else_body, tuple(s.return_vars))
            elif isinstance(s, YieldStmt):
                for target, v in zip(returns, s.values, strict=False):
                    link(target, v)

        visit(self.fn.body)
        work = list(self.demand)
        while work:
            v = work.pop()
            for dst in links.get(v, ()):
                if dst not in self.demand:
                    self.demand[dst] = self.demand[v]
                    work.append(dst)

    # ------------------------------------------------------------------------------------ rewrite
    def run(self) -> Function:
        self.collect_demand()
        params = []
        for p in self.fn.params:
            t = _tile(p.type)
            if t is not None and t.memory_space is None:
                new = Var(p.name, _with_mem(t, self.demand.get(p, Mem.Vec)), p.span)
                self.vmap[p] = new
                params.append(new)
            else:
                params.append(p)
        body = self.block(self.fn.body, {})
        if body is self.fn.body and all(a is b for a, b in zip(params, self.fn.params, strict=True)):
            return self.fn
        return self.fn.with_fields(params=tuple(params), body=body)

    def fresh(self, base: str) -> str:
        return self._names.fresh(base)

    def sub(self, e: Expr) -> Expr:
        if isinstance(e, Var):
            return self.vmap.get(e, e)
        if isinstance(e, MakeTuple):
            elems = tuple(self.sub(x) for x in e.elements)
            return e if all(a is b for a, b in zip(elems, e.elements, strict=True)) else MakeTuple(elems)
        if isinstance(e, TupleGetItem):
            t = self.sub(e.tuple_value)
            return e if t is e.tuple_value else TupleGetItem(t, e.index)
        if isinstance(e, Call):
            args = tuple(self.sub(a) for a in e.args)
            return e if all(a is b for a, b in zip(args, e.args, strict=True)) else e.with_fields(args=args)
        return e

    def block(self, body: Stmt, moves: dict[tuple[Var, MemorySpace], Var]) -> Stmt:
        stmts = body.stmts if isinstance(body, SeqStmts) else (body,)
        moves = dict(moves)  # moves made in an enclosing block stay visible; ours do not leak out
        out: list[Stmt] = []
        changed = False
        for s in stmts:
            new = self.stmt(s, out, moves)
            changed = changed or len(new) != 1 or new[0] is not s
            out.extend(new)
        if not changed:
            return body
        return SeqStmts(tuple(out))

    def stmt(self, s: Stmt, prefix: list[Stmt], moves: dict) -> list[Stmt]:
        if isinstance(s, AssignStmt):
            return self.assign(s, moves)
        if isinstance(s, EvalStmt):
            if isinstance(s.expr, Call) and op_of(s.expr) is not None:
                pre: list[Stmt] = []
                call = self.call(s.expr, None, pre, moves, s.span)
                return pre + [s if call is s.expr else s.with_fields(expr=call)]
            e = self.sub(s.expr)
            return [s if e is s.expr else s.with_fields(expr=e)]
        if isinstance(s, (YieldStmt, ReturnStmt)):
            vals = tuple(self.sub(v) for v in s.values)
            return [s if all(a is b for a, b in zip(vals, s.values, strict=True)) else s.with_fields(values=vals)]
        if isinstance(s, (ForStmt, WhileStmt)):
            return self.loop(s, moves)
        if isinstance(s, IfStmt):
            return self.if_stmt(s, moves)
        if isinstance(s, SeqStmts):
            b = self.block(s, moves)
            return list(b.stmts) if isinstance(b, SeqStmts) else [b]
        return [s]

    def resolve(self, var: Var | None, t: Type) -> Type:
        """A tile type with its memory space filled in (demand of ``var``, else Vec)."""
        if isinstance(t, TileType) and t.memory_space is None:
            return _with_mem(t, self.demand.get(var, Mem.Vec) if var is not None else Mem.Vec)
        if isinstance(t, TupleType):
            return TupleType(tuple(self.resolve(None, x) for x in t.types))
        return t

    def bind(self, s: AssignStmt, value: Expr) -> AssignStmt:
        t = self.resolve(s.var, value.type)
        var = s.var
        old = s.var.type
        if isinstance(old, (TileType, TupleType)) or isinstance(t, (TileType, TupleType)):
            if not _same_type(old, t):
                var = Var(s.var.name, t, s.var.span)
                self.vmap[s.var] = var
        if var is s.var and value is s.value:
            return s
        return s.with_fields(var=var, value=value)

    def assign(self, s: AssignStmt, moves: dict) -> list[Stmt]:
        if isinstance(s.value, Call) and s.value.op_name == "tile.matmul_acc":
            acc = _tile(self.sub(s.value.args[0]).type)
            if acc is not None and acc.memory_space is Mem.Vec and not self.has_path(Mem.Vec, Mem.Acc):
                return self.vector_accumulate(s, acc, moves)
        pre: list[Stmt] = []
        if isinstance(s.value, Call) and op_of(s.value) is not None:
            value: Expr = self.call(s.value, s.var, pre, moves, s.span)
        else:
            value = self.sub(s.value)
        new = self.bind(s, value)
        if isinstance(value, Call):
            op = op_of(value)
            if op is not None and not op.is_view:
                self.check_producer(new.var.type, value, s.span)
                self.check_capacity(new.var.type, value, s.span)
        return pre + [new]

    def vector_accumulate(self, s: AssignStmt, acc: TileType, moves: dict) -> list[Stmt]:
        """``matmul_acc(acc, a, b)`` whose accumulator lives in Vec (a ``pl.full`` start, a vector result, as
        PyPTO allows: "an accumulator you allocated separately"): only a matmul can fill Acc and no path leads
        from Vec to Acc, so the product is computed on its own (``tile.matmul``, FP32 like the accumulation) and
        added by the vector unit (``tile.add``): the same value, the accumulator staying in Vec."""
        c = s.value
        assert isinstance(c, Call)
        span = s.span if s.span.line else None
        mm = make_call("tile.matmul", tuple(c.args[1:]), {"out_dtype": acc.dtype}, span=c.span)
        product = Var(self.fresh(f"{s.var.name}_product"), mm.type, s.var.span)
        out = self.assign(AssignStmt(product, mm, span=span) if span else AssignStmt(product, mm), moves)
        add = make_call("tile.add", (c.args[0], product), {}, span=c.span)
        out += self.assign(AssignStmt(s.var, add, span=span) if span else AssignStmt(s.var, add), moves)
        return out

    def check_producer(self, t: Type, c: Call, span: Span | None) -> None:
        """The unit that runs ``c`` must be able to write its result's memory space: a GM load needs a
        GM -> space data path, and the vector unit writes only Vec. Otherwise the program would trap on the
        device (e.g. ``tile.load(..., target_memory=pl.Mem.Left)``, ``tile.full(..., target_memory=pl.Mem.Acc)``),
        so say so here, at the op."""
        op = op_of(c)
        tt = _tile(t)
        if op is None or tt is None or tt.memory_space is None:
            return
        mem = tt.memory_space
        where = span if span is not None and span.line else (c.span if c.span.line else None)
        if op.kind is OpKind.LOAD and mem is not Mem.DDR and not self.has_path(Mem.DDR, mem):
            tname = self.target.name
            raise NotSupportedError(
                f"{c.op_name} cannot load from GM into {mem.name}: {tname} has no GM -> {mem.name} data path",
                span=where, hint=_load_hint(mem))
        if op.unit is Unit.VECTOR and mem is not Mem.Vec:
            raise NotSupportedError(
                f"{c.op_name} runs on the vector unit, which writes only Vec, so its result cannot be produced in "
                f"{mem.name} (target_memory=pl.Mem.{mem.name})", span=where, hint=_vector_result_hint(mem))

    def check_capacity(self, t: Type, c: Call, span: Span | None, what: str = "its result") -> None:
        """A single tile larger than its whole (non-Vec) memory space can never be placed: say so at the op.
        Vec tiles are left to memory planning (TileAndBindSubBlock may still halve them)."""
        tt = _tile(t)
        if tt is None or tt.memory_space in (None, Mem.Vec, Mem.DDR):
            return
        shape = tt.static_shape
        if shape is None or len(shape) != 2:
            return
        mem = tt.memory_space
        rows, cols = shape
        if mem is Mem.Acc:  # NZ layout: whole fractals
            fr, fc = self.target.acc_fractal
            rows, cols = -(-rows // fr) * fr, -(-cols // fc) * fc
        need = tt.dtype.nbytes(rows * cols)
        try:
            capacity = self.target.capacity(mem)
        except NotSupportedError:
            return
        if need <= capacity:
            return
        raise NotSupportedError(
            f"{c.op_name}: {what}, a [{shape[0]}, {shape[1]}] {tt.dtype.name} tile, does not fit in {mem.name}: "
            f"it needs {need} bytes but {self.target.name} has {capacity} bytes of {mem.name}",
            span=span if span is not None and span.line else (c.span if c.span.line else None),
            hint=_capacity_hint(mem))

    def call(self, c: Call, var: Var | None, pre: list[Stmt], moves: dict, span: Span | None) -> Call:
        op = op_of(c)
        assert op is not None
        args = list(self.sub(a) for a in c.args)
        for i, mem in operand_demands(c):
            args[i] = self.place(args[i], mem, c, i, pre, moves, span)
        if op.kind is OpKind.STORE:
            self.check_store(args[0], c, span)
        kw = dict(c.kwargs)
        changed = any(a is not b for a, b in zip(args, c.args, strict=True))
        t = c.type
        if not changed and not _open(t):
            return c
        if op.memory.kind is MemoryRuleKind.KWARG and kw.get("target_memory") is None:
            new = make_call(c.op_name, tuple(args), kw)
            if _open(new.type):
                kw["target_memory"] = self.demand.get(var, Mem.Vec) if var is not None else Mem.Vec
                new = make_call(c.op_name, tuple(args), kw)
        else:
            new = make_call(c.op_name, tuple(args), kw)
        if _open(new.type):
            new = new.with_fields(type=self.resolve(var, new.type))
        return new.with_fields(span=c.span)

    def place(self, e: Expr, mem: MemorySpace, c: Call, index: int, pre: list[Stmt], moves: dict,
              span: Span | None) -> Expr:
        t = _tile(e.type)
        if t is None or t.memory_space is mem or t.memory_space is None:
            return e
        key = (e, mem) if isinstance(e, Var) else None
        if key is not None and key in moves:
            return moves[key]
        src = t.memory_space
        if not self.has_path(src, mem) and self.can_bounce(t, src, mem):
            v = self.bounce_through_gm(e, t, mem, c, index, pre, span)
            if key is not None:
                moves[key] = v
            return v
        if not self.has_path(src, mem):
            raise TypeInferenceError(
                f"{c.op_name} needs operand #{index} in {mem.name}, but it lives in {src.name} and the target has "
                f"no {src.name} -> {mem.name} data path", span=span if span is not None and span.line else None,
                hint=_hint(src, mem))
        mv = make_call("tile.move", (e,), {"target_memory": mem})
        self.check_capacity(mv.type, c, span, f"operand #{index} (moved to {mem.name})")
        v = Var(self.fresh(f"{getattr(e, 'name', 'tile')}_{mem.name.lower()}"), mv.type)
        pre.append(AssignStmt(v, mv) if span is None else AssignStmt(v, mv, span=span))
        if key is not None:
            moves[key] = v
        return v

    def can_bounce(self, t: TileType, src: MemorySpace, mem: MemorySpace) -> bool:
        """A mixed (InCore) kernel may route a tile the chip cannot move on chip through GM, as PyPTO's
        cross-core pipe does on A2/A3 (cube result -> GM -> vector unit, vector result -> GM -> L1 -> cube)."""
        return (self.fn.func_type is FunctionType.InCore and t.static_shape is not None
                and self.has_path(src, Mem.DDR) and self.gm_landing(mem) is not None)

    def gm_landing(self, mem: MemorySpace) -> MemorySpace | None:
        """Where a tile loaded from GM lands on its way to ``mem``: ``mem`` itself, else a space one on-chip
        move away (Mat for Left / Right: GM -> L1 -> L0)."""
        if self.has_path(Mem.DDR, mem):
            return mem
        for via in (Mem.Mat, Mem.Vec):
            if self.has_path(Mem.DDR, via) and self.has_path(via, mem):
                return via
        return None

    def bounce_through_gm(self, e: Expr, t: TileType, mem: MemorySpace, c: Call, index: int, pre: list[Stmt],
                          span: Span | None) -> Var:
        """``ws = tensor.create(shape)``, ``tile.store(e, 0, ws)``, ``tile.load(ws, 0, shape)`` (then a
        ``tile.move`` if the load lands one hop short) before ``c``: the workspace is kernel-private GM (one
        per block, see ``PTOKernel.workspaces``)."""
        shape = tuple(ConstInt(d) for d in t.static_shape)  # type: ignore[union-attr]
        zeros = MakeTuple(tuple(ConstInt(0) for _ in shape))
        base = getattr(e, "name", "tile")
        steps = []
        ws_call = make_call("tensor.create", (), {"shape": tuple(t.static_shape), "dtype": t.dtype})  # type: ignore[arg-type]
        ws = Var(self.fresh(f"{base}_gm"), ws_call.type)
        steps.append(AssignStmt(ws, ws_call))
        st_call = make_call("tile.store", (e, zeros, ws))
        stored = Var(self.fresh(f"{base}_gm_stored"), st_call.type)
        steps.append(AssignStmt(stored, st_call))
        via = self.gm_landing(mem)
        assert via is not None
        ld_call = make_call("tile.load", (stored, zeros, MakeTuple(shape)), {"target_memory": via})
        self.check_capacity(ld_call.type, c, span, f"operand #{index} (reloaded into {via.name})")
        v = Var(self.fresh(f"{base}_{via.name.lower()}"), ld_call.type)
        steps.append(AssignStmt(v, ld_call))
        if via is not mem:
            mv = make_call("tile.move", (v,), {"target_memory": mem})
            self.check_capacity(mv.type, c, span, f"operand #{index} (moved to {mem.name})")
            v = Var(self.fresh(f"{base}_{mem.name.lower()}"), mv.type)
            steps.append(AssignStmt(v, mv))
        pre.extend(s if span is None else s.with_fields(span=span) for s in steps)
        return v

    def check_store(self, e: Expr, c: Call, span: Span | None) -> None:
        t = _tile(e.type)
        if t is None or t.memory_space is None or self.has_path(t.memory_space, Mem.DDR):
            return
        raise TypeInferenceError(
            f"{c.op_name} writes a {t.memory_space.name} tile to GM, but the target has no "
            f"{t.memory_space.name} -> GM data path", span=span if span is not None and span.line else None,
            hint="store Vec tiles (vector results) or Acc tiles (matmul results); L1 / L0A / L0B data cannot "
                 "be written back directly")

    def has_path(self, src: MemorySpace, dst: MemorySpace) -> bool:
        return self.target.supports_path(src, dst)

    # ------------------------------------------------------------------------------------ control flow
    def carried(self, ia: IterArg, init: Expr) -> IterArg:
        t = ia.type
        it = _tile(init.type)
        if isinstance(t, TileType):
            mem = it.memory_space if it is not None and it.memory_space is not None else \
                self.demand.get(ia, Mem.Vec)
            t = _with_mem(t, mem)
        if t is ia.type and init is ia.init:
            return ia
        new = IterArg(ia.name, t, ia.span, init=init)
        self.vmap[ia] = new
        return new

    def merged_space(self, rv: Var, t: TileType, branch_types: list[Type]) -> MemorySpace:
        """The space of an if result: the then-branch's, unless the other branch cannot reach it (e.g. an Acc
        matmul result in one branch, a Vec value in the other: Vec never moves to Acc); then the demanded
        space or another branch's space that every branch can reach."""
        spaces = [bt.memory_space for bt in branch_types if isinstance(bt, TileType) and bt.memory_space is not None]
        if not spaces:
            return self.demand.get(rv, Mem.Vec)

        def reachable(dst: MemorySpace) -> bool:
            return all(sp is dst or self.has_path(sp, dst) or self.can_bounce(t, sp, dst) for sp in spaces)

        demand = self.demand.get(rv)
        for cand in (spaces[0], *([demand] if demand is not None else []), *spaces[1:]):
            if reachable(cand):
                return cand
        return spaces[0]  # no common space: the move before the yield reports the missing path

    def fix_yield(self, body: Stmt, want: list[Type], moves: dict) -> Stmt:
        """Move yielded tiles whose space differs from the carried / returned one."""
        stmts = list(body.stmts) if isinstance(body, SeqStmts) else [body]
        if not stmts or not isinstance(stmts[-1], YieldStmt):
            return body
        y = stmts[-1]
        pre: list[Stmt] = []
        vals = []
        for v, t in zip(y.values, want, strict=False):
            wt = _tile(t)
            vt = _tile(v.type)
            if wt is not None and vt is not None and wt.memory_space is not None \
                    and vt.memory_space is not wt.memory_space:
                fake = make_call("tile.move", (v,), {"target_memory": wt.memory_space})
                v = self.place(v, wt.memory_space, fake, 0, pre, {}, y.span)
            vals.append(v)
        vals.extend(y.values[len(vals):])
        if not pre:
            return body
        return SeqStmts(tuple(stmts[:-1] + pre + [y.with_fields(values=tuple(vals))]))

    def loop(self, s: ForStmt | WhileStmt, moves: dict) -> list[Stmt]:
        pre: list[Stmt] = []
        iter_args = tuple(self.carried(ia, self.vector_carry(ia, self.sub(ia.init), s, pre))
                          if ia.init is not None else ia for ia in s.iter_args)
        if isinstance(s, ForStmt):
            head = dict(start=self.sub(s.start), stop=self.sub(s.stop), step=self.sub(s.step))
        else:
            head = dict(condition=self.sub(s.condition))
        body = self.block(s.body, moves)
        body = self.fix_yield(body, [ia.type for ia in iter_args], moves)
        rvs = []
        for rv, ia in zip(s.return_vars, iter_args, strict=True):
            if isinstance(rv.type, TileType) and not _same_type(rv.type, ia.type):
                new = Var(rv.name, ia.type, rv.span)
                self.vmap[rv] = new
                rvs.append(new)
            else:
                rvs.append(rv)
        same = body is s.body and all(a is b for a, b in zip(iter_args, s.iter_args, strict=True)) \
            and all(a is b for a, b in zip(rvs, s.return_vars, strict=True)) \
            and all(getattr(s, k) is v for k, v in head.items())
        if same:
            return [s]
        return pre + [s.with_fields(iter_args=iter_args, body=body, return_vars=tuple(rvs), **head)]

    def vector_carry(self, ia: IterArg, init: Expr, s: Stmt, pre: list[Stmt]) -> Expr:
        """A carried tile the body uses as a vector operand starts in Vec when its initial value lives where no
        vector result can go back (e.g. the accumulator of a first matmul before an online-softmax loop: the
        body's vector update could never be moved into Acc). The initial value moves once, before the loop."""
        it = _tile(init.type)
        if it is None or it.memory_space in (None, Mem.Vec) or self.demand.get(ia) is not Mem.Vec \
                or self.has_path(Mem.Vec, it.memory_space):
            return init
        if not (self.has_path(it.memory_space, Mem.Vec) or self.can_bounce(it, it.memory_space, Mem.Vec)):
            return init
        fake = make_call("tile.move", (init,), {"target_memory": Mem.Vec})
        return self.place(init, Mem.Vec, fake, 0, pre, {}, s.span if s.span.line else None)

    def if_stmt(self, s: IfStmt, moves: dict) -> list[Stmt]:
        cond = self.sub(s.condition)
        then_body = self.block(s.then_body, moves)
        else_body = self.block(s.else_body, moves) if s.else_body is not None else None
        then_y = final_yield(then_body)
        else_y = final_yield(else_body) if else_body is not None else None
        want: list[Type] = []
        rvs = []
        for i, rv in enumerate(s.return_vars):
            t = rv.type
            if isinstance(t, TileType):
                t = _with_mem(t, self.merged_space(rv, t, [y.values[i].type for y in (then_y, else_y)
                                                           if y is not None and i < len(y.values)]))
            want.append(t)
            if not _same_type(t, rv.type):
                new = Var(rv.name, t, rv.span)
                self.vmap[rv] = new
                rvs.append(new)
            else:
                rvs.append(rv)
        then_body = self.fix_yield(then_body, want, moves)
        if else_body is not None:
            else_body = self.fix_yield(else_body, want, moves)
        if cond is s.condition and then_body is s.then_body and else_body is s.else_body \
                and all(a is b for a, b in zip(rvs, s.return_vars, strict=True)):
            return [s]
        return [s.with_fields(condition=cond, then_body=then_body, else_body=else_body, return_vars=tuple(rvs))]


def _open(t: Type) -> bool:
    if isinstance(t, TileType):
        return t.memory_space is None
    if isinstance(t, TupleType):
        return any(_open(x) for x in t.types)
    return False


def _same_type(a: Type, b: Type) -> bool:
    if isinstance(a, TileType) and isinstance(b, TileType):
        return a.memory_space is b.memory_space and a.dtype is b.dtype and a.static_shape == b.static_shape \
            and a.static_shape is not None
    return a is b or a == b


def _resolve_target(target: Any):
    from tilefold.targets import get_target

    return get_target(target)


def _capacity_hint(mem: MemorySpace) -> str:
    if mem in (Mem.Left, Mem.Right, Mem.Acc):
        return ("load the operands with target_memory=pl.Mem.Mat and let AutoTileMatmulL0 cut the matmul into L0 "
                "pieces, or split it by hand with pl.tile.extract into pieces that fit L0A / L0B / L0C")
    if mem is Mem.Bias:
        return "split the output columns so that each bias block fits the bias table"
    return f"process the data in smaller tiles (e.g. loop over row blocks) so each {mem.name} tile fits"


def _load_hint(mem: MemorySpace) -> str:
    if mem in (Mem.Left, Mem.Right, Mem.Bias):
        return ("load cube operands with target_memory=pl.Mem.Mat; the compiler extracts them into L0A / L0B / "
                "the bias table (or write pl.tile.extract(..., target_memory=pl.Mem." + mem.name + ") yourself)")
    if mem is Mem.Acc:
        return ("Acc (L0C) is written only by the cube: compute the tile with pl.tile.matmul, or load the data "
                "into Vec (target_memory=pl.Mem.Vec) for vector work")
    return "load into Mat (cube operands) or Vec (vector operands)"


def _vector_result_hint(mem: MemorySpace) -> str:
    if mem is Mem.Acc:
        return ("an accumulator cannot be filled by the vector unit: start it with pl.tile.matmul (the first K "
                "step) and add the later steps with pl.tile.matmul_acc")
    return "produce the tile in Vec (target_memory=pl.Mem.Vec); cube operands are loaded from GM into Mat"


def _hint(src: MemorySpace, dst: MemorySpace) -> str:
    if dst is Mem.Acc:  # e.g. matmul_acc into a pl.full / vector / parameter accumulator: only the cube fills Acc
        return ("an accumulator is filled only by a matmul: start it with pl.matmul of the first K block "
                "(acc = pl.matmul(a[:, 0:K], b[0:K, :])) and add the other blocks with pl.matmul_acc; to add "
                "a value computed elsewhere, add it to the matmul result (pl.add(pl.matmul(a, b), c))")
    if dst in (Mem.Left, Mem.Right, Mem.Bias):
        return ("cube operands come from L1: load them with target_memory=pl.Mem.Mat (the compiler extracts "
                "them into L0A / L0B)")
    if src is Mem.Acc:
        return ("a matmul result can only go to GM here: store it with pl.store and load it back into Vec for "
                "vector work")
    if src in (Mem.Mat, Mem.Left, Mem.Right):
        return "vector ops read Vec tiles: load the data with target_memory=pl.Mem.Vec"
    return f"produce the tile in {dst.name} directly (target_memory=pl.Mem.{dst.name})"
