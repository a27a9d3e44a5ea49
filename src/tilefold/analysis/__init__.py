"""Reusable analyses over tilefold IR (never imports ``tilefold.passes``).

- ``scalar_facts``: constants, known multiples and loop ranges of index arithmetic.
- ``slice_windows``: canonical slices peeled to their base, the window each tile Var denotes along
  identity-preserving alias edges, use counts, and the L0C accumulator-window verdicts.
- ``liveness``: live intervals on a program-order numbering (memory planning).
- ``uninitialized_reads``: reads of ``tile.create`` results before anything wrote them (checked by
  ``tilefold.compiler.compile``).
"""

from tilefold.analysis.scalar_facts import LoopRange, ScalarFacts, add_index, runs_more_than_once
from tilefold.analysis.slice_windows import (
    ACC_BLOCK_COLS,
    AccFinding,
    AccVerdict,
    SliceInfo,
    SliceWindowAnalysis,
    Window,
    acc_window_verdict,
    analyze_slice_windows,
    is_canonical_slice,
    same_extent,
    static_extent,
)

__all__ = [
    "ACC_BLOCK_COLS", "AccFinding", "AccVerdict", "LoopRange", "ScalarFacts", "SliceInfo", "SliceWindowAnalysis",
    "Window", "acc_window_verdict", "add_index", "analyze_slice_windows", "is_canonical_slice",
    "runs_more_than_once", "same_extent", "static_extent",
]
