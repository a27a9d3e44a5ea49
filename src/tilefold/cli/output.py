"""What the commands print: IR text, remarks, stage dumps, result-table cells, error lines.

Contract: pure formatting (no compilation). ``fmt_*`` turn a run report's values into table cells (``-`` for
a missing value); ``print_error`` writes one error paragraph to stderr after flushing stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any


def print_error(text: str) -> None:
    sys.stdout.flush()
    print(text, file=sys.stderr)


def ir_text(program) -> str:
    from tilefold.passes.pass_manager import print_ir

    return print_ir(program)


def print_remarks(remarks: Sequence[Any]) -> None:
    for r in remarks:
        print(str(r))
    if not remarks:
        print("remark: (no remarks)")


def print_stage(stage: str, program) -> None:
    """One ``--print-after-all`` stage that is not a pass (the input program)."""
    text = ir_text(program)
    sys.stdout.write(f"# ----- IR at stage {stage} -----\n{text.rstrip()}\n\n")
    sys.stdout.flush()


def fmt_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt_cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def fmt_cycles(value: Any) -> str:
    """Cycle counts as exact integers (``1234``, never ``1.23e+03``); a dict as ``unit=cycles, ...``."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt_cycles(v)}" for k, v in value.items()) or "-"
    try:
        return str(int(round(float(value))))
    except (TypeError, ValueError, OverflowError):
        return str(value)


def fmt_mismatch(report: Any) -> str:
    """The first mismatching element as ``name[i, j]`` (the form of ``RunReport.summary()``)."""
    index = getattr(report, "first_mismatch", None)
    name = getattr(report, "mismatch_output", None)
    if index is None:
        details = getattr(report, "details", None) or {}
        if name is not None and not getattr(report, "matches", False):
            return str(details.get(name, name))
        return "-"
    return f"{name or 'output'}{list(index)}"


def split_evidence(report: Any) -> str:
    """Per kernel of the compiled IR: was its vector work split across the two sub-blocks?"""
    compiled = getattr(report, "compiled", None)
    program = getattr(compiled, "ir", None)
    if program is None:
        return "-"
    from tilefold.testing import sub_block_evidence as evidence

    parts = []
    for fn in program.functions:
        if not fn.func_type.is_incore:
            continue
        ev = evidence(program.with_fields(functions=(fn,)))
        if ev.split:
            axes = ", ".join(str(v) for v in ev.axis.values())
            parts.append(f"{fn.name}: split 1:2" + (f" on axis {axes}" if axes else ""))
        elif not ev.not_reverted:
            parts.append(f"{fn.name}: not split (TileAndBindSubBlock reverted the split; --remarks says why)")
        else:
            parts.append(f"{fn.name}: not split ({'; '.join(ev.problems) or 'no evidence of a split'})")
    return "; ".join(parts) or "-"


def plain_table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)
