"""AutoTileMatmulL0: split Mat x Mat matmuls that do not fit L0 into L0-sized pieces.

Contract
--------
* Required / produced: ``TileOps2D`` (2-D matmuls in, 2-D ops out). Invalidated: nothing.
* A matmul-family call (``OpKind.MATMUL`` with operands ``lhs`` / ``rhs`` and optionally ``acc``) whose
  ``lhs`` and ``rhs`` both live in Mat (L1) and have static shapes is *L0-sized* when the whole lhs fits
  Left (L0A), the rhs fits Right (L0B) and the result fits Acc (L0C). L0-sized matmuls are left untouched:
  their Mat operands (often FlattenTileNdTo2D's batch-page ``tile.slice``) are turned into extracts by
  CanonicalizeTileSlice, or moved by InferTileMemorySpace.
* Any other such matmul gets L0 tile sizes (m, n, k) from a small cost search over divisors of (M, N, K):
  an m x k lhs piece must fit half of Left and a k x n rhs piece half of Right (double buffering: the
  next piece is extracted while the cube works on the current one); the m x n accumulator must fit Acc
  (half of it when the output is split into a grid, so one tile can drain to GM while the next
  accumulates). The price of a candidate uses the target's cost parameters: extract latency + bytes per
  cycle along Mat->Left / Mat->Right, cube start-up + fractal MACs, and Acc->GM stores for a grid.
* The rewrite is a ``pl.pipeline(k, K, k, init_values=(c0,), stage=2)`` loop over K whose body extracts
  the lhs / rhs pieces (``tile.extract(.., target_memory=Left|Right)``) and accumulates with the ``_acc``
  variant of the op; the first K step is peeled into the plain op (a ``matmul_acc`` instead runs all steps
  on its accumulator). When m < M or n < N the output does not fit Acc: the result must then be consumed
  by exactly one ``tile.store``; the pass builds an M/N grid of ``pl.range`` loops carrying the output
  tensor, each tile running its own K pipeline and storing its [m, n] block.
* ``auto_tile_matmul_l0(target=None, tile_sizes=None)``: ``tile_sizes=(m, n, k)`` forces the sizes for
  every matmul the pass would consider (benchmarks use it to search exhaustively); a forced (M, N, K)
  leaves the matmul untouched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import Add, Call, ConstInt, Expr, IterArg, MakeTuple, Var
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
    from tilefold.backend.targets import get_target

    return get_target(target)


def fits_l0(shape: MatmulShape, target: Any) -> bool:
    """Whole operands fit Left / Right and the result fits Acc: no tiling needed."""
    t = _target(target)
    return (shape.m * shape.k * shape.in_bytes <= t.capacity(Mem.Left)
            and shape.k * shape.n * shape.in_bytes <= t.capacity(Mem.Right)
            and shape.m * shape.n * shape.acc_bytes <= t.capacity(Mem.Acc))


def k_quantum(in_bytes: int) -> int:
    """Smallest K step: one 32-byte fractal row (16 for 16-bit inputs, 32 for INT8, 8 for FP32)."""
    return max(1, 32 // in_bytes)


def _divisors(extent: int, quantum: int) -> list[int]:
    out = {d for d in range(quantum, extent + 1, quantum) if extent % d == 0}
    out.add(extent)
    return sorted(out)


def legal_tile_sizes(shape: MatmulShape, target: Any) -> list[tuple[int, int, int]]:
    """Every (m, n, k) the pass may pick: divisors of M / N on the 16-row fractal grid, divisors of K on the
    K quantum, with double-buffered lhs / rhs pieces and an accumulator that fits Acc (half of it for a
    grid)."""
    t = _target(target)
    left, right, acc = t.capacity(Mem.Left), t.capacity(Mem.Right), t.capacity(Mem.Acc)
    frac_rows, frac_cols = t.acc_fractal
    out = []
    for m in _divisors(shape.m, frac_rows):
        for n in _divisors(shape.n, frac_cols):
            grid = m < shape.m or n < shape.n
            if m * n * shape.acc_bytes > (acc // 2 if grid else acc):
                continue
            for k in _divisors(shape.k, k_quantum(shape.in_bytes)):
                if m * k * shape.in_bytes > left // 2 or k * n * shape.in_bytes > right // 2:
                    continue
                out.append((m, n, k))
    return out


def estimate_cycles(shape: MatmulShape, sizes: tuple[int, int, int], target: Any) -> float:
    """Cycles of the tiled matmul under the target's cost parameters (extracts + MADs + grid stores)."""
    t = _target(target)
    m, n, k = sizes
    costs = t.costs
    fm, fk16, fn = costs.cube_fractal
    fk = max(1, fk16 * 2 // shape.in_bytes)  # a fractal holds 32 bytes of K
    a_path, b_path = t.path_cost(Mem.Mat, Mem.Left), t.path_cost(Mem.Mat, Mem.Right)
    ext_a = a_path.latency + m * k * shape.in_bytes / a_path.bytes_per_cycle
    ext_b = b_path.latency + k * n * shape.in_bytes / b_path.bytes_per_cycle
    fractals = math.ceil(m / fm) * math.ceil(n / fn) * math.ceil(k / fk)
    mad = costs.cube_startup + fractals / costs.cube_fractals_per_cycle
    st_path = t.path_cost(Mem.Acc, Mem.DDR)
    store = st_path.latency + m * n * shape.acc_bytes / st_path.bytes_per_cycle
    steps = shape.k // k
    loop = 2 * costs.scalar_op  # loop-variable update and bound test
    tiles = (shape.m // m) * (shape.n // n)
    return tiles * (steps * (ext_a + ext_b + mad + loop) + store)


def choose_tile_sizes(shape: MatmulShape, target: Any) -> TileChoice | None:
    """The cheapest legal (m, n, k); ties go to the larger k, then the larger output tile."""
    best: TileChoice | None = None
    best_key = None
    for sizes in legal_tile_sizes(shape, target):
        cost = estimate_cycles(shape, sizes, target)
        key = (round(cost, 6), -sizes[2], -(sizes[0] * sizes[1]))
        if best_key is None or key < best_key:
            best, best_key = TileChoice(*sizes, cost), key
    return best


# ------------------------------------------------------------------------------------------------
# the pass
# ------------------------------------------------------------------------------------------------


def auto_tile_matmul_l0(target: Any = None, tile_sizes: Sequence[int] | None = None) -> Pass:
    forced = tuple(int(x) for x in tile_sizes) if tile_sizes is not None else None
    if forced is not None and len(forced) != 3:
        raise ValueError("tile_sizes must be (m, n, k)")

    def run(fn: Function, program: Program) -> Function:
        return _Tiler(target, forced, fn).run()

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
    shape: MatmulShape
    plain_op: str
    acc_op: str


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


class _Tiler:
    def __init__(self, target: Any, forced: tuple[int, int, int] | None, fn: Function) -> None:
        self.target = target
        self.forced = forced
        self.fn = fn
        self._names: dict[str, int] = {}
        self._uses: dict[Var, int] | None = None

    def fresh(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return f"{base}_{n}" if n else base

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
                cand = self.candidate(s.value)
                if cand is not None:
                    choice = self.choose(cand, s.span)
                    if choice is not None:
                        changed = True
                        if choice.m < cand.shape.m or choice.n < cand.shape.n:
                            self.check_grid_use(s, cand)
                            pending[s.var] = (cand, choice, s)
                            continue
                        out.extend(self.k_pipeline(cand, choice, s.var, ConstInt(0), ConstInt(0), s.span))
                        continue
                op = op_of(s.value)
                if op is not None and op.kind is OpKind.STORE and isinstance(s.value.args[0], Var) \
                        and s.value.args[0] in pending:
                    cand, choice, mm = pending.pop(s.value.args[0])
                    out.append(self.grid(cand, choice, s, mm.span))
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
        if isinstance(s, EvalStmt) and isinstance(s.expr, Call) and self.candidate(s.expr) is not None:
            cand = self.candidate(s.expr)
            assert cand is not None
            if self.choose(cand, s.span) is not None:
                raise NotSupportedError(
                    f"{s.expr.op_name} used as a bare statement does not fit L0 and cannot be tiled", span=s.span,
                    hint="bind its result (acc = pl.tile.matmul_acc(acc, a, b)) so the tiled loop can carry it")
        return s

    # -------------------------------------------------------------------------------------- selection
    def candidate(self, c: Call) -> _Candidate | None:
        op = op_of(c)
        if op is None or op.kind is not OpKind.MATMUL:
            return None
        names = [p.name for p in op.operand_params]
        if set(names) - {"acc", "lhs", "rhs"} or "lhs" not in names or "rhs" not in names:
            return None  # bias / other operands: not an L0 tiling candidate
        if len(c.args) != len(names):
            return None
        operands = dict(zip(names, c.args, strict=True))
        lhs, rhs = operands["lhs"], operands["rhs"]
        lt, rt, res = lhs.type, rhs.type, c.type
        if not (isinstance(lt, TileType) and isinstance(rt, TileType) and isinstance(res, TileType)):
            return None
        if lt.rank != 2 or rt.rank != 2 or lt.memory_space is not Mem.Mat or rt.memory_space is not Mem.Mat:
            return None
        ls, rs = lt.static_shape, rt.static_shape
        if ls is None or rs is None:
            return None
        has_acc = "acc" in operands
        base = c.op_name[:-4] if has_acc and c.op_name.endswith("_acc") else c.op_name
        acc_name = base + "_acc"
        if find_op(base) is None or find_op(acc_name) is None:
            return None
        shape = MatmulShape(ls[0], rs[1], ls[1], lt.dtype.itemsize, res.dtype.itemsize)
        return _Candidate(c, operands.get("acc"), lhs, rhs, shape, base, acc_name)

    def choose(self, cand: _Candidate, span: Span | None) -> TileChoice | None:
        shape = cand.shape
        if self.forced is not None:
            if self.forced == (shape.m, shape.n, shape.k):
                return None
            m, n, k = self.forced
            m, n, k = min(m, shape.m), min(n, shape.n), min(k, shape.k)
            if shape.m % m or shape.n % n or shape.k % k:
                raise NotSupportedError(f"forced tile sizes {self.forced} do not divide the matmul "
                                        f"[{shape.m}, {shape.k}] x [{shape.k}, {shape.n}]", span=span)
            if (m, n, k) == (shape.m, shape.n, shape.k):
                return None
            return TileChoice(m, n, k, estimate_cycles(shape, (m, n, k), self.target))
        if fits_l0(shape, self.target):
            return None
        choice = choose_tile_sizes(shape, self.target)
        if choice is None:
            raise NotSupportedError(
                f"no L0 tiling of the matmul [{shape.m}, {shape.k}] x [{shape.k}, {shape.n}] fits the target's "
                "Left / Right / Acc memories", span=span,
                hint="make M and N multiples of 16 and K a multiple of the 32-byte fractal, or tile the "
                     "matmul by hand with pl.tile.extract")
        if cand.acc is not None and (choice.m < shape.m or choice.n < shape.n):
            raise NotSupportedError(
                f"the accumulator of {cand.call.op_name} [{shape.m}, {shape.n}] does not fit Acc", span=span,
                hint="split the output by hand: accumulate [m, n] blocks that fit L0C and store each one")
        return choice

    def check_grid_use(self, s: AssignStmt, cand: _Candidate) -> None:
        if self.uses().get(s.var, 0) != 1:
            raise NotSupportedError(
                f"the result of {cand.call.op_name} [{cand.shape.m}, {cand.shape.n}] does not fit Acc and is "
                "used more than once (or not at all)", span=s.span, hint=_GRID_HINT)

    # -------------------------------------------------------------------------------------- rewriting
    def k_pipeline(self, cand: _Candidate, choice: TileChoice, result: Var | None, row: Expr, col: Expr,
                   span: Span | None) -> list[Stmt]:
        """Statements computing one [m, n] output block at (row, col); the last binds ``result``."""
        shape = cand.shape
        m, n, k = choice.sizes
        out: list[Stmt] = []
        lhs_name = getattr(cand.lhs, "name", "lhs")
        rhs_name = getattr(cand.rhs, "name", "rhs")

        def extract(dst: list[Stmt], src: Expr, r: Expr, c: Expr, rows: int, cols: int, mem: Mem,
                    name: str) -> Var:
            call = make_call("tile.extract", (src, r, c), {"shape": (rows, cols), "target_memory": mem})
            v = Var(self.fresh(name), call.type)
            dst.append(AssignStmt(v, call, span=span) if span is not None else AssignStmt(v, call))
            return v

        res_name = getattr(result, "name", "c")
        if cand.acc is None:
            a0 = extract(out, cand.lhs, row, ConstInt(0), m, k, Mem.Left, f"{lhs_name}_l0")
            b0 = extract(out, cand.rhs, ConstInt(0), col, k, n, Mem.Right, f"{rhs_name}_l0")
            first = make_call(cand.plain_op, (a0, b0), dict(cand.call.kwargs)).with_fields(span=cand.call.span)
            if shape.k == k:
                v = result if result is not None else Var(self.fresh("c_blk"), first.type)
                out.append(AssignStmt(v, first))
                return out
            init_var = Var(self.fresh(f"{res_name}_k0"), first.type)
            out.append(AssignStmt(init_var, first))
            init: Expr = init_var
            start = k
        else:
            init = cand.acc
            start = 0
        ko = Var(self.fresh("ko"), INDEX)
        it = IterArg(self.fresh(f"{res_name}_iter"), init.type, init=init)
        body: list[Stmt] = []
        ak = extract(body, cand.lhs, row, ko, m, k, Mem.Left, f"{lhs_name}_l0")
        bk = extract(body, cand.rhs, ko, col, k, n, Mem.Right, f"{rhs_name}_l0")
        step = make_call(cand.acc_op, (it, ak, bk)).with_fields(span=cand.call.span)
        nxt = Var(self.fresh(f"{res_name}_next"), step.type)
        body.append(AssignStmt(nxt, step))
        body.append(YieldStmt((nxt,)))
        rv = result if result is not None else Var(self.fresh("c_blk"), step.type)
        loop = ForStmt(ko, ConstInt(start), ConstInt(shape.k), ConstInt(k), (it,), SeqStmts(tuple(body)), (rv,),
                       kind=ForKind.Pipeline, attrs=(("stage", 2),))
        out.append(loop if span is None else loop.with_fields(span=span))
        return out

    def grid(self, cand: _Candidate, choice: TileChoice, store: AssignStmt, span: Span | None) -> Stmt:
        """Replace ``out = store(c, offs, t)`` by M/N loops that each compute and store one block."""
        shape = cand.shape
        m, n, _ = choice.sizes
        call = store.value
        assert isinstance(call, Call)
        offsets = call.args[1].elements
        tensor = call.args[2]
        tensor_t = tensor.type
        assert isinstance(tensor_t, TensorType)
        tname = getattr(tensor, "name", "out")
        kw = dict(call.kwargs)
        if kw.get("shapes") is not None:
            kw["shapes"] = tuple(kw["shapes"])[:-2] + (m, n)
        loops: list[tuple[Var, int, int, IterArg]] = []  # (loop var, extent, step, carried tensor)
        row: Expr = ConstInt(0)
        col: Expr = ConstInt(0)
        carried: Expr = tensor
        for extent, size, axis in ((shape.m, m, "mi"), (shape.n, n, "ni")):
            if size < extent:
                lv = Var(self.fresh(axis), INDEX)
                it = IterArg(self.fresh(f"{tname}_iter"), tensor_t, init=carried)
                loops.append((lv, extent, size, it))
                carried = it
                if axis == "mi":
                    row = lv
                else:
                    col = lv
        stmts: list[Stmt] = self.k_pipeline(cand, choice, None, row, col, span)
        last = stmts[-1]
        block = last.return_vars[0] if isinstance(last, ForStmt) else last.var
        offs = list(offsets[:-2]) + [_plus(offsets[-2], row), _plus(offsets[-1], col)]
        st = make_call(call.op_name, (block, _tuple(offs), carried), kw).with_fields(span=call.span)
        stored = Var(self.fresh(f"{tname}_blk"), st.type)
        stmts += [AssignStmt(stored, st), YieldStmt((stored,))]
        for depth in range(len(loops) - 1, -1, -1):
            lv, extent, size, it = loops[depth]
            rv = store.var if depth == 0 else Var(self.fresh(f"{tname}_rows"), tensor_t)
            loop = ForStmt(lv, ConstInt(0), ConstInt(extent), ConstInt(size), (it,), SeqStmts(tuple(stmts)), (rv,),
                           kind=ForKind.Sequential)
            if depth == 0:
                return loop if span is None else loop.with_fields(span=span)
            stmts = [loop, YieldStmt((rv,))]
        raise AssertionError("unreachable")


_GRID_HINT = ("an output that does not fit L0C is computed block by block and each block is stored to GM; "
              "store the matmul result directly (out = pl.store(c, [r, c], out)) and use it nowhere else, or "
              "split the matmul by hand into blocks that fit Acc")
