"""AutoTileMatmulL0: split Mat x Mat matmuls that do not fit L0 into L0-sized pieces.

Contract
--------
* Required / produced: ``TileOps2D`` (2-D matmuls in, 2-D ops out). Invalidated: nothing.
* A matmul-family call (``OpKind.MATMUL`` with operands ``lhs`` / ``rhs`` and optionally ``acc`` or
  ``bias``) whose ``lhs`` and ``rhs`` both live in Mat (L1) and have static shapes is *L0-sized* when the
  whole lhs fits Left (L0A), the rhs fits Right (L0B), the result fits Acc (L0C) and a bias fits the Bias
  table. L0-sized matmuls are left untouched: their Mat operands (often FlattenTileNdTo2D's batch-page
  ``tile.slice``) are turned into extracts by CanonicalizeTileSlice, or moved by InferTileMemorySpace.
* Any other such matmul gets L0 tile sizes (m, n, k) from a small cost search. Sizes lie on the fractal
  grid (multiples of the Acc fractal rows / columns for m / n, of the 32-byte K quantum for k) or are the
  whole extent; they need not divide the extent: the last piece along an axis is a smaller *tail* piece
  (statically shaped, starting on the grid, so only the last fractal of an axis is ever partial — the
  cube and the NZ accumulator pad partial fractals). An m x k lhs piece must fit half of Left and a k x n
  rhs piece half of Right (double buffering); the m x n accumulator must fit Acc (half of it for a grid).
  The price of a candidate uses the target's cost parameters (extract latency + bytes per cycle along
  Mat->Left / Mat->Right, cube start-up + fractal MACs, Acc->GM stores for a grid), tail pieces priced at
  their own size.
* The rewrite is a ``pl.pipeline(k, q * k, k, init_values=(c0,), stage=2)`` loop over the q full K steps
  whose body extracts the lhs / rhs pieces (``tile.extract(.., target_memory=Left|Right)``) and accumulates
  with the ``_acc`` variant of the op; the first K step is peeled into the plain op (a ``matmul_acc``
  instead runs all steps on its accumulator; a ``matmul_bias`` adds its bias in that first step only and
  accumulates with ``matmul_acc`` afterwards); a tail K step of ``K - q * k`` follows the loop. When m < M
  or n < N the output does not fit Acc: the result must then be consumed by exactly one ``tile.store``;
  the pass builds an M/N grid carrying the output tensor — one region per combination of (full blocks,
  tail block) along M and N, a ``pl.range`` loop over the full blocks, each block running its own K
  pipeline and storing its block. A split bias is extracted per column block (Mat -> Bias).
* ``auto_tile_matmul_l0(target=None, tile_sizes=None)``: ``tile_sizes=(m, n, k)`` forces the sizes for
  every matmul the pass would consider (benchmarks use it to search exhaustively); a forced (M, N, K)
  leaves the matmul untouched; a forced size off the fractal grid raises ``NotSupportedError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import Add, Call, ConstInt, Expr, IterArg, MakeTuple, Var
from tilefold.ir.names import name_supply
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    Function,
    IfStmt,
    Program,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import INDEX, MemorySpace, TensorType, TileType
from tilefold.ir.visitor import collect_uses
from tilefold.ops import OpKind, find_op, make_call, op_of
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.passes.option_records import AutoTileMatmulL0Options
from tilefold.passes.options import parse_options

Mem = MemorySpace


# ------------------------------------------------------------------------------------------------
# tile-size search
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulShape:
    m: int
    n: int
    k: int
    in_bytes: int  # itemsize of lhs / rhs
    acc_bytes: int  # itemsize of the accumulator


@dataclass(frozen=True)
class TileChoice:
    m: int
    n: int
    k: int
    cost: float

    @property
    def sizes(self) -> tuple[int, int, int]:
        return (self.m, self.n, self.k)


def _target(target: Any):
    from tilefold.targets import get_target

    return get_target(target)


def acc_block_bytes(m: int, n: int, acc_bytes: int, target: Any) -> int:
    """Bytes of an [m, n] accumulator in Acc, whose NZ layout pads to whole fractals."""
    fr, fc = _target(target).acc_fractal
    return _ceil_to(m, fr) * _ceil_to(n, fc) * acc_bytes


def fits_l0(shape: MatmulShape, target: Any) -> bool:
    """Whole operands fit Left / Right and the result fits Acc: no tiling needed."""
    t = _target(target)
    return (shape.m * shape.k * shape.in_bytes <= t.capacity(Mem.Left)
            and shape.k * shape.n * shape.in_bytes <= t.capacity(Mem.Right)
            and acc_block_bytes(shape.m, shape.n, shape.acc_bytes, t) <= t.capacity(Mem.Acc))


def k_quantum(in_bytes: int) -> int:
    """Smallest K step: one 32-byte fractal row (16 for 16-bit inputs, 32 for INT8, 8 for FP32)."""
    return max(1, 32 // in_bytes)


def _ceil_to(x: int, q: int) -> int:
    return -(-x // q) * q


def aligned_sizes(extent: int, quantum: int) -> list[int]:
    """Piece sizes worth trying along one axis: for every piece count p, the smallest multiple of ``quantum``
    that covers ``extent`` in p pieces (capped at the extent itself). Every divisor of the extent on the
    quantum grid is one of them; the others leave a smaller last (tail) piece. Any other aligned size with
    the same piece count only needs more L0 space for the same work, so nothing is lost by skipping it."""
    out = set()
    for p in range(1, -(-extent // quantum) + 1):
        out.add(min(extent, _ceil_to(-(-extent // p), quantum)))
    return sorted(out)


def pieces(extent: int, size: int) -> list[tuple[int, int]]:
    """(piece size, count) along one axis: full pieces of ``size`` then one tail piece, if any."""
    q, r = divmod(extent, size)
    out = [(size, q)] if q else []
    if r:
        out.append((r, 1))
    return out


def axis_quanta(shape: MatmulShape, target: Any) -> tuple[int, int, int]:
    """Alignment of piece starts along M, N, K: the Acc fractal rows / columns and the 32-byte K quantum. The
    last piece of an axis may be partial (the cube pads partial fractals), every other piece starts and ends
    on the grid."""
    t = _target(target)
    frac_rows, frac_cols = t.acc_fractal
    return frac_rows, frac_cols, k_quantum(shape.in_bytes)


def legal_tile_sizes(shape: MatmulShape, target: Any, bias_bytes: int = 0) -> list[tuple[int, int, int]]:
    """Every (m, n, k) the pass may pick: piece sizes on the fractal grid (``aligned_sizes``; the full extent
    when it is smaller), with double-buffered lhs / rhs pieces and an accumulator that fits Acc (half of it
    for a grid). ``bias_bytes``: itemsize of a bias row, whose [1, n] block must fit the Bias table."""
    t = _target(target)
    left, right, acc = t.capacity(Mem.Left), t.capacity(Mem.Right), t.capacity(Mem.Acc)
    qm, qn, qk = axis_quanta(shape, t)
    bias_cap = t.capacity(Mem.Bias) if bias_bytes else 0
    out = []
    for m in aligned_sizes(shape.m, qm):
        for n in aligned_sizes(shape.n, qn):
            if bias_bytes and n * bias_bytes > bias_cap:
                continue
            grid = m < shape.m or n < shape.n
            if acc_block_bytes(m, n, shape.acc_bytes, t) > (acc // 2 if grid else acc):
                continue
            for k in aligned_sizes(shape.k, qk):
                if m * k * shape.in_bytes > left // 2 or k * n * shape.in_bytes > right // 2:
                    continue
                out.append((m, n, k))
    return out


def estimate_cycles(shape: MatmulShape, sizes: tuple[int, int, int], target: Any) -> float:
    """Cycles of the tiled matmul under the target's cost parameters (extracts + MADs + grid stores), tail
    pieces priced at their own size."""
    t = _target(target)
    m, n, k = sizes
    costs = t.costs
    fm, fk16, fn = costs.cube_fractal
    fk = max(1, fk16 * 2 // shape.in_bytes)  # a fractal holds 32 bytes of K
    a_path, b_path = t.path_cost(Mem.Mat, Mem.Left), t.path_cost(Mem.Mat, Mem.Right)
    st_path = t.path_cost(Mem.Acc, Mem.DDR)
    loop = 2 * costs.scalar_op  # loop-variable update and bound test
    total = 0.0
    for mb, cm in pieces(shape.m, m):
        for nb, cn in pieces(shape.n, n):
            block = st_path.latency + mb * nb * shape.acc_bytes / st_path.bytes_per_cycle
            for kb, ck in pieces(shape.k, k):
                ext_a = a_path.latency + mb * kb * shape.in_bytes / a_path.bytes_per_cycle
                ext_b = b_path.latency + kb * nb * shape.in_bytes / b_path.bytes_per_cycle
                fractals = math.ceil(mb / fm) * math.ceil(nb / fn) * math.ceil(kb / fk)
                mad = costs.cube_startup + fractals / costs.cube_fractals_per_cycle
                block += ck * (ext_a + ext_b + mad + loop)
            total += cm * cn * block
    return total


def choose_tile_sizes(shape: MatmulShape, target: Any, bias_bytes: int = 0) -> TileChoice | None:
    """The cheapest legal (m, n, k); ties go to the larger k, then the larger output tile."""
    best: TileChoice | None = None
    best_key = None
    for sizes in legal_tile_sizes(shape, target, bias_bytes):
        cost = estimate_cycles(shape, sizes, target)
        key = (round(cost, 6), -sizes[2], -(sizes[0] * sizes[1]))
        if best_key is None or key < best_key:
            best, best_key = TileChoice(*sizes, cost), key
    return best


# ------------------------------------------------------------------------------------------------
# the pass
# ------------------------------------------------------------------------------------------------


def auto_tile_matmul_l0(target: Any = None, tile_sizes: Sequence[int] | None = None) -> Pass:
    """Factory of AutoTileMatmulL0; the keywords are the fields of ``AutoTileMatmulL0Options`` (checked)."""
    opts = parse_options(AutoTileMatmulL0Options, target=target, tile_sizes=tile_sizes)

    def run(fn: Function, program: Program) -> Function:
        return _Tiler(opts.target, opts.tile_sizes, fn).run()

    return function_pass(
        "AutoTileMatmulL0", run, required=(IRProperty.TileOps2D,), produced=(IRProperty.TileOps2D,),
        cli_name="auto-tile-matmul-l0",
    )


@dataclass
class _Candidate:
    call: Call
    acc: Expr | None
    lhs: Expr
    rhs: Expr
    bias: Expr | None
    shape: MatmulShape
    plain_op: str  # first K step (carries the bias, if any)
    acc_op: str  # every later K step

    @property
    def bias_bytes(self) -> int:
        return self.bias.type.dtype.itemsize if self.bias is not None else 0


@dataclass(frozen=True)
class _Segment:
    """Output blocks along one axis: ``count`` blocks of ``size`` starting at ``start``."""

    start: int
    size: int
    count: int


def _segments(extent: int, size: int) -> list[_Segment]:
    out = []
    start = 0
    for piece, count in pieces(extent, size):
        out.append(_Segment(start, piece, count))
        start += piece * count
    return out


def _tuple(values) -> MakeTuple:
    return MakeTuple(tuple(v if isinstance(v, Expr) else ConstInt(int(v)) for v in values))


def _plus(a: Expr, b: Expr) -> Expr:
    if isinstance(b, ConstInt) and b.value == 0:
        return a
    if isinstance(a, ConstInt) and a.value == 0:
        return b
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return ConstInt(a.value + b.value)
    return Add(a, b, dtype=INDEX.dtype)


def _op_base(name: str, has_acc: bool, has_bias: bool) -> str:
    if has_acc and name.endswith("_acc"):
        return name[:-4]
    if has_bias and name.endswith("_bias"):
        return name[:-5]
    return name


class _Tiler:
    def __init__(self, target: Any, forced: tuple[int, int, int] | None, fn: Function) -> None:
        self.target = target
        self.forced = forced
        self.fn = fn
        self._names = name_supply(fn)
        self._uses: dict[Var, int] | None = None

    def fresh(self, base: str) -> str:
        return self._names.fresh(base)

    def uses(self) -> dict[Var, int]:
        if self._uses is None:
            self._uses = collect_uses(self.fn.body)
        return self._uses

    def run(self) -> Function:
        body = self.block(self.fn.body)
        if body is self.fn.body:
            return self.fn
        return self.fn.with_fields(body=body)

    # -------------------------------------------------------------------------------------- walking
    def block(self, body: Stmt) -> Stmt:
        stmts = list(body.stmts) if isinstance(body, SeqStmts) else [body]
        out: list[Stmt] = []
        changed = False
        pending: dict[Var, tuple[_Candidate, TileChoice, AssignStmt]] = {}  # grid matmuls awaiting their store
        for s in stmts:
            if isinstance(s, AssignStmt) and isinstance(s.value, Call):
                cand = self.candidate(s.value, s.span)
                if cand is not None:
                    choice = self.choose(cand, s.span)
                    if choice is not None:
                        changed = True
                        if choice.m < cand.shape.m or choice.n < cand.shape.n:
                            self.check_grid_use(s, cand)
                            pending[s.var] = (cand, choice, s)
                            continue
                        out.extend(self.k_steps(cand, choice, s.var, ConstInt(0), ConstInt(0), cand.shape.m,
                                                cand.shape.n, s.span))
                        continue
                op = op_of(s.value)
                if op is not None and op.kind is OpKind.STORE and isinstance(s.value.args[0], Var) \
                        and s.value.args[0] in pending:
                    cand, choice, mm = pending.pop(s.value.args[0])
                    out.extend(self.grid(cand, choice, s, mm.span))
                    continue
            new = self.nested(s)
            changed = changed or new is not s
            out.append(new)
        if pending:  # the single use was not a store in this block (checked earlier, kept for safety)
            var = next(iter(pending))
            raise NotSupportedError(f"the output of matmul {var.name!r} needs an M/N grid but is not stored",
                                    span=pending[var][2].span, hint=_GRID_HINT)
        if not changed:
            return body
        return SeqStmts(tuple(out))

    def nested(self, s: Stmt) -> Stmt:
        if isinstance(s, (ForStmt, WhileStmt)):
            body = self.block(s.body)
            return s if body is s.body else s.with_fields(body=body)
        if isinstance(s, IfStmt):
            then_body = self.block(s.then_body)
            else_body = self.block(s.else_body) if s.else_body is not None else None
            if then_body is s.then_body and else_body is s.else_body:
                return s
            return s.with_fields(then_body=then_body, else_body=else_body)
        if isinstance(s, EvalStmt) and isinstance(s.expr, Call):
            cand = self.candidate(s.expr, s.span)
            if cand is not None and self.choose(cand, s.span) is not None:
                raise NotSupportedError(
                    f"{s.expr.op_name} used as a bare statement does not fit L0 and cannot be tiled", span=s.span,
                    hint="bind its result (acc = pl.tile.matmul_acc(acc, a, b)) so the tiled loop can carry it")
        return s

    # -------------------------------------------------------------------------------------- selection
    def candidate(self, c: Call, span: Span | None = None) -> _Candidate | None:
        op = op_of(c)
        if op is None or op.kind is not OpKind.MATMUL:
            return None
        # the operands the call passes (an optional trailing one, matmul_acc's run-time init_cond, is not tiled)
        names = [p.name for p in op.operand_params][:len(c.args)]
        if set(names) - {"acc", "lhs", "rhs", "bias"} or "lhs" not in names or "rhs" not in names:
            return None  # other operands: not an L0 tiling candidate
        if len(c.args) != len(names) or ("acc" in names and "bias" in names):
            return None
        operands = dict(zip(names, c.args, strict=True))
        lhs, rhs, bias = operands["lhs"], operands["rhs"], operands.get("bias")
        lt, rt, res = lhs.type, rhs.type, c.type
        if not (isinstance(lt, TileType) and isinstance(rt, TileType) and isinstance(res, TileType)):
            return None
        if lt.rank != 2 or rt.rank != 2 or lt.memory_space is not Mem.Mat or rt.memory_space is not Mem.Mat:
            return None
        ls, rs = lt.static_shape, rt.static_shape
        if ls is None or rs is None:
            return None
        if bias is not None and not (isinstance(bias.type, TileType) and bias.type.rank == 2
                                     and bias.type.static_shape is not None):
            return None
        has_acc = "acc" in operands
        base = _op_base(c.op_name, has_acc, bias is not None)
        acc_name = base + "_acc"
        acc_op = find_op(acc_name)
        if find_op(c.op_name) is None or acc_op is None \
                or [p.name for p in acc_op.operand_params if p.required] != ["acc", "lhs", "rhs"]:
            return None
        shape = MatmulShape(ls[0], rs[1], ls[1], lt.dtype.itemsize, res.dtype.itemsize)
        return _Candidate(c, operands.get("acc"), lhs, rhs, bias, shape, c.op_name if bias is not None else base,
                          acc_name)

    def choose(self, cand: _Candidate, span: Span | None) -> TileChoice | None:
        shape = cand.shape
        span = span if span is not None else cand.call.span
        if self.forced is not None:
            if self.forced == (shape.m, shape.n, shape.k):
                return None
            m, n, k = self.forced
            m, n, k = min(m, shape.m), min(n, shape.n), min(k, shape.k)
            quanta = axis_quanta(shape, self.target)
            for size, extent, q, axis in zip((m, n, k), (shape.m, shape.n, shape.k), quanta, "MNK", strict=True):
                if size < extent and size % q:
                    raise NotSupportedError(
                        f"forced tile size {axis}={size} of the matmul [{shape.m}, {shape.k}] x [{shape.k}, "
                        f"{shape.n}] is not a multiple of {q}: the pieces after the first would start inside a "
                        "fractal", span=span,
                        hint=f"force a multiple of {q} (the last piece may be smaller), or the full extent {extent}")
            if (m, n, k) == (shape.m, shape.n, shape.k):
                return None
            choice = TileChoice(m, n, k, estimate_cycles(shape, (m, n, k), self.target))
        else:
            if self.fits(cand):
                return None
            choice = choose_tile_sizes(shape, self.target, cand.bias_bytes)
            if choice is None:
                t = _target(self.target)
                raise NotSupportedError(
                    f"no L0 tiling of {cand.call.op_name} [{shape.m}, {shape.k}] x [{shape.k}, {shape.n}] fits "
                    f"{t.name}'s Left / Right / Acc memories (even the smallest pieces are too large)", span=span,
                    hint="tile the matmul by hand with pl.tile.extract into pieces that fit L0A / L0B / L0C")
        if cand.acc is not None and (choice.m < shape.m or choice.n < shape.n):
            raise NotSupportedError(
                f"the accumulator of {cand.call.op_name} [{shape.m}, {shape.n}] does not fit Acc", span=span,
                hint="split the output by hand: accumulate [m, n] blocks that fit L0C and store each one")
        if cand.bias is not None and choice.n < shape.n:
            bt = cand.bias.type
            src = bt.memory_space or Mem.Vec
            if src is not Mem.Bias and not _target(self.target).supports_path(src, Mem.Bias):
                raise NotSupportedError(
                    f"{cand.call.op_name}: the output is split into column blocks, but the bias lives in "
                    f"{src.name}, from where no copy path reaches the Bias table", span=span,
                    hint="load the bias with target_memory=pl.Mem.Mat so each column block can extract its part")
        return choice

    def fits(self, cand: _Candidate) -> bool:
        if not fits_l0(cand.shape, self.target):
            return False
        if cand.bias is not None:
            return cand.shape.n * cand.bias_bytes <= _target(self.target).capacity(Mem.Bias)
        return True

    def check_grid_use(self, s: AssignStmt, cand: _Candidate) -> None:
        if self.uses().get(s.var, 0) != 1:
            raise NotSupportedError(
                f"the result of {cand.call.op_name} [{cand.shape.m}, {cand.shape.n}] does not fit Acc and is "
                "used more than once (or not at all)", span=s.span, hint=_GRID_HINT)

    # -------------------------------------------------------------------------------------- rewriting
    def k_steps(self, cand: _Candidate, choice: TileChoice, result: Var | None, row: Expr, col: Expr, mb: int,
                nb: int, span: Span | None) -> list[Stmt]:
        """Statements computing the [mb, nb] output block at (row, col); the last one binds ``result``.

        K is covered by full steps of ``k`` and, when k does not divide K, one tail step of ``K % k`` after
        the loop. Without an accumulator operand the first full step is peeled into the plain op (which adds
        the bias, if any); the remaining full steps form a ``pl.pipeline`` loop."""
        shape = cand.shape
        k = choice.k
        full, tail = divmod(shape.k, k)
        out: list[Stmt] = []
        lhs_name = getattr(cand.lhs, "name", "lhs")
        rhs_name = getattr(cand.rhs, "name", "rhs")
        res_name = getattr(result, "name", "c")

        def extract(dst: list[Stmt], src: Expr, r: Expr, c: Expr, rows: int, cols: int, mem: Mem,
                    name: str) -> Var:
            call = make_call("tile.extract", (src, r, c), {"shape": (rows, cols), "target_memory": mem})
            v = Var(self.fresh(name), call.type)
            dst.append(AssignStmt(v, call, span=span) if span is not None else AssignStmt(v, call))
            return v

        def bind(value: Expr, last: bool, base: str) -> Var:
            if last and result is not None:
                v = result
            else:
                v = Var(self.fresh("c_blk" if last else base), value.type)
            # generated statements keep the matmul's location: later passes report errors against them
            out.append(AssignStmt(v, value, span=span) if span is not None else AssignStmt(v, value))
            return v

        if cand.acc is None:
            a0 = extract(out, cand.lhs, row, ConstInt(0), mb, k, Mem.Left, f"{lhs_name}_l0")
            b0 = extract(out, cand.rhs, ConstInt(0), col, k, nb, Mem.Right, f"{rhs_name}_l0")
            args: tuple[Expr, ...] = (a0, b0)
            if cand.bias is not None:
                args += (self.bias_block(cand, col, nb, out, span),)
            first = make_call(cand.plain_op, args, dict(cand.call.kwargs)).with_fields(span=cand.call.span)
            cur: Expr = bind(first, full == 1 and not tail, f"{res_name}_k0")
            start = k
        else:
            cur = cand.acc
            start = 0
        if start < full * k:
            ko = Var(self.fresh("ko"), INDEX)
            it = IterArg(self.fresh(f"{res_name}_iter"), cur.type, init=cur)
            body: list[Stmt] = []
            ak = extract(body, cand.lhs, row, ko, mb, k, Mem.Left, f"{lhs_name}_l0")
            bk = extract(body, cand.rhs, ko, col, k, nb, Mem.Right, f"{rhs_name}_l0")
            step = make_call(cand.acc_op, (it, ak, bk)).with_fields(span=cand.call.span)
            nxt = Var(self.fresh(f"{res_name}_next"), step.type)
            body.append(AssignStmt(nxt, step, span=span) if span is not None else AssignStmt(nxt, step))
            body.append(YieldStmt((nxt,)))
            last = not tail
            rv = result if last and result is not None else Var(self.fresh(f"{res_name}_kfull" if tail else "c_blk"),
                                                                 step.type)
            loop = ForStmt(ko, ConstInt(start), ConstInt(full * k), ConstInt(k), (it,), SeqStmts(tuple(body)),
                           (rv,), kind=ForKind.Pipeline, attrs=(("stage", 2),))
            out.append(loop if span is None else loop.with_fields(span=span))
            cur = rv
        if tail:
            at = extract(out, cand.lhs, row, ConstInt(full * k), mb, tail, Mem.Left, f"{lhs_name}_tail")
            bt = extract(out, cand.rhs, ConstInt(full * k), col, tail, nb, Mem.Right, f"{rhs_name}_tail")
            step = make_call(cand.acc_op, (cur, at, bt)).with_fields(span=cand.call.span)
            bind(step, True, "c_blk")
        return out

    def bias_block(self, cand: _Candidate, col: Expr, nb: int, out: list[Stmt], span: Span | None) -> Expr:
        """The bias columns of an output block: the bias itself, or its [rows, nb] window extracted to Bias."""
        bias = cand.bias
        assert bias is not None
        bt = bias.type
        assert isinstance(bt, TileType)
        rows, cols = bt.static_shape
        if nb == cols:
            return bias
        call = make_call("tile.extract", (bias, ConstInt(0), col), {"shape": (rows, nb), "target_memory": Mem.Bias})
        v = Var(self.fresh(f"{getattr(bias, 'name', 'bias')}_blk"), call.type)
        out.append(AssignStmt(v, call, span=span) if span is not None else AssignStmt(v, call))
        return v

    def grid(self, cand: _Candidate, choice: TileChoice, store: AssignStmt, span: Span | None) -> list[Stmt]:
        """Replace ``out = store(c, offs, t)`` by M/N loops that each compute and store one block.

        Each axis is split into a segment of full blocks (a ``pl.range`` loop, or straight-line code for a
        single block) and, when the block size does not divide the extent, a tail block of the remaining
        rows / columns. Every combination of segments is one region; the regions run one after the other,
        carrying the output tensor."""
        shape = cand.shape
        call = store.value
        assert isinstance(call, Call)
        tensor = call.args[2]
        tensor_t = tensor.type
        assert isinstance(tensor_t, TensorType)
        tname = getattr(tensor, "name", "out")
        regions = [(ms, ns) for ms in _segments(shape.m, choice.m) for ns in _segments(shape.n, choice.n)]
        out: list[Stmt] = []
        carried: Expr = tensor
        for i, (ms, ns) in enumerate(regions):
            last = i == len(regions) - 1
            result = store.var if last else Var(self.fresh(f"{tname}_part"), tensor_t)
            out.extend(self.region(cand, choice, call, carried, ms, ns, result, span))
            carried = result
        return out

    def region(self, cand: _Candidate, choice: TileChoice, call: Call, tensor: Expr, ms: _Segment, ns: _Segment,
               result: Var, span: Span | None) -> list[Stmt]:
        offsets = call.args[1].elements
        tensor_t = tensor.type
        assert isinstance(tensor_t, TensorType)
        tname = getattr(call.args[2], "name", "out")
        kw = dict(call.kwargs)
        if kw.get("shapes") is not None:
            kw["shapes"] = tuple(kw["shapes"])[:-2] + (ms.size, ns.size)
        loops: list[tuple[Var, _Segment, IterArg]] = []
        pos: list[Expr] = []
        carried: Expr = tensor
        for seg, axis in ((ms, "mi"), (ns, "ni")):
            if seg.count > 1:
                lv = Var(self.fresh(axis), INDEX)
                it = IterArg(self.fresh(f"{tname}_iter"), tensor_t, init=carried)
                loops.append((lv, seg, it))
                carried = it
                pos.append(lv)
            else:
                pos.append(ConstInt(seg.start))
        row, col = pos
        stmts: list[Stmt] = self.k_steps(cand, choice, None, row, col, ms.size, ns.size, span)
        last = stmts[-1]
        block = last.return_vars[0] if isinstance(last, ForStmt) else last.var
        offs = list(offsets[:-2]) + [_plus(offsets[-2], row), _plus(offsets[-1], col)]
        st = make_call(call.op_name, (block, _tuple(offs), carried), kw).with_fields(span=call.span)
        if not loops:
            return stmts + [AssignStmt(result, st)]
        stored = Var(self.fresh(f"{tname}_blk"), st.type)
        stmts += [AssignStmt(stored, st), YieldStmt((stored,))]
        for depth in range(len(loops) - 1, -1, -1):
            lv, seg, it = loops[depth]
            rv = result if depth == 0 else Var(self.fresh(f"{tname}_rows"), tensor_t)
            loop = ForStmt(lv, ConstInt(seg.start), ConstInt(seg.start + seg.count * seg.size), ConstInt(seg.size),
                           (it,), SeqStmts(tuple(stmts)), (rv,), kind=ForKind.Sequential)
            if depth == 0:
                return [loop if span is None else loop.with_fields(span=span)]
            stmts = [loop, YieldStmt((rv,))]
        raise AssertionError("unreachable")


_GRID_HINT = ("an output that does not fit L0C is computed block by block and each block is stored to GM; "
              "store the matmul result directly (out = pl.store(c, [r, c], out)) and use it nowhere else, or "
              "split the matmul by hand into blocks that fit Acc")
