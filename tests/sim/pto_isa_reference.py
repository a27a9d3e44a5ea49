"""PTO-ISA's measured cost formulas, recomputed straight from the CSV copies in ``tests/data`` (copied unchanged
from ``/work/shared/reference/pto-isa-costmodel/``), independently of ``tilefold.targets.costs``."""

import csv
import math
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


def a2a3_rows() -> list[dict]:
    with open(DATA / "a2a3_formula_params.csv", newline="") as f:
        return list(csv.DictReader(f))


def a5_rows() -> list[dict]:
    with open(DATA / "a5_formula_params.csv", newline="") as f:
        return list(csv.DictReader(f))


def a2a3_cycles(op: str, dtype: str, rows: int, cols: int) -> int:
    """``round(slope * rows * cols + bias)`` of the row for the exact cols (or the any-cols row)."""
    for r in a2a3_rows():
        if r["op"] == op and r["dtype"] in (dtype, "any") and r["cols"] in (str(cols), "*"):
            return round(float(r["slope"]) * rows * cols + float(r["bias"]))
    raise KeyError((op, dtype, cols))


def a5_formula(row: dict, loops_or_inner: int, outer: int = 1) -> float:
    p = [float(row[f"param{i}"]) for i in range(4)]
    if row["formula_kind"] == "linear":
        return p[0] * loops_or_inner + p[1]
    return (p[0] * loops_or_inner + p[1]) * outer + p[2]


def repeats(nbytes: int) -> int:
    return math.ceil(nbytes / 256)
