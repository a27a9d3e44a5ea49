"""Deriving structural vector-op costs from PTO-ISA's A2/A3 table: per-row and per-repeat terms, and their checks.

PTO-ISA's A2/A3 table gives, for each measured (op, dtype) and each profiled column count ``c``, a line
``slope_c * rows * c + bias_c``. Looked up by the exact ``c`` it says nothing about other column counts, so
tilefold prices every shape with one structural formula per (op, dtype) instead::

    cycles = startup + s * repeats_per_row + u * split_tail + v * narrow
             + rows * (per_row + per_repeat * repeats_per_row + t * split_tail)

``repeats_per_row`` counts a row's 32-byte blocks in 256-byte repeats with at least one repeat per row (the
vector unit walks a tile row by row; a narrow row still costs a whole repeat -- the profiled 256x16 FP32
``adds`` takes 266 cycles, about one repeat per row). A partial last repeat counts its share of blocks, not a
whole repeat: the table's binary ops cost 2.5 cycles per row at 1.25 repeats (TMUL FP32 at 80 columns, TSUB
FP16 at 160), not 4. Whole repeats (``ceil``) were tried: the same 92.5 % on left-out unpacked columns, but a
staircase 1.35x above those lines.

A masked pass is an instruction of its own: rows wider than a repeat that end in a partial one
(``split_tail``), or rows narrower than a repeat (``narrow``), pay one more instruction's issue once (``u``,
``v``: the table's biases jump from 25 to 42 cycles at exactly those columns). Where the instructions form a
chain, one per row (TCOLMAX), the split tail is paid per row (``t``, kept only where the fit finds it worth
``SPLIT_TAIL_SHARE`` of a one-repeat row).

The terms come from the table by least squares (``fit_family``):

- every line is sampled at ``FIT_ROWS`` rows; each sample is a fitted point, weighted by ``1 / cycles`` so the
  fit minimises relative error (the error tilefold is judged by);
- the terms are kept non-negative (a negative per-row term would make narrow rows cheaper than nothing): the
  best non-negative subset of the unknowns is solved exactly (7 unknowns, 127 subsets);
- columns narrower than one repeat whose per-row cost is well below the family's one-repeat cost
  (``PACKED_BELOW``) show packed rows, which contradicts the profiled narrow-row ``adds``; they are left out
  of the fit and reported (``FamilyFit.excluded``). The one-pass tile-scalar families (TADDS, TMULS, TMINS,
  TDIVS) have such columns; the binary and reduction families do not.

``leave_one_column_out`` refits each family without one column and predicts it: the error of the formula on a
column the fit did not see. ``benchmarks/cost_fidelity.py`` prints these figures; docs/backend.md quotes them.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

#: rows at which every measured line is sampled (its formula is linear in rows, so these weight the fit)
FIT_ROWS = (1, 4, 16, 64, 256)

#: a column narrower than one repeat is "packed" when its per-row cost is below this share of the one-repeat
#: per-row cost the family's wider columns give
PACKED_BELOW = 0.75

#: a family pays for a split tail (``FamilyFit.tail_per_row``) only when its fit finds the tail costing at least
#: this share of a one-repeat row: a second instruction per row in a chain of dependent ones (TCOLMAX), not the
#: fraction of a cycle the element-wise families show
SPLIT_TAIL_SHARE = 0.5

#: bytes of one vector repeat, and of one block
REPEAT_BYTES = 256
BLOCK_BYTES = 32


def repeats_per_row(cols: int, elem_bytes: int) -> float:
    """A row's 32-byte blocks counted in 256-byte repeats, at least one repeat per row."""
    return max(1.0, math.ceil(cols * elem_bytes / BLOCK_BYTES) / (REPEAT_BYTES // BLOCK_BYTES))


def narrow(cols: int, elem_bytes: int) -> float:
    """1 when a row is narrower than one 256-byte repeat (its one repeat is masked), else 0."""
    return 1.0 if cols * elem_bytes < REPEAT_BYTES else 0.0


def split_tail(cols: int, elem_bytes: int) -> float:
    """1 when a row is wider than one repeat and ends in a partial repeat (its tail is a second, masked
    instruction per row), else 0."""
    row = cols * elem_bytes
    return 1.0 if row > REPEAT_BYTES and row % REPEAT_BYTES else 0.0


@dataclass(frozen=True)
class FamilyFit:
    """``startup + rows * (per_row + per_repeat * repeats_per_row)`` for one (op, dtype), with its masked-pass and
    growing start-up terms (``cycles``), and how it was made."""

    startup: float
    per_repeat: float
    per_row: float
    startup_per_repeat: float = 0.0  # part of the start-up that grows with the row's repeats (row reductions)
    tail_per_row: float = 0.0  # a row ending in a partial repeat after whole ones pays a masked tail instruction
    startup_tail: float = 0.0  # once per instruction: rows wider than a repeat ending in a partial one (masked tail)
    startup_narrow: float = 0.0  # once per instruction: rows narrower than a repeat (a masked pass)
    columns: tuple[int, ...] = ()  # the measured columns fitted
    excluded: tuple[int, ...] = ()  # measured columns left out (packed narrow rows)
    points: int = 0  # fitted (rows, cols) points

    def row_cycles(self, cols: int, elem_bytes: int) -> float:
        return (self.per_row + self.per_repeat * repeats_per_row(cols, elem_bytes)
                + self.tail_per_row * split_tail(cols, elem_bytes))

    def cycles(self, rows: int, cols: int, elem_bytes: int) -> float:
        rpr = repeats_per_row(cols, elem_bytes)
        return (self.startup + self.startup_per_repeat * rpr + self.startup_tail * split_tail(cols, elem_bytes)
                + self.startup_narrow * narrow(cols, elem_bytes) + rows * self.row_cycles(cols, elem_bytes))

    def describe(self) -> str:
        text = f"{self.startup:.1f}"
        if self.startup_per_repeat:
            text += f" + {self.startup_per_repeat:.2f}*repeats/row"
        if self.startup_tail:
            text += f" + {self.startup_tail:.1f}*split tail"
        if self.startup_narrow:
            text += f" + {self.startup_narrow:.1f}*narrow"
        text += f" + r*({self.per_row:.2f} + {self.per_repeat:.3f}*repeats/row"
        text += f" + {self.tail_per_row:.2f}*split tail)" if self.tail_per_row else ")"
        return text + (f" [fit of {len(self.columns)} cols, {self.points} points]" if self.points else "")


def _solve_nonnegative(rows: list[list[float]], rhs: list[float]) -> list[float]:
    """Least squares ``rows @ x ~ rhs`` with ``x >= 0``: the best of the exactly solved non-negative subsets."""
    import numpy as np

    a, b = np.asarray(rows, float), np.asarray(rhs, float)
    best: tuple[float, list[float]] | None = None
    n = a.shape[1]
    for keep in itertools.product((0, 1), repeat=n):
        idx = [i for i in range(n) if keep[i]]
        if not idx:
            continue
        sol = np.linalg.lstsq(a[:, idx], b, rcond=None)[0]
        if (sol < 0).any():
            continue
        x = [0.0] * n
        for i, v in zip(idx, sol, strict=True):
            x[i] = float(v)
        err = float(((a @ np.asarray(x) - b) ** 2).sum())
        if best is None or err < best[0] - 1e-12:
            best = (err, x)
    assert best is not None  # the startup-only subset always has a non-negative solution (cycles > 0)
    return best[1]


def _least_squares(entries: list[tuple[int, float, float]], elem_bytes: int, split_tails: bool = False,
                   masked_starts: bool = True) -> tuple[FamilyFit, int]:
    """The non-negative fit of ``entries``; ``split_tails`` adds the per-row cost of a split tail,
    ``masked_starts`` the once-per-instruction cost of a masked tail or a narrow masked pass."""
    design, rhs = [], []
    for cols, slope, bias in entries:
        for r in FIT_ROWS:
            want = slope * r * cols + bias
            rpr = repeats_per_row(cols, elem_bytes)
            tail = split_tail(cols, elem_bytes) if split_tails else 0.0
            design.append([1 / want, r * rpr / want, r / want, rpr / want, r * tail / want,
                           split_tail(cols, elem_bytes) * masked_starts / want,
                           narrow(cols, elem_bytes) * masked_starts / want])
            rhs.append(1.0)
    return FamilyFit(*_solve_nonnegative(design, rhs)), len(rhs)


def packed_columns(entries: list[tuple[int, float, float]], elem_bytes: int) -> tuple[int, ...]:
    """The measured columns narrower than one repeat whose rows the table shows packed (see the module doc)."""
    wide = [e for e in entries if e[0] * elem_bytes >= REPEAT_BYTES]
    if len(wide) < 2:
        return ()
    fit, _ = _least_squares(wide, elem_bytes, masked_starts=False)  # the per-row cost alone decides packing
    one_repeat = fit.row_cycles(REPEAT_BYTES // elem_bytes, elem_bytes)
    return tuple(c for c, slope, _ in entries
                 if c * elem_bytes < REPEAT_BYTES and slope * c < PACKED_BELOW * one_repeat)


def fit_family(entries: list[tuple[int, float, float]], elem_bytes: int) -> FamilyFit:
    """The structural fit of one measured (op, dtype): ``entries`` are its ``(cols, slope, bias)`` lines."""
    excluded = packed_columns(entries, elem_bytes)
    used = [e for e in entries if e[0] not in excluded]
    fit, points = _least_squares(used, elem_bytes, split_tails=True)
    if fit.tail_per_row < SPLIT_TAIL_SHARE * fit.row_cycles(REPEAT_BYTES // elem_bytes, elem_bytes):
        fit, points = _least_squares(used, elem_bytes)  # no second instruction per row to see
    return replace(fit, columns=tuple(sorted(c for c, _, _ in used)), excluded=tuple(sorted(excluded)),
                   points=points)


@dataclass(frozen=True)
class HeldOut:
    """One prediction of a measured point the fit did not see."""

    op: str
    dtype: str
    rows: int
    cols: int
    measured: float
    predicted: float
    packed: bool  # the column shows packed rows (its measured figure contradicts the per-row rule)

    @property
    def ratio(self) -> float:
        return self.predicted / self.measured


def leave_one_column_out(op: str, dtype: str, entries: list[tuple[int, float, float]], elem_bytes: int,
                         rows=FIT_ROWS) -> list[HeldOut]:
    """Refit the family without each column in turn and predict that column at ``rows``."""
    packed = set(packed_columns(entries, elem_bytes))
    out = []
    for i, (cols, slope, bias) in enumerate(entries):
        others = entries[:i] + entries[i + 1:]
        if len(others) < 2:
            continue
        fit = fit_family(others, elem_bytes)
        for r in rows:
            out.append(HeldOut(op, dtype, r, cols, slope * r * cols + bias, fit.cycles(r, cols, elem_bytes),
                               cols in packed))
    return out


def within(cases: list[HeldOut], tolerance: float = 0.25) -> float:
    """Share of ``cases`` whose prediction is within ``tolerance`` of the measured figure."""
    return sum(abs(c.ratio - 1) <= tolerance for c in cases) / len(cases) if cases else 0.0


__all__ = ["FIT_ROWS", "FamilyFit", "HeldOut", "PACKED_BELOW", "fit_family", "leave_one_column_out",
           "packed_columns", "repeats_per_row", "within"]
