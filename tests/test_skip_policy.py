"""The suite's skip policy (tests/conftest.py), run in an inner pytest session: a skip fails unless an
optional extra is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

CONFTEST_PATH = Path(__file__).parent / "conftest.py"
CONFTEST = CONFTEST_PATH.read_text(encoding="utf-8")
# loaded by path: several conftest.py files exist, and ``import conftest`` would get whichever came last
_spec = importlib.util.spec_from_file_location("tilefold_tests_skip_policy", CONFTEST_PATH)
_policy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_policy)
allowed_skip_reason = _policy.allowed_skip_reason


@pytest.mark.parametrize("reason, allowed", [
    ("could not import 'torch': No module named 'torch'", True),
    ("could not import 'matplotlib.pyplot': No module named 'matplotlib'", True),
    # a project module, or an extra that fails on a dependency of its own, is never a reason to skip
    ("could not import 'tilefold.language': No module named 'tilefold.language'", False),
    ("could not import 'torch': No module named 'numpy'", False),
    ("could not import 'torchvision': No module named 'torchvision'", False),
    ("parser not available yet", False),
    ("torch", False),
])
def test_allow_list(reason, allowed):
    assert allowed_skip_reason(reason) is allowed


def test_disallowed_skips_fail_and_a_missing_extra_still_skips(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_inner='''
        import pytest

        def test_passes():
            assert True

        def test_missing_extra():
            pytest.skip("could not import 'torch': No module named 'torch'")

        def test_skip_in_body():
            pytest.skip("parser not available yet")

        def test_importorskip_of_a_missing_module():
            pytest.importorskip("tilefold_module_that_does_not_exist")

        @pytest.fixture
        def needs_backend():
            pytest.skip("backend not available yet")

        def test_skip_in_a_fixture(needs_backend):
            pass

        @pytest.mark.skipif(True, reason="not on this machine")
        def test_skipif_mark():
            pass

        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert False
    ''')
    pytester.makepyfile(test_module_level='''
        import pytest

        pytest.importorskip("tilefold_module_that_does_not_exist")

        def test_never_collected():
            pass
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, skipped=1, failed=3, errors=3)  # setup-time skips fail as errors
    text = result.stdout.str()
    for reason in ("parser not available yet", "could not import 'tilefold_module_that_does_not_exist'",
                   "backend not available yet", "not on this machine", "xfail: known bug"):
        assert "skipped outcome not allowed" in text and reason in text, reason
    assert result.ret != 0
