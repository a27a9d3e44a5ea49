"""Every op of the registry against the independent reference table (``op_reference.py``, issue 17 item 2).

For each op and each dtype of its entry, every case kernel runs through

- the golden interpreter: the registry's golden semantics, on the program as written;
- the real pipeline and the simulator (which computes vector and cube values with the same registry function, so
  "device == golden" alone would never check a formula);

and both must equal the reference element by element (exact, or within the entry's ulps for transcendental ops).
A registered op without an entry fails ``test_every_registered_op_has_a_reference_entry``.
"""

from __future__ import annotations

import pytest
from op_reference import DT_NAME, TABLE
from run_reference import golden_problems, ops_in, parse, simulator_problems

from tilefold.ops import all_ops

CASES = [(op, dt) for op, e in TABLE.items() for dt in e.dtypes]


def test_every_registered_op_has_a_reference_entry():
    registered = set(all_ops())
    missing = sorted(registered - set(TABLE))
    assert not missing, (f"{len(missing)} registered op(s) have no independent reference: {missing}; add an entry "
                         "to tests/reference/op_reference.py (value semantics with edge values, or what is checked "
                         "for an op without values)")
    stale = sorted(set(TABLE) - registered)
    assert not stale, f"reference entries for ops the registry no longer has: {stale}"


def test_every_entry_states_what_it_checks_and_has_cases():
    for op, e in TABLE.items():
        assert e.checks and e.dtypes, op


@pytest.mark.parametrize(("op", "dtype"), CASES, ids=[f"{op}-{DT_NAME[dt]}" for op, dt in CASES])
def test_op_matches_reference(op, dtype):
    cases = TABLE[op].cases(dtype)
    assert cases, f"{op}: no case for {DT_NAME[dtype]}"
    problems = []
    for case in cases:
        program = parse(case)
        assert op in ops_in(program), f"{case.label}: the kernel does not call {op}\n{case.source}"
        found = golden_problems(case, program)
        for target in TABLE[op].targets:
            found += simulator_problems(case, program, target)
        if found:
            problems.append(f"{case.label} [{DT_NAME[dtype]}, {case.tol.describe()}]:\n    " + "\n    ".join(found[:8])
                            + f"\n{case.source}")
    assert not problems, "\n".join(problems)


def test_cast_refuses_an_unknown_rounding_mode():
    """An unknown mode used to fall back to rint silently; it is a located error naming the modes."""
    import tilefold.language as pl
    from tilefold.errors import TilefoldError

    src = ("import tilefold.language as pl\n\n\n@pl.jit\ndef k(a: pl.Tensor[[32, 32], pl.FP32], "
           "out: pl.Out[pl.Tensor[[32, 32], pl.INT32]]):\n    with pl.at(level=pl.Level.CORE_GROUP):\n"
           "        out[:] = pl.cast(a, target_type=pl.INT32, mode='nearest')\n    return out\n")
    with pytest.raises(TilefoldError) as info:
        pl.parse(src, "cast_mode.py")
    text = str(info.value)
    assert "mode='nearest' is not a cast rounding mode" in text and "cast_mode.py:7" in text, text
    assert "rint" in (info.value.hint or ""), info.value.hint


def test_the_reference_is_written_apart_from_the_registry():
    """The reference modules import numpy, ml_dtypes and each other only: no registry, golden or simulator code."""
    import ast
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for name in ("op_reference.py", "ref_values.py"):
        tree = ast.parse((here / name).read_text())
        for node in ast.walk(tree):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for mod in mods:
                assert mod.split(".")[0] in {"numpy", "ml_dtypes", "math", "os", "dataclasses", "collections",
                                             "__future__", "ref_values"}, f"{name} imports {mod}"
