"""Mutation check of the op reference table (issue 17, "done when"): corrupt one op's registry formula at a time and
count the ops for which the reference cases fail.

Not a pytest module (its name does not match ``test_*.py``); run it by hand from the repository root:

    .venv/bin/python tests/reference/mutation_check.py            # every op of all_ops()
    .venv/bin/python tests/reference/mutation_check.py tile.add   # some ops only
    .venv/bin/python tests/reference/mutation_check.py --last     # corrupt only the last element of each result
    .venv/bin/python tests/reference/mutation_check.py --sim      # count only what the simulator check catches

Each mutant replaces one op's ``golden`` in the registry (which the golden interpreter and the simulator share) by
the original scaled by 1.05 (float results) or plus 1 (integer results; bool results negated). The relevant subset
of the table runs against it: every case whose kernel calls the op, before or after the pass pipeline (a tensor op's
kernel lowers to its tile op). The mutant is caught when some case reports a mismatch or an error. Ops without a
registry formula (``golden`` is None: block indices, custom kernels) have no mutant; a mutant that cannot change
any value (1.05 * 0: ``tile.create`` / ``tensor.create`` / ``tensor.create_l1``, whose golden is all zeros) is reported
as equivalent.
Exit status 1 if any other mutant survives.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from op_reference import TABLE  # noqa: E402
from run_reference import golden_problems, ops_in, parse, register_kernels, simulator_problems  # noqa: E402

import tilefold.sim.machine as machine  # noqa: E402
from tilefold.compiler import compile  # noqa: E402
from tilefold.ops import all_ops  # noqa: E402
from tilefold.ops import registry as reg  # noqa: E402

LAST_ONLY = False  # --last: only the last element of an array result is corrupted
SIM_ONLY = False  # --sim: only the simulator's comparison with the reference counts (not golden's)


def corrupt(value):
    """The mutated result: x * 1.05 for floats, x + 1 for integers, not x for bools."""
    if isinstance(value, tuple):
        return tuple(corrupt(v) for v in value)
    if LAST_ONLY and isinstance(value, np.ndarray) and value.size > 1:
        flat = np.array(value, copy=True).reshape(-1)
        wide = flat.astype(np.float64 if flat.dtype.kind not in "iub" else flat.dtype)
        wide[-1:] = corrupt(wide[-1:])
        return wide.reshape(value.shape)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.05
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return ~arr
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64) + 1
    return arr.astype(np.float64) * 1.05


def mutant_of(golden):
    return lambda a, k: corrupt(golden(a, k))


def _all_cases():
    """(case, ops its kernel calls before and after the pipeline) for every case of the table."""
    out = []
    for e in TABLE.values():
        for dt in e.dtypes:
            for case in e.cases(dt):
                program = parse(case)
                register_kernels(case)
                names = ops_in(program)
                ir = compile(program, target=case.target).ir
                names |= ops_in(ir) if ir is not None else set()
                out.append((case, names))
    return out


def _fails(case) -> bool:
    try:
        program = parse(case)
        if SIM_ONLY:
            return bool(simulator_problems(case, program))
        return bool(golden_problems(case, program) or simulator_problems(case, program))
    except Exception:  # a mutant that makes golden or the simulator raise is caught too
        return True


def main(selected: list[str]) -> int:
    t0 = time.time()
    cases = _all_cases()
    ops = all_ops()
    names = [n for n in sorted(ops) if not selected or n in selected]
    caught, survived, no_formula, equivalent = [], [], [], []
    for name in names:
        op = ops[name]
        if op.golden is None:
            no_formula.append(name)
            continue
        relevant = [c for c, used in cases if name in used]
        original = reg._REGISTRY[name]
        reg._REGISTRY[name] = dataclasses.replace(original, golden=mutant_of(original.golden))
        machine._OPS.clear()
        try:
            hit = next((c.label for c in relevant if _fails(c)), None)
        finally:
            reg._REGISTRY[name] = original
            machine._OPS.clear()
        if hit is not None:
            caught.append(name)
            print(f"caught    {name:28s} by {hit} ({len(relevant)} relevant cases)")
        elif name in ("tile.create", "tensor.create") or original.extra.get("uninitialized"):
            equivalent.append(name)
            print(f"equivalent {name:27s} (its golden is all zeros: 1.05 * 0 == 0; contents are undefined)")
        else:
            survived.append(name)
            print(f"SURVIVED  {name:28s} ({len(relevant)} relevant cases)")
    print(f"\n{len(names)} ops: {len(caught)} mutants caught, {len(survived)} survived, {len(equivalent)} equivalent, "
          f"{len(no_formula)} without a registry formula ({', '.join(no_formula)}); {time.time() - t0:.0f} s")
    if survived:
        print("survivors:", ", ".join(survived))
    return 1 if survived else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--last" in args:
        args.remove("--last")
        LAST_ONLY = True
    if "--sim" in args:
        args.remove("--sim")
        SIM_ONLY = True
    sys.exit(main(args))
