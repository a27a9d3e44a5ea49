"""The function-length limit (tools/function_length.py): no function or method under src/tilefold spans more
than 100 lines, but the ones on the tool's explicit allow-list; the check measures def line to last line,
methods and nested functions included."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import function_length  # noqa: E402


def test_no_function_is_over_the_limit_and_the_allow_list_is_not_stale():
    report = function_length.check()
    assert [f.describe() for f in report.over] == []
    assert report.stale == []


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines (the def line, then ``lines - 1`` statements)."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 1))
    return f"{indent}def {name}():\n{body}"


def _scan(source: str) -> dict[str, int]:
    return {f.key: f.length for f in function_length.scan_source(source, "m", Path("m.py"))}


def test_a_function_of_101_lines_is_reported_and_one_of_100_is_not():
    assert _scan(_function("long", 101) + _function("fine", 100)) == {"m:long": 101}


def test_methods_and_nested_functions_are_measured_by_qualified_name():
    source = "class C:\n" + _function("method", 102, "    ") + "\n"
    source += "def outer():\n" + _function("inner", 101, "    ") + "    return inner\n"
    assert _scan(source) == {"m:C.method": 102, "m:outer": 103, "m:outer.inner": 101}


def test_allowed_functions_pass_and_an_allow_list_entry_not_over_the_limit_is_stale(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(_function("long", 120))
    assert [f.key for f in function_length.check(tmp_path, allowed=set()).over] == ["pkg.a:long"]
    allowed = function_length.check(tmp_path, allowed={"pkg.a:long"})
    assert allowed.ok and [f.key for f in allowed.allowed] == ["pkg.a:long"]
    stale = function_length.check(tmp_path, allowed={"pkg.a:long", "pkg.a:gone"})
    assert not stale.ok and stale.stale == ["pkg.a:gone"]
