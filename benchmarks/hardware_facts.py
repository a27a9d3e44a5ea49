"""Every measured hardware fact of issue 18 against tilefold's price, side by side, per target.

Issue 18 states what was measured on hardware (single PTO instructions profiled on a 910B3 and a 950); the
description of PTO-ISA's tables (``/work/shared/reference/pto-isa-costmodel/README.md``) adds a few. This
benchmark writes each fact down as a number (or a range, or a bound) here, from the statements, prices the
same thing with tilefold (``tilefold.targets.instruction_cycles``; the loads through the simulator, as a kernel
runs them) and prints, per target: the fact, what was measured, tilefold's figure, the ratio tilefold /
measured (1.000 inside a measured range) and a verdict:

- ``ok``: within +-25 % of the measurement;
- ``OUTSIDE``: more than 25 % off a fact measured on that target (the benchmark then exits 1);
- ``ok*`` / ``outside*``: the fact was not measured on this target (e.g. the 256x16 ``adds`` was profiled on a
  910B3 only, and no A5 profiling of reductions, broadcasts, moves, loads or the cube exists): the row shows
  how tilefold's extrapolated price compares with the other target's measurement, and is not judged.

A ratio fact ("column reductions are about 25x too cheap") is the median ratio of tilefold's price to the old
price of every vector op, ``8 + ceil(max operand bytes / 256)``, over ``GRID`` (rows 16 .. 128, rows of 64 ..
512 bytes, FP16 and FP32: a neutral grid chosen here, as the issue does not say which shapes its ratios come
from); for the column reductions also over the grid points PTO-ISA's A2/A3 table measures.

Then an indicative section: the held-out set itself is not in the repository, but the issue gives the old
model's error on it (median 0.435 on A2/A3, 0.245 on A5; 16 % / 0.3 % within +-25 %). The same statistics of
the old model against PTO-ISA's lines on the tables' own shapes say how much the tables' case mix resembles the
held-out one, and tilefold's share on those lines is the nearest stand-in for the done-when measure.

Ends with ``hardware facts: ...``. Run: ``python benchmarks/hardware_facts.py``.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilefold.backend.pto import Buffer, PTOKernel, PTOProgram, SConst, TensorParam, TLoad
from tilefold.backend.sync import insert_syncs
from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import simulate
from tilefold.targets import get_target, instruction_cycles

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "hif8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp4_e1m2": 1,
        "fp4_e2m1": 1}
TARGETS = ("Ascend910B", "Ascend950")  # Ascend910C takes Ascend910B's table
GRID = [(r, wb, dt) for r in (16, 32, 64, 128) for wb in (64, 128, 256, 512) for dt in ("fp16", "fp32")]
TOL = 0.25


@dataclass(frozen=True)
class Fact:
    """One measured fact on one target. ``measured``: (low, high) -- a number is (x, x), a lower bound
    (x, inf). ``judged``: the fact was measured on this target."""

    target: str
    what: str
    source: str
    measured: tuple[float, float]
    tilefold: float
    judged: bool
    note: str = ""

    @property
    def ratio(self) -> float:
        lo, hi = self.measured
        ref = lo if self.tilefold < lo else hi if self.tilefold > hi else self.tilefold
        return self.tilefold / ref if ref else float("inf")

    @property
    def within(self) -> bool:
        return abs(self.ratio - 1) <= TOL

    @property
    def verdict(self) -> str:
        if self.judged:
            return "ok" if self.within else "OUTSIDE"
        return "ok*" if self.within else "outside*"

    def measured_text(self) -> str:
        lo, hi = self.measured
        if hi == math.inf:
            return f">= {lo:g}"
        return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def old_model(rows: int, cols: int, dt: str) -> int:
    """tilefold's former price of every vector op (issue 18): ``8 + ceil(max operand bytes / 256)``."""
    return 8 + math.ceil(rows * cols * SIZE[dt] / 256)


def ratio_to_old(ops, target: str) -> float:
    """Median over ``GRID`` and ``ops`` of tilefold's price / the old model's."""
    return statistics.median(instruction_cycles(op, dt, (r, wb // SIZE[dt]), target=target).cycles
                             / old_model(r, wb // SIZE[dt], dt) for op in ops for r, wb, dt in GRID)


def a2a3_lines_at(ops) -> tuple[list[tuple[str, int, int, str]], list[float]]:
    """The ``GRID`` points (op, rows, cols, dtype) at whose column count PTO-ISA's A2/A3 table has a line of the
    op, and the lines' cycles there."""
    lines: dict[tuple[str, str, int], tuple[float, float]] = {}
    with open(DATA / "a2a3_formula_params.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["cols"] != "*":
                lines[(r["op"], r["dtype"], int(r["cols"]))] = (float(r["slope"]), float(r["bias"]))
    pts, cycles = [], []
    for op in ops:
        for r, wb, dt in GRID:
            line = lines.get((op, dt, wb // SIZE[dt]))
            if line is not None:
                pts.append((op, r, wb // SIZE[dt], dt))
                cycles.append(line[0] * r * (wb // SIZE[dt]) + line[1])
    return pts, cycles


# --- the facts ---------------------------------------------------------------------------------------------

ISSUE = "issue 18"
README = "PTO-ISA README"
NO_A5 = "no A5 profiling of this: A2/A3's measurement shown"


def vector_facts(target: str) -> list[Fact]:
    a2 = target == "Ascend910B"
    ic = instruction_cycles
    out = [Fact(target, "256x16 FP32 adds (TADDS)", ISSUE + ", 910B3", (266, 266),
                ic("TADDS", "fp32", (256, 16), target=target).cycles, a2, "" if a2 else "profiled on a 910B3 only")]
    for op in ("TEXP", "TLOG", "TSQRT", "TRSQRT", "TDIVS", "TDIV", "TRECIP"):
        out.append(Fact(target, f"{op}: transcendental / division 2.5-7x the old price", ISSUE, (2.5, 7),
                        ratio_to_old((op,), target), True, "median over the grid"))
    for ops, want, what in ((("TCOLSUM", "TCOLMAX"), 25, "column reductions"),
                            (("TROWSUM", "TROWMAX"), 7, "row reductions"),
                            (("TROWEXPAND",), 16, "row broadcasts"), (("TMOV",), 8, "Vec -> Vec moves")):
        grid = ratio_to_old(ops, target)
        if ops == ("TMOV",):
            out.append(Fact(target, f"{what} ~{want}x the old price", ISSUE, (want, want), grid, a2,
                            "median over the grid" if a2 else NO_A5))
            continue
        # judged where the price can be set against a measurement: the grid points the A2/A3 table has a line at
        pts, lines = a2a3_lines_at(ops)
        ours = statistics.median(ic(op, dt, (r, c), target=target).cycles / old_model(r, c, dt) for op, r, c, dt in pts)
        theirs = statistics.median(w / old_model(r, c, dt) for (_, r, c, dt), w in zip(pts, lines, strict=True))
        out.append(Fact(target, f"{what} ~{want}x the old price ({len(pts)} grid points with an A2/A3 line)",
                        ISSUE, (want, want), ours, a2, f"PTO-ISA's lines there: {theirs:.1f}x" if a2 else NO_A5))
        out.append(Fact(target, f"{what}: the same over the whole grid (shapes chosen here)", ISSUE, (want, want),
                        grid, False, "not judged: the issue's shapes are not known"))
    for op in ("TDIVS", "TDIV"):
        for shape in ((16, 128), (64, 128), (256, 64)):
            f16 = ic(op, "fp16", shape, target=target).cycles
            f32 = ic(op, "fp32", shape, target=target).cycles
            out.append(Fact(target, f"{op} {shape[0]}x{shape[1]}: FP16 / FP32 time, FP16 not faster", ISSUE,
                            (1.0, math.inf), f16 / f32, True, f"{f16} / {f32} cycles"))
    return out


def startup_facts(target: str) -> list[Fact]:
    """A one-repeat instruction is about its start-up: 55-75 on A5 (issue 18), 16-42 on A2/A3 (README)."""
    a5 = target == "Ascend950"
    out = []
    for op in ("TADD", "TSUB", "TMUL", "TMINS", "TNEG", "TEXP", "TSQRT", "TDIVS", "TRSQRT", "TRECIP"):
        c = instruction_cycles(op, "fp32", (1, 64), target=target).cycles
        if a5:
            out.append(Fact(target, f"{op} FP32 1x64: per-op start-up 55-75", ISSUE, (55, 75), c, True))
        else:
            out.append(Fact(target, f"{op} FP32 1x64: vector start-up ~16-42", README, (16, 42), c,
                            op in ("TSUB", "TMUL", "TMINS", "TEXP", "TSQRT"),
                            "" if op in ("TSUB", "TMUL", "TMINS", "TEXP", "TSQRT") else "no A2/A3 line: priced "
                            "by a rule"))
    return out


def cube_facts(target: str) -> list[Fact]:
    a2 = target == "Ascend910B"
    note = "" if a2 else NO_A5
    one = instruction_cycles("TMATMUL", "fp16", (16, 16, 16), target=target).cycles
    out = [Fact(target, "cube start-up (one FP16 16x16x16 MAD less its fractal)", ISSUE + " / " + README, (6, 6),
                one - 1, a2, note)]
    m, k, n = 64, 64, 64
    per = {}
    for dt, k0 in (("fp16", 16), ("fp32", 8)):
        fractals = math.ceil(m / 16) * math.ceil(k / k0) * math.ceil(n / 16)
        per[dt] = (instruction_cycles("TMATMUL", dt, (m, k, n), target=target).cycles - 6) / fractals
    out.append(Fact(target, "cube FP32 / FP16 cycles per fractal (64^3)", README + " (f = 2 for FP32)", (2, 2),
                    per["fp32"] / per["fp16"], a2, note))
    return out


def _load_body_cycles(target: str, window: tuple[int, ...], rows: int, cols: int) -> float:
    """The body time (after the launch) of a kernel that loads one FP32 ``window`` into a ``rows x cols`` Vec
    tile: the load as the simulator runs it."""
    t = get_target(target)
    fp32 = DataType.FP32
    bufs = {"t": Buffer("t", MemorySpace.Vec, 0, (rows, cols), cols, fp32, "ND")}
    body = insert_syncs((TLoad("t", "x", tuple(SConst(0) for _ in window), window),), bufs, t)
    x = TensorParam("x", window, fp32, "In")
    k = PTOKernel("k", "InCore", (x,), (), ("x",), bufs, body)
    res = simulate(PTOProgram("p", t.name, {"k": k}, "k"), {"x": np.ones(window, np.float32)}, target=t)
    return res.body_cycles


def load_facts(target: str) -> list[Fact]:
    a2 = target == "Ascend910B"
    note = "" if a2 else NO_A5
    out = []
    for rows, cols in ((16, 64), (64, 128), (128, 256)):
        nbytes = rows * cols * 4
        out.append(Fact(target, f"GM -> UB load, one contiguous window of {nbytes // 1024} KiB: 266 + bytes/128",
                        ISSUE, (266 + nbytes / 128,) * 2, _load_body_cycles(target, (rows, cols), rows, cols), a2,
                        note))
    for blocks in (2, 4):
        window = (blocks, 64 // blocks, 128)
        nbytes = 64 * 128 * 4
        out.append(Fact(target, f"N-D window of {blocks} blocks (32 KiB): latency per block + bytes/128", ISSUE,
                        (blocks * 266 + nbytes / 128,) * 2, _load_body_cycles(target, window, 64, 128), a2, note))
    return out


def facts(target: str) -> list[Fact]:
    return vector_facts(target) + startup_facts(target) + cube_facts(target) + load_facts(target)


# --- indicative: the old model's error on the held-out set against its error on PTO-ISA's lines ----------------

#: the old model on the held-out set (issue 18): (median tilefold / hardware, share within +-25 %)
OLD_ON_HELD_OUT = {"Ascend910B": (0.435, 0.16), "Ascend950": (0.245, 0.003)}
PROXY_ROWS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def _a2a3_lines():
    """(op, dtypes, shape, valid, cycles of PTO-ISA's line) for every A2/A3 line at its columns, rows 1 .. 256."""
    with open(DATA / "a2a3_formula_params.csv", newline="") as f:
        for r in csv.DictReader(f):
            for dt in (("fp16", "fp32") if r["dtype"] == "any" else (r["dtype"],)):
                for cols in ((64, 128, 256) if r["cols"] == "*" else (int(r["cols"]),)):
                    for rows in PROXY_ROWS:
                        yield r["op"], dt, (rows, cols), None, float(r["slope"]) * rows * cols + float(r["bias"])


def _a5_lines():
    """The same for A5: the variant tilefold runs, rows of 512 bytes, contiguous (1-D) or row-padded (2-D)."""
    with open(DATA / "a5_formula_params.csv", newline="") as f:
        rows_ = [r for r in csv.DictReader(f) if r["tail_kind"] == "full"
                 and r["op_params"] not in ("high_precision", "TSel_b32_odd")
                 and (r["vf_impl_kind"] in ("NO_POST_UPDATE", "DEFAULT") or r["op"] == "TCVT")]
    for r in rows_:
        src, dst = r["src_dtype"], r["dst_dtype"]
        eb = max(SIZE[src], SIZE.get(dst, 1)) if r["op"] == "TCVT" else SIZE[src]
        dts = (src, dst) if r["op"] == "TCVT" else src
        p0, p1, p2 = (float(r[f"param{i}"]) for i in range(3))
        cols = 512 // eb
        for rows in PROXY_ROWS:
            if r["shape_path"] == "1D":
                loops = rows * 2
                if p0 < 0 or r["op"] == "TSEL" and loops % 2:
                    continue  # negative-slope 1-D lines are floored at the 2-D price; odd TSEL b32 is another line
                yield r["op"], dts, (rows, cols), None, p0 * loops + p1
            elif rows > 1:  # one valid row is one contiguous run: the 1-D path
                yield r["op"], dts, (rows, cols + 64), (rows, cols), (p0 * 2 + p1) * rows + p2


def _stats(ratios: list[float]) -> tuple[float, float]:
    return statistics.median(ratios), sum(abs(x - 1) <= TOL for x in ratios) / len(ratios)


def proxy(target: str) -> dict[str, tuple[float, float, int]]:
    """(median, share within +-25 %, cases) of the old model and of tilefold against PTO-ISA's lines."""
    old, ours = [], []
    for op, dts, shape, valid, want in (_a2a3_lines() if target == "Ascend910B" else _a5_lines()):
        dt = dts if isinstance(dts, str) else max(dts, key=lambda d: SIZE[d])
        rows, cols = valid or shape
        old.append(old_model(rows, cols, dt) / want)
        ours.append(instruction_cycles(op, dts, shape, valid, target=target).cycles / want)
    return {"old": (*_stats(old), len(old)), "tilefold": (*_stats(ours), len(ours))}


# --- report ------------------------------------------------------------------------------------------------

def print_facts(rows: list[Fact]) -> None:
    print(f"  {'fact':74s} {'source':22s} {'measured':>11s} {'tilefold':>10s} {'ratio':>7s}  verdict")
    for f in rows:
        note = f"  ({f.note})" if f.note else ""
        print(f"  {f.what:74s} {f.source:22s} {f.measured_text():>11s} {f.tilefold:10.2f} {f.ratio:7.3f}  "
              f"{f.verdict}{note}")


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    judged_out, unjudged_out, total = [], [], 0
    for target in TARGETS:
        rows = facts(target)
        total += len(rows)
        print(f"{target}: measured fact / source / measured / tilefold / ratio tilefold/measured / verdict")
        print_facts(rows)
        judged_out += [f for f in rows if f.judged and not f.within]
        unjudged_out += [f for f in rows if not f.judged and not f.within]
        print()
    print("indicative: the old model on the held-out set (issue 18) against the old model and tilefold on PTO-ISA's "
          "lines at the tables' own shapes (rows 1 .. 256)")
    summary = []
    for target in TARGETS:
        p = proxy(target)
        held_med, held_share = OLD_ON_HELD_OUT[target]
        (om, os_, n), (tm, ts, _) = p["old"], p["tilefold"]
        print(f"  {target}: old model on the held-out set median {held_med:.3f}, {100 * held_share:.1f} % within; "
              f"on the {n} line cases median {om:.3f}, {100 * os_:.1f} % within; tilefold on them median {tm:.3f}, "
              f"{100 * ts:.1f} % within")
        summary.append(f"{target} {100 * ts:.1f} % of table cases")
    print("  (where the old model's figures on the lines match those on the held-out set, the lines stand in for "
          "the held-out cases; PTO-ISA's own A2/A3 model reaches 43 % on the held-out set, so on A2/A3 they do not)")
    print()
    for f in judged_out:
        print(f"OUTSIDE +-25 %: {f.target}: {f.what}: measured {f.measured_text()}, tilefold {f.tilefold:.2f}")
    for f in unjudged_out:
        print(f"outside +-25 %, not judged: {f.target}: {f.what} ({f.note}): measured {f.measured_text()}, "
              f"tilefold {f.tilefold:.2f}, ratio {f.ratio:.3f}")
    print(f"hardware facts: {total - len(judged_out) - len(unjudged_out)} of {total} rows within +-25 %, "
          f"{len(judged_out)} judged rows outside, {len(unjudged_out)} unjudged rows outside; "
          + "; ".join(summary))
    return 1 if judged_out else 0


if __name__ == "__main__":
    sys.exit(main())
