"""Measurement statistics, following the seed's performance method (section 4.4): warm up 5 times,
measure 30 runs alternating baseline / variant, trim 10 % of the samples at each end, take the median,
and report std, min and max.

Two metrics: ``"time"`` measures wall-clock seconds of each call (``time.perf_counter``);
``"value"`` uses the number each call returns — for the deterministic simulator, its cycle count.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

TRIM_FRACTION = 0.10


@dataclass(frozen=True)
class Stats:
    """Summary of one series. ``median`` is over all samples; ``trimmed_median`` after dropping
    ``TRIM_FRACTION`` of the sorted samples at each end; ``std`` / ``min`` / ``max`` describe the
    trimmed samples; ``samples`` are the raw measurements in run order."""

    median: float
    trimmed_median: float
    std: float
    min: float
    max: float
    samples: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.samples)


def trimmed(samples: Sequence[float], fraction: float = TRIM_FRACTION) -> list[float]:
    """The sorted samples without ``floor(n * fraction)`` values at each end."""
    ordered = sorted(samples)
    k = int(math.floor(len(ordered) * fraction))
    return ordered[k:len(ordered) - k] if len(ordered) > 2 * k else ordered


def summarize(samples: Iterable[float], fraction: float = TRIM_FRACTION) -> Stats:
    values = tuple(float(s) for s in samples)
    if not values:
        raise ValueError("no samples to summarize")
    kept = trimmed(values, fraction)
    std = statistics.pstdev(kept) if len(kept) > 1 else 0.0
    return Stats(statistics.median(values), statistics.median(kept), std, min(kept), max(kept), values)


def _check_metric(metric: str) -> None:
    if metric not in ("time", "value"):
        raise ValueError(f"metric must be 'time' or 'value', got {metric!r}")


def _sample(fn: Callable[[], Any], metric: str) -> float:
    if metric == "value":
        value = fn()
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError(f"metric='value' needs a function returning a number, got {value!r}") from None
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(fn: Callable[[], Any], *, warmup: int = 5, repeats: int = 30, metric: str = "time") -> Stats:
    """Call ``fn`` ``warmup`` times unmeasured, then ``repeats`` times measured."""
    _check_metric(metric)
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    for _ in range(warmup):
        fn()
    return summarize(_sample(fn, metric) for _ in range(repeats))


def compare_alternating(baseline_fn: Callable[[], Any], variant_fn: Callable[[], Any], warmup: int = 5,
                        repeats: int = 30, *, metric: str = "time") -> tuple[Stats, Stats, float]:
    """Measure two functions with interleaved runs (baseline, variant, baseline, ...) so that drift in
    the machine affects both alike. Returns (baseline stats, variant stats, speedup), the speedup being
    baseline trimmed median / variant trimmed median (> 1: the variant is faster / cheaper)."""
    _check_metric(metric)
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    for _ in range(warmup):
        baseline_fn()
        variant_fn()
    base_samples, var_samples = [], []
    for _ in range(repeats):
        base_samples.append(_sample(baseline_fn, metric))
        var_samples.append(_sample(variant_fn, metric))
    base, var = summarize(base_samples), summarize(var_samples)
    speedup = base.trimmed_median / var.trimmed_median if var.trimmed_median else math.inf
    return base, var, speedup


def geomean(values: Iterable[float]) -> float:
    """Geometric mean of positive numbers."""
    vals = [float(v) for v in values]
    if not vals:
        raise ValueError("geomean of no values")
    if any(v <= 0 for v in vals):
        raise ValueError("geomean needs positive values")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def format_number(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if value == 0 or math.isinf(value) or math.isnan(value):
        return str(value)
    return f"{value:.{digits}g}"


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, digits: int = 4) -> str:
    """A plain-text table: numeric columns right-aligned, text left-aligned."""
    raw = [list(r) for r in rows]
    body = [[format_number(c, digits) for c in row] for row in raw]
    ncols = len(headers)
    numeric = [bool(raw) and all(i < len(r) and isinstance(r[i], (int, float)) and not isinstance(r[i], bool)
                                 for r in raw) for i in range(ncols)]
    widths = [max([len(h)] + [len(r[i]) for r in body if i < len(r)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str], is_header: bool = False) -> str:
        out = []
        for i, cell in enumerate(cells[:ncols]):
            out.append(cell.rjust(widths[i]) if numeric[i] and not is_header else cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(list(headers), True), sep] + [line(r) for r in body])


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None,
                digits: int = 4) -> None:
    if title:
        print(title)
    print(format_table(headers, rows, digits=digits))


def stats_row(name: str, stats: Stats, scale: float = 1.0) -> list[Any]:
    """[name, trimmed median, std, min, max] with values multiplied by ``scale`` (e.g. 1e3 for ms)."""
    return [name, stats.trimmed_median * scale, stats.std * scale, stats.min * scale, stats.max * scale]
