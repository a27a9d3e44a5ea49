"""TileAndBindSubBlock on custom-op softmax kernels: baseline vs tiled simulated time.

The seed's performance method, on the simulator:

- the same program, inputs, shapes, dtype, launch and custom kernel for both variants; the only
  difference is the pipeline option ``enable_auto_bind_sub_block`` (False = baseline);
- before timing, both variants are checked against the golden reference (and against each other);
- 5 warm-up runs, 30 measured runs, baseline and tiled alternating (``tilefold.bench.compare_alternating``),
  trimmed median (10 % cut at each end), with std / min / max;
- per-shape speedup = baseline / tiled, and the geometric mean over all shapes. The seed's gates are
  reported: every shape >= 0.98x, geomean >= 1.05x.

The measured quantity is the simulated kernel time in cycles (``SimResult.cycles``: the max over the units
that run in parallel, i.e. over the two sub-blocks for a split kernel). It is deterministic, so std is 0.

Shapes (the seed's Softmax performance cases): reduce-last ([parallel, reduction], split on dim 0)
128x64, 256x64, 128x128; reduce-first ([reduction, parallel], split on dim 1) 64x128, 64x256, 128x128.

The softmax custom kernel is registered with a cost model of a numerically stable vector softmax
(reduce max, subtract, exp, reduce sum, divide: five vector passes over the FP32 tile, each priced like
a vector instruction: 8 cycles start-up + bytes / 256 B per cycle) plus the target's custom-call start-up.

Run: ``python benchmarks/sub_block.py [--warmup N] [--repeats N] [--target NAME]``.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

import tilefold.language as pl
from tilefold.bench import compare_alternating, geomean, print_table
from tilefold.compiler import compile as compile_program
from tilefold.custom import register_custom_op
from tilefold.golden import run_program
from tilefold.ir import DataType
from tilefold.passes.tile_and_bind_sub_block import tile_and_bind_sub_block
from tilefold.sim import simulate
from tilefold.targets import get_target
from tilefold.testing.precision import compare
from tilefold.testing.sub_block_evidence import sub_block_evidence

SHAPES = [  # (rows, cols, reduce axis)
    (128, 64, 1), (256, 64, 1), (128, 128, 1),
    (64, 128, 0), (64, 256, 0), (128, 128, 0),
]

SYMBOLS = {1: "bench.softmax_last", 0: "bench.softmax_first"}
ITERS = {1: "[pl.parallel, pl.reduction]", 0: "[pl.reduction, pl.parallel]"}


def _softmax(axis: int):
    def kernel(x):
        x = np.asarray(x, dtype=np.float32)
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)
    return kernel


def _softmax_cost(shape) -> float:
    target = get_target(None)
    c = target.costs
    nbytes = int(np.prod(shape)) * 4
    one_pass = c.vector_startup + math.ceil(nbytes / c.vector_bytes_per_cycle)
    return float(c.custom_startup + 5 * one_pass)


def register_kernels() -> None:
    for axis, symbol in SYMBOLS.items():
        register_custom_op(symbol, _softmax(axis), cost=_softmax_cost, replace=True)


def softmax_program(rows: int, cols: int, axis: int):
    src = f'''
import tilefold.language as pl

@pl.program
class Softmax{rows}x{cols}r{axis}:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[{rows}, {cols}], pl.FP32],
               out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]) -> pl.Tensor[[{rows}, {cols}], pl.FP32]:
        t: pl.Tile[[{rows}, {cols}], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{rows}, {cols}],
                                                                        target_memory=pl.Mem.Vec)
        init: pl.Tile[[{rows}, {cols}], pl.FP32, pl.Mem.Vec] = pl.tile.create([{rows}, {cols}], dtype=pl.FP32,
                                                                             target_memory=pl.Mem.Vec)
        y = pl.tile.custom("{SYMBOLS[axis]}", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types={ITERS[axis]}, no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out
'''
    return pl.parse(src, filename=f"softmax_{rows}x{cols}_r{axis}")


def bench_shape(rows: int, cols: int, axis: int, *, target: str, warmup: int, repeats: int) -> dict:
    program = softmax_program(rows, cols, axis)
    rng = np.random.default_rng(rows * 1000 + cols + axis)
    x = rng.uniform(-4.0, 4.0, (rows, cols)).astype(np.float32)
    golden = run_program(program, {"x": x.copy()})["out"]
    base = compile_program(program, target=target, options={"enable_auto_bind_sub_block": False})
    tiled = compile_program(program, target=target)
    evidence = sub_block_evidence(tile_and_bind_sub_block()(program))
    # correctness first: both variants equal golden, and are not all zeros
    for name, comp in (("baseline", base), ("tiled", tiled)):
        got = simulate(comp.pto, {"x": x.copy()}, comp.target).outputs["out"]
        if not np.any(got):
            raise SystemExit(f"{rows}x{cols} r{axis} {name}: all-zero output")
        check = compare(got, golden, DataType.FP32)
        if not check.matches:
            raise SystemExit(f"{rows}x{cols} r{axis} {name}: differs from golden ({check})")

    def run_base() -> float:
        return simulate(base.pto, {"x": x}, base.target).cycles

    def run_tiled() -> float:
        return simulate(tiled.pto, {"x": x}, tiled.target).cycles

    b, t, speedup = compare_alternating(run_base, run_tiled, warmup, repeats, metric="value")
    return {"shape": f"{rows}x{cols}", "axis": axis, "base": b, "tiled": t, "speedup": speedup,
            "split": evidence.split, "split_axis": next(iter(evidence.axis.values()), None)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--target", default="Ascend910B")
    args = ap.parse_args(argv)
    register_kernels()
    rows = []
    results = []
    for r, c, axis in SHAPES:
        res = bench_shape(r, c, axis, target=args.target, warmup=args.warmup, repeats=args.repeats)
        results.append(res)
        b, t = res["base"], res["tiled"]
        rows.append([res["shape"], axis, res["split_axis"], b.trimmed_median, t.trimmed_median, t.std,
                     t.min, t.max, res["speedup"], t.trimmed_median / b.trimmed_median])
    print_table(["shape", "reduce axis", "split dim", "baseline cyc", "tiled cyc", "std", "min", "max",
                 "speedup", "tiled/base"], rows,
                title=f"TileAndBindSubBlock softmax custom ops on {args.target} "
                      f"({args.warmup} warm-up, {args.repeats} alternating runs, trimmed median)")
    speedups = [res["speedup"] for res in results]
    g = geomean(speedups)
    print(f"\nspeedup range {min(speedups):.3f}x - {max(speedups):.3f}x, geomean {g:.3f}x")
    ok = all(res["split"] for res in results) and min(speedups) >= 0.98 and g >= 1.05
    print("gates (all split, every shape >= 0.98x, geomean >= 1.05x):", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
