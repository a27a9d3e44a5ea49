from __future__ import annotations

import pytest
from sb_kernels import register_kernels
from sb_util import CYCLE_RATIOS


@pytest.fixture(autouse=True, scope="session")
def _sub_block_kernels():
    register_kernels()
    yield


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Print the split / baseline simulated cycle ratio of every E2E Before program (no timing assertion:
    the numbers are recorded in the test output and in docs/passes/tile_and_bind_sub_block.md)."""
    if not CYCLE_RATIOS:
        return
    tr = terminalreporter
    tr.section("TileAndBindSubBlock: simulated cycles, pass off (baseline) vs on")
    tr.write_line(f"{'program':44} {'kind':9} {'baseline':>9} {'pass on':>9} {'ratio':>7}")
    for name, kind, base, tiled in sorted(CYCLE_RATIOS):
        tr.write_line(f"{name:44} {kind:9} {base:9.0f} {tiled:9.0f} {tiled / base:7.3f}")
