from __future__ import annotations

import pytest
from e2e_sb_helpers import SPEEDUPS

from tilefold.custom.library import register_example_kernels, unregister_example_kernels


@pytest.fixture(autouse=True, scope="module")
def _library_kernels():
    register_example_kernels()
    yield
    unregister_example_kernels()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The simulated pass-off / pass-on cycles of every E2E case (no timing assertion: a record)."""
    if not SPEEDUPS:
        return
    tr = terminalreporter
    tr.section("E2E sub-block suite: simulated cycles, pass off (baseline) vs on")
    tr.write_line(f"{'case':34} {'target':11} {'baseline':>9} {'pass on':>9} {'speedup':>8}")
    for (case, target), (base, tiled) in sorted(SPEEDUPS.items()):
        tr.write_line(f"{case:34} {target:11} {base:9.0f} {tiled:9.0f} {base / tiled:7.3f}x")
