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

from tilefold.analysis.precision_path import join, precision_paths
from tilefold.budget import DEFAULT_MAX_STEPS, StepBudgetExceeded
from tilefold.compiler import CompiledProgram, compile
from tilefold.errors import TilefoldError
from tilefold.ir.stmt import Program
from tilefold.ir.types import ScalarType
from tilefold.sim import DeviceFault, simulate
from tilefold.testing.precision import compare, random_inputs


@dataclass
class RunReport:
    matches: bool
    fault: DeviceFault | None
    max_abs_error: float
    first_mismatch: tuple[int, ...] | None  # element index of the first mismatch (in mismatch_output)
    outputs: dict[str, np.ndarray]
    golden_outputs: dict[str, np.ndarray]
    cycles: float
    unit_cycles: dict[str, float]
    instructions: int = 0
    bytes_moved: int = 0
    compiled: CompiledProgram | None = field(default=None, repr=False)
    details: dict[str, str] = field(default_factory=dict)  # per output: the comparison; "golden": its error
    mismatch_output: str | None = None  # name of the output holding first_mismatch (or missing from the device)
    sim: Any = field(default=None, repr=False)  # the SimResult (timelines, pipe utilisation) when the run completed

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
            head += f", first mismatch {self.mismatch_output}{list(self.first_mismatch)}"
        elif not self.matches and self.mismatch_output is not None:
            head += f", {self.details.get(self.mismatch_output, self.mismatch_output)}"
        return head


def _copy_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


def reference_program(program: Program) -> Program:
    """The form of ``program`` golden runs and the comparison reads: a ``@pl.jit`` program's ``pl.at`` scopes
    outlined into InCore functions (OutlineIncoreScopes, the pipeline's first pass on it: golden runs an outlined
    ``pl.spmd`` scope as the launch of blocks it becomes); any other program as it is."""
    from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes
    from tilefold.passes.tensor_lowering.outline_incore_scopes import has_scopes, outline_incore_scopes

    program = outline_hierarchy_scopes()(program)
    return outline_incore_scopes()(program) if has_scopes(program) else program


def run_and_compare(program: Program, inputs: Mapping[str, Any] | str, *, target: str = "Ascend910B",
                    skip_passes: tuple[str, ...] = (), codegen: str = "strict",
                    options: Mapping[str, Any] | None = None, block_dim: int = 1, seed: int = 0,
                    entry: str | None = None, max_steps: int | None = None, dump_args: int = 0) -> RunReport:
    """Compile ``program`` and run it on the simulator; run the golden interpreter on the source program;
    compare every Out / InOut tensor element-wise, with the tolerance of its precision path
    (``tilefold.analysis.precision_path``: the narrowest dtype on the value's way and the reductions after it).
    A ``@pl.jit`` program (as parsed) is compared in its outlined form (``reference_program``). ``dump_args``
    (1 / 2, PyPTO's ``enable_dump_args``): the simulator records tensor dumps in ``report.sim.dumps``."""
    from tilefold.golden import run_program, select_entry

    program = reference_program(program)
    if isinstance(inputs, str):
        if inputs != "random":
            raise ValueError(f"inputs must be a mapping or 'random', got {inputs!r}")
        inputs = random_inputs(program, entry, seed)
    # A user error the golden interpreter reports (e.g. a store whose runtime offset leaves the tensor) does
    # not stop the device run: the device traps on it, and the trap is the result; the golden error goes
    # to ``details["golden"]``. If the device does not trap, the golden error is raised.
    # Compile first: a program the compiler refuses (e.g. a loop too long to unroll) is refused in a fraction of a
    # second, where the golden run could spend its whole step budget first.
    compiled = compile(program, target=target, skip_passes=tuple(skip_passes), options=dict(options or {}),
                       codegen=codegen, entry=entry)
    golden_error: TilefoldError | None = None
    golden: dict[str, np.ndarray] = {}
    try:
        # max_steps (None: the default) is the step budget (tilefold.budget); running out is raised at once
        golden = run_program(program, _copy_inputs(inputs), entry=entry, block_dim=block_dim,
                             max_steps=DEFAULT_MAX_STEPS if max_steps is None else max_steps, target=target)
    except StepBudgetExceeded:
        raise  # the device would spin on the same loop
    except TilefoldError as exc:
        golden_error = exc
    sim_inputs = _copy_inputs(inputs)
    try:  # hidden pl.dynamic extents the caller left out: read from the arrays, as the golden run does
        from tilefold.golden.interpreter import extent_from_arrays, select_entry

        entry_fn = select_entry(program, entry)
        for p in entry_fn.params:
            if p.name not in sim_inputs and isinstance(p.type, ScalarType):
                value = extent_from_arrays(entry_fn, p, inputs)
                if value is not None:
                    sim_inputs[p.name] = value
    except TilefoldError as exc:
        golden_error = golden_error or exc
    try:
        sim = simulate(compiled.pto, sim_inputs, compiled.target, block_dim=block_dim, max_steps=max_steps,
                       dump_level=dump_args)
    except DeviceFault as fault:
        details = {"golden": f"golden run failed: {golden_error}"} if golden_error is not None else {}
        return RunReport(False, fault, float("inf"), None, {}, golden, 0.0, {}, compiled=compiled,
                         details=details)
    except Exception:
        if golden_error is not None:
            raise golden_error from None  # the golden run already found (and located) the user error
        raise
    if golden_error is not None:
        raise golden_error
    matches = True
    max_err = 0.0
    first = None
    first_name = None
    details = {}
    # tolerances from the program the user wrote (never from the lowering under test)
    paths = precision_paths(program, select_entry(program, entry))
    fallback = join(paths.values())
    for name, expected in golden.items():
        if name not in sim.outputs:
            details[name] = (f"missing: the golden run produced output {name!r} but the simulator did not "
                             f"(simulator outputs: {sorted(sim.outputs) or 'none'})")
            if matches:
                first_name = name
            matches = False
            max_err = float("inf")
            continue
        cmp = compare(sim.outputs[name], expected, path=paths.get(name, fallback))
        details[name] = cmp.describe()
        max_err = max(max_err, cmp.max_abs_error)
        if not cmp.matches:
            if matches:
                first, first_name = cmp.first_mismatch or (), name
            matches = False
    return RunReport(matches, None, max_err, first, dict(sim.outputs), golden, sim.cycles, dict(sim.unit_cycles),
                     sim.instructions, sim.bytes_moved, compiled, details, first_name, sim)





# ------------------------------------------------------------------------------------------------
# the evidence kernels (examples/evidence), for `tilefold demo`
# ------------------------------------------------------------------------------------------------

#: file name -> (target, fixed scalar inputs[, pipeline options])
EVIDENCE_KERNELS: dict[str, tuple[Any, ...]] = {
    "issue_1640_dynamic_row.py": ("Ascend910B", {"row_off": 5}),
    # the seed's whole [16, 128] tile in one Vec (no sub-block split), so its rows 1-8 are destroyed
    "issue_2010_column_window.py": ("Ascend910B", {}, {"enable_auto_bind_sub_block": False}),
    "issue_1789_unaligned_column.py": ("Ascend910B", {}),
    "issue_1789_aligned_column.py": ("Ascend910B", {}),
    "mat_slice_l1_to_l1.py": ("Ascend910C", {}),
    "acc_row_window.py": ("Ascend910B", {}),
    "acc_column_window.py": ("Ascend910B", {}),
    # the page slices reach AutoTileMatmulL0's extracts: without the pass, an L1 -> L1 trap on 910C
    "batch_pages_1.py": ("Ascend910C", {}),
    "batch_pages_4.py": ("Ascend910C", {}),
}


def evidence_config(name: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(target, fixed scalar inputs, pipeline options) of evidence kernel ``name`` (a file name)."""
    entry = EVIDENCE_KERNELS[name]
    return entry[0], dict(entry[1]), dict(entry[2]) if len(entry) > 2 else {}


def evidence_table(directory: str | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Compile, simulate and verify every evidence kernel with and without CanonicalizeTileSlice.

    Returns rows ``{"kernel", "target", "pass": "with" | "without", "result": "correct" | "wrong" |
    "trap" | "rejected", "cycles", "detail"}``. "without" compiles with ``skip_passes=
    ("CanonicalizeTileSlice",)`` and ``codegen="faithful"``; "rejected" means the pass (or codegen)
    refused the program with an error."""
    from pathlib import Path

    import tilefold.language as pl
    from tilefold.errors import TilefoldError

    root = Path(directory) if directory else Path(__file__).resolve().parents[3] / "examples" / "evidence"
    rows: list[dict[str, Any]] = []
    for name in EVIDENCE_KERNELS:
        target, scalars, options = evidence_config(name)
        path = root / name
        if not path.exists():
            continue
        program = pl.parse_file(str(path))
        inputs = random_inputs(program, seed=seed, scalars=scalars)
        for label, skip, mode in (("without", ("CanonicalizeTileSlice",), "faithful"), ("with", (), "strict")):
            row: dict[str, Any] = {"kernel": name[:-3], "target": target, "pass": label}
            try:
                rep = run_and_compare(program, inputs, target=target, skip_passes=skip, codegen=mode,
                                      options=options)
                row.update(result=rep.result, cycles=rep.cycles,
                           detail=str(rep.fault).splitlines()[0] if rep.fault else
                           (f"first mismatch {rep.mismatch_output}{list(rep.first_mismatch)}"
                            if rep.first_mismatch is not None else ""))
            except (TilefoldError, ValueError) as exc:
                lines = str(exc).splitlines()
                msg = next((ln for ln in lines if ln.startswith("error:")), lines[0] if lines else "")
                row.update(result="rejected", cycles=0.0, detail=f"{type(exc).__name__}: {msg[:100]}")
            rows.append(row)
    return rows


def format_evidence_table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'kernel':30s} {'target':11s} {'pass':8s} {'result':9s} {'cycles':>8s}  detail"]
    for r in rows:
        lines.append(f"{r['kernel']:30s} {r['target']:11s} {r['pass']:8s} {r['result']:9s} "
                     f"{r['cycles']:8.0f}  {r['detail']}")
    return "\n".join(lines)
__all__ = ["EVIDENCE_KERNELS", "RunReport", "evidence_config", "evidence_table", "format_evidence_table",
           "run_and_compare"]
