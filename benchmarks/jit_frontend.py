"""Benchmark: parse + lower + compile a generated ``@pl.jit`` program of N source lines.

The program is a realistic shape for the jit form: a few tensor parameters, several ``pl.at`` scopes (each
outlined into an InCore function) holding chains of tensor-level operators (element-wise, scalar, unary, row
reductions and expansions, column broadcasts) on tensors larger than UB, so ConvertTensorToTileOps tiles every
scope into a row-block loop. Steps timed (process CPU time, minimum and median over repeats):

- parse: ``pl.parse`` of the text (ast parse, jit front end, OutlineIncoreScopes);
- lower: ConvertTensorToTileOps and the default tile pipeline;
- compile: PTO code generation of the lowered program.

    .venv/bin/python benchmarks/jit_frontend.py [--lines 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import tilefold.language as pl
from tilefold.backend.codegen import generate
from tilefold.compiler import run_pipeline

OPS = ["pl.add({a}, {b})", "pl.sub({a}, {b})", "pl.mul({a}, {b})", "pl.maximum({a}, {b})", "pl.adds({a}, 0.5)",
       "pl.muls({a}, 0.75)", "pl.neg({a})", "pl.abs({a})", "pl.exp(pl.neg(pl.abs({a})))",
       "pl.row_expand_sub({a}, pl.row_max({b}))", "pl.col_expand_mul({a}, g)"]


def generate_program(lines: int, seed: int = 0, stmts_per_scope: int = 48) -> str:
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


def measure(text: str) -> tuple[float, float, float]:
    t0 = time.process_time()
    program = pl.parse(text, "<jit benchmark>")
    t1 = time.process_time()
    lowered, _ = run_pipeline(program, "Ascend910B")
    t2 = time.process_time()
    generate(lowered, "Ascend910B")
    t3 = time.process_time()
    return t1 - t0, t2 - t1, t3 - t2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    text = generate_program(args.lines)
    n_lines = text.count("\n")
    measure(text)  # warm-up
    samples = [measure(text) for _ in range(args.repeat)]
    print(f"@pl.jit program of {n_lines} lines ({text.count('pl.at(')} scopes), {args.repeat} repeats, CPU time")
    print(f"{'step':10} {'min s':>8} {'median s':>9}")
    for i, step in enumerate(("parse", "lower", "compile")):
        col = [s[i] for s in samples]
        print(f"{step:10} {min(col):8.3f} {statistics.median(col):9.3f}")
    total = [sum(s) for s in samples]
    print(f"{'total':10} {min(total):8.3f} {statistics.median(total):9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
