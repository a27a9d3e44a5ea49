"""Benchmarks exit non-zero when their stated goal is missed (``tilefold bench`` reports it as a failure)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"tilefold_benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _row(ratio: float, ok: bool = True) -> dict[str, object]:
    return {"workload": "w", "sim_ms": ratio, "numpy_ms": 1.0, "ratio": ratio, "cycles": 1.0, "instructions": 1,
            "ok": ok}


@pytest.mark.parametrize("rows, code, said", [
    ([_row(3.0), _row(4.9)], 0, "goal (within 5x of numpy) met"),
    ([_row(3.0), _row(5.5)], 1, "MISSED"),
    ([_row(3.0, ok=False)], 1, "WRONG result"),
])
def test_simulator_benchmark_fails_on_a_miss(monkeypatch, capsys, rows, code, said):
    simulator = _load("simulator")
    monkeypatch.setattr(simulator, "run", lambda repeats: rows)
    assert simulator.main(["--repeats", "1"]) == code
    assert said in capsys.readouterr().out


def test_jit_frontend_benchmark_checks_linearity(monkeypatch, capsys):
    jit_frontend = _load("jit_frontend")
    argv = ["--lines", "120", "--repeat", "1", "--programs", "straight", "--sizes", "60,120", "--size-repeat", "1"]
    assert jit_frontend.main(argv) == 0
    out = capsys.readouterr().out
    assert "x ast.parse (same run)" in out and "every step linear" in out and "previous" not in out
    monkeypatch.setattr(jit_frontend, "LINEAR_CALLS_GROWTH", 0.5)  # no step can meet this
    assert jit_frontend.main(argv) == 1
    assert "GOAL NOT MET" in capsys.readouterr().out


def test_cost_fidelity_benchmark_fails_when_a_fact_does_not_hold(monkeypatch, capsys):
    fidelity = _load("cost_fidelity")
    assert fidelity.main([]) == 0
    out = capsys.readouterr().out
    assert "leave one column out" in out and "cost fidelity:" in out and " NO" not in out
    monkeypatch.setattr(fidelity, "facts", lambda: [("a fact", "1", True), ("another", "2", False)])
    assert fidelity.main([]) == 1
    assert "facts 1 of 2 hold" in capsys.readouterr().out


def test_hardware_facts_benchmark_judges_each_fact_on_its_own_target(monkeypatch, capsys):
    facts = _load("hardware_facts")
    fact = facts.Fact
    # a number, a range (1.000 inside it, else against the nearer bound) and a lower bound
    assert fact("t", "n", "s", (266, 266), 300, True).ratio == pytest.approx(300 / 266)
    assert fact("t", "r", "s", (55, 75), 60, True).ratio == 1.0
    assert fact("t", "r", "s", (55, 75), 100, True).ratio == pytest.approx(100 / 75)
    assert fact("t", "b", "s", (1.0, float("inf")), 0.7, True).verdict == "OUTSIDE"
    assert fact("t", "b", "s", (1.0, float("inf")), 0.7, False).verdict == "outside*"
    assert facts.main([]) == 0
    out = capsys.readouterr().out
    assert "Ascend910B: measured fact" in out and "Ascend950: measured fact" in out and "hardware facts:" in out
    assert "0 judged rows outside" in out
    monkeypatch.setattr(facts, "facts", lambda target: [fact(target, "a fact", "s", (10, 10), 20, True),
                                                          fact(target, "not here", "s", (10, 10), 20, False, "why")])
    assert facts.main([]) == 1
    out = capsys.readouterr().out
    assert "OUTSIDE +-25 %: Ascend910B: a fact" in out and "not judged: Ascend950: not here (why)" in out


def test_bounds_benchmark_fails_when_the_model_beats_its_bound(monkeypatch, capsys):
    """A kernel faster than its own roofline is a modelling error: bounds.py names it and exits 1."""
    bounds = _load("bounds")
    argv = ["--blocks", "1", "--tiles", "8", "--k-steps", "8", "--n-tiles", "8"]
    bounds.main(argv)
    out = capsys.readouterr().out
    assert "matmul-l1" in out and "critical pipe CUBE" in out and "faster than the bound" not in out
    real = bounds.matmul_l1_bound
    monkeypatch.setattr(bounds, "matmul_l1_bound", lambda target, n: (3 * real(target, n)[0], "CUBE"))
    assert bounds.main(argv) == 1
    assert "FAIL: faster than the bound (a modelling error): matmul-l1 stage 2" in capsys.readouterr().out


def test_overlap_benchmark_fails_when_a_deeper_stage_is_slower(monkeypatch, capsys):
    """stage=3 slower than stage=2 is the defect issue 18 names: overlap.py exits 1 on it."""
    overlap = _load("overlap")
    assert overlap.main(["--tiles", "4"]) == 0
    assert "GOAL NOT MET" not in capsys.readouterr().out
    real = overlap.source
    monkeypatch.setattr(overlap, "source", lambda tiles, ops, stage: real(tiles, ops, 1 if stage == 3 else stage))
    assert overlap.main(["--tiles", "4"]) == 1
    assert "stage 3 is slower than stage 2" in capsys.readouterr().out
