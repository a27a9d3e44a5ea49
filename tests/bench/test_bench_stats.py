"""tilefold.bench: statistics on deterministic series, alternation order, table output, runner."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from tilefold.bench import (
    compare_alternating,
    discover,
    format_table,
    geomean,
    measure,
    run_benchmarks,
    summarize,
    trimmed,
)


def test_trim_ten_percent_each_end():
    samples = list(range(30, 0, -1))  # 30 samples, unsorted
    kept = trimmed(samples)
    assert kept == list(range(4, 28))  # 3 dropped at each end
    s = summarize(samples)
    assert s.median == statistics.median(samples)
    assert s.trimmed_median == statistics.median(range(4, 28))
    assert (s.min, s.max) == (4, 27)
    assert s.std == pytest.approx(statistics.pstdev(range(4, 28)))
    assert s.samples == tuple(float(v) for v in samples)


def test_outliers_do_not_move_trimmed_median():
    clean = summarize([10.0] * 27 + [11.0] * 3)
    dirty = summarize([10.0] * 27 + [1e6] * 3)
    assert clean.trimmed_median == dirty.trimmed_median == 10.0
    assert dirty.max == 10.0 and dirty.std == 0.0


def test_measure_value_metric_counts_warmup_and_repeats():
    counter = itertools.count()
    stats = measure(lambda: next(counter), warmup=5, repeats=30, metric="value")
    assert stats.n == 30
    assert stats.samples == tuple(float(v) for v in range(5, 35))


def test_measure_time_metric_is_positive():
    stats = measure(lambda: sum(range(100)), warmup=1, repeats=5)
    assert stats.n == 5 and stats.min >= 0 and stats.max >= stats.min


def test_compare_alternating_interleaves_and_reports_speedup():
    order: list[str] = []

    def base():
        order.append("b")
        return 200

    def variant():
        order.append("v")
        return 100

    b, v, speedup = compare_alternating(base, variant, warmup=2, repeats=4, metric="value")
    assert order == ["b", "v"] * 6
    assert b.trimmed_median == 200 and v.trimmed_median == 100
    assert speedup == 2.0


def test_bad_arguments():
    with pytest.raises(ValueError):
        measure(lambda: 1, metric="cycles")
    with pytest.raises(TypeError):
        measure(lambda: "x", warmup=0, repeats=1, metric="value")
    with pytest.raises(ValueError):
        geomean([1.0, 0.0])


def test_geomean():
    assert geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert geomean([1.995, 1.997]) == pytest.approx(math.sqrt(1.995 * 1.997))


def test_format_table_aligns_numbers():
    text = format_table(["shape", "speedup"], [["128x64", 1.995], ["64x256", 12.5]])
    lines = text.splitlines()
    assert lines[0].startswith("shape") and set(lines[1]) <= {"-", " "}
    assert lines[2].endswith("1.995") and lines[3].endswith(" 12.5")


def test_run_benchmarks_discovers_and_runs(tmp_path, capsys):
    (tmp_path / "alpha.py").write_text(
        "def main(argv=None):\n    print('alpha ran', argv)\n    return 0\n")
    (tmp_path / "beta.py").write_text("import sys\nprint('beta as', __name__)\n")
    (tmp_path / "broken.py").write_text("def main(argv=None):\n    raise RuntimeError('nope')\n")
    (tmp_path / "_helper.py").write_text("raise SystemExit(3)\n")
    assert list(discover(tmp_path)) == ["alpha", "beta", "broken"]

    assert run_benchmarks(["alpha", "beta"], root=tmp_path) == 0
    out = capsys.readouterr().out
    assert "alpha ran []" in out and "beta as __main__" in out and "summary" in out

    assert run_benchmarks(None, root=tmp_path) == 1
    assert "RuntimeError: nope" in capsys.readouterr().err

    assert run_benchmarks(["gamma"], root=tmp_path) == 2
    assert run_benchmarks(None, root=tmp_path / "missing") == 2


def test_run_benchmarks_accepts_file_names_and_runs_from_the_checkout(tmp_path, capsys):
    root = tmp_path / "benchmarks"
    root.mkdir()
    (root / "where.py").write_text("import os\n\ndef main(argv=None):\n    print('cwd', os.getcwd())\n    return 0\n")
    (root / "fails.py").write_text("def main(argv=None):\n    return 3\n")
    assert run_benchmarks(["where.py"], root=root) == 0
    assert f"cwd {tmp_path}" in capsys.readouterr().out
    assert run_benchmarks(["fails"], root=root) == 1
