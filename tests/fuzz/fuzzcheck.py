"""The differential oracle of the vector-pipeline fuzzer.

``check_program(text, inputs)`` parses the program, then compiles and simulates it with the sub-block pass
on and off and with block_dim 1 and 2, every pass run under a ``PassContext`` holding the verification and
round-trip instruments, and compares the simulator with the golden interpreter. It returns a list of
problem descriptions (empty = the program passed).

Blocks are distinct units: a program that does not read ``get_block_idx`` (``block_indexed=False``;
by default inferred from the text) runs the same work on every block, so with ``block_dim = 2`` its
blocks store the same bytes and the only right outcome is the simulator's ``RaceDetected``; anything
else (a match included) is a problem.

A ``TilefoldError`` raised while compiling is a refusal: the program is reported only if the caller asks
(``allow_refusal=False``). A device fault, a wrong result, or any other exception is always a problem.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence
from typing import Any

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.passes.pass_manager import PassContext, VerificationInstrument
from tilefold.sim import RaceDetected
from tilefold.testing import run_and_compare
from tilefold.testing.round_trip import RoundTripInstrument

CONFIGS: tuple[tuple[bool, int], ...] = ((True, 1), (False, 1), (True, 2), (False, 2))


def check_program(text: str, inputs: Mapping[str, Any], *, configs: Sequence[tuple[bool, int]] = CONFIGS,
                  allow_refusal: bool = True, refusals: list[str] | None = None,
                  block_indexed: bool | None = None) -> list[str]:
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
            msg = f"{tag} refused: {type(exc).__name__}: {str(exc).splitlines()[0]}"
            if refusals is not None:
                refusals.append(msg)
            if not allow_refusal:
                problems.append(msg)
            continue
        except Exception as exc:  # noqa: BLE001 - a crash of the compiler is a bug
            problems.append(f"{tag} crash: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")
            continue
        if block_dim > 1 and not block_indexed:
            if not isinstance(rep.fault, RaceDetected):
                problems.append(f"{tag} blocks that store the same bytes were not reported as a race: "
                                f"{rep.summary()}")
        elif rep.fault is not None:
            problems.append(f"{tag} device fault on an accepted program: {rep.fault}")
        elif not rep.matches:
            problems.append(f"{tag} wrong result: {rep.summary()}")
    return problems
