"""Pass remarks: structured records of what a pass decided and why.

A pass reports a decision with ``emit(Remark(...))``; remarks go to every active collector (none are
active by default, so emitting is cheap). Callers collect them with::

    with collect_remarks() as remarks:
        program = passes.canonicalize_tile_slice()(program)
    for r in remarks:
        print(r)

``tilefold opt FILE --passes ... --remarks`` prints them after the IR.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Remark", "RemarkCollector", "collect_remarks", "emit", "remarks_enabled"]


@dataclass(frozen=True)
class Remark:
    """One decision of a pass. ``kind`` is a short machine-readable tag (e.g. ``"kept-zero-copy"``,
    ``"materialized"``, ``"split"``, ``"reverted"``); ``details`` holds structured facts (offsets, the
    operand, the reason) for tests and tools."""

    pass_name: str
    function: str
    kind: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        text = f"remark: [{self.pass_name}] {self.function}: {self.kind}: {self.message}"
        if self.details:
            text += " {" + ", ".join(f"{k}={v!r}" for k, v in self.details.items()) + "}"
        return text


class RemarkCollector(list):
    """A list of remarks; also filterable by pass, function or kind."""

    def of(self, *, pass_name: str | None = None, function: str | None = None,
           kind: str | None = None) -> list[Remark]:
        return [r for r in self
                if (pass_name is None or r.pass_name == pass_name)
                and (function is None or r.function == function)
                and (kind is None or r.kind == kind)]


_ACTIVE: list[RemarkCollector] = []


def remarks_enabled() -> bool:
    """True when some collector is listening (passes may skip building expensive messages otherwise)."""
    return bool(_ACTIVE)


def emit(remark: Remark) -> None:
    """Report a remark to every active collector."""
    for collector in _ACTIVE:
        collector.append(remark)


@contextmanager
def collect_remarks() -> Iterator[RemarkCollector]:
    """Collect the remarks emitted inside the ``with`` block (nested collectors all receive them)."""
    collector = RemarkCollector()
    _ACTIVE.append(collector)
    try:
        yield collector
    finally:
        for i in range(len(_ACTIVE) - 1, -1, -1):  # by identity: collectors are lists and compare by value
            if _ACTIVE[i] is collector:
                del _ACTIVE[i]
                break
