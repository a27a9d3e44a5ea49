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

The softmax custom kernel is registered with a cost per target: by default a numerically stable vector
softmax (reduce max, subtract, exp, reduce sum, divide: five vector passes over the FP32 tile, each priced
like a vector instruction of *that* target: start-up + bytes / its vector bytes per cycle) plus its
custom-call start-up.

``--calibrate`` reproduces the seed's measured tables (section 4.4: Ascend 910B2 and Ascend 950PR, CANN
9.1.0). For each target and each kernel it fits two constants on one shape only (128x64 for reduce-last,
64x128 for reduce-first; baseline and tiled): the kernel's cycles per element (its cost becomes
``c * elements`` per call) and the target's launch overhead. Simulated time is affine in both (the custom
call is on the critical path), so two simulations per variant give the line and the fit is exact on the
fit shape. Every other shape is then *predicted* and printed in ms beside the seed's number, with the
errors; the last line is the summary ``calibration: max time error ..., max speedup error ..., geomean
speedup error ...`` over the predicted shapes of both chips.

Run: ``python benchmarks/sub_block.py [--warmup N] [--repeats N] [--target NAME] [--calibrate] [--plot]``.
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


def _vector_softmax_cost(target_name: str):
    """Five vector passes over the FP32 tile at ``target_name``'s vector rate, plus its call start-up."""
    c = get_target(target_name).costs

    def cost(shape) -> float:
        nbytes = int(np.prod(shape)) * 4
        one_pass = c.vector_startup + math.ceil(nbytes / c.vector_rate("FP32"))
        return float(c.custom_startup + 5 * one_pass)
    return cost


def register_kernels(per_element: dict[str, float] | None = None, axis_only: int | None = None) -> None:
    """Register both softmax kernels priced per target: the vector-softmax model, or (``per_element``:
    target name -> cycles per element) a calibrated linear cost."""
    from tilefold.targets import list_targets

    for axis, symbol in SYMBOLS.items():
        if axis_only is not None and axis != axis_only:
            continue
        if per_element is None:
            cost = {name: _vector_softmax_cost(name) for name in list_targets()}
        else:
            cost = {name: (lambda c: (lambda shape: c * float(np.prod(shape))))(c) for name, c in per_element.items()}
        register_custom_op(symbol, _softmax(axis), cost=cost, replace=True)


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


# the seed's measured tables: (rows, cols, reduce axis) -> (baseline ms, tiled ms, printed speedup), and
# the printed geomean speedup
SEED = {
    "Ascend910B": {"device": "Ascend 910B2", "geomean": 1.996, "table": {
        (128, 64, 1): (3.024, 1.516, 1.995), (256, 64, 1): (6.043, 3.026, 1.997),
        (128, 128, 1): (6.035, 3.021, 1.997), (64, 128, 0): (2.728, 1.368, 1.994),
        (64, 256, 0): (5.451, 2.730, 1.997), (128, 128, 0): (5.442, 2.726, 1.997)}},
    "Ascend950": {"device": "Ascend 950PR", "geomean": 1.998, "table": {
        (128, 64, 1): (0.806, 0.404, 1.997), (256, 64, 1): (1.611, 0.806, 1.998),
        (128, 128, 1): (1.609, 0.805, 1.998), (64, 128, 0): (0.750, 0.376, 1.997),
        (64, 256, 0): (1.499, 0.750, 1.998), (128, 128, 0): (1.498, 0.750, 1.998)}},
}
FIT_SHAPE = {1: (128, 64, 1), 0: (64, 128, 0)}


def _compiled(rows: int, cols: int, axis: int, target: str):
    program = softmax_program(rows, cols, axis)
    rng = np.random.default_rng(rows * 1000 + cols + axis)
    x = rng.uniform(-4.0, 4.0, (rows, cols)).astype(np.float32)
    base = compile_program(program, target=target, options={"enable_auto_bind_sub_block": False})
    tiled = compile_program(program, target=target)
    return x, base, tiled


def _cycles(comp, x, target) -> float:
    return simulate(comp.pto, {"x": x}, target).cycles


def calibrate(plot: bool = False) -> int:
    all_time_err: list[float] = []
    all_speed_err: list[float] = []
    geo_err: list[float] = []
    plot_rows = []
    for tname, seed in SEED.items():
        target = get_target(tname)
        per_ms = target.clock_ghz * 1e6  # cycles per ms
        rows_out = []
        pred_speed: list[float] = []
        for axis in (1, 0):
            fr, fc, _ = FIT_SHAPE[axis]
            x, base, tiled = _compiled(fr, fc, axis, tname)
            zero = target.with_changes(launch_overhead_cycles=0)
            lines = {}
            for c in (1.0, 2.0):
                register_kernels({tname: c}, axis)
                lines[c] = (_cycles(base, x, zero), _cycles(tiled, x, zero))
            b1, t1 = lines[2.0][0] - lines[1.0][0], lines[2.0][1] - lines[1.0][1]
            b0, t0 = lines[1.0][0] - b1, lines[1.0][1] - t1
            sb, st = (v * per_ms for v in seed["table"][FIT_SHAPE[axis]][:2])
            c = ((sb - st) - (b0 - t0)) / (b1 - t1)
            launch = sb - b0 - b1 * c
            register_kernels({tname: c}, axis)
            fitted = target.with_changes(launch_overhead_cycles=int(round(launch)))
            rows_out.append([f"fit {'reduce-last' if axis else 'reduce-first'}", "", f"c={c:.1f} cyc/elem",
                             f"launch={launch:.0f} cyc", "", "", "", "", ""])
            for (r, cc, ax), (seed_b, seed_t, ss) in seed["table"].items():
                if ax != axis:
                    continue
                x2, base2, tiled2 = _compiled(r, cc, ax, tname)
                pb, pt = _cycles(base2, x2, fitted) / per_ms, _cycles(tiled2, x2, fitted) / per_ms
                is_fit = (r, cc, ax) == FIT_SHAPE[axis]
                eb, et = abs(pb - seed_b) / seed_b, abs(pt - seed_t) / seed_t
                sp = pb / pt
                if not is_fit:
                    all_time_err += [eb, et]
                    all_speed_err.append(abs(sp - ss))
                pred_speed.append(sp)
                rows_out.append([f"{r}x{cc}" + (" (fit)" if is_fit else ""), ax, f"{seed_b:.3f}", f"{pb:.3f}",
                                 f"{seed_t:.3f}", f"{pt:.3f}", f"{100 * max(eb, et):.2f} %", f"{ss:.3f}x",
                                 f"{sp:.3f}x"])
                plot_rows.append([f"{tname[6:]} {r}x{cc} r{ax}", seed_b, pb, seed_t, pt])
        print_table(["shape", "reduce axis", "seed base ms", "pred base ms", "seed tiled ms", "pred tiled ms",
                     "max time err", "seed speedup", "pred speedup"], rows_out,
                    title=f"calibration against the seed's {seed['device']} table (target {tname}, "
                          f"{target.clock_ghz:g} GHz)")
        g_pred, g_seed = geomean(pred_speed), seed["geomean"]
        geo_err.append(abs(g_pred - g_seed))
        print(f"geomean speedup: seed {g_seed:.3f}x, predicted {g_pred:.4f}x\n")
    register_kernels()
    if plot:
        from tilefold.sim.trace import plot_table

        heads = ["shape", "seed baseline ms", "predicted baseline ms", "seed tiled ms", "predicted tiled ms"]
        out = plot_table(heads, plot_rows, "sub_block.png", title="seed vs predicted (ms)", value_columns=(1, 2, 3, 4))
        print(f"plot written to {out}")
    print(f"calibration: max time error {100 * max(all_time_err):.2f} %, max speedup error {max(all_speed_err):.4f}, "
          f"geomean speedup error {max(geo_err):.4f}")
    ok = max(all_time_err) <= 0.02 and max(all_speed_err) <= 0.005 and max(geo_err) <= 0.003
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--target", default="Ascend910B")
    ap.add_argument("--calibrate", action="store_true",
                    help="fit two constants per kernel per target on one shape and predict the seed's tables")
    ap.add_argument("--plot", action="store_true", help="also write sub_block.png (baseline vs tiled per shape)")
    args = ap.parse_args(argv)
    if args.calibrate:
        return calibrate(args.plot)
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
    if args.plot:
        from tilefold.sim.trace import plot_table

        out = plot_table(["shape", "baseline cycles", "tiled cycles"],
                         [[f"{r[0]} r{r[1]}", r[3], r[4]] for r in rows], "sub_block.png",
                         title=f"baseline vs tiled on {args.target}", value_columns=(1, 2))
        print(f"plot written to {out}")
    speedups = [res["speedup"] for res in results]
    g = geomean(speedups)
    print(f"\nspeedup range {min(speedups):.3f}x - {max(speedups):.3f}x, geomean {g:.3f}x")
    ok = all(res["split"] for res in results) and min(speedups) >= 0.98 and g >= 1.05
    print("gates (all split, every shape >= 0.98x, geomean >= 1.05x):", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
