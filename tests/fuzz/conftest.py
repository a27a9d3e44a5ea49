from __future__ import annotations

from .fuzzcheck import TALLIES


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The refusal rate of every fuzzer that ran (a record; the tests bound what they tolerate)."""
    if not TALLIES:
        return
    tr = terminalreporter
    tr.section("fuzzers: compiled configurations and refusals")
    for fuzzer, t in sorted(TALLIES.items()):
        tr.write_line(t.line(fuzzer))
