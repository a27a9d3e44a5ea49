"""``pl.pipeline(stage=N)``: never slower than ``stage=N-1``, and the tail is double-buffered.

A load -> six vector ops -> store loop over ``trips`` tiles (the overlap benchmark's kernel). Before the
fix the last ``trips % N`` iterations ran in a serial tail loop on one buffer set: stage 3 on two
iterations took 4,489 cycles against 3,065 at stage 2."""

import sys
from pathlib import Path

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.testing.precision import compare

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from overlap import source  # noqa: E402


def _body_cycles(trips: int, stage: int, target: str = "Ascend910B") -> float:
    a = np.random.default_rng(trips).uniform(-1, 1, (trips * 64, 256)).astype(np.float32)
    prog = pl.parse(source(trips, 6, stage), filename=f"stages_{trips}_{stage}.py")
    res = simulate(compile_program(prog, target=target).pto, {"a": a}, target)
    assert compare(res.outputs["out"], run_program(prog, {"a": a})["out"]).matches
    return res.body_cycles


@pytest.mark.parametrize("trips", [1, 2, 3, 5])
def test_deeper_stage_is_never_slower(trips):
    times = [_body_cycles(trips, stage) for stage in (1, 2, 3, 4)]
    assert all(b <= a for a, b in zip(times, times[1:], strict=False)), times
    if trips >= 2:
        assert times[1] < 0.8 * times[0]  # double buffering overlaps


def test_tail_is_double_buffered():
    """Two iterations at stage 3: both overlap like stage 2 (no single-buffered tail)."""
    assert _body_cycles(2, 3) == _body_cycles(2, 2)
    # three iterations at stage 2: the odd last iteration still overlaps the one before it
    two, three = _body_cycles(2, 2), _body_cycles(3, 2)
    one = _body_cycles(1, 1)
    assert three - two < 0.6 * one
