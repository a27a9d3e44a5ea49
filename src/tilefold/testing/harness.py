"""End-to-end harness: golden on the source program, simulator on the compiled one, dtype-aware compare.

``run_and_compare(program, inputs, *, target="Ascend910B", skip_passes=(), codegen="strict", options={},
block_dim=1) -> RunReport``. ``inputs`` maps entry parameter names to arrays / scalars, or is ``"random"``
(``precision.random_inputs``). A device trap does not raise: it is reported in ``RunReport.fault`` (and
the run does not match). Compile errors (a pass rejecting the program, strict codegen refusing a hazard)
do raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilefold.backend import CompiledProgram, compile
from tilefold.ir.stmt import Program
from tilefold.sim import DeviceFault, simulate
from tilefold.testing.precision import compare, random_inputs


@dataclass
class RunReport:
    matches: bool
    fault: DeviceFault | None
    max_abs_error: float
    first_mismatch: tuple[str, tuple[int, ...]] | None  # (output name, element index) or None
    outputs: dict[str, np.ndarray]
    golden_outputs: dict[str, np.ndarray]
    cycles: float
    unit_cycles: dict[str, float]
    instructions: int = 0
    bytes_moved: int = 0
    compiled: CompiledProgram | None = field(default=None, repr=False)
    details: dict[str, str] = field(default_factory=dict)

    @property
    def result(self) -> str:
        """"correct", "wrong" or "trap"."""
        if self.fault is not None:
            return "trap"
        return "correct" if self.matches else "wrong"

    def summary(self) -> str:
        head = f"{self.result}: max abs error {self.max_abs_error:.3g}, {self.cycles:.0f} cycles"
        if self.fault is not None:
            return f"{head}\n{self.fault}"
        if self.first_mismatch is not None:
            head += f", first mismatch {self.first_mismatch[0]}{list(self.first_mismatch[1])}"
        return head


def _copy_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


def run_and_compare(program: Program, inputs: Mapping[str, Any] | str, *, target: str = "Ascend910B",
                    skip_passes: tuple[str, ...] = (), codegen: str = "strict",
                    options: Mapping[str, Any] | None = None, block_dim: int = 1, seed: int = 0,
                    entry: str | None = None) -> RunReport:
    """Compile ``program`` and run it on the simulator; run the golden interpreter on the source program;
    compare every Out / InOut tensor with the tolerance of its dtype."""
    from tilefold.golden import run_program

    if isinstance(inputs, str):
        if inputs != "random":
            raise ValueError(f"inputs must be a mapping or 'random', got {inputs!r}")
        inputs = random_inputs(program, entry, seed)
    golden = run_program(program, _copy_inputs(inputs), entry=entry, block_dim=block_dim)
    compiled = compile(program, target=target, skip_passes=tuple(skip_passes), options=dict(options or {}),
                       codegen=codegen, entry=entry)
    try:
        sim = simulate(compiled.pto, _copy_inputs(inputs), compiled.target, block_dim=block_dim)
    except DeviceFault as fault:
        return RunReport(False, fault, float("inf"), None, {}, golden, 0.0, {}, compiled=compiled)
    matches = True
    max_err = 0.0
    first = None
    details = {}
    for name, expected in golden.items():
        if name not in sim.outputs:
            continue  # values returned by the entry that are not Out parameters
        cmp = compare(sim.outputs[name], expected)
        details[name] = cmp.describe()
        max_err = max(max_err, cmp.max_abs_error)
        if not cmp.matches:
            if matches:
                first = (name, cmp.first_mismatch or ())
            matches = False
    return RunReport(matches, None, max_err, first, dict(sim.outputs), golden, sim.cycles, dict(sim.unit_cycles),
                     sim.instructions, sim.bytes_moved, compiled, details)


__all__ = ["RunReport", "run_and_compare"]
