"""Suite-wide policy: a test may skip only because an optional extra is not installed.

A skip is how a broken feature hides: a guard such as ``except ImportError: pytest.skip(...)`` turns every
test of a module into a skip the moment that module stops importing, and the suite stays green. So any
skipped outcome (``pytest.skip``, ``importorskip``, a ``skipif`` mark, an ``xfail``), at collection or at run
time, is turned into a failure unless its reason is a missing optional extra of ``pyproject.toml`` listed in
``OPTIONAL_EXTRAS``. Project modules are never optional.
"""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]  # tests/test_skip_policy.py runs this hook in an inner pytest session

#: the optional extras (``pyproject.toml`` ``[project.optional-dependencies]``) whose absence may skip a test
OPTIONAL_EXTRAS = ("torch", "matplotlib")

# the reason ``pytest.importorskip(name)`` gives when ``name`` itself is not installed
_MISSING_EXTRA = re.compile(r"could not import '(?P<module>[\w.]+)': No module named '(?P<missing>[\w.]+)'")


def allowed_skip_reason(reason: str) -> bool:
    """Is ``reason`` an ``importorskip`` of an optional extra that is not installed (and nothing else)?"""
    m = _MISSING_EXTRA.fullmatch(reason.strip())
    if m is None:
        return False
    top = m.group("module").split(".")[0]
    return top in OPTIONAL_EXTRAS and m.group("missing").split(".")[0] == top


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    if hasattr(report, "wasxfail"):
        return f"xfail: {report.wasxfail}"
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: reason")
        text = str(longrepr[2])
        return text[len("Skipped: "):] if text.startswith("Skipped: ") else text
    return str(longrepr)


def _fail_disallowed_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not report.skipped:
        return
    reason = _reason(report)
    if allowed_skip_reason(reason):
        return
    location = report.longrepr[:2] if isinstance(report.longrepr, tuple) else ()
    where = f" ({location[0]}:{location[1]})" if location else ""
    report.outcome = "failed"
    if hasattr(report, "wasxfail"):
        del report.wasxfail
    report.longrepr = (f"skipped outcome not allowed{where}: {reason}\n"
                       f"only a missing optional extra ({', '.join(OPTIONAL_EXTRAS)}) may skip a test; a missing "
                       "or broken project module must fail (tests/conftest.py)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_disallowed_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_disallowed_skip(outcome.get_result())
