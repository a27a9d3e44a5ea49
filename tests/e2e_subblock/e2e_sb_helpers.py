"""Shared steps of the E2E sub-block suite: run a kernel program with TileAndBindSubBlock on and off on a
target, against golden, and check the IR evidence of the split (on) or of the sub-block-0 guard (off)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import tilefold.language as pl
from tilefold.ir.stmt import IfStmt, Program
from tilefold.ir.visitor import IRVisitor
from tilefold.testing import RunReport, run_and_compare, sub_block_evidence

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "subblock"
TARGETS = ("Ascend910B", "Ascend950")
SPEEDUPS: dict[tuple[str, str], tuple[float, float]] = {}  # (case, target) -> (baseline, tiled) cycles


def load(name: str, **constants: int) -> Program:
    """Parse ``examples/subblock/<name>.py``, with module constants (``ROWS = 128``) replaced."""
    text = (EXAMPLES / f"{name}.py").read_text()
    for key, value in constants.items():
        text, n = re.subn(rf"^{key} = -?\d+$", f"{key} = {value}", text, flags=re.M)
        assert n == 1, f"{name}.py has no module constant {key}"
    return pl.parse(text, filename=str(EXAMPLES / f"{name}.py"))


class _Guards(IRVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        if stmt.attrs and dict(stmt.attrs).get("limit_sub_block_id0"):
            self.count += 1
        super().visit_IfStmt(stmt)


def guard_count(program: Program) -> int:
    """Sub-block-0 guards (``IfStmt`` tagged ``limit_sub_block_id0``) in ``program``."""
    v = _Guards()
    for fn in program.functions:
        v.visit_function(fn)
    return v.count


def run(program: Program, target: str, on: bool, inputs: Any = "random", seed: int = 0) -> RunReport:
    return run_and_compare(program, inputs, target=target, seed=seed,
                           options={"enable_auto_bind_sub_block": on})


def check_on_and_off(case: str, program: Program, target: str, axis: dict[str, int], inputs: Any = "random",
                     seed: int = 0) -> tuple[RunReport, RunReport]:
    """Pass on: matches golden, and the evidence shows the split along ``axis`` (function -> tile axis).
    Pass off: matches golden, nothing split, and the un-split stores are guarded to sub-block 0."""
    tiled = run(program, target, True, inputs, seed)
    assert tiled.result == "correct", tiled.summary()
    evidence = sub_block_evidence(tiled.compiled.ir)
    assert evidence.split, evidence.problems
    assert evidence.axis == axis
    base = run(program, target, False, inputs, seed)
    assert base.result == "correct", base.summary()
    off = sub_block_evidence(base.compiled.ir)
    assert not off.split and not off.axis
    assert guard_count(base.compiled.ir) >= 1  # the device runs both sub-blocks: un-split work on sub-block 0
    SPEEDUPS[(case, target)] = (base.cycles, tiled.cycles)
    return base, tiled
