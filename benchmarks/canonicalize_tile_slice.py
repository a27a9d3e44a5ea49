"""CanonicalizeTileSlice scaling: the pass must be linear in the size of the function.

Three function shapes, each built with 1,000 and with 10,000 slices (IR is built directly, so parsing is
not part of the measurement):

- ``independent``: slices of one Vec tile, each with one consumer — a mix of aligned windows (kept),
  misaligned columns (materialized), non-contiguous windows read by col_expand_mul (materialized) and
  windows read by tile.extract (folded);
- ``chained``: chains of Mat slices 1,000 deep (slice of slice of ...), each chain read by one extract
  at its end, so every chain is peeled to its base and then dies from the outside in;
- ``loops``: counted loops whose bodies hold 10 slices at a dynamic row (the loop variable), read by
  vector ops.

The Python call count of one run is reported too: a deterministic measure of the work done, immune to
the noise of a shared machine. Each time measurement is the trimmed median (``tilefold.bench.summarize``)
of the process CPU time of several runs after a warm-up, alternating the sizes.
The report gives the time per statement and the 10k / 1k time ratio (linear: about 10; the budget is 12).
Run: ``python benchmarks/canonicalize_tile_slice.py [--repeats N] [--sizes 1000,10000]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from collections.abc import Callable

from tilefold.bench import print_table, summarize
from tilefold.ir.expr import ConstFloat, ConstInt, MakeTuple, Var
from tilefold.ir.stmt import AssignStmt, ForStmt, Function, FunctionType, ParamDirection, Program, SeqStmts
from tilefold.ir.types import DataType, MemorySpace, ScalarType, tensor_type
from tilefold.ops import make_call
from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice

FP32, BF16 = DataType.FP32, DataType.BF16


def _tup(*xs) -> MakeTuple:
    return MakeTuple(tuple(x if isinstance(x, Var | ConstInt) else ConstInt(x) for x in xs))


class _Builder:
    def __init__(self) -> None:
        self.stmts: list = []
        self.count = 0

    def let(self, name: str, call) -> Var:
        v = Var(f"{name}{self.count}", call.type)
        self.count += 1
        self.stmts.append(AssignStmt(v, call))
        return v


def _program(name: str, params: list[Var], stmts: list) -> tuple[Program, int]:
    fn = Function("kernel", tuple(params), tuple(ParamDirection.In for _ in params), (), SeqStmts(tuple(stmts)),
                  FunctionType.InCore)
    return Program(name, (fn,)), _count_stmts(stmts)


def _count_stmts(stmts) -> int:
    n = 0
    for s in stmts:
        n += 1
        if isinstance(s, ForStmt):
            n += _count_stmts(s.body.stmts)
    return n


def independent(n_slices: int) -> tuple[Program, int]:
    x = Var("x", tensor_type([64, 256], FP32))
    b = _Builder()
    t = b.let("t", make_call("tile.load", [x, _tup(0, 0), _tup(64, 256)], {"target_memory": MemorySpace.Vec}))
    g = b.let("g", make_call("tile.load", [x, _tup(0, 0), _tup(1, 64)], {"target_memory": MemorySpace.Vec}))
    for i in range(n_slices):
        kind = i % 4
        row = i % 48
        if kind == 0:  # aligned column 8: kept zero-copy
            s = b.let("w", make_call("tile.slice", [t, _tup(16, 8), _tup(row, 8)]))
            b.let("y", make_call("tile.muls", [s, ConstFloat(0.5)]))
        elif kind == 1:  # misaligned column: materialized
            s = b.let("h", make_call("tile.slice", [t, _tup(16, 1), _tup(row, 1 + i % 7)]))
            b.let("y", make_call("tile.exp", [s]))
        elif kind == 2:  # non-contiguous window read by col_expand_mul: materialized
            s = b.let("c", make_call("tile.slice", [t, _tup(16, 64), _tup(row, 64)]))
            b.let("y", make_call("tile.col_expand_mul", [s, g]))
        else:  # read by extract: folded
            s = b.let("e", make_call("tile.slice", [t, _tup(16, 128), _tup(row, 0)]))
            b.let("y", make_call("tile.extract", [s, ConstInt(0), ConstInt(32)],
                                 {"shape": (8, 32), "target_memory": MemorySpace.Vec}))
    return _program("independent", [x], b.stmts)


def chained(n_slices: int, depth: int = 1000) -> tuple[Program, int]:
    x = Var("x", tensor_type([depth + 16, 64], BF16))
    b = _Builder()
    base = b.let("m", make_call("tile.load", [x, _tup(0, 0), _tup(depth + 16, 64)],
                                {"target_memory": MemorySpace.Mat}))
    for _ in range(max(1, n_slices // depth)):
        src, rows = base, depth + 16
        for _ in range(depth):
            rows -= 1
            src = b.let("s", make_call("tile.slice", [src, _tup(rows, 64), _tup(1, 0)]))
        b.let("a", make_call("tile.extract", [src, ConstInt(0), ConstInt(0)],
                             {"shape": (16, 64), "target_memory": MemorySpace.Left}))
    return _program("chained", [x], b.stmts)


def loops(n_slices: int, per_loop: int = 10) -> tuple[Program, int]:
    x = Var("x", tensor_type([64, 256], FP32))
    outer = _Builder()
    t = outer.let("t", make_call("tile.load", [x, _tup(0, 0), _tup(64, 256)], {"target_memory": MemorySpace.Vec}))
    g = outer.let("g", make_call("tile.load", [x, _tup(0, 0), _tup(1, 256)], {"target_memory": MemorySpace.Vec}))
    for j in range(n_slices // per_loop):
        i = Var(f"i{j}", ScalarType(DataType.INDEX))
        body = _Builder()
        body.count = outer.count
        for k in range(per_loop):
            if k % 2 == 0:  # dynamic row, 1 KiB pitch: provably aligned, kept
                s = body.let("r", make_call("tile.slice", [t, _tup(1, 256), MakeTuple((i, ConstInt(0)))]))
                body.let("y", make_call("tile.adds", [s, ConstFloat(1.0)]))
            else:  # dynamic row read by col_expand_add: materialized
                s = body.let("q", make_call("tile.slice", [t, _tup(1, 256), MakeTuple((i, ConstInt(0)))]))
                body.let("y", make_call("tile.col_expand_add", [s, g]))
        outer.count = body.count
        outer.stmts.append(ForStmt(i, ConstInt(0), ConstInt(64), ConstInt(1), (), SeqStmts(tuple(body.stmts)), ()))
    return _program("loops", [x], outer.stmts)


SHAPES: dict[str, Callable[[int], tuple[Program, int]]] = {
    "independent": independent,
    "chained": chained,
    "loops": loops,
}


def _python_calls(pass_, program: Program) -> int:
    """Deterministic work measure: the number of Python function calls one run makes."""
    prof = cProfile.Profile()
    prof.enable()
    pass_.run(program)
    prof.disable()
    return pstats.Stats(prof).total_calls  # type: ignore[attr-defined]


def _cpu_seconds(pass_, program: Program) -> float:
    t0 = time.process_time()
    pass_.run(program)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--sizes", default="1000,10000")
    args = ap.parse_args(argv if argv is not None else [])  # main() alone runs the defaults
    sizes = [int(s) for s in args.sizes.split(",")]
    pass_ = canonicalize_tile_slice()
    rows = []
    worst = 0.0
    for name, build in SHAPES.items():
        built = {n: build(n) for n in sizes}
        samples: dict[int, list[float]] = {n: [] for n in sizes}
        # The inputs are long-lived: freeze them so the cyclic GC does not rescan them on every
        # collection, and alternate the sizes so machine noise hits both alike.
        gc.collect()
        gc.freeze()
        try:
            for r in range(args.warmup + args.repeats):
                for n in sizes:
                    t = _cpu_seconds(pass_, built[n][0])
                    if r >= args.warmup:
                        samples[n].append(t)
        finally:
            gc.unfreeze()
        times, work = {}, {}
        for n in sizes:
            stats = summarize(samples[n])
            times[n] = stats.trimmed_median
            work[n] = _python_calls(pass_, built[n][0])
            n_stmts = built[n][1]
            rows.append([name, n, n_stmts, stats.trimmed_median * 1e3, stats.trimmed_median / n_stmts * 1e6,
                         work[n] / n_stmts, "", ""])
        if len(sizes) >= 2:
            ratio = times[sizes[-1]] / times[sizes[0]]
            worst = max(worst, ratio)
            rows[-1][-2] = f"{ratio:.2f}"
            rows[-1][-1] = f"{work[sizes[-1]] / work[sizes[0]]:.2f}"
    ratio_name = f"{sizes[-1]}/{sizes[0]}"
    print_table(["shape", "slices", "statements", "CPU time (ms)", "us / statement", "calls / statement",
                 f"time {ratio_name}", f"calls {ratio_name}"],
                rows, title="CanonicalizeTileSlice scaling (trimmed median of process CPU time)")
    if len(sizes) >= 2:
        budget = 12.0 * (sizes[-1] / sizes[0]) / 10.0
        print(f"worst ratio {worst:.2f} (linear ~{sizes[-1] / sizes[0]:.0f}, budget {budget:.0f})")
        return 0 if worst <= budget else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
