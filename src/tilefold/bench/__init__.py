"""The performance harness: statistics as the seed measures them, and the ``tilefold bench`` runner.

- ``measure(fn, warmup=5, repeats=30, metric="time" | "value") -> Stats``
- ``compare_alternating(baseline_fn, variant_fn, warmup=5, repeats=30, metric=...) -> (Stats, Stats, speedup)``
- ``geomean``, ``format_table`` / ``print_table``, ``stats_row``
- ``run_benchmarks(names=None, root="benchmarks") -> exit code`` (``discover`` lists the scripts);
  ``main(names)`` is what ``tilefold bench`` calls
"""

from tilefold.bench.runner import discover, find_root, main, run_benchmarks
from tilefold.bench.stats import (
    TRIM_FRACTION,
    Stats,
    compare_alternating,
    format_number,
    format_table,
    geomean,
    measure,
    print_table,
    stats_row,
    summarize,
    trimmed,
)

__all__ = [
    "TRIM_FRACTION", "Stats", "compare_alternating", "discover", "find_root", "format_number", "format_table",
    "geomean", "main", "measure", "print_table", "run_benchmarks", "stats_row", "summarize", "trimmed",
]
