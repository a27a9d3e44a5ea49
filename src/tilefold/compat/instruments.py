"""PyPTO's ``ir.instruments``: ready-made pass instruments (``make_roundtrip_instrument``: after every pass, print
the IR, parse it back and compare structurally; ``make_dump_instrument``: print the IR around every pass)."""

from __future__ import annotations

from typing import Any

from tilefold.passes.pass_manager import DumpInstrument, VerificationInstrument
from tilefold.testing.round_trip import RoundTripInstrument


def make_roundtrip_instrument(*, check_input: bool = False) -> RoundTripInstrument:
    return RoundTripInstrument(check_input=check_input)


def make_dump_instrument(stream: Any = None, **kw: Any) -> DumpInstrument:
    return DumpInstrument(stream, **kw)


__all__ = ["DumpInstrument", "RoundTripInstrument", "VerificationInstrument", "make_dump_instrument",
           "make_roundtrip_instrument"]
