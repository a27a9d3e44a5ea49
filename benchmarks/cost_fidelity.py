"""How well the instruction prices predict what they were not fitted on: held-out checks on PTO-ISA's tables.

The hardware-profiled single instructions issue 18 is judged on are not in this repository. What can be
checked here is whether the *structure* of the prices predicts measured figures it did not see:

- **A2/A3, leave one column out.** Each measured (op, dtype) is refitted without one of its columns
  (``targets.cost_fit.leave_one_column_out``) and that column is predicted at rows 1 .. 256. Columns whose
  measured rows are packed (narrower than a repeat and far cheaper than one repeat per row, which the
  profiled 256x16 ``adds`` contradicts) are counted apart.
- **A2/A3, leave one (op, dtype) out.** The whole family is removed and predicted (a) from the same op's other
  dtype, with the repeat count of the held-out dtype, (b) from its nearest measured family of the same dtype
  (the extrapolation rule an op without an entry gets).
- **A5, leave one (op, dtype) out.** The same two predictions on the VF formulas (1-D and 2-D paths, full and
  tail sizes, rows 1 .. 256), and **leave one path out**: the 2-D path predicted from the 1-D formula.
- **A5 from A2/A3.** The A5 ops that have an A2/A3 family priced by the rule A5's reductions and broadcasts
  get (A2/A3's family with A5's start-up and per-row loop cost) against their A5 formulas.
- **In sample.** The prices at the tables' own shapes against the formula lines (A2/A3 at their measured
  columns, A5 per path), as ``benchmarks/cost_table.py`` does.
- **Facts.** The hardware facts issue 18 and the tables' README state (``FACTS``), with tilefold's figure
  for a stated representative shape and whether it agrees (within +-25 % where a number is given).

Measured against predicted is printed side by side for a sample of every check (``--all``: every case).
Ends with ``cost fidelity: ...``; exits 1 when a fact does not hold.

Run: ``python benchmarks/cost_fidelity.py [--all]``.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from pathlib import Path

from tilefold.targets import cost_fit, costs, instruction_cycles

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "hif8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp4_e1m2": 1,
        "fp4_e2m1": 1}
ROWS = (1, 4, 16, 64, 256)

#: A2/A3: the nearest measured family of each measured op (what it would be priced like without its entry)
A2A3_NEAREST = {"TADDS": "TMULS", "TMULS": "TADDS", "TMINS": "TADDS", "TDIVS": "TEXP", "TMUL": "TSUB",
                "TSUB": "TMUL", "TCOLMAX": "TCOLSUM", "TCOLSUM": "TCOLMAX", "TROWMAX": "TROWSUM",
                "TROWSUM": "TROWMAX", "TROWEXPAND": "TROWSUM"}
#: A5: the same for the VF table
A5_NEAREST = {"TADD": "TSUB", "TSUB": "TADD", "TMUL": "TADD", "TMINS": "TNEG", "TNEG": "TMINS", "TDIVS": "TRECIP",
              "TRECIP": "TDIVS", "TEXP": "TSQRT", "TSQRT": "TEXP", "TRSQRT": "TSQRT", "TSEL": "TADD"}


def share(pairs: list[tuple[float, float]]) -> tuple[int, float, float]:
    """(cases, share within +-25 %, median predicted / measured) of ``(predicted, measured)`` pairs."""
    ratios = [p / m for p, m in pairs if m > 0]
    if not ratios:
        return 0, 0.0, 0.0
    return len(ratios), sum(abs(r - 1) <= 0.25 for r in ratios) / len(ratios), statistics.median(ratios)


def _side_by_side(title: str, rows: list[tuple[str, float, float]], every: bool) -> None:
    """``(case, measured, predicted)`` rows: all with ``every``, else an evenly spaced sample of 8."""
    if not rows:
        return
    step = 1 if every else max(1, len(rows) // 8)
    print(f"    {title}: case / measured / predicted / ratio")
    for case, want, got in rows[::step]:
        print(f"      {case:44s} {want:9.1f} {got:9.1f}  {got / want:6.3f}")


# --- A2/A3 -------------------------------------------------------------------------------------------------

def a2a3_families() -> tuple[dict[tuple[str, str], list[tuple[int, float, float]]], dict[str, tuple[float, float]]]:
    fams: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
    anyrows: dict[str, tuple[float, float]] = {}
    with open(DATA / "a2a3_formula_params.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["cols"] == "*":
                anyrows[r["op"]] = (float(r["slope"]), float(r["bias"]))
            else:
                fams.setdefault((r["op"], r["dtype"]), []).append((int(r["cols"]), float(r["slope"]),
                                                                   float(r["bias"])))
    return {k: sorted(v) for k, v in fams.items()}, anyrows


def a2a3_in_sample() -> tuple[list[tuple[str, float, float]], list[tuple[str, float, float]]]:
    """(the lines of unpacked columns and the "any" lines, the packed narrow columns)."""
    fams, anyrows = a2a3_families()
    out, packed_out = [], []
    for (op, dt), entries in fams.items():
        packed = set(cost_fit.packed_columns(entries, SIZE[dt]))
        for cols, slope, bias in entries:
            for r in ROWS:
                (packed_out if cols in packed else out).append(
                    (f"{op} {dt} {r}x{cols}", slope * r * cols + bias, instruction_cycles(op, dt, (r, cols)).cycles))
    for op, (slope, bias) in anyrows.items():
        for dt in ("fp16", "fp32"):
            for cols in (64, 128, 256):  # rows at least one repeat wide: the "any" line has no row structure
                for r in ROWS:
                    out.append((f"{op} {dt} {r}x{cols}", slope * r * cols + bias,
                                instruction_cycles(op, dt, (r, cols)).cycles))
    return out, packed_out


def a2a3_leave_one_column_out() -> tuple[list, list]:
    fams, _ = a2a3_families()
    seen, packed = [], []
    for (op, dt), entries in fams.items():
        for h in cost_fit.leave_one_column_out(op, dt, entries, SIZE[dt], ROWS):
            (packed if h.packed else seen).append((f"{op} {dt} {h.rows}x{h.cols}", h.measured, h.predicted))
    return seen, packed


def a2a3_leave_one_family_out() -> tuple[list, list]:
    """(from the same op's other dtype, from the nearest family of the same dtype)."""
    fams, _ = a2a3_families()
    fits = {k: cost_fit.fit_family(v, SIZE[k[1]]) for k, v in fams.items()}
    by_dtype, by_family = [], []
    for (op, dt), entries in fams.items():
        other = next((k for k in fits if k[0] == op and k[1] != dt), None)
        near = (A2A3_NEAREST.get(op), dt)
        packed = set(cost_fit.packed_columns(entries, SIZE[dt]))
        for cols, slope, bias in entries:
            if cols in packed:
                continue
            for r in ROWS:
                want, case = slope * r * cols + bias, f"{op} {dt} {r}x{cols}"
                if other is not None:
                    by_dtype.append((case + f" <- {other[1]}", want, fits[other].cycles(r, cols, SIZE[dt])))
                if near in fits:
                    by_family.append((case + f" <- {near[0]}", want, fits[near].cycles(r, cols, SIZE[dt])))
    return by_dtype, by_family


# --- A5 ----------------------------------------------------------------------------------------------------

def a5_entries() -> dict[tuple[str, str, str, str], tuple[float, ...]]:
    """(op, src, dst, path) -> params of the variant tilefold runs (no post-update / default, TRECIP default,
    TSEL b32 even)."""
    out: dict[tuple[str, str, str, str], tuple[float, ...]] = {}
    with open(DATA / "a5_formula_params.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["op_params"] in ("high_precision", "TSel_b32_odd") or r["tail_kind"] != "full":
                continue
            key = (r["op"], r["src_dtype"], r["dst_dtype"], r["shape_path"])
            if key not in out or r["vf_impl_kind"] in ("NO_POST_UPDATE", "DEFAULT"):
                out[key] = tuple(float(r[f"param{i}"]) for i in range(3))
    return out


def _a5_eval(params: tuple[float, ...], path: str, rows: int, inner: int) -> float:
    p0, p1, p2 = params
    return p0 * rows * inner + p1 if path == "1D" else (p0 * inner + p1) * rows + p2


def _a5_shapes(eb: int):
    for rows in ROWS:
        for row_bytes in (256, 512, 320):  # whole repeats and a partial last one
            cols = row_bytes // eb
            yield rows, cols, math.ceil(cols * eb / 256)


def a5_in_sample() -> list[tuple[str, float, float]]:
    out = []
    for (op, src, dst, path), params in a5_entries().items():
        eb = max(SIZE[src], SIZE.get(dst, 1)) if op == "TCVT" else SIZE[src]
        dts = (src, dst) if op == "TCVT" else src
        for rows, cols, inner in _a5_shapes(eb):
            if path == "1D" and (op == "TSEL" and (rows * inner) % 2 or params[0] < 0):
                continue  # odd TSEL b32 is the other variant; negative-slope 1-D rows are priced at the 2-D floor
            if path == "2D" and rows == 1:
                continue  # one valid row is one contiguous run: the 1-D path
            shape, valid = ((rows, cols), None) if path == "1D" else ((rows, cols + 64), (rows, cols))
            loops = math.ceil(rows * cols * eb / 256) if path == "1D" else inner
            want = _a5_eval(params, path, 1 if path == "1D" else rows, loops)
            got = instruction_cycles(op, dts, shape, valid, target="Ascend950").cycles
            out.append((f"{op} {src}->{dst} {path} {rows}x{cols}", want, got))
    return out


def a5_held_out() -> tuple[list, list, list]:
    """(from another dtype of the op, from the nearest family, 2-D path from the 1-D formula)."""
    ents = a5_entries()
    by_dtype, by_family, by_path = [], [], []
    for (op, src, dst, path), params in ents.items():
        if op == "TCVT":
            continue  # a conversion's dtype pair is its identity: there is no "other dtype" of it
        eb = SIZE[src]
        other = next((k for k in ents if k[0] == op and k[1] != src and k[3] == path), None)
        near = (A5_NEAREST.get(op), src, dst, path)
        one_d = ents.get((op, src, dst, "1D"))
        for rows, _, inner in _a5_shapes(eb):
            want = _a5_eval(params, path, rows, inner)
            case = f"{op} {src} {path} {rows} rows x {inner} rep"
            if other is not None:
                by_dtype.append((case + f" <- {other[1]}", want, _a5_eval(ents[other], path, rows, inner)))
            if near in ents:
                by_family.append((case + f" <- {near[0]}", want, _a5_eval(ents[near], path, rows, inner)))
            if path == "2D" and one_d is not None:
                by_path.append((case + " <- 1D", want, _a5_eval(one_d, "1D", rows, inner)))
    return by_dtype, by_family, by_path


def a5_from_a2a3() -> list[tuple[str, float, float]]:
    """The A5 ops that also have an A2/A3 family, priced by the rule A5's reductions and broadcasts get (A2/A3's
    family with A5's start-up and per-row loop cost, ``costs_a5.EXTRAPOLATED_OPS`` "a2a3:" entries) against
    their A5 formula: the only check of that cross-target rule."""
    a2, a5 = costs.table("a2a3"), costs.table("a5")
    out = []
    for (op, src, _dst, path), params in a5_entries().items():
        if op == "TCVT" or op not in a2.measured_ops():
            continue
        for rows, cols, inner in _a5_shapes(SIZE[src]):
            want = _a5_eval(params, path, 1 if path == "1D" else rows,
                            math.ceil(rows * cols * SIZE[src] / 256) if path == "1D" else inner)
            got = a5.family("a2a3:" + op, src, src, rows, cols, rows, cols).cycles
            out.append((f"{op} {src} {path} {rows}x{cols} <- A2/A3 {op}", want, got))
    return out


#: the ops measured on both targets, division apart (A5's division costs 2.4x less relative to its other ops than
#: A2/A3's: ``costs_a2a3.A5_RATIO_RULES`` never scales from or to it)
BOTH_TARGETS = ("TEXP", "TMINS", "TMUL", "TSUB", "TSQRT")


RATIO_CHECK = "from another family by A5's ratio (TSEL, TRSQRT, TNEG, TCVT)"


def a2a3_by_a5_ratio() -> tuple[list, list]:
    """The check of ``costs_a2a3.A5_RATIO_RULES`` (an op A2/A3 lacks, priced from an A2/A3 family by A5's
    per-repeat ratio of the two): every op measured on both targets predicted on A2/A3 from each other one,
    (scaled by A5's ratio, unscaled), against its own A2/A3 price."""
    a2, a5 = costs.table("a2a3"), costs.table("a5")
    scaled, plain = [], []
    for x in BOTH_TARGETS:
        for y in BOTH_TARGETS:
            if x == y:
                continue
            for dt in ("fp16", "fp32"):
                start = a2.any_family(y, dt).startup if y in a2.any else a2.families[(y, dt)].startup
                ratio = a5.per_repeat(x, dt, dt) / a5.per_repeat(y, dt, dt)
                for rows in ROWS:
                    for row_bytes in (256, 512, 1024):
                        cols = row_bytes // SIZE[dt]
                        want = a2.family(x, dt, rows, cols).cycles
                        base = a2.family(y, dt, rows, cols).cycles
                        case = f"{x} {dt} {rows}x{cols} <- {y}"
                        scaled.append((case, want, start + ratio * (base - start)))
                        plain.append((case, want, base))
    return scaled, plain


# --- facts -------------------------------------------------------------------------------------------------

#: the shapes a ratio fact is judged on: rows 16 .. 128, rows of 64 .. 512 bytes, FP16 and FP32 (a neutral
#: grid of tile sizes, chosen here; the issue does not say which shapes its ratios come from)
GRID = [(r, wb, dt) for r in (16, 32, 64, 128) for wb in (64, 128, 256, 512) for dt in ("fp16", "fp32")]


def old_model(rows: int, cols: int, dt: str) -> int:
    """tilefold's former price of every vector op: ``8 + ceil(max operand bytes / 256)``."""
    return 8 + math.ceil(rows * cols * SIZE[dt] / 256)


def ratio_to_old(ops, target: str) -> float:
    """Median over ``GRID`` (and ``ops``) of tilefold's price / the old model's."""
    return statistics.median(instruction_cycles(op, dt, (r, wb // SIZE[dt]), target=target).cycles
                             / old_model(r, wb // SIZE[dt], dt) for op in ops for r, wb, dt in GRID)


def _near(got: float, want: float) -> bool:
    return abs(got / want - 1) <= 0.25


def _range(got: float, lo: float, hi: float) -> bool:
    return lo / 1.25 <= got <= hi * 1.25


def _ratio_facts(target: str) -> list[tuple[str, str, bool]]:
    """The ratios to the old model. Reductions, broadcasts and moves are judged on A2/A3 only: A5 has no
    profiling of them (its table has none; they are A2/A3's families with A5's start-up)."""
    out = []
    tx = ratio_to_old(("TEXP", "TSQRT", "TLOG", "TDIVS", "TDIV", "TRECIP"), target)
    out.append((f"{target}: transcendental + division 2.5-7x the old model", f"{tx:.1f}x", _range(tx, 2.5, 7)))
    d16 = instruction_cycles("TDIVS", "fp16", (64, 128), target=target).cycles
    d32 = instruction_cycles("TDIVS", "fp32", (64, 128), target=target).cycles
    out.append((f"{target}: FP16 division not faster than FP32 (64x128)", f"{d16} vs {d32}", d16 >= d32 / 1.25))
    if target != "Ascend910B":
        return out
    for ops, want, what in ((("TCOLSUM", "TCOLMAX"), 25, "column reductions"), (("TROWSUM", "TROWMAX"), 7,
                            "row reductions"), (("TROWEXPAND",), 16, "row broadcasts")):
        got, lines = ratio_on_measured(ops)
        out.append((f"{target}: {what} ~{want}x the old model (measured lines: {lines:.1f}x)", f"{got:.1f}x",
                    _near(got, want)))
    got = ratio_to_old(("TMOV",), target)
    out.append((f"{target}: Vec -> Vec moves ~8x the old model", f"{got:.1f}x", _near(got, 8)))
    return out


def ratio_on_measured(ops) -> tuple[float, float]:
    """(tilefold's, PTO-ISA's measured lines') median ratio to the old model over the ``GRID`` points the A2/A3
    table measures (its exact columns): where a price can be set against a measurement."""
    fams, _ = a2a3_families()
    ours, lines = [], []
    for op in ops:
        for r, wb, dt in GRID:
            cols = wb // SIZE[dt]
            line = next(((s, b) for c, s, b in fams.get((op, dt), []) if c == cols), None)
            if line is not None:
                ours.append(instruction_cycles(op, dt, (r, cols)).cycles / old_model(r, cols, dt))
                lines.append((line[0] * r * cols + line[1]) / old_model(r, cols, dt))
    return statistics.median(ours), statistics.median(lines)


def facts() -> list[tuple[str, str, bool]]:
    """(fact, tilefold's figure, holds) for every stated hardware fact (issue 18 and the tables' README)."""
    ic = instruction_cycles
    out = [("256x16 FP32 adds takes 266 cycles (910B3)", f"{ic('TADDS', 'fp32', (256, 16)).cycles}",
            _near(ic("TADDS", "fp32", (256, 16)).cycles, 266))]
    out += _ratio_facts("Ascend910B") + _ratio_facts("Ascend950")
    a5 = [ic(op, "fp32", (1, 64), target="Ascend950").cycles for op in ("TADD", "TMUL", "TMINS", "TNEG", "TEXP",
                                                                         "TSQRT", "TDIVS", "TRSQRT")]
    out.append(("A5 per-op start-up 55-75 (one-repeat ops)", f"{min(a5)}-{max(a5)}",
                all(_range(c, 55, 75) for c in a5)))
    a2 = [ic(op, dt, (1, 256 // SIZE[dt])).cycles for op in ("TADDS", "TMULS", "TMINS", "TMUL", "TSUB", "TEXP")
          for dt in ("fp16", "fp32")]
    out.append(("A2/A3 start-up ~16-42 (one-repeat element-wise ops)", f"{min(a2)}-{max(a2)}",
                all(_range(c, 16, 42) for c in a2)))
    for tgt in ("Ascend910B", "Ascend950"):
        f16, f32 = (ic("TMATMUL", dt, (64, 64, 64), target=tgt).cycles for dt in ("fp16", "fp32"))
        out.append((f"{tgt}: cube start-up 6, FP32 at half the FP16 fractal rate (64^3)", f"{f16} / {f32}",
                    f16 == 6 + 64 and (f32 - 6) / 128 == 2 * (f16 - 6) / 64))
    one = ic("TLOAD", "fp32", (64, 128)).cycles
    four = ic("TLOAD", "fp32", (64, 128), blocks=4).cycles
    out.append(("GM load ~266 + bytes/128 per contiguous window (32 KiB)", f"{one}", _near(one, 266 + 32768 / 128)))
    out.append(("N-D / DN window pays the latency per block (4 blocks)", f"{four}",
                _near(four, 4 * 266 + 32768 / 128)))
    narrow, wide = ic("TADDS", "fp32", (128, 16)).cycles, ic("TADDS", "fp32", (128, 64)).cycles
    out.append(("repeats counted per row: a 64 B row costs a whole 256 B repeat", f"{narrow} vs {wide}",
                _near(narrow, wide)))
    return out + a5_path_structure()


def a5_path_structure() -> list[tuple[str, str, bool]]:
    """What the A5 table's own structure says about choosing a formula: per (op, dtypes, path, op_params), do
    the tail / full and POST_UPDATE / NO_POST_UPDATE lines carry the same parameters? If they do, only the path
    (1-D contiguous, 2-D row-padded) and the op_params variant change a price."""
    groups: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    with open(DATA / "a5_formula_params.csv", newline="") as f:
        for r in csv.DictReader(f):
            key = (r["op"], r["src_dtype"], r["dst_dtype"], r["shape_path"], r["op_params"])
            groups.setdefault(key, set()).add(tuple(r[f"param{i}"] for i in range(4)))
    same = sum(len(v) == 1 for v in groups.values())
    return [("A5: tail / full and post-update variants share their parameters", f"{same} of {len(groups)}",
             same == len(groups))]


def packed_by_rows() -> list[tuple[int, list[tuple[float, float]]]]:
    """The packed narrow columns (priced per row, not fitted) by rows: where the per-row rule departs."""
    _, packed = a2a3_in_sample()
    by: dict[int, list[tuple[float, float]]] = {}
    for case, want, got in packed:
        by.setdefault(int(case.split()[2].split("x")[0]), []).append((got, want))
    return sorted(by.items())


def split_tail_lines() -> list[tuple[str, float, float]]:
    """TCOLMAX's measured columns whose rows end in a partial repeat after whole ones (FP32 96, FP16 160 / 192):
    a second dependent instruction per row (``cost_fit.split_tail``)."""
    fams, _ = a2a3_families()
    out = []
    for (op, dt), entries in fams.items():
        for cols, slope, bias in entries:
            if op.startswith("TCOL") and cost_fit.split_tail(cols, SIZE[dt]):
                for r in ROWS:
                    out.append((f"{op} {dt} {r}x{cols}", slope * r * cols + bias,
                                instruction_cycles(op, dt, (r, cols)).cycles))
    return out


def _by(rows: list[tuple[str, float, float]], key) -> list[tuple[str, list[tuple[float, float]]]]:
    groups: dict[str, list[tuple[float, float]]] = {}
    for case, want, got in rows:
        groups.setdefault(key(case), []).append((got, want))
    return sorted(groups.items())


def checks() -> list[tuple[str, str, str, list[tuple[str, float, float]]]]:
    """Every check: (target, what, fitted points, (case, measured, predicted) rows)."""
    fams, _ = a2a3_families()
    fits = {k: cost_fit.fit_family(v, SIZE[k[1]]) for k, v in fams.items()}
    fitted2 = sum(f.points for f in fits.values())
    ins2, ins2_packed = a2a3_in_sample()
    seen, packed = a2a3_leave_one_column_out()
    by_dt2, by_fam2 = a2a3_leave_one_family_out()
    ins5 = a5_in_sample()
    by_dt5, by_fam5, by_path5 = a5_held_out()
    cross = a5_from_a2a3()
    cross2d = [c for c in cross if " 2D " in c[0]]
    by_ratio, unscaled = a2a3_by_a5_ratio()
    return [
        ("A2/A3", "in sample: the measured lines at their columns", f"{fitted2}", ins2),
        ("A2/A3", "packed narrow columns (priced per row, not fitted)", "0", ins2_packed),
        ("A2/A3", "TCOLMAX split-tail columns (in sample)", "in the fit", split_tail_lines()),
        ("A2/A3", "leave one column out (unpacked columns)", f"{fitted2} less the column's 5 (refit)", seen),
        ("A2/A3", "leave one column out (packed narrow columns)", f"{fitted2} less the column's 5 (refit)", packed),
        ("A2/A3", "leave one (op, dtype) out: from the op's other dtype", "the other dtype's fit", by_dt2),
        ("A2/A3", "leave one (op, dtype) out: from the nearest family", "the nearest family's fit", by_fam2),
        ("A2/A3", RATIO_CHECK, "A2/A3 fits + A5 formulas", by_ratio),
        ("A2/A3", "the same families unscaled", "A2/A3 fits", unscaled),
        ("A5", "in sample: the VF formulas per path", "none (the CSV's formulas)", ins5),
        ("A5", "leave one (op, dtype) out: from the op's other dtype", "the other dtype's formula", by_dt5),
        ("A5", "leave one (op, dtype) out: from the nearest family", "the nearest family's formula", by_fam5),
        ("A5", "leave one path out: 2-D path from the 1-D formula", "the 1-D formula", by_path5),
        ("A5", "from A2/A3 families, 2-D path (what reductions take)", f"A2/A3 fits ({fitted2}), 3 A5 constants",
         cross2d),
        ("A5", "from A2/A3 families, both paths", f"A2/A3 fits ({fitted2}), 3 A5 constants", cross),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="print every case side by side (default: a sample)")
    args = ap.parse_args(argv)
    table = checks()
    print("checks: target / check / fitted points / predicted points / within +-25 % / median predicted/measured")
    shares = {}
    for target, what, fitted, rows in table:
        n, w, m = share([(g, want) for _, want, g in rows])
        shares[(target, what)] = w
        print(f"  {target:5s} {what:54s} {fitted:44s} {n:5d}  {100 * w:5.1f} %  median {m:.3f}")
    for target, what, _, rows in table:
        _side_by_side(f"{target} {what}", rows, args.all)
    print("A5 from A2/A3 families, per op and path (the cross-target rule on the ops measured on both targets)")
    for key, pairs in _by(a5_from_a2a3(), lambda c: " ".join(c.split()[:3:2])):
        n, w, m = share(pairs)
        print(f"  {key:14s} {n:4d} cases  {100 * w:5.1f} % within +-25 %  median ratio {m:.3f}")
    print("A2/A3 packed narrow columns by rows (the CSV's lines against the per-row price)")
    for rows, pairs in packed_by_rows():
        n, w, m = share(pairs)
        print(f"  rows {rows:4d}  {n:3d} lines  {100 * w:5.1f} % within +-25 %  median ratio {m:.3f}")
    print("facts (issue 18, reference README, the A5 table's structure): fact / tilefold / holds")
    facts_table = facts()
    for fact, figure, ok in facts_table:
        print(f"  {fact:66s} {figure:>14s}  {'yes' if ok else 'NO'}")
    held = sum(ok for _, _, ok in facts_table)
    a5 = ", ".join(f"{what} {ratio_to_old(ops, 'Ascend950'):.1f}x" for ops, what in (
        (("TCOLSUM", "TCOLMAX"), "column reductions"), (("TROWSUM", "TROWMAX"), "row reductions"),
        (("TROWEXPAND",), "row broadcasts"), (("TMOV",), "Vec -> Vec moves")))
    print(f"  (not judged: Ascend950 has no profiling of these families; over the grid its prices are {a5} the "
          "old model)")
    pick = {k[1]: 100 * v for k, v in shares.items()}
    print(f"cost fidelity: A2/A3 in sample {pick['in sample: the measured lines at their columns']:.1f} %, "
          f"left-out columns {pick['leave one column out (unpacked columns)']:.1f} %, left-out families "
          f"{shares[('A2/A3', 'leave one (op, dtype) out: from the op' + chr(39) + 's other dtype')] * 100:.1f} % "
          f"(other dtype) / {shares[('A2/A3', 'leave one (op, dtype) out: from the nearest family')] * 100:.1f} % "
          f"(nearest family), by A5's ratio {pick[RATIO_CHECK]:.1f} % "
          f"(unscaled {pick['the same families unscaled']:.1f} %); "
          f"A5 in sample {pick['in sample: the VF formulas per path']:.1f} %, left-out "
          f"families {shares[('A5', 'leave one (op, dtype) out: from the op' + chr(39) + 's other dtype')] * 100:.1f}"
          f" % / {shares[('A5', 'leave one (op, dtype) out: from the nearest family')] * 100:.1f} %, 2-D from 1-D "
          f"{pick['leave one path out: 2-D path from the 1-D formula']:.1f} %, from A2/A3 families "
          f"{pick['from A2/A3 families, 2-D path (what reductions take)']:.1f} % (2-D) / "
          f"{pick['from A2/A3 families, both paths']:.1f} % (both); facts {held} of {len(facts_table)} hold")
    return 0 if held == len(facts_table) else 1


if __name__ == "__main__":
    sys.exit(main())
