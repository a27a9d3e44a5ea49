"""The round-trip instrument: print the IR after each pass, parse it back, require structural equality.

It lives above the passes because it needs the parser (``tilefold.frontend``): ``PassContext([RoundTripInstrument()])``
runs it around every pass like any instrument of ``tilefold.passes.pass_manager``.
"""

from __future__ import annotations

from tilefold.errors import TilefoldError, VerificationError
from tilefold.ir.stmt import Program
from tilefold.passes.base import Pass, PassInstrument

__all__ = ["RoundTripError", "RoundTripInstrument", "round_trip_check"]


class RoundTripError(VerificationError):
    """Printing the IR and parsing it back did not give a structurally equal program."""


def _excerpt(text: str, line: int, radius: int = 3) -> str:
    lines = text.split("\n")
    lo, hi = max(line - 1 - radius, 0), min(line + radius, len(lines))
    return "\n".join(f"{'>' if i + 1 == line else ' '}{i + 1:5d} | {lines[i]}" for i in range(lo, hi))


def round_trip_check(program: Program, context: str = "round trip") -> Program:
    """Print ``program``, parse it back and require structural equality; returns the re-parsed program.

    Raises ``RoundTripError`` when the text does not parse or parses to a different program.
    """
    import tilefold.language as language
    from tilefold.frontend import printer
    from tilefold.ir.structural import structural_difference

    try:
        text = printer.python_print(program)
    except TilefoldError as exc:
        raise RoundTripError(f"{context}: the printer cannot print the program: {exc.message}",
                             hint="this is a printer bug or IR the DSL cannot express") from None
    try:
        reparsed = language.parse(text, filename=f"<{context}>")
    except TilefoldError as exc:
        where = ""
        if exc.span is not None and exc.span.line:
            where = f"\n{_excerpt(text, exc.span.line)}"
        raise RoundTripError(
            f"{context}: the printed IR does not parse back: {exc.message}{where}",
            hint="the printer emitted text the parser rejects; fix the printer (or the parser) so they agree",
        ) from None
    diff = structural_difference(program, reparsed)
    if diff is not None:
        raise RoundTripError(
            f"{context}: printing and re-parsing changed the program.\n{diff}",
            hint="the printer and the parser disagree on this construct; the printed text is what the "
                 "parser saw (lhs = IR before printing, rhs = IR parsed back)",
        )
    return reparsed


class RoundTripInstrument(PassInstrument):
    """After every pass: print, parse back, compare structurally. ``check_input`` also checks the input
    of the first pass run in the context."""

    def __init__(self, *, check_input: bool = False) -> None:
        self.check_input = check_input
        self._seen_input = False
        self.checked: list[str] = []

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if self.check_input and not self._seen_input:
            self._seen_input = True
            round_trip_check(program, f"round trip of the input of pass {pass_.name}")

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        round_trip_check(after, f"round trip after pass {pass_.name}")
        self.checked.append(pass_.name)
