"""Benchmark: parse, verify, print and re-parse a generated N-statement kernel.

Reports statements/second per step and each step's time relative to ``ast.parse`` of the same text.
Goals (issue 2): whole round trip (parse + verify + print + re-parse) within 20x of ``ast.parse``, and
linear scaling (10k-statement time / 1k-statement time <= 12x).

    .venv/bin/python benchmarks/parse_print.py [--sizes 1000 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import ast
import gc
import sys
import time
from collections.abc import Callable
from typing import Any

import tilefold.language as pl
from tilefold import ir
from tilefold.language.parser import no_gc


def generate_kernel(n: int) -> str:
    """An AIV kernel with ``n`` statements: tile ops (some annotated), scalar arithmetic, slices,
    reductions, SSA rebinding, and a loop carrying a tile every 100 statements."""
    ann = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    cycle = [
        "s{i}: pl.Scalar[pl.INDEX] = b * {a} + {c}",
        "u: " + ann + " = pl.tile.adds(t, 1.5)",
        "t = pl.tile.mul(t, u)",
        "h{i}: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 64], [8, 0])",
        "r = pl.tile.row_sum(t)",
        "t: " + ann + " = pl.tile.row_expand_mul(t, r)",
        "t = pl.tile.exp(t)",
        "m{i}: pl.Scalar[pl.INDEX] = pl.min(b + {i}, {c}) // 2",
        "t = pl.tile.maximum(t, u)",
        "t = pl.tile.abs(t)",
    ]
    lines = [
        "t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)",
        "u = pl.tile.muls(t, 2.0)",
        "b = pl.tile.get_block_idx()",
    ]
    i = len(lines)
    while i < n - 2:
        if i % 100 == 50 and i + 3 < n - 2:
            lines.append("for j, (c,) in pl.range(4, init_values=(t,)):")
            lines.append("    c2 = pl.tile.muls(c, 0.5)")
            lines.append("    t = pl.yield_(c2)")
            i += 3
            continue
        lines.append(cycle[i % len(cycle)].format(i=i, a=i % 7 + 1, c=i % 13 + 2 * i))
        i += 1
    lines.append("out = pl.store(t, [0, 0], out)")
    lines.append("return out")
    body = "\n".join("        " + ln for ln in lines)
    return (
        "import tilefold.language as pl\n\n\n@pl.program\nclass Bench:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        "    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
        " -> pl.Tensor[[16, 64], pl.FP32]:\n" + body + "\n"
    )


def count_statements(text: str) -> int:
    tree = ast.parse(text)
    fn = tree.body[1].body[0]  # type: ignore[attr-defined]
    return sum(1 for node in ast.walk(fn) if isinstance(node, ast.stmt)) - 1


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def _ast_parse_no_gc(text: str) -> ast.AST:
    """The baseline: ``ast.parse`` under the same conditions as the DSL parser (cyclic GC paused), so
    the ratio compares the work done, not the collector's behaviour."""
    with no_gc():
        return ast.parse(text)


def _verifier() -> Callable[[ir.Program], None] | None:
    try:
        from tilefold.passes import verify_properties
        from tilefold.passes.base import IRProperty
    except (ImportError, AttributeError):
        return None
    props = [p for p in IRProperty if p.name in ("SSAForm", "TypeChecked", "UseAfterDef", "NormalizedStmtStructure")]
    return lambda program: verify_properties(program, props)


def run(n: int, repeat: int) -> dict[str, float]:
    text = generate_kernel(n)
    stmts = count_statements(text)
    t_ast, _ = best_of(lambda: _ast_parse_no_gc(text), repeat)
    t_parse, program = best_of(lambda: pl.parse(text), repeat)
    verify = _verifier()
    t_verify = best_of(lambda: verify(program), repeat)[0] if verify else 0.0
    t_print, printed = best_of(lambda: ir.python_print(program), repeat)
    t_reparse, again = best_of(lambda: pl.parse(printed), repeat)
    ir.assert_structural_equal(program, again)
    total = t_parse + t_verify + t_print + t_reparse
    print(f"\n== {stmts} statements ({len(text) / 1024:.0f} KiB of source) ==")
    print(f"{'step':<10}{'seconds':>10}{'stmts/s':>12}{'x ast.parse':>13}")
    rows = [("ast.parse", t_ast), ("parse", t_parse), ("verify", t_verify), ("print", t_print),
            ("re-parse", t_reparse), ("round trip", total)]
    for name, t in rows:
        if name == "verify" and verify is None:
            print(f"{name:<10}{'(verifier not available)':>35}")
            continue
        print(f"{name:<10}{t:>10.4f}{stmts / t if t else 0:>12.0f}{t / t_ast:>13.1f}")
    return {"stmts": stmts, "ast": t_ast, "total": total, "parse": t_parse, "print": t_print, "reparse": t_reparse}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    results = [run(n, args.repeat) for n in args.sizes]
    big = results[-1]
    ok = True
    ratio = big["total"] / big["ast"]
    print(f"\nround trip / ast.parse at {big['stmts']} statements: {ratio:.1f}x (goal <= 20x)")
    ok &= ratio <= 20
    if len(results) >= 2:
        small = results[0]
        scale = big["total"] / small["total"]
        size = big["stmts"] / small["stmts"]
        print(f"round trip {big['stmts']} / {small['stmts']} statements: {scale:.1f}x for {size:.0f}x the size "
              "(goal <= 12x)")
        ok &= scale <= 12 * size / 10
        print(f"(ast.parse itself: {big['ast'] / small['ast']:.1f}x on this machine)")
    print("goals met" if ok else "goals NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
