"""PTO codegen: lower a memory-planned program to a ``PTOProgram``.

Every tile variable becomes a buffer at the address AllocateMemoryAddr gave it. Ops lower by registry
facts: loads / stores to ``tload`` / ``tstore``; views to ``tsubview`` (zero copy, keeps the source pitch
and layout; reshape / reinterpret / transpose views are subviews with a new shape, dtype or layout);
``tile.extract`` / ``tile.move`` to ``textract`` / ``tmov``; the matmul family to its cube instruction
(``OpDef.pto``); every other vector-unit op to a generic vector instruction whose values the simulator
computes with the op's registry golden; block / sub-block indices and scalar arithmetic to scalar
instructions; loops and branches to structured control flow; custom ops to ``custom`` calls.

Lazy materialization (``MaterializeSubviewOperandIfNeeded``). Some consumers cannot read a subview
operand: the ``tile.col_expand_*`` family (``OpKind.COL_BROADCAST``) for any subview, and the MTE1 /
cube instructions (``textract`` and the matmul family) for a subview of Mat. Such an operand is copied by
a ``textract`` from the window of its source into the slice's *own* buffer -- the one memory planning gave
the ``tile.slice`` result, which lies inside the still-live source tile. That copy is in place on its own
input and is only safe when it is an identity copy (constant offset, contiguous window, Vec). Two modes:

- ``strict`` (default): refuse, with an internal-error message, to emit a materialization that is not an
  identity copy, that copies Mat -> Mat, or whose offset is dynamic (the guard);
- ``faithful``: emit what the unguarded upstream compiler emits, so the simulator can show the hazard
  (#1640 lands the window on row 0 of the source, #2010 repacks over the source, L1 -> L1 traps on
  Ascend910C).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.analysis.tile_layout import ConstFolder, dense_pitch, is_nz, static_dims, tile_2d, view_offset_2d
from tilefold.errors import NotSupportedError, Span, TilefoldError
from tilefold.ir.expr import (
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Max,
    Min,
    Neg,
    Not,
    TupleGetItem,
    UnaryExpr,
    Var,
)
from tilefold.ir.names import NameSupply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    ParamDirection,
    Program,
    ReturnStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
)
from tilefold.ir.types import AtomicType, MemorySpace, ScalarType, TensorType, TileType, TupleType
from tilefold.ops import OpKind, Unit, custom_segments, op_of
from tilefold.ops.cross_core_ops import region_split
from tilefold.ops.custom.structured import custom_work_facts
from tilefold.ops.registry import position_mixing_operands, valid_shape_operands
from tilefold.targets import Target, get_target, kernel_memory_spaces, path_hint, unit_isolation_hint
from tilefold.targets.system import available_count, resolve_block_dim

from .cross_core import lower_pipe_op, lower_region
from .pipelining import lower_pipelined, plan_stages
from .pto import (
    Buffer,
    For,
    HostRead,
    If,
    Instr,
    Launch,
    PTOKernel,
    PTOProgram,
    SAssign,
    SAssignMany,
    SBin,
    SConst,
    SExpr,
    SGetVal,
    SRead,
    SReg,
    SSetVal,
    SSpecial,
    SUn,
    SWrite,
    TCustom,
    TensorParam,
    TExtract,
    TGatherRow,
    TIndirect,
    TLoad,
    TMatmul,
    TStore,
    TSubview,
    TVector,
    While,
)
from .sync import insert_syncs
from .system_sync import check_barrier_occupancy, check_barriers_outside_regions, lower_system_op

MODES = ("strict", "faithful")


class InternalCheckError(TilefoldError):
    """Codegen refused to emit code that would be wrong on the device (an INTERNAL_CHECK)."""


@dataclass
class _Handle:
    """What codegen knows about a handle name at compile time."""

    space: MemorySpace
    shape: tuple[int, int]
    pitch: int
    dtype: Any
    layout: str
    address: int | None  # static address when known (static buffers, constant-offset views)
    slice_of: tuple[str, SExpr, SExpr, bool] | None = None  # (src handle, row, col, dynamic) for slices
    own_buffer: str | None = None  # the slice result's own allocation (materialization target)
    var_name: str = ""


_INDEX_KIND = {"get_block_idx": "block_idx", "get_subblock_idx": "subblock_idx", "get_block_num": "block_num",
               "get_subblock_num": "subblock_num"}


def _sym(expr: BinaryExpr) -> str:
    if isinstance(expr, Min):
        return "min"
    if isinstance(expr, Max):
        return "max"
    return expr.symbol


class _Names:
    def __init__(self) -> None:
        self.by_var: dict[int, str] = {}
        self.used = NameSupply()

    def get(self, var: Var) -> str:
        key = id(var)
        name = self.by_var.get(key)
        if name is None:
            name = self.used.fresh(var.name or "v")
            self.by_var[key] = name
        return name

    def fresh(self, base: str) -> str:
        return self.used.fresh(base)


class FunctionCodegen:
    def __init__(self, fn: Function, target: Target, mode: str) -> None:
        self.fn = fn
        self.target = target
        self.mode = mode
        self.names = _Names()
        self.handles: dict[str, _Handle] = {}
        self.buffers: dict[str, Buffer] = {}
        self.tile_handle: dict[Var, str] = {}  # tile var -> handle name
        self.tensor_name: dict[Var, str] = {}  # tensor var -> kernel tensor param name
        self.workspaces: list[TensorParam] = []  # kernel-private GM tensors (tensor.create in the kernel)
        self.custom_outs: dict[Var, tuple[str, ...]] = {}
        self.folder = ConstFolder(fn)
        self.returns: tuple[str, ...] = ()
        self.stage_shift: dict[str, int] = {}  # storage root -> byte shift of the stage copy being lowered
        self.stage_copy = 0
        # GM tensor -> {"bulk": first tile.store call, "scalar": last tensor.write call} (store coherence)
        self.gm_store_paths: dict[str, dict[str, Call]] = {}

    # ------------------------------------------------------------------------------------------
    # entry
    # ------------------------------------------------------------------------------------------

    def run(self) -> PTOKernel:
        tensors, scalars, params = [], [], []
        for p, d in zip(self.fn.params, self.fn.param_directions, strict=False):
            name = self.names.get(p)
            params.append(name)
            if isinstance(p.type, TensorType):
                shape = tuple(e.value if isinstance(e, ConstInt) else -1 for e in p.type.shape)
                tensors.append(TensorParam(name, shape, p.type.dtype, d.value))
                self.tensor_name[p] = name
            elif isinstance(p.type, ScalarType):
                scalars.append(name)
            elif isinstance(p.type, TileType):
                raise NotSupportedError(f"kernel {self.fn.name!r} takes tile parameter {p.name!r}",
                                        span=p.span if p.span.line else None,
                                        hint="pass tensors to kernels and load them into tiles")
        body = self.body(self.fn.body)
        self.check_gm_store_coherence()
        body = insert_syncs(tuple(body), self.buffers, self.target)
        return PTOKernel(self.fn.name, self.fn.func_type.value, tuple(tensors), tuple(scalars), tuple(params),
                         dict(self.buffers), tuple(body), self.returns, workspaces=tuple(self.workspaces))

    def body(self, stmt: Stmt | None) -> list[Instr]:
        out: list[Instr] = []
        if stmt is None:
            return out
        stmts = stmt.stmts if isinstance(stmt, SeqStmts) else (stmt,)
        for s in stmts:
            self.stmt(s, out)
        return out

    # ------------------------------------------------------------------------------------------
    # names, buffers, scalars
    # ------------------------------------------------------------------------------------------

    def reg(self, var: Var) -> str:
        return self.names.get(var)

    def sexpr(self, e: Expr) -> SExpr:
        if isinstance(e, ConstInt):
            return SConst(int(e.value))
        if isinstance(e, ConstFloat):
            return SConst(float(e.value))
        if isinstance(e, ConstBool):
            return SConst(bool(e.value))
        if isinstance(e, Var):
            if isinstance(e.type, (TileType, TensorType)):
                raise NotSupportedError(f"{e.name!r} is not a scalar", span=e.span if e.span.line else None)
            return SReg(self.reg(e))
        if isinstance(e, BinaryExpr):
            return SBin(_sym(e), self.sexpr(e.lhs), self.sexpr(e.rhs))
        if isinstance(e, Neg):
            return SUn("-", self.sexpr(e.operand))
        if isinstance(e, Not):
            return SUn("not", self.sexpr(e.operand))
        if isinstance(e, UnaryExpr):
            return SUn(e.symbol, self.sexpr(e.operand))
        if isinstance(e, Call):
            op = op_of(e)
            if op is not None and op.extra.get("device_query"):  # pl.system.available_*_count(): a chip fact
                return SConst(available_count(self.target, op.extra["device_query"]))
            if op is not None and op.kind is OpKind.INDEX:
                return SSpecial(_INDEX_KIND.get(op.pto or "", op.name.split(".")[-1]))
        span = getattr(e, "span", None)
        if isinstance(e, Call) and (op := op_of(e)) is not None and op.kind is OpKind.SYSTEM:
            raise NotSupportedError(f"pl.{e.op_name} gives no value: it is a statement, not a scalar",
                                    span=span if span is not None and span.line else None,
                                    hint=f"write pl.{e.op_name}(...) on a line of its own")
        raise NotSupportedError(f"cannot lower scalar expression {e!r} to PTO",
                                span=span if span is not None and span.line else None,
                                hint="bind tile results to variables; scalars must be index / float arithmetic")

    def declare(self, var: Var, suffix: str = "") -> str:
        """The static buffer of ``var`` (at its planned address), declared on first use."""
        t = var.type
        assert isinstance(t, TileType)
        mr = t.memref
        if mr is None or mr.address is None:
            raise InternalCheckError(
                f"internal error: tile {var.name!r} in {self.fn.name!r} has no planned address",
                hint="run InitMemRef, MemoryReuse and AllocateMemoryAddr before codegen")
        name = self.names.fresh(self.reg(var) + suffix) if suffix else self.reg(var)
        shift = self.stage_shift.get(mr.base)
        if shift is not None:  # a stage copy of a pipelined loop body: its own buffer set
            name = f"{name}.s{self.stage_copy}"
        if name in self.buffers:
            return name
        space = mr.memory_space
        shape = tile_2d(static_dims(t, f"tile {var.name!r}"))
        pitch = dense_pitch(t, space, self.target)
        layout = "NZ" if is_nz(space) else "ND"
        address = mr.address + (shift or 0)
        buf = Buffer(name, space, address, shape, pitch, t.dtype, layout)
        self.buffers[name] = buf
        self.handles[name] = _Handle(space, shape, pitch, t.dtype, layout, address, var_name=var.name)
        return name

    def handle(self, e: Expr) -> str:
        if isinstance(e, Var) and e in self.tile_handle:
            return self.tile_handle[e]
        if (isinstance(e, TupleGetItem) and isinstance(e.tuple_value, Var) and e.tuple_value in self.custom_outs
                and 0 <= e.index < len(self.custom_outs[e.tuple_value])):
            # an element of a multi-result custom op used in place (e.g. ``r = pl.yield_(pair[0])``)
            return self.custom_outs[e.tuple_value][e.index]
        if isinstance(e, Var) and isinstance(e.type, TileType):
            raise InternalCheckError(f"internal error: tile {e.name!r} used before its definition in "
                                     f"{self.fn.name!r}")
        raise NotSupportedError(f"expected a tile variable, got {e!r}")

    def tensor(self, e: Expr) -> str:
        if isinstance(e, Var) and e in self.tensor_name:
            return self.tensor_name[e]
        raise NotSupportedError(f"expected a tensor parameter of {self.fn.name!r}, got {e!r}",
                                hint="tiles are loaded from and stored to the kernel's tensor parameters")

    # ------------------------------------------------------------------------------------------
    # statements
    # ------------------------------------------------------------------------------------------

    def stmt(self, s: Stmt, out: list[Instr]) -> None:
        start = len(out)
        self._stmt(s, out)
        span = s.span if s.span.line else None
        if span is None and isinstance(s, (AssignStmt, EvalStmt)):
            value = s.value if isinstance(s, AssignStmt) else s.expr
            span = value.span if value.span.line else None
        if span is not None:
            # each instruction remembers the statement it came from, so a device fault can name the DSL line
            for i in range(start, len(out)):
                if out[i].span is None:
                    out[i] = dataclasses.replace(out[i], span=span)

    def _stmt(self, s: Stmt, out: list[Instr]) -> None:
        if isinstance(s, AssignStmt):
            self.assign(s.var, s.value, out)
        elif isinstance(s, EvalStmt):
            if isinstance(s.expr, Call):
                self.call(s.expr, None, out)
        elif isinstance(s, ForStmt):
            self.for_stmt(s, out)
        elif isinstance(s, WhileStmt):
            self.while_stmt(s, out)
        elif isinstance(s, IfStmt):
            self.if_stmt(s, out)
        elif isinstance(s, ReturnStmt):
            _require_bound_values(s, self.fn.name)
            names = []
            for v in s.values:
                if isinstance(v, Var) and v in self.tensor_name:
                    names.append(self.tensor_name[v])
            self.returns = tuple(names)
        elif isinstance(s, YieldStmt):
            _require_bound_values(s, self.fn.name)  # the values are carried by the enclosing construct
        elif isinstance(s, SeqStmts):
            for x in s.stmts:
                self.stmt(x, out)

    def assign(self, var: Var, value: Expr, out: list[Instr]) -> None:
        t = var.type
        if isinstance(value, Var):
            if isinstance(t, TileType):
                self.tile_handle[var] = self.handle(value)
            elif isinstance(t, TensorType):
                self.tensor_name[var] = self.tensor(value)
            else:
                out.append(SAssign(self.reg(var), self.sexpr(value)))
            return
        if isinstance(value, TupleGetItem):
            src = value.tuple_value
            if isinstance(src, Var) and src in self.custom_outs:
                self.tile_handle[var] = self.custom_outs[src][value.index]
                return
            if isinstance(src, Call):
                outs = self.call(src, None, out)
                self.tile_handle[var] = outs[value.index]
                return
            raise NotSupportedError(f"cannot lower tuple access {value!r}")
        if isinstance(value, Call):
            self.call(value, var, out)
            return
        if isinstance(t, ScalarType):
            out.append(SAssign(self.reg(var), self.sexpr(value)))
            return
        raise NotSupportedError(f"cannot lower the definition of {var.name!r} in {self.fn.name!r}")

    def _carry_in(self, iter_args: tuple[IterArg, ...], out: list[Instr]) -> None:
        for ia in iter_args:
            if isinstance(ia.type, TileType):
                init = ia.init
                self.tile_handle[ia] = self.handle(init) if isinstance(init, Var) else self.declare(ia)
            elif isinstance(ia.type, TensorType):
                self.tensor_name[ia] = self.tensor(ia.init)
            else:
                out.append(SAssign(self.reg(ia), self.sexpr(ia.init)))

    def _carry_back(self, targets: list[Var], values: tuple[Expr, ...], dst_handles: dict[Var, str],
                    out: list[Instr]) -> None:
        regs, vals = [], []
        moves = [(dst_handles[tgt], self.handle(v)) for tgt, v in zip(targets, values, strict=False)
                 if isinstance(tgt.type, TileType)]
        for dst, src in self._parallel_order(moves):
            self.copy_tile(dst, src, out)
        for tgt, v in zip(targets, values, strict=False):
            if isinstance(tgt.type, TileType):
                continue
            elif isinstance(tgt.type, TensorType):
                pass  # tensors are GM: every write is already in place
            else:
                regs.append(self.reg(tgt))
                vals.append(self.sexpr(v))
        if len(regs) == 1:
            out.append(SAssign(regs[0], vals[0]))
        elif regs:
            out.append(SAssignMany(tuple(regs), tuple(vals)))

    def _span(self, name: str) -> tuple[MemorySpace, int, int] | None:
        """(space, first byte, end byte) of a handle at a static address (None when not static)."""
        h = self.handles.get(name)
        if h is None or h.address is None:
            return None
        rows, cols = h.shape
        fc = self.target.acc_fractal[1]
        extent = h.pitch * -(-cols // fc) * fc if h.layout == "NZ" else h.pitch * rows  # NZ: pitch = padded rows
        return h.space, h.address, h.address + extent * h.dtype.itemsize

    def _parallel_order(self, moves: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The back-edge / branch-end copies ``dst <- src`` in an order where no copy overwrites a buffer a later
        one still reads (they are one parallel assignment). InitMemRef gives every value that sits on another
        destination's storage a copy of its own, so a cycle left here is a tilefold bug: refused, never run."""
        def overlaps(a: str, b: str) -> bool:
            sa, sb = self._span(a), self._span(b)
            return a == b or (sa is not None and sb is not None and sa[0] is sb[0] and sa[1] < sb[2] and sb[1] < sa[2])
        pending = [m for m in moves if not self._same_buffer(*m)]
        ordered: list[tuple[str, str]] = []
        while pending:
            ready = [m for m in pending if not any(o is not m and overlaps(m[0], o[1]) for o in pending)]
            if not ready:
                raise InternalCheckError(
                    f"internal error: the loop-carried tiles of {self.fn.name!r} are permuted in place "
                    f"({', '.join(f'{d} <- {s}' for d, s in pending)})",
                    hint="InitMemRef should have copied the yielded values first")
            ordered.extend(ready)
            pending = [m for m in pending if m not in ready]
        return ordered

    def _same_buffer(self, dst: str, src: str) -> bool:
        """Is the copy ``dst <- src`` a no-op (one handle, or the same bytes in the same layout)?"""
        if dst == src:
            return True
        d, s = self.handles[dst], self.handles[src]
        return (d.address is not None and d.address == s.address and d.pitch == s.pitch and d.layout == s.layout
                and d.space is s.space)

    def copy_tile(self, dst: str, src: str, out: list[Instr]) -> None:
        if self._same_buffer(dst, src):
            return
        out.append(TExtract(dst, src, SConst(0), SConst(0), opcode="tmov"))

    def for_stmt(self, s: ForStmt, out: list[Instr]) -> None:
        split = region_split(s)
        if split is not None:  # a pl.split_aiv region: the lanes' body and the cross-core pipe
            lower_region(self, s, split, out)
            return
        stages = dict(s.attrs).get("stage") if s.kind is ForKind.Pipeline else None
        if (isinstance(stages, int) and stages >= 2 and isinstance(s.step, ConstInt) and s.step.value > 0
                and not self.stage_shift):
            plan = plan_stages(self.fn, s, stages, self.target)
            if plan.stages >= 2:
                self.pipelined_for(s, plan, out)
                return
        body = self._loop_body(s, out)
        out.append(For(self.reg(s.loop_var), self.sexpr(s.start), self.sexpr(s.stop), self.sexpr(s.step), body))
        self._bind_results(s.return_vars, s.iter_args, out)

    def pipelined_for(self, s: ForStmt, plan, out: list[Instr]) -> None:
        """``plan.stages`` copies of the body per iteration, copy k on its own stage buffers
        (``pipelining.lower_pipelined``)."""
        out.extend(lower_pipelined(self, s, plan))
        self._bind_results(s.return_vars, s.iter_args, out)

    def _block(self, body: Stmt) -> list[Instr]:
        """The instructions of the statements of ``body`` (a loop body or an if branch)."""
        instrs: list[Instr] = []
        for x in body.stmts if isinstance(body, SeqStmts) else (body,):
            self.stmt(x, instrs)
        return instrs

    def _body_copy(self, s: ForStmt | WhileStmt) -> list[Instr]:
        """One copy of the loop's body, ending with the copies that carry the yielded values back into the
        iter-args' buffers (``_loop_body`` lowers a loop's one copy; ``pipelining`` one copy per stage)."""
        body = self._block(s.body)
        y = final_yield(s.body)
        if y is not None:
            for ia, v in zip(s.iter_args, y.values, strict=False):
                if isinstance(ia.type, TensorType):
                    self._same_tensor(s, "loop", self.tensor_name[ia], self.tensor(v))
        if y is not None and s.iter_args:
            self._carry_back(list(s.iter_args), y.values, {ia: self.tile_handle.get(ia, "") for ia in s.iter_args
                                                           if isinstance(ia.type, TileType)}, body)
        return body

    def while_stmt(self, s: WhileStmt, out: list[Instr]) -> None:
        body = self._loop_body(s, out)
        out.append(While(self.sexpr(s.condition), body))
        self._bind_results(s.return_vars, s.iter_args, out)

    def _loop_body(self, s: ForStmt | WhileStmt, out: list[Instr]) -> tuple[Instr, ...]:
        """Carry the loop's iter-args in (into ``out``) and lower its body, ending with the copies that carry
        the yielded values back into the iter-args' buffers."""
        self._carry_in(s.iter_args, out)
        return tuple(self._body_copy(s))

    def _same_tensor(self, s: Stmt, what: str, first: str, other: str) -> None:
        """A loop / if result that is a GM tensor must be one tensor on every path: a kernel's tensors are bound
        when it is compiled, so a tensor chosen at run time (``src = x; if f: src = y``) is refused."""
        if first != other:
            raise NotSupportedError(
                f"kernel {self.fn.name!r}: this {what} chooses between the GM tensors {first!r} and {other!r} at run "
                "time, but a kernel's tensors are fixed when it is compiled",
                span=s.span if s.span.line else None,
                hint="do the work on each path instead (e.g. `out[:] = pl.exp(y)` inside the branch), or pass the "
                     "tensor you want as the argument")

    def _bind_results(self, rvs: tuple[Var, ...], iter_args: tuple[IterArg, ...], out: list[Instr]) -> None:
        for rv, ia in zip(rvs, iter_args, strict=False):
            if isinstance(rv.type, TileType):
                self.tile_handle[rv] = self.tile_handle[ia]
            elif isinstance(rv.type, TensorType):
                self.tensor_name[rv] = self.tensor_name[ia]
            else:
                out.append(SAssign(self.reg(rv), SReg(self.reg(ia))))

    def if_stmt(self, s: IfStmt, out: list[Instr]) -> None:
        dst: dict[Var, str] = {}
        for rv in s.return_vars:
            if isinstance(rv.type, TileType):
                dst[rv] = self.declare(rv)
        branches = []
        for b in (s.then_body, s.else_body):
            instrs: list[Instr] = []
            if b is not None:
                instrs = self._block(b)
                y = final_yield(b)
                if y is not None and s.return_vars:
                    tensor_rvs = [rv for rv in s.return_vars if isinstance(rv.type, TensorType)]
                    for rv, v in zip(s.return_vars, y.values, strict=False):
                        if rv in tensor_rvs:
                            if rv in self.tensor_name:  # the then branch's tensor: the else one must be it
                                self._same_tensor(s, "if", self.tensor_name[rv], self.tensor(v))
                            self.tensor_name[rv] = self.tensor(v)
                    self._carry_back(list(s.return_vars), y.values, dst, instrs)
            branches.append(tuple(instrs))
        for rv, name in dst.items():
            self.tile_handle[rv] = name
        out.append(If(self.sexpr(s.condition), branches[0], branches[1]))

    # ------------------------------------------------------------------------------------------
    # calls
    # ------------------------------------------------------------------------------------------

    def call(self, call: Call, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """Lower one call (bound to ``var``, or a statement of its own); the handles of a multi-result call."""
        if isinstance(call.op, GlobalVar):
            raise NotSupportedError(f"kernel {self.fn.name!r} calls function {call.op.name!r}",
                                    span=call.span if call.span.line else None,
                                    hint="kernels cannot call other functions; inline the callee")
        op = op_of(call)
        if op is None:
            raise NotSupportedError(f"unknown op {call.op_name!r}")
        self.check_unit(call, var)
        self.check_valid_operands(call, op)
        if op.extra.get("no_effect"):  # a hint without an effect on the machine model (tile.prefetch)
            if var is not None and isinstance(call.type, TensorType):
                self.tensor_name[var] = self.tensor(call.args[0])
            return ()
        lower = _LOWER_BY_KIND.get(op.kind, FunctionCodegen.vector_or_refuse)
        return lower(self, call, op, var, out)

    def indirect_load(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """GM rows by an index tile (``tile.mgather``)."""
        if var is not None:
            dst = self.declare(var)
            self.tile_handle[var] = dst
            out.append(TIndirect(op.pto or op.name, op.name, self.tensor(call.args[0]), dst,
                                 self.handle(call.args[1]), tuple(call.kwargs)))
        return ()

    def indirect_store(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """Tile rows into GM rows by an index tile (``tile.mscatter``)."""
        tensor = self.tensor(call.args[2])
        out.append(TIndirect(op.pto or op.name, op.name, tensor, self.handle(call.args[0]),
                             self.handle(call.args[1]), tuple(call.kwargs)))
        self.gm_store_paths.setdefault(tensor, {}).setdefault("bulk", call)
        if var is not None:
            self.tensor_name[var] = tensor
        return ()

    def row_gather(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """``tile.gather_row``: a GM window DMA'd into a region of the accumulator, in place (its result is the
        accumulator's storage). The static sub-region is ``shapes``, box-aligned on L1; the transfer is the valid
        extents (``valid_shape``, run-time values allowed)."""
        from tilefold.ops.index_ops import box_aligned

        dst = self.handle(call.args[0])
        shapes = tuple(e.value for e in call.args[4].elements)
        extent_at = 5 if len(call.args) > 5 else 4
        transpose = bool(call.kwarg("transpose"))
        region = shapes[::-1] if transpose else shapes
        box = box_aligned(region, call.args[0].type.dtype.itemsize) \
            if self.handles[dst].space is MemorySpace.Mat else tuple(region)
        out.append(TGatherRow(dst, self.tensor(call.args[1]), tuple(self.sexpr(e) for e in call.args[2].elements),
                              tuple(self.sexpr(e) for e in call.args[3].elements),
                              tuple(self.sexpr(e) for e in call.args[extent_at].elements), box, tuple(region),
                              transpose,
                              opcode=op.pto or "tgatherrow"))
        if var is not None:
            self.tile_handle[var] = dst
        return ()

    def index_call(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        if var is not None:
            out.append(SAssign(self.reg(var), self.sexpr(call)))
        return ()

    def element_read(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """A UB element (``tile.read``), or a scalar GM read on the S pipe (sync orders it against DMA)."""
        if var is not None:
            indices = tuple(self.sexpr(e) for e in call.args[1].elements)
            if isinstance(call.args[0].type, TileType):
                out.append(SGetVal(self.reg(var), self.handle(call.args[0]), indices))
            else:
                out.append(SRead(self.reg(var), self.tensor(call.args[0]), indices))
        return ()

    def element_write(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """Into a tile, in place; or a scalar GM write on the S pipe (sync orders it against DMA)."""
        if isinstance(call.args[0].type, TileType):
            dst = self.handle(call.args[0])
            indices = tuple(self.sexpr(e) for e in call.args[1].elements)
            out.append(SSetVal(dst, indices, self.sexpr(call.args[2])))
            if var is not None:
                self.tile_handle[var] = dst
            return ()
        tensor = self.tensor(call.args[0])
        indices = tuple(self.sexpr(e) for e in call.args[1].elements)
        out.append(SWrite(tensor, indices, self.sexpr(call.args[2])))
        self.gm_store_paths.setdefault(tensor, {})["scalar"] = call
        if var is not None:
            self.tensor_name[var] = tensor
        return ()

    def load(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        dst = self.declare(var)
        self.tile_handle[var] = dst
        offsets = tuple(self.sexpr(e) for e in call.args[1].elements)
        window = tuple(self.folder.value(e) for e in call.args[2].elements)
        if any(w is None for w in window):
            raise NotSupportedError(f"tile.load of {var.name!r} has a symbolic window shape",
                                    span=call.span if call.span.line else None)
        view = getattr(var.type, "tile_view", None)  # a partial valid shape: the DMA moves that region only
        valid = tuple(self.sexpr(e) for e in call.args[3].elements) \
            if len(call.args) > 3 and view is not None and view.valid_shape is not None else ()
        out.append(TLoad(dst, self.tensor(call.args[0]), offsets, window, valid,  # type: ignore[arg-type]
                         transpose=bool(call.kwarg("transpose"))))
        return ()

    def store(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        tensor = self.tensor(call.args[2])
        offsets = tuple(self.sexpr(e) for e in call.args[1].elements)
        window = call.kwarg("shapes") or static_dims(call.args[0].type, "stored tile")
        view = getattr(call.args[0].type, "tile_view", None)  # a store writes the tile's valid region only
        valid = tuple(self.sexpr(e) for e in view.valid_shape) if view and view.valid_shape else ()
        atomic = call.kwarg("atomic")
        out.append(TStore(tensor, offsets, self.handle(call.args[0]), tuple(window), valid,
                          atomic.value if atomic is AtomicType.Add else ""))
        self.gm_store_paths.setdefault(tensor, {}).setdefault("bulk", call)
        if var is not None:
            self.tensor_name[var] = tensor
        return ()

    def copy(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        src = self.materialize_if_needed(call, 0, self.handle(call.args[0]), out)
        dst = self.declare(var)
        self.tile_handle[var] = dst
        self.check_path(call, self.handles[src].space, self.handles[dst].space)
        if len(call.args) >= 3:
            row, col = self.sexpr(call.args[1]), self.sexpr(call.args[2])
        else:
            row = col = SConst(0)
        out.append(TExtract(dst, src, row, col, opcode=op.pto or "textract", transpose=bool(call.kwarg("transpose"))))
        return ()

    def create(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        if isinstance(call.type, TensorType) and var is not None and call.type.static_shape is not None \
                and self.fn.func_type is FunctionType.InCore:
            # kernel-private GM scratch (e.g. the GM leg of an Acc -> Vec move on A2/A3): one per block
            name = self.names.get(var)
            self.tensor_name[var] = name
            if all(w.name != name for w in self.workspaces):
                self.workspaces.append(TensorParam(name, call.type.static_shape, call.type.dtype, "Workspace"))
            return ()
        if isinstance(call.type, TensorType):
            raise NotSupportedError(f"kernel {self.fn.name!r} creates a GM tensor with {op.name}",
                                    span=call.span if call.span.line else None,
                                    hint="create output tensors in the Orchestration function (pl.create_tensor) and "
                                         "pass them to the kernel as pl.Out parameters")
        if op.pto is None:
            dst = self.declare(var)
            self.tile_handle[var] = dst
            return ()
        return self.vector_or_refuse(call, op, var, out)

    def vector_or_refuse(self, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        """A vector instruction on the op's operands (tiles materialised where needed, tuples, scalars)."""
        if op.unit is not Unit.VECTOR:
            raise NotSupportedError(f"PTO codegen does not lower {op.name} (kind {op.kind.value}, unit "
                                    f"{op.unit.value})")
        args: list[Any] = []
        for i, a in enumerate(call.args):
            if isinstance(a.type, TileType):
                args.append(self.materialize_if_needed(call, i, self.handle(a), out))
            elif isinstance(a, MakeTuple):
                args.append(tuple(self.sexpr(e) for e in a.elements))
            else:
                args.append(self.sexpr(a))
        for i in valid_shape_operands(op):  # e.g. fillpad, part_*: the operands' valid extents as operands
            view = getattr(call.args[i].type, "tile_view", None)
            extents = view.valid_shape if view is not None and view.valid_shape else call.args[i].type.shape
            args.append(tuple(self.sexpr(e) for e in extents))
        if var is None:
            return ()
        dst = self.declare(var)
        self.tile_handle[var] = dst
        out.append(TVector(op.pto or op.name, op.name, dst, tuple(args), tuple(call.kwargs)))
        return ()

    def check_valid_operands(self, call: Call, op: Any) -> None:
        """An op combining elements across positions (reduction, broadcast vector, matmul, transpose) on a tile
        with a partial valid shape would read its padding: refused, as golden refuses it (fillpad first)."""
        for i in position_mixing_operands(op, len(call.args)):
            view = getattr(call.args[i].type, "tile_view", None)
            if view is not None and view.valid_shape is not None:
                raise NotSupportedError(
                    f"{call.op_name} reads the tile {_var_name(call.args[i])!r}, whose valid shape is smaller than "
                    "its shape: the elements outside the valid region are undefined and would enter the result",
                    span=call.span if call.span.line else None,
                    hint="fill the padding first with the identity of the operation: "
                         "pl.tile.fillpad(tile, pad_value=pl.PadValue.min) before a max, PadValue.zero before a sum, "
                         "PadValue.max before a min")

    def check_gm_store_coherence(self) -> None:
        """PyPTO's GM store coherence restriction: a kernel may not write one GM tensor both with a bulk store
        (MTE3 / FIXPIPE) and with element writes (the scalar unit's D-cache path). Barriers do not make the
        two paths cache-line coherent on the device, so either the element writes or neighbouring stored bytes
        can be lost; the combination is rejected, even when the regions look disjoint."""
        for tensor, paths in self.gm_store_paths.items():
            if "bulk" in paths and "scalar" in paths:
                write, store = paths["scalar"], paths["bulk"]
                where = f" (line {store.span.line})" if store.span is not None and store.span.line else ""
                raise NotSupportedError(
                    f"kernel {self.fn.name!r} writes GM tensor @{tensor} both with a bulk store{where} and with "
                    "element writes (pl.write): the two store paths are not coherent on the device, so one of "
                    "them can lose the other's bytes", span=write.span if write.span.line else None,
                    hint="stage the values in a tile and store it once, write every element with pl.write, or "
                         "write the elements into a different tensor")

    def check_unit(self, call: Call, var: Var | None) -> None:
        """A kernel may only use the memories of its unit (``targets.kernel_memory_spaces``): an AIV kernel
        runs on one vector sub-block (Vec), an AIC kernel on the cube (Mat / Left / Right / Acc / Bias)."""
        ft = self.fn.func_type.value
        allowed = kernel_memory_spaces(ft)
        tiles = [(a, a.type) for a in call.args if isinstance(a.type, TileType)]
        if var is not None and isinstance(var.type, TileType):
            tiles.append((var, var.type))
        for e, t in tiles:
            mr = t.memref
            space = mr.memory_space if mr is not None else t.memory_space
            if space is None or space is MemorySpace.DDR or space in allowed:
                continue
            unit = "vector sub-block" if ft == "AIV" else "cube"
            raise NotSupportedError(
                f"{ft} kernel {self.fn.name!r}: {call.op_name} uses the {space.name} tile {_var_name(e)!r}, "
                f"which the {unit} running this kernel cannot reach", span=call.span if call.span.line else None,
                hint=unit_isolation_hint(ft))

    def check_path(self, call: Call, src: MemorySpace, dst: MemorySpace) -> None:
        """A user copy (``tile.move`` / ``tile.extract``) along a data path the target does not have."""
        if self.target.supports_path(src, dst):
            return
        raise NotSupportedError(
            f"{call.op_name}: {self.target.name} has no {src.name} -> {dst.name} data path",
            span=call.span if call.span.line else None, hint=path_hint(self.target, src, dst))

    def view(self, call: Call, op, var: Var | None, out: list[Instr]) -> None:
        if var is None:
            return
        src = self.handle(call.args[0])
        sh = self.handles[src]
        t: TileType = var.type  # type: ignore[assignment]
        shape = tile_2d(static_dims(t, f"tile {var.name!r}"))
        name = self.reg(var)
        offsets = None
        for i, p in enumerate(op.operand_params):
            if p.name == "offset" and i < len(call.args) and isinstance(call.args[i], MakeTuple):
                offsets = call.args[i].elements
        if offsets is not None:
            src_t = call.args[0].type
            row_e, col_e = view_offset_2d(tuple(self.folder.fold(o) for o in offsets),
                                          static_dims(src_t, "slice source"))  # type: ignore[arg-type]
            dynamic = not (isinstance(row_e, ConstInt) and isinstance(col_e, ConstInt))
            row, col = self.sexpr(row_e), self.sexpr(col_e)
            own = self.declare(var, ".buf")
            addr = None
            if not dynamic and sh.address is not None:
                addr = sh.address + _element_bytes(sh, row_e.value, col_e.value, self.target)  # type: ignore
            self.handles[name] = _Handle(sh.space, shape, sh.pitch, sh.dtype, sh.layout, addr,
                                         slice_of=(src, row, col, dynamic), own_buffer=own, var_name=var.name)
            self.names.used.add(name)
            self.tile_handle[var] = name
            out.append(TSubview(name, src, row, col, shape))
            return
        # shape / dtype / layout views of the same bytes
        dtype = t.dtype if t.dtype != sh.dtype else None
        layout = None
        pitch = None
        if op.pto != "ttransview" and dtype is None and shape[1] != sh.shape[1] and _strided_nd(sh):
            self.materialize_reshape(call, var, src, shape, out)
            return
        if op.pto == "ttransview":
            layout = "DN" if sh.layout == "ND" else "ND"
        elif dtype is not None:
            pitch = sh.pitch * sh.dtype.itemsize // t.dtype.itemsize
        elif shape[1] != sh.shape[1] and sh.layout == "ND":
            pitch = shape[1]
        self.handles[name] = _Handle(sh.space, shape, pitch if pitch is not None else sh.pitch,
                                     t.dtype, layout or sh.layout, sh.address, var_name=var.name)
        self.names.used.add(name)
        self.tile_handle[var] = name
        out.append(TSubview(name, src, SConst(0), SConst(0), shape, dtype=dtype, layout=layout, pitch=pitch,
                            opcode=op.pto or "tsubview"))

    def materialize_reshape(self, call: Call, var: Var, src: str, shape: tuple[int, int],
                            out: list[Instr]) -> None:
        """A reshape of a strided window (a slice that does not cover whole source rows) is not a view of the
        same bytes: the window is copied densely into the result's own buffer (InitMemRef gave it a root of its
        own), and the result is that buffer."""
        sh = self.handles[src]
        mr = var.type.memref  # type: ignore[union-attr]
        src_mr = call.args[0].type.memref  # type: ignore[union-attr]
        if mr is None or (src_mr is not None and mr.base == src_mr.base):
            raise InternalCheckError(
                f"internal error: {call.op_name} of the strided window {_var_name(call.args[0])!r} in "
                f"{self.fn.name!r} shares its source's storage, so it would read the window with the wrong row "
                f"pitch ({sh.pitch} elements per row, the window has {sh.shape[1]})",
                span=call.span if call.span.line else None,
                hint="copy the window into a tile of its own first (pl.tile.extract), then reshape that tile")
        dst = self.declare(var)
        dense = self.names.fresh(dst + ".dense")
        buf = self.buffers[dst]
        self.handles[dense] = _Handle(buf.space, sh.shape, sh.shape[1], buf.dtype, "ND", buf.address,
                                      var_name=var.name)
        out.append(TSubview(dense, dst, SConst(0), SConst(0), sh.shape, pitch=sh.shape[1], opcode="treshape"))
        out.append(TExtract(dense, src, SConst(0), SConst(0), opcode="tmov"))
        self.tile_handle[var] = dst

    def matmul(self, call: Call, op, var: Var | None, out: list[Instr]) -> None:
        if op.extra.get("mx") and not self.target.cube_mx:
            raise NotSupportedError(f"{op.name} is an MX block-scale matmul: {self.target.name} has no MX cube (it is "
                                    "Ascend950's)", span=call.span if call.span.line else None,
                                    hint="compile for Ascend950 (platform a5), or dequantise the FP8 operands and "
                                         "use pl.matmul")
        srcs = [self.materialize_if_needed(call, i, self.handle(a), out) for i, a in enumerate(call.args)
                if isinstance(a.type, TileType)]
        reuse = op.output_reuses_input
        if reuse is not None:
            dst = srcs[reuse]
            if var is not None:
                self.tile_handle[var] = self.handle(call.args[reuse])
        else:
            dst = self.declare(var) if var is not None else None
            if dst is None:
                return
            self.tile_handle[var] = dst
        if op.pto is None:
            raise NotSupportedError(f"{op.name} has no PTO instruction; FlattenTileNdTo2D lowers it to 2-D matmuls")
        at = op.extra.get("init_operand")
        init = self.sexpr(call.args[at]) if at is not None and at < len(call.args) else None
        out.append(TMatmul(op.pto, op.name, dst, tuple(srcs), init))

    def custom(self, call: Call, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
        seg = custom_segments(call)

        def operand(e: Expr) -> Any:
            if isinstance(e.type, TileType):
                return self.handle(e)
            return self.sexpr(e)

        for j, e in enumerate(seg["outs"]):
            if not isinstance(e.type, TileType):
                raise NotSupportedError(
                    f"custom op {call.kwarg('symbol') or call.op_name}: output init #{j} "
                    f"{getattr(e, 'name', e)!s} is a {type(e.type).__name__}, not a tile; custom kernels "
                    "write tile outputs only", span=call.span,
                    hint="pass a tile as the output init (pl.tile.create) and pl.store the result to the tensor")
        outs = tuple(self.handle(e) for e in seg["outs"])
        ins = tuple(operand(e) for e in seg["ins"])
        tmps = tuple(self.handle(e) for e in seg["tmps"] if isinstance(e.type, TileType))
        symbol = call.kwarg("symbol") or "<builtin>"
        iterators, ranges, pipe = custom_work_facts(call, self.target)
        out.append(TCustom(symbol, outs, ins, tmps, opcode=call.op_name.split(".")[-1], iterators=iterators,
                           ranges=ranges, pipe=pipe))
        if var is not None:
            if isinstance(call.type, TupleType):
                self.custom_outs[var] = outs
            else:
                self.tile_handle[var] = outs[0]
        return outs

    # ------------------------------------------------------------------------------------------
    # lazy materialization of subview operands
    # ------------------------------------------------------------------------------------------

    def materialize_if_needed(self, call: Call, index: int, h: str, out: list[Instr]) -> str:
        info = self.handles.get(h)
        if info is None or info.slice_of is None:
            return h
        op = op_of(call)
        needs = op.kind is OpKind.COL_BROADCAST or (
            info.space is MemorySpace.Mat and op.kind in (OpKind.COPY, OpKind.MATMUL) and op.pto != "tmov")
        if not needs:
            return h
        src, row, col, dynamic = info.slice_of
        own = info.own_buffer
        assert own is not None
        sh = self.handles[src]
        rows, cols = info.shape
        contiguous = rows == 1 or cols == sh.pitch
        own_addr = self.buffers[own].address
        identity = (not dynamic and contiguous and info.address == own_addr and sh.layout == "ND")
        mat_to_mat = info.space is MemorySpace.Mat
        if self.mode == "strict" and (dynamic or mat_to_mat or not identity):
            if dynamic:
                why = ("its offset is dynamic, so the slice's own buffer was placed at the bare source base "
                       "address and the extracted window would land on row 0 of the live source (#1640)")
            elif mat_to_mat:
                why = ("it is an L1 -> L1 (Mat -> Mat) textract, a data path some targets (Ascend910C) do not "
                       "have")
            elif contiguous:  # e.g. a 1-row window: contiguous, but the copy would not be an identity copy
                why = (f"the window {rows}x{cols} is contiguous but its own buffer (address {own_addr}) is not the "
                       f"window's address {info.address} in the {sh.layout} source, so the copy into it would "
                       "overwrite the still-live source (#2010)")
            else:
                why = (f"the window {rows}x{cols} is not contiguous in its source (row pitch {sh.pitch}), so "
                       "the strided -> dense copy into the slice's own buffer would overwrite the still-live "
                       "source (#2010)")
            raise InternalCheckError(
                f"internal error: refusing to materialize subview operand %{h} (tile {info.var_name!r}) of "
                f"{call.op_name} in {self.fn.name!r} in place: {why}",
                span=call.span if call.span.line else None,
                hint="give the op a copy in a fresh buffer: for a 3-operand pl.tile.slice the default pipeline's "
                     "CanonicalizeTileSlice does this (check it was not skipped); a slice with valid_shape / "
                     "drop_dims (4-5 operands) is never rewritten by it, so write the window as a 3-operand "
                     "pl.tile.slice(src, [rows, cols], [row, col]), or copy it yourself with "
                     "pl.tile.extract(src, row, col, shape=[rows, cols], target_memory=pl.Mem.Vec) (Left / Right "
                     "for a matmul operand) and pass that; codegen='faithful' reproduces the unguarded upstream "
                     "code")
        out.append(TExtract(own, src, row, col, materialize=True))
        return own


def _view(gen: FunctionCodegen, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
    gen.view(call, op, var, out)
    return ()


def _matmul(gen: FunctionCodegen, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
    gen.matmul(call, op, var, out)
    return ()


def _custom(gen: FunctionCodegen, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
    return gen.custom(call, var, out)


# How ``FunctionCodegen.call`` lowers each op kind; any other kind is a vector instruction or refused.
_LOWER_BY_KIND: dict[OpKind, Callable[..., tuple[str, ...]]] = {
    OpKind.INDEX: FunctionCodegen.index_call,
    OpKind.ELEMENT_READ: FunctionCodegen.element_read,
    OpKind.ELEMENT_WRITE: FunctionCodegen.element_write,
    OpKind.LOAD: FunctionCodegen.load,
    OpKind.STORE: FunctionCodegen.store,
    OpKind.INDIRECT_LOAD: FunctionCodegen.indirect_load,
    OpKind.INDIRECT_STORE: FunctionCodegen.indirect_store,
    OpKind.ROW_GATHER: FunctionCodegen.row_gather,
    OpKind.VIEW: _view,
    OpKind.COPY: FunctionCodegen.copy,
    OpKind.MATMUL: _matmul,
    OpKind.CUSTOM: _custom,
    OpKind.CREATE: FunctionCodegen.create,
    OpKind.CROSS_CORE: lower_pipe_op,  # backend/cross_core.py
    OpKind.SYSTEM: lower_system_op,  # backend/system_sync.py
}


def _strided_nd(h: _Handle) -> bool:
    """Is ``h`` a row-major window whose rows do not follow each other (a slice narrower than its source)?
    Such a window cannot be reshaped in place: a new row length would read across the gaps."""
    return h.layout == "ND" and h.shape[0] > 1 and h.pitch != h.shape[1]


def _var_name(e: Expr) -> str:
    return e.name if isinstance(e, Var) else str(e)


def _element_bytes(h: _Handle, row: int, col: int, target: Target) -> int:
    if h.dtype.packed:  # 4-bit types, two per byte: an element at an odd position starts mid-byte
        index = row * h.pitch + col
        if h.layout != "ND" or (index * h.dtype.storage_bits) % 8:
            raise NotSupportedError(f"a view of an {h.dtype.name} tile at element ({row}, {col}) starts mid-byte "
                                    f"({h.dtype.name} packs two elements per byte)",
                                    hint="slice 4-bit tiles at even column offsets")
        return h.dtype.nbytes(index)
    isz = h.dtype.itemsize
    if h.layout == "NZ":
        fr, fc = target.acc_fractal
        return ((col // fc) * (h.pitch // fr) + row // fr) * fr * fc * isz + ((row % fr) * fc + col % fc) * isz
    if h.layout == "DN":
        return (col * h.pitch + row) * isz
    return (row * h.pitch + col) * isz


# ------------------------------------------------------------------------------------------------
# programs
# ------------------------------------------------------------------------------------------------


@dataclass
class _Orchestration:
    launches: tuple[Launch, ...]
    locals: tuple[TensorParam, ...]  # GM tensors the orchestration creates (tensor.create), zero-filled
    returns: tuple[tuple[str, str], ...]  # (output name, GM tensor) of returned tensors that are not Out params


def _create_tensor(fn: Function, var: Var, call: Call, name: str) -> TensorParam:
    t = call.type
    assert isinstance(t, TensorType)
    shape = t.static_shape
    if shape is None:
        raise NotSupportedError(f"orchestration {fn.name!r}: {var.name!r} is created with a symbolic shape",
                                span=call.span if call.span.line else None,
                                hint="pl.create_tensor needs constant extents for the device")
    return TensorParam(name, shape, t.dtype, "Local")


def _require_bound_values(s: ReturnStmt | YieldStmt, fn_name: str) -> None:
    """Codegen lowers calls where they are statements; a call left as a return / yield value would be dropped
    with its effect (a store, a launch). The front ends bind such results (language/call_results.py), so one
    here comes from a pass or hand-built IR: refuse it rather than emit a program without it."""
    for v in s.values:
        if isinstance(v, Call):
            verb = "returns" if isinstance(s, ReturnStmt) else "yields"
            raise InternalCheckError(f"internal error: {fn_name!r} {verb} the call {v.op_name} directly; bind its "
                                     "result to a variable first (tilefold.frontend.call_results)")


def _return_names(fn: Function, ret: ReturnStmt, tensor_of: dict[Var, str]) -> tuple[tuple[str, str], ...]:
    """Name returned tensors like the golden interpreter: values that are not the entry's Out / InOut
    tensors are ``"return"`` (one such value) or ``"return<i>"`` (by position in the return statement)."""
    outs = {tensor_of[p] for p, d in zip(fn.params, fn.param_directions, strict=False)
            if d is not ParamDirection.In and p in tensor_of}
    extra = []
    for i, v in enumerate(ret.values):
        gm = tensor_of.get(v) if isinstance(v, Var) else None
        if gm is not None and gm in outs:
            continue
        extra.append((i, gm))
    if len(extra) == 1:
        return tuple(("return", gm) for _i, gm in extra if gm is not None)
    return tuple((f"return{i}", gm) for i, gm in extra if gm is not None)


#: the most iterations an orchestration loop is unrolled to
_MAX_HOST_TRIPS = 4096


class _OrchestrationLowering:
    """The host side of an Orchestration function: GM tensors it creates, scalar steps on the host (index / float
    arithmetic, ``pl.tensor.read``) and kernel launches, in order; the scalar steps since the last launch run
    before the next one."""

    def __init__(self, fn: Function, kernels: dict[str, PTOKernel]) -> None:
        self.fn = fn
        self.kernels = kernels
        self.tensor_of: dict[Var, str] = {}
        self.results: dict[Var, tuple[str, ...]] = {}  # launch result -> the GM tensors it returns
        self.names = _Names()
        for p in fn.params:
            if isinstance(p.type, TensorType):
                self.tensor_of[p] = self.names.get(p)
            else:
                self.names.get(p)
        self.launches: list[Launch] = []
        self.created: list[TensorParam] = []
        self.returns: tuple[tuple[str, str], ...] = ()
        self.host: list[Any] = []  # scalar steps since the last launch
        self.dump_tags: list[str] = []  # GM tensors pl.dump_tag marked so far (dumped by every later launch)
        self.next_dumps: list[str] = []  # dumps=[...] of the next launch only

    def run(self) -> _Orchestration:
        for s in self.fn.body.stmts if isinstance(self.fn.body, SeqStmts) else (self.fn.body,):
            self.statement(s)
        return _Orchestration(tuple(self.launches), tuple(self.created), self.returns)

    def statement(self, s: Stmt) -> None:
        fn, tensor_of, results = self.fn, self.tensor_of, self.results
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and not isinstance(s.value.op, GlobalVar) \
                and isinstance(s.value.type, TensorType) and (op := op_of(s.value)) is not None \
                and op.kind is OpKind.CREATE:
            local = _create_tensor(fn, s.var, s.value, self.names.get(s.var))
            self.created.append(local)
            tensor_of[s.var] = local.name
        elif isinstance(s, AssignStmt) and self.host_step(s):
            return
        elif isinstance(s, AssignStmt) and isinstance(s.value, Call):
            res = self.launch(s.value, s.span)
            if isinstance(s.var.type, TensorType) and res:
                tensor_of[s.var] = res[0]
            results[s.var] = res
        elif isinstance(s, AssignStmt) and isinstance(s.value, TupleGetItem):
            src = s.value.tuple_value
            if isinstance(src, Var) and src in results and s.value.index < len(results[src]):
                tensor_of[s.var] = results[src][s.value.index]
        elif isinstance(s, AssignStmt) and isinstance(s.value, Var) and s.value in tensor_of:
            tensor_of[s.var] = tensor_of[s.value]
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call) and s.expr.op_name == "tensor.dump_tag":
            self.dump_tag(s.expr)
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            self.launch(s.expr, s.span)
        elif isinstance(s, ReturnStmt):
            _require_bound_values(s, fn.name)
            self.returns = _return_names(fn, s, tensor_of)
        elif isinstance(s, ForStmt):
            self.loop(s)
        elif isinstance(s, SeqStmts):
            for inner in s.stmts:
                self.statement(inner)
        elif not isinstance(s, YieldStmt):
            raise NotSupportedError(f"orchestration {fn.name!r}: unsupported statement {type(s).__name__}",
                                    span=s.span if s.span is not None and s.span.line else None,
                                    hint="orchestration functions may only create tensors, compute host scalars, "
                                         "launch kernels and loop over them with constant bounds")

    def loop(self, s: ForStmt) -> None:
        """An orchestration loop with constant bounds, unrolled: the host runs its launches in program order; the
        loop variable (and each scalar carried value) is a host register set before the iteration's launches, and
        a carried tensor is the GM tensor the last iteration yielded."""
        bounds = [b.value if isinstance(b, ConstInt) else None for b in (s.start, s.stop, s.step)]
        if None in bounds or bounds[2] == 0:
            raise NotSupportedError(f"orchestration {self.fn.name!r}: a loop whose bounds are not compile-time "
                                    "constants", span=s.span if s.span.line else None,
                                    hint="give pl.range literal or closure-constant bounds in an Orchestration "
                                         "function, or move the loop into the InCore kernel")
        trips = range(*bounds)  # type: ignore[arg-type]
        if len(trips) > _MAX_HOST_TRIPS:
            raise NotSupportedError(f"orchestration {self.fn.name!r}: a loop of {len(trips)} iterations (more than "
                                    f"{_MAX_HOST_TRIPS} are not unrolled)", span=s.span if s.span.line else None,
                                    hint="launch fewer, larger tasks (loop inside the kernel)")
        current = [ia.init for ia in s.iter_args]
        body = s.body.stmts if isinstance(s.body, SeqStmts) else (s.body,)
        for v in trips:
            self.host.append((self.names.get(s.loop_var), SConst(v)))
            self.bind_carried(s.iter_args, current)
            for inner in body:
                if isinstance(inner, YieldStmt):
                    current = list(inner.values)
                else:
                    self.statement(inner)
        self.bind_carried(s.return_vars, current)

    def bind_carried(self, targets: Sequence[Var], values: Sequence[Expr | None]) -> None:
        """``targets[i] = values[i]`` on the host: a tensor is an alias of its GM tensor, a scalar a register."""
        for t, v in zip(targets, values, strict=True):
            if v is None:
                continue
            if isinstance(t.type, TensorType):
                gm = self.tensor_of.get(v) if isinstance(v, Var) else None
                if gm is None and isinstance(v, Var) and self.results.get(v):
                    gm = self.results[v][0]
                if gm is not None:
                    self.tensor_of[t] = gm
            elif isinstance(t.type, ScalarType):
                self.host.append((self.names.get(t), self.host_sexpr(v)))

    def host_sexpr(self, e: Expr) -> SExpr:
        if isinstance(e, (ConstInt, ConstFloat, ConstBool)):
            return SConst(e.value)
        if isinstance(e, Var) and isinstance(e.type, ScalarType):
            return SReg(self.names.get(e))
        if isinstance(e, BinaryExpr):
            return SBin(_sym(e), self.host_sexpr(e.lhs), self.host_sexpr(e.rhs))
        if isinstance(e, Neg):
            return SUn("-", self.host_sexpr(e.operand))
        if isinstance(e, Not):
            return SUn("not", self.host_sexpr(e.operand))
        if isinstance(e, UnaryExpr):
            return SUn(e.symbol, self.host_sexpr(e.operand))
        raise NotSupportedError(f"orchestration {self.fn.name!r}: cannot compute {e!r} on the host",
                                hint="orchestration scalars are index / float arithmetic and pl.tensor.read")

    def host_step(self, s: AssignStmt) -> bool:
        """``x = pl.tensor.read(t, [i, j])`` and scalar arithmetic of the orchestration code."""
        if not isinstance(s.var.type, ScalarType):
            return False
        v = s.value
        if isinstance(v, Call) and v.op_name == "tensor.read" and isinstance(v.args[0], Var) \
                and v.args[0] in self.tensor_of and isinstance(v.args[1], MakeTuple):
            self.host.append(HostRead(self.names.get(s.var), self.tensor_of[v.args[0]],
                                      tuple(self.host_sexpr(i) for i in v.args[1].elements)))
            return True
        if isinstance(v, Call):
            return False
        self.host.append((self.names.get(s.var), self.host_sexpr(v)))
        return True

    def launch(self, call: Call, where: Span | None = None) -> tuple[str, ...]:
        """A kernel launch with its arguments bound; the GM tensors the kernel returns. ``where``: the statement's
        span, for an error when the call itself carries none."""
        fn, kernels = self.fn, self.kernels
        if not isinstance(call.op, GlobalVar) or call.op.name not in kernels:
            span = call.span if call.span.line else where if where is not None and where.line else None
            op = op_of(call)
            hint = ("barriers, fences and pipe syncs order a kernel's own work: write them inside the pl.at scope "
                    "(or the InCore function)" if op is not None and op.kind is OpKind.SYSTEM else
                    "orchestration code launches kernels, creates tensors and computes scalars; tile work goes in "
                    "a kernel (a pl.at scope or an InCore function)")
            raise NotSupportedError(f"orchestration {fn.name!r}: only kernel launches are supported, got "
                                    f"{call.op_name}", span=span, hint=hint)
        k = kernels[call.op.name]
        binds = [(pname, self.argument(k, a)) for pname, a in zip(k.params, call.args, strict=False)]
        gm = {v for _p, v in binds if isinstance(v, str)}
        dumps = tuple(dict.fromkeys(t for t in (*self.dump_tags, *self.next_dumps) if t in gm))
        self.launches.append(Launch(k.name, tuple(binds), tuple(self.host), dumps))
        self.host.clear()
        self.next_dumps.clear()
        bound = dict(binds)
        return tuple(bound[r] for r in k.returns if isinstance(bound.get(r), str))

    def dump_tag(self, call: Call) -> None:
        """``tensor.dump_tag(t)``: the GM tensor ``t`` names is dumped by the launches binding it, from here on (or,
        ``next_launch=True``, by the next launch only)."""
        a = call.args[0]
        gm = self.tensor_of.get(a) if isinstance(a, Var) else None
        if gm is None and isinstance(a, Var) and self.results.get(a):
            gm = self.results[a][0]
        if gm is None:
            raise NotSupportedError(f"orchestration {self.fn.name!r}: pl.dump_tag of {a!r}, which names no GM tensor",
                                    span=call.span if call.span.line else None,
                                    hint="tag a tensor parameter, a pl.create_tensor result or a kernel's result")
        (self.next_dumps if call.kwarg("next_launch") else self.dump_tags).append(gm)

    def argument(self, k: PTOKernel, a: Expr) -> str | SExpr:
        if isinstance(a, Var) and a in self.tensor_of:
            return self.tensor_of[a]
        if isinstance(a, Var) and isinstance(a.type, TensorType) and a in self.results and self.results[a]:
            return self.results[a][0]
        if isinstance(a, (ConstInt, ConstFloat, ConstBool)):  # a literal (PyPTO: `kernel(x, out, 2.0)`)
            return SConst(a.value)
        if isinstance(a, Var) and isinstance(a.type, ScalarType):
            return SReg(self.names.get(a))
        if isinstance(getattr(a, "type", None), ScalarType):  # host arithmetic (block * 16)
            return self.host_sexpr(a)
        raise NotSupportedError(f"orchestration {self.fn.name!r}: cannot pass {a!r} to {k.name}")


def _orchestration(fn: Function, kernels: dict[str, PTOKernel]) -> _Orchestration:
    return _OrchestrationLowering(fn, kernels).run()


def select_entry_function(program: Program, entry: str | None = None) -> Function:
    if entry is not None:
        try:
            return program.function(entry)
        except KeyError:
            raise TilefoldError(f"program {program.name!r} has no function {entry!r}", span=program.span,
                                hint=f"functions: {', '.join(fn.name for fn in program.functions)}") from None
    orch = [fn for fn in program.functions if fn.func_type is FunctionType.Orchestration]
    if len(orch) == 1:
        return orch[0]
    kernels = [fn for fn in program.functions if fn.func_type.is_incore]
    if len(kernels) == 1:
        return kernels[0]
    if orch:
        raise TilefoldError(f"program {program.name!r} has several Orchestration functions", span=program.span,
                            hint="pass entry= the one to run")
    raise TilefoldError(f"program {program.name!r} has several kernels and no Orchestration function",
                        span=program.span, hint="add an Orchestration function or pass entry=")


def generate(program: Program, target: str | Target | None = None, mode: str = "strict",
             entry: str | None = None) -> PTOProgram:
    """Lower a memory-planned program to PTO."""
    if mode not in MODES:
        raise ValueError(f"codegen mode must be one of {MODES}, got {mode!r}")
    tgt = get_target(target)
    kernels: dict[str, PTOKernel] = {}
    for fn in program.functions:
        if fn.func_type.is_incore:
            k = FunctionCodegen(fn, tgt, mode).run()
            check_barriers_outside_regions(k)
            bd = fn.attr("block_dim")
            if bd is not None:
                k.block_dim = resolve_block_dim(bd, tgt)
                check_barrier_occupancy(k, k.block_dim, tgt)  # PyPTO's HardSyncallOccupancyValid
            kernels[fn.name] = k
    entry_fn = select_entry_function(program, entry)
    pto = PTOProgram(program.name, tgt.name, kernels, entry_fn.name)
    if entry_fn.func_type is FunctionType.Orchestration:
        orch = _orchestration(entry_fn, kernels)
        pto.orchestration = orch.launches
        pto.entry_locals = orch.locals
        pto.entry_returns = orch.returns
        pto.entry_tensors = tuple(
            TensorParam(p.name, tuple(e.value if isinstance(e, ConstInt) else -1 for e in p.type.shape),
                        p.type.dtype, d.value)
            for p, d in zip(entry_fn.params, entry_fn.param_directions, strict=False)
            if isinstance(p.type, TensorType))
        pto.entry_scalars = tuple(p.name for p in entry_fn.params if isinstance(p.type, ScalarType))
    elif entry_fn.name not in kernels:
        raise NotSupportedError(f"entry {entry_fn.name!r} is neither a kernel nor an orchestration function")
    return pto


__all__ = ["InternalCheckError", "MODES", "generate", "select_entry_function"]
