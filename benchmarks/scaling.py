"""Scaling of the whole compiler: every pass and memory-planning step at 1k / 4k / 16k / 64k statements.

Each pass of the default tile pipeline must be linear or n log n in the size of the function. Two kernel
shapes are generated as ``pl`` source text (so the parser is measured too), each at every size:

- ``straight``: one straight-line InCore function, a chain of vector ops (add / muls / exp / sub / mul)
  over [16, 64] FP32 tiles with a store every 16 statements: the shape on which MemoryReuse used to be
  quadratic (1.1 s at 4k, 37.5 s at 20k statements);
- ``loops``: counted loops with a tile iter arg, each body 6 vector ops and a yield.

Steps: ``parse``, every pass of the default pipeline in order (the second CanonicalizeTileSlice run is
``CanonicalizeTileSlice#2``; InitMemRef, MemoryReuse and AllocateMemoryAddr are the memory-planning steps),
``codegen`` (PTO). Steps run with the cyclic garbage collector off, as the compile driver runs them. For each
step the table gives the CPU time (``time.process_time``, the minimum over ``--repeats`` runs) at every size
and the growth ratio from one size to the next (linear is 4.0 for the 4x steps); and the number of Python
function calls of one run (deterministic, immune to the noise of a shared machine) with its ratio, for sizes
up to ``--calls-up-to``.

The goal, checked at the end (non-zero exit otherwise):

- every step's call-count ratio per 4x size step at most 4.8 (n log n from 4k to 16k is about 4.6);
- a 64k-statement ``straight`` kernel through the whole pipeline (parse, passes, codegen, as ``tilefold
  compile`` runs it) in under 30 s of wall time. The CPU time is printed beside it: on a machine shared with
  other jobs the wall time is the CPU time plus the waiting.

Run: ``python benchmarks/scaling.py [--sizes 1000,4000,16000,64000] [--shapes straight,loops] [--repeats N]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time

from tilefold.bench import print_table
from tilefold.targets import get_target

CALLS_BUDGET = 4.8  # per 4x step: linear is 4.0, n log2 n from 4k to 16k is 4.6
FULL_PIPELINE_BUDGET_S = 30.0

_HEADER = [
    "import tilefold.language as pl", "", "",
    "@pl.program",
    "class Scaling:",
    "    @pl.function(type=pl.FunctionType.InCore)",
    "    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],",
    "               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:",
    "        t0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], "
    "target_memory=pl.Mem.Vec)",
]
_TILE = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"


def _op(i: int, prev: str) -> str:
    k = i % 5
    if k == 0:
        return f"pl.tile.add({prev}, t0)"
    if k == 1:
        return f"pl.tile.muls({prev}, 0.5)"
    if k == 2:
        return f"pl.tile.exp({prev})"
    if k == 3:
        return f"pl.tile.sub({prev}, t0)"
    return f"pl.tile.mul({prev}, t0)"


def straight(n: int) -> str:
    """About ``n`` statements of straight-line vector code."""
    lines = list(_HEADER)
    prev = "t0"
    for i in range(1, n - 2):
        if i % 16 == 0:
            lines.append(f"        out = pl.store({prev}, [0, 0], out)")
            continue
        lines.append(f"        t{i}: {_TILE} = {_op(i, prev)}")
        prev = f"t{i}"
    lines += [f"        out = pl.store({prev}, [0, 0], out)", "        return out"]
    return "\n".join(lines) + "\n"


def loops(n: int) -> str:
    """About ``n`` statements: loops of 8 statements (the loop, 6 vector ops, the yield)."""
    lines = list(_HEADER)
    prev = "t0"
    for j in range(max(1, (n - 3) // 8)):
        lines.append(f"        for i{j}, (a{j},) in pl.range(0, 4, 1, init_values=({prev},)):")
        cur = f"a{j}"
        for k in range(6):
            lines.append(f"            b{j}_{k}: {_TILE} = {_op(k, cur)}")
            cur = f"b{j}_{k}"
        lines.append(f"            r{j}: {_TILE} = pl.yield_({cur})")
        prev = f"r{j}"
    lines += [f"        out = pl.store({prev}, [0, 0], out)", "        return out"]
    return "\n".join(lines) + "\n"


SHAPES = {"straight": straight, "loops": loops}


def _steps(target: str):
    """(name, callable(input) -> output) for every step, in pipeline order."""
    import tilefold.language as pl
    from tilefold.backend.codegen import generate
    from tilefold.passes.pipeline import default_tile_pipeline

    tgt = get_target(target)
    steps = [("parse", lambda src: pl.parse(src, "scaling.py"))]
    seen: dict[str, int] = {}
    for p in default_tile_pipeline(target):
        seen[p.name] = seen.get(p.name, 0) + 1
        name = p.name if seen[p.name] == 1 else f"{p.name}#{seen[p.name]}"
        steps.append((name, p))
    steps.append(("codegen", lambda prog: generate(prog, tgt, "strict")))
    return steps


def _cpu(fn, arg):
    t0 = time.process_time()
    out = fn(arg)
    return time.process_time() - t0, out


def _calls(fn, arg) -> int:
    prof = cProfile.Profile()
    prof.enable()
    fn(arg)
    prof.disable()
    return pstats.Stats(prof).total_calls  # type: ignore[attr-defined]


def measure_shape(build, sizes: list[int], repeats: int, calls_up_to: int, target: str):
    steps = _steps(target)
    times: dict[str, dict[int, float]] = {name: {} for name, _ in steps}
    calls: dict[str, dict[int, int]] = {name: {} for name, _ in steps}
    for n in sizes:
        value = build(n)
        for name, fn in steps:
            gc.collect()
            gc.disable()  # as the compile driver (and the parser) run: the IR is acyclic
            try:
                best, out = None, None
                for _ in range(repeats):
                    t, out = _cpu(fn, value)
                    best = t if best is None else min(best, t)
                if n <= calls_up_to:
                    calls[name][n] = _calls(fn, value)
            finally:
                gc.enable()
            times[name][n] = best  # type: ignore[assignment]
            value = out
    return steps, times, calls


def full_pipeline_seconds(n: int, target: str) -> tuple[float, float]:
    """(wall, CPU) seconds of parse + default pipeline + codegen on an ``n``-statement straight-line kernel,
    run as ``tilefold compile`` runs it (the compile driver manages the garbage collector itself)."""
    import tilefold.language as pl
    from tilefold.compiler import compile as compile_program

    src = straight(n)
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    compile_program(pl.parse(src, "scaling.py"), target)
    return time.perf_counter() - t0, time.process_time() - c0


def _ratio(d: dict[int, float], a: int, b: int) -> str:
    if a not in d or b not in d or not d[a]:
        return "-"
    return f"{d[b] / d[a]:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,4000,16000,64000")
    ap.add_argument("--shapes", default="straight,loops")
    ap.add_argument("--repeats", type=int, default=1, help="runs per step and size (the minimum is reported)")
    ap.add_argument("--calls-up-to", type=int, default=16000,
                    help="count Python calls (deterministic work) for sizes up to this one")
    ap.add_argument("--target", default="Ascend910B")
    ap.add_argument("--full", type=int, default=64000, help="statements of the full-pipeline run (0: skip)")
    args = ap.parse_args(argv if argv is not None else [])
    sizes = sorted(int(s) for s in args.sizes.split(","))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    ok = True
    for shape in args.shapes.split(","):
        steps, times, calls = measure_shape(SHAPES[shape], sizes, args.repeats, args.calls_up_to, args.target)
        pairs = list(zip(sizes, sizes[1:], strict=False))
        headers = ["step"] + [f"{n // 1000}k ms" for n in sizes] + [f"x{b // 1000}k/{a // 1000}k" for a, b in pairs]
        headers += [f"calls x{b // 1000}k/{a // 1000}k" for a, b in pairs if b <= args.calls_up_to]
        rows = []
        for name, _ in steps:
            row = [name] + [f"{times[name][n] * 1e3:.1f}" for n in sizes]
            row += [_ratio(times[name], a, b) for a, b in pairs]
            for a, b in pairs:
                if b > args.calls_up_to:
                    continue
                r = calls[name][b] / calls[name][a]
                budget = CALLS_BUDGET * (b / a) / 4.0
                ok = ok and r <= budget
                row.append(f"{r:.2f}" + ("" if r <= budget else " (!)"))
            rows.append(row)
        total = {n: sum(times[name][n] for name, _ in steps) for n in sizes}
        rows.append(["total"] + [f"{total[n] * 1e3:.1f}" for n in sizes] + [_ratio(total, a, b) for a, b in pairs])
        print_table(headers, rows, title=f"scaling: {shape} kernel, CPU time per step (ratio: growth per size step)")
        print()
    if args.full:
        secs, cpu = full_pipeline_seconds(args.full, args.target)
        met = secs < FULL_PIPELINE_BUDGET_S
        ok = ok and met
        print(f"full pipeline: {args.full} statements (parse, passes, codegen) in {secs:.1f} s wall, {cpu:.1f} s "
              f"CPU (goal < {FULL_PIPELINE_BUDGET_S:.0f} s wall: {'met' if met else 'NOT met'})")
    print(f"scaling: {'linear growth' if ok else 'GOAL NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
