"""The differential oracle of the vector-pipeline fuzzer.

``check_program(text, inputs)`` parses the program, then compiles and simulates it with the sub-block pass
on and off and with block_dim 1 and 2, every pass run under a ``PassContext`` holding the verification and
round-trip instruments, and compares the simulator with the golden interpreter. It returns a list of
problem descriptions (empty = the program passed).

Blocks are distinct units: a program that does not read ``get_block_idx`` (``block_indexed=False``;
by default inferred from the text) runs the same work on every block, so with ``block_dim = 2`` its
blocks store the same bytes and the only right outcome is the simulator's ``RaceDetected``; anything
else (a match included) is a problem.

A ``TilefoldError`` raised while compiling is a refusal. The generated programs are valid, so a refusal is a
problem unless it belongs to one of the ``DOCUMENTED_REFUSALS`` (a class of valid programs the docs say
tilefold refuses, with a located, hinted error); ``allow_refusal=False`` makes every refusal a problem (the
seeds kept as regressions of "refused by codegen" use it). A device fault, a wrong result, or any other
exception is always a problem. Every configuration run and every refusal is tallied per fuzzer in
``TALLIES``; ``tests/fuzz/conftest.py`` prints the refusal rates at the end of the run.
"""

from __future__ import annotations

import re
import traceback
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tilefold.language as pl
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.passes.pass_manager import PassContext, VerificationInstrument
from tilefold.sim import RaceDetected
from tilefold.testing import run_and_compare
from tilefold.testing.round_trip import RoundTripInstrument

CONFIGS: tuple[tuple[bool, int], ...] = ((True, 1), (False, 1), (True, 2), (False, 2))


@dataclass(frozen=True)
class RefusalClass:
    """A class of valid programs tilefold refuses by design, and the page that says so."""

    name: str
    error: type[TilefoldError]
    message: re.Pattern[str]
    documented_in: str


DOCUMENTED_REFUSALS: tuple[RefusalClass, ...] = (
    # the live tiles of one kernel exceed an on-chip memory: AllocateMemoryAddr names the first tile past the end
    RefusalClass("memory-capacity", TilefoldError, re.compile(r"function '\w+' does not fit in \w+: it needs"),
                 "docs/passes/allocate_memory_addr.md"),
    # a reduction / broadcast / matmul / transpose would read the padding of a partially valid tile
    RefusalClass("partial-valid-shape", NotSupportedError, re.compile(r"valid region only"),
                 "docs/valid_shapes_atomics_writes.md"),
)


def documented_refusal(exc: TilefoldError) -> RefusalClass | None:
    """The documented class of a refusal (located and hinted, as the docs promise), or None."""
    if exc.span is None or not exc.span.line or not exc.hint:
        return None
    for cls in DOCUMENTED_REFUSALS:
        if isinstance(exc, cls.error) and cls.message.search(exc.message):
            return cls
    return None


@dataclass
class FuzzTally:
    """What one fuzzer ran: compiled configurations, and its refusals by class."""

    runs: int = 0
    refused: Counter[str] = field(default_factory=Counter)

    @property
    def rate(self) -> float:
        return sum(self.refused.values()) / self.runs if self.runs else 0.0

    def line(self, fuzzer: str) -> str:
        refused = sum(self.refused.values())
        by_class = ", ".join(f"{name} {n}" for name, n in sorted(self.refused.items()))
        return (f"{fuzzer:22} {self.runs:6} configurations  {refused:4} refused ({100 * self.rate:.1f}%)"
                + (f": {by_class}" if by_class else ""))


#: per fuzzer name, what it ran this session (printed by tests/fuzz/conftest.py)
TALLIES: dict[str, FuzzTally] = {}


def tally(fuzzer: str, refusal: str | None = None) -> None:
    """Count one compiled configuration of ``fuzzer``; ``refusal`` names its refusal class, if refused."""
    t = TALLIES.setdefault(fuzzer, FuzzTally())
    t.runs += 1
    if refusal is not None:
        t.refused[refusal] += 1


@contextmanager
def counted(fuzzer: str) -> Iterator[None]:
    """Tally one configuration of a fuzzer that tolerates no refusal: a ``TilefoldError`` is counted, then
    propagates (and fails the test)."""
    try:
        yield
    except TilefoldError as exc:
        cls = documented_refusal(exc)
        tally(fuzzer, cls.name if cls is not None else "undocumented")
        raise
    tally(fuzzer)


def check_program(text: str, inputs: Mapping[str, Any], *, configs: Sequence[tuple[bool, int]] = CONFIGS,
                  allow_refusal: bool = True, refusals: list[str] | None = None,
                  block_indexed: bool | None = None, fuzzer: str = "vector-pipeline") -> list[str]:
    problems: list[str] = []
    if block_indexed is None:
        block_indexed = "get_block_idx" in text
    try:
        program = pl.parse(text, filename="<fuzz>")
    except Exception as exc:  # noqa: BLE001 - the generator only writes valid programs
        return [f"parse: {type(exc).__name__}: {exc}"]
    for sub_block, block_dim in configs:
        tag = f"[sub_block={sub_block}, block_dim={block_dim}]"
        try:
            with PassContext([VerificationInstrument(), RoundTripInstrument()]):
                rep = run_and_compare(program, dict(inputs), options={"enable_auto_bind_sub_block": sub_block},
                                      block_dim=block_dim)
        except TilefoldError as exc:
            cls = documented_refusal(exc)
            tally(fuzzer, cls.name if cls is not None else "undocumented")
            where = f" at {exc.span}" if exc.span is not None and exc.span.line else ""
            msg = f"{tag} refused{where}: {type(exc).__name__}: {exc.message}"
            if refusals is not None:
                refusals.append(msg)
            if cls is None:
                problems.append(f"{msg} (not a documented refusal class: {', '.join(c.name for c in DOCUMENTED_REFUSALS)})")
            elif not allow_refusal:
                problems.append(f"{msg} (documented as {cls.name}, but this program must compile)")
            continue
        except Exception as exc:  # noqa: BLE001 - a crash of the compiler is a bug
            tally(fuzzer)
            problems.append(f"{tag} crash: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")
            continue
        tally(fuzzer)
        if block_dim > 1 and not block_indexed:
            if not isinstance(rep.fault, RaceDetected):
                problems.append(f"{tag} blocks that store the same bytes were not reported as a race: "
                                f"{rep.summary()}")
        elif rep.fault is not None:
            problems.append(f"{tag} device fault on an accepted program: {rep.fault}")
        elif not rep.matches:
            problems.append(f"{tag} wrong result: {rep.summary()}")
    return problems
