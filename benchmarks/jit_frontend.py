"""Benchmark: parse + lower + compile a generated ``@pl.jit`` program of N source lines.

Two generated programs, both realistic shapes for the jit form:

- ``straight``: a few tensor parameters, several ``pl.at`` scopes (each outlined into an InCore function) holding
  chains of tensor-level operators (element-wise, scalar, unary, row reductions and expansions, column broadcasts)
  on tensors larger than UB, so ConvertTensorToTileOps tiles every scope into a row-block loop;
- ``loops``: PyPTO's loop-heavy style, scopes of three kinds in turn: a ``pl.range`` loop over row blocks at
  loop-variable offsets (``pl.slice`` / subscript windows, a chain of operators, an ``if`` on the block index,
  ``pl.assemble`` into the output), a K-blocked matmul (``pl.matmul`` then ``pl.matmul_acc`` at offsets
  ``k * KC``), and flash attention's online softmax (running max / sum / output carried through the loop, the
  first block in an ``if`` branch).

Steps timed (process CPU time, minimum and median over repeats), as ``kernel.compile`` runs them:

- parse: ``pl.parse`` of the text (ast parse, jit front end; parsing runs no pass);
- lower: OutlineIncoreScopes, ConvertTensorToTileOps and the default tile pipeline (``run_pipeline``);
- compile: PTO code generation of the lowered program (with the cyclic GC paused, as ``tilefold.compiler.compile``
  runs it).

The first table is the ``--lines`` program; beside each step its time relative to ``ast.parse`` of the same text,
measured in the same run (a baseline of the same machine and load; no timing is asserted). The scaling table
(``--sizes``) gives, for each program and size, each step's CPU time (minimum over repeats), its growth from one
size to the next (linear is the ratio of the line counts), and the Python calls per source line (deterministic,
immune to a shared machine's noise; flat when the step is linear). Finer steps there: ``convert`` is
OutlineIncoreScopes and ConvertTensorToTileOps, ``tile passes`` the rest of the pipeline.

Goal (exit 1 when missed): every step is linear, i.e. its Python calls per line at the largest size are at most
``LINEAR_CALLS_GROWTH`` times those at the smallest (a quadratic step doubles them at every doubling of the size).

    .venv/bin/python benchmarks/jit_frontend.py [--lines 1000] [--repeat 5] [--programs straight,loops]
                                                [--sizes 250,500,1000,2000] [--size-repeat 3]
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable

import tilefold.language as pl
from tilefold.backend.codegen import generate
from tilefold.compiler import run_pipeline
from tilefold.passes.pipeline import default_tile_pipeline
from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import tensor_level_passes
from tilefold.targets import get_target
from tilefold.util.gc import no_gc

TARGET = "Ascend910B"
#: the most a step's Python calls per line may grow from the smallest to the largest size and still be linear
LINEAR_CALLS_GROWTH = 1.2

OPS = ["pl.add({a}, {b})", "pl.sub({a}, {b})", "pl.mul({a}, {b})", "pl.maximum({a}, {b})", "pl.adds({a}, 0.5)",
       "pl.muls({a}, 0.75)", "pl.neg({a})", "pl.abs({a})", "pl.exp(pl.neg(pl.abs({a})))",
       "pl.row_expand_sub({a}, pl.row_max({b}))", "pl.col_expand_mul({a}, g)"]


def generate_program(lines: int, seed: int = 0, stmts_per_scope: int = 48) -> str:
    """The ``straight`` program: about ``lines`` lines of straight-line scopes."""
    rnd = random.Random(seed)
    head = ["import tilefold.language as pl", "", "ROWS, COLS = 1024, 128", "",
            "@pl.jit",
            "def big(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32],",
            "        g: pl.Tensor[[1, COLS], pl.FP32], acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]]):"]
    body: list[str] = []
    scope = 0
    while len(head) + len(body) + 2 < lines:
        body.append("    with pl.at(level=pl.Level.CORE_GROUP):")
        values = ["x", "y", "acc"]
        for i in range(min(stmts_per_scope, lines - len(head) - len(body) - 3)):
            a, b = rnd.choice(values[-3:]), rnd.choice(values)
            name = f"s{scope}_{i}"
            body.append(f"        {name} = {rnd.choice(OPS).format(a=a, b=b)}")
            values.append(name)
        body.append(f"        acc[:] = {values[-1]}")
        scope += 1
    return "\n".join(head + body + ["    return acc", ""])


_LOOP_HEAD = [
    "import tilefold.language as pl", "",
    "ROWS, COLS, RB = 1024, 128, 32",
    "M, K, N, KC = 64, 512, 128, 128",
    "SQ, SK, D, BLK = 16, 512, 64, 64", "",
    "@pl.jit",
    "def loops(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32],",
    "          g: pl.Tensor[[1, COLS], pl.FP32], a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],",
    "          q: pl.Tensor[[SQ, D], pl.FP16], kt: pl.Tensor[[D, SK], pl.FP16], v: pl.Tensor[[SK, D], pl.FP16],",
    "          out: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]], c: pl.InOut[pl.Tensor[[M, N], pl.FP32]],",
    "          o_out: pl.InOut[pl.Tensor[[SQ, D], pl.FP32]]):",
]


def _chain(rnd: random.Random, values: list[str], n: int, prefix: str, indent: str) -> list[str]:
    """``n`` operator statements, each reading recent values (and the block's inputs): few tiles live at once."""
    out = []
    for i in range(n):
        a, b = rnd.choice(values[-3:]), rnd.choice(values[:2] + values[-3:])
        name = f"{prefix}{i}"
        out.append(f"{indent}{name} = {rnd.choice(OPS).format(a=a, b=b)}")
        values.append(name)
    return out


def _row_blocks(rnd: random.Random, s: int, n: int) -> list[str]:
    ind = " " * 12
    body = ["    with pl.at(level=pl.Level.CORE_GROUP):",
            "        for i in pl.range(ROWS // RB):",
            f"{ind}r0 = i * RB",
            f"{ind}t{s} = pl.slice(x, [RB, COLS], [r0, 0])",
            f"{ind}u{s} = y[r0:r0 + RB, :]"]
    values = [f"t{s}", f"u{s}"]
    body += _chain(rnd, values, n, f"h{s}_", ind)
    return body + [f"{ind}if i % 2 == 0:",
                   f"{ind}    w{s} = pl.yield_(pl.exp(pl.neg(pl.abs({values[-1]}))))",
                   f"{ind}else:",
                   f"{ind}    w{s} = pl.yield_(pl.muls({values[-1]}, 0.5))",
                   f"{ind}out = pl.assemble(out, w{s}, [r0, 0])"]


def _k_loop(rnd: random.Random, s: int, n: int) -> list[str]:
    ind = " " * 12
    body = ["    with pl.at(level=pl.Level.CORE_GROUP):",
            "        acc = pl.matmul(a[:, 0:KC], b[0:KC, :], out_dtype=pl.FP32)",
            "        for k in pl.range(1, K // KC):",
            f"{ind}k0 = k * KC",
            f"{ind}acc = pl.matmul_acc(acc, a[:, k0:k0 + KC], b[k0:k0 + KC, :])",
            "        e = pl.add(acc, c)"]
    values = ["e"]
    body += _chain(rnd, values, min(n, 3), f"m{s}_", " " * 8)
    return body + [f"        c[:] = {values[-1]}"]


def _online_softmax(rnd: random.Random, s: int, n: int) -> list[str]:
    ind = " " * 12
    return ["    with pl.at(level=pl.Level.CORE_GROUP):",
            "        m = pl.full([SQ, 1], dtype=pl.FP32, value=0.0)",
            "        l = pl.full([SQ, 1], dtype=pl.FP32, value=0.0)",
            "        o = pl.full([SQ, D], dtype=pl.FP32, value=0.0)",
            "        for j in pl.range(SK // BLK):",
            f"{ind}c0 = j * BLK",
            f"{ind}s = pl.mul(pl.matmul(q, kt[:, c0:c0 + BLK], out_dtype=pl.FP32), 0.125)",
            f"{ind}if j == 0:",
            f"{ind}    m0 = pl.row_max(s)",
            f"{ind}    p0 = pl.exp(pl.row_expand_sub(s, m0))",
            f"{ind}    o0 = pl.matmul(pl.cast(p0, target_type=pl.FP16), v[c0:c0 + BLK, :], out_dtype=pl.FP32)",
            f"{ind}    m_new, l_new, o_new = pl.yield_(m0, pl.row_sum(p0), o0)",
            f"{ind}else:",
            f"{ind}    m1 = pl.maximum(m, pl.row_max(s))",
            f"{ind}    p1 = pl.exp(pl.row_expand_sub(s, m1))",
            f"{ind}    alpha = pl.exp(pl.sub(m, m1))",
            f"{ind}    pv = pl.matmul(pl.cast(p1, target_type=pl.FP16), v[c0:c0 + BLK, :], out_dtype=pl.FP32)",
            f"{ind}    m_new, l_new, o_new = pl.yield_(m1, pl.add(pl.mul(l, alpha), pl.row_sum(p1)),",
            f"{ind}                                    pl.add(pl.row_expand_mul(o, alpha), pv))",
            f"{ind}m, l, o = m_new, l_new, o_new",
            "        o_out[:] = pl.add(o_out, pl.row_expand_div(o, l))"]


_LOOP_SCOPES = (_row_blocks, _k_loop, _online_softmax)


def generate_loop_program(lines: int, seed: int = 0, stmts_per_loop: int = 12) -> str:
    """The ``loops`` program: about ``lines`` lines of loop scopes (row blocks / K loop / online softmax in turn;
    ``stmts_per_loop`` operator statements in a row-block loop body)."""
    rnd = random.Random(seed)
    body: list[str] = []
    s = 0
    while not body or len(_LOOP_HEAD) + len(body) + 30 + stmts_per_loop < lines:
        body += _LOOP_SCOPES[s % len(_LOOP_SCOPES)](rnd, s, stmts_per_loop)
        s += 1
    return "\n".join(_LOOP_HEAD + body + ["    return out, c, o_out", ""])


PROGRAMS: dict[str, Callable[[int], str]] = {"straight": generate_program, "loops": generate_loop_program}


def _parse(text: str):
    return pl.parse(text, "<jit benchmark>")


def _lower(program):
    return run_pipeline(program, TARGET)[0]


def _compile(program):
    with no_gc():  # as tilefold.compiler.compile runs code generation
        return generate(program, TARGET)


def measure(text: str) -> tuple[float, float, float]:
    """CPU seconds of (parse, lower, compile) of one run."""
    t0 = time.process_time()
    program = _parse(text)
    t1 = time.process_time()
    lowered = _lower(program)
    t2 = time.process_time()
    _compile(lowered)
    t3 = time.process_time()
    return t1 - t0, t2 - t1, t3 - t2


def _fine_steps() -> list[tuple[str, Callable]]:
    tgt = get_target(TARGET)
    tensor = tensor_level_passes(tgt)
    tile = default_tile_pipeline(TARGET)

    def run(passes):
        @no_gc()
        def apply(program):
            for p in passes:
                program = p(program)
            return program
        return apply

    return [("parse", _parse), ("convert", run(tensor)), ("tile passes", run(tile)), ("compile", _compile)]


def _calls(fn: Callable, arg) -> tuple[int, object]:
    prof = cProfile.Profile()
    prof.enable()
    out = fn(arg)
    prof.disable()
    return pstats.Stats(prof).total_calls, out  # type: ignore[attr-defined]


def scaling(program: str, sizes: list[int], repeat: int) -> bool:
    """Print the scaling table of ``program``; True when every step is linear (see ``LINEAR_CALLS_GROWTH``)."""
    steps = _fine_steps()
    times: dict[str, list[float]] = {name: [] for name, _ in steps}
    per_line: dict[str, list[float]] = {name: [] for name, _ in steps}
    n_lines = []
    for size in sizes:
        text = PROGRAMS[program](size)
        n = text.count("\n")
        n_lines.append(n)
        value: object = text
        for name, fn in steps:
            best = None
            for _ in range(repeat):
                t0 = time.process_time()
                fn(value)
                t = time.process_time() - t0
                best = t if best is None else min(best, t)
            calls, value = _calls(fn, value)
            times[name].append(best)  # type: ignore[arg-type]
            per_line[name].append(calls / n)
    pairs = list(zip(range(len(sizes)), range(1, len(sizes)), strict=False))
    print(f"\n{program}: CPU ms (min of {repeat}) per size, growth per step (lines grow "
          + ", ".join(f"x{n_lines[b] / n_lines[a]:.2f}" for a, b in pairs) + "), Python calls per line")
    head = ["step"] + [f"{n} l ms" for n in n_lines] + [f"x{n_lines[b]}/{n_lines[a]}" for a, b in pairs] \
        + [f"calls/l {n}" for n in n_lines]
    rows = []
    for name, _ in steps + [("total", None)]:
        t = times[name] if name != "total" else [sum(times[k][i] for k, _ in steps) for i in range(len(sizes))]
        c = per_line[name] if name != "total" else [sum(per_line[k][i] for k, _ in steps)
                                                    for i in range(len(sizes))]
        rows.append([name] + [f"{x * 1e3:.0f}" for x in t] + [f"{t[b] / t[a]:.2f}" if t[a] else "-"
                                                             for a, b in pairs] + [f"{x:.0f}" for x in c])
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(r, widths,
                                                                                                  strict=True))))
    growth = {name: per_line[name][-1] / per_line[name][0] for name, _ in steps if per_line[name][0]}
    worse = {name: g for name, g in growth.items() if g > LINEAR_CALLS_GROWTH}
    print(f"{program}: calls per line, largest / smallest size: "
          + ", ".join(f"{name} {g:.2f}x" for name, g in growth.items())
          + f" (goal <= {LINEAR_CALLS_GROWTH}x: {'met' if not worse else 'MISSED by ' + ', '.join(worse)})")
    return not worse


def _ast_parse_s(text: str, repeat: int) -> float:
    """Minimum CPU seconds of ``ast.parse`` of ``text``: the in-run baseline of the first table."""
    best = None
    for _ in range(repeat):
        t0 = time.process_time()
        ast.parse(text)
        t = time.process_time() - t0
        best = t if best is None else min(best, t)
    return best or 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--programs", default="straight,loops")
    ap.add_argument("--sizes", default="250,500,1000,2000", help="line counts of the scaling table ('' skips it)")
    ap.add_argument("--size-repeat", type=int, default=3, help="runs per step and size in the scaling table")
    args = ap.parse_args(argv)
    programs = [p for p in args.programs.split(",") if p]
    print(f"CPU seconds, {args.repeat} repeats after a warm-up")
    print(f"{'program':9} {'lines':>5} {'scopes':>6} {'step':8} {'min s':>7} {'median s':>8}  x ast.parse (same run)")
    for program in programs:
        text = PROGRAMS[program](args.lines)
        n_lines, n_scopes = text.count("\n"), text.count("pl.at(")
        measure(text)  # warm-up
        samples = [measure(text) for _ in range(args.repeat)]
        baseline = _ast_parse_s(text, args.repeat)
        for i, step in enumerate(("parse", "lower", "compile", "total")):
            col = [sum(x) for x in samples] if step == "total" else [x[i] for x in samples]
            print(f"{program:9} {n_lines:5d} {n_scopes:6d} {step:8} {min(col):7.3f} {statistics.median(col):8.3f}  "
                  + (f"{min(col) / baseline:.1f}" if baseline else "-"))
    sizes = [int(x) for x in args.sizes.split(",") if x]
    linear = True
    if sizes:
        for program in programs:
            linear &= scaling(program, sizes, args.size_repeat)
        print(f"jit_frontend: {'every step linear' if linear else 'GOAL NOT MET (a step grows faster than linear)'}")
    return 0 if linear else 1


if __name__ == "__main__":
    raise SystemExit(main())
