"""Pass manager, pass context and instruments.

Every pass call goes through the active ``PassContext`` (``Pass.__call__`` uses
``PassContext.current().run_pass``), which runs its instruments before and after the pass::

    with PassContext([VerificationInstrument(), RoundTripInstrument()]):
        program = passes.canonicalize_tile_slice()(program)

Instruments:

- ``VerificationInstrument`` verifies the pass's required properties before it runs and its produced
  properties after; a violation raises ``VerificationError`` naming the pass, the property, the function
  and the offending statement.
- ``RoundTripInstrument`` prints the IR after each pass with the ``pl`` printer, parses it back with
  ``tilefold.language.parse`` and asserts the two are structurally equal; a disagreement raises
  ``RoundTripError`` showing the first difference.
- ``DumpInstrument`` records (and optionally prints) the IR after each pass (``--print-after-all``).

``PassManager(passes, name=)`` runs a pipeline of passes through the current context;
``PassManager.from_names(["canonicalize-tile-slice", ...], **options)`` builds one from CLI names.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from tilefold.errors import TilefoldError, VerificationError
from tilefold.ir.stmt import Program
from tilefold.passes.base import IRProperty, Pass

__all__ = [
    "DumpInstrument", "PassContext", "PassInstrument", "PassManager", "RoundTripError", "RoundTripInstrument",
    "VerificationInstrument", "round_trip_check", "run_pass",
]


class RoundTripError(VerificationError):
    """Printing the IR and parsing it back did not give a structurally equal program."""


class PassInstrument:
    """Base class of instruments. Override any hook; the defaults do nothing."""

    def enter_context(self, ctx: PassContext) -> None:
        """Called when a ``PassContext`` holding this instrument is entered."""

    def exit_context(self, ctx: PassContext) -> None:
        """Called when that context is left."""

    def before_pass(self, pass_: Pass, program: Program) -> None:
        """Called with the input program before ``pass_`` runs."""

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        """Called with the input and output programs after ``pass_`` ran."""


_LOCAL = threading.local()


def _stack() -> list[PassContext]:
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


class PassContext:
    """Instruments and options that apply to every pass run inside the ``with`` block.

    ``PassContext.current()`` is the innermost active context (or a default one without instruments).
    ``options`` are pipeline options (e.g. ``enable_auto_bind_sub_block``, ``target``) that passes may
    consult; ``disabled_passes`` names passes (pass name or CLI name) to skip.
    """

    def __init__(self, instruments: Iterable[PassInstrument] = (), *, options: dict[str, Any] | None = None,
                 disabled_passes: Iterable[str] = ()) -> None:
        self.instruments: list[PassInstrument] = list(instruments)
        self.options: dict[str, Any] = dict(options or {})
        self.disabled_passes: frozenset[str] = frozenset(disabled_passes)
        self.history: list[str] = []  # names of the passes run in this context, in order

    # -- context management ---------------------------------------------------------------------
    def __enter__(self) -> PassContext:
        _stack().append(self)
        for inst in self.instruments:
            inst.enter_context(self)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            for inst in self.instruments:
                inst.exit_context(self)
        finally:
            stack = _stack()
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is self:
                    del stack[i]
                    break

    @staticmethod
    def current() -> PassContext:
        stack = _stack()
        if stack:
            return stack[-1]
        default = getattr(_LOCAL, "default", None)
        if default is None:
            default = _LOCAL.default = PassContext()
        return default

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    # -- running passes -------------------------------------------------------------------------
    def run_pass(self, pass_: Pass, program: Program) -> Program:
        """Run ``pass_`` on ``program`` with this context's instruments around it."""
        if pass_.name in self.disabled_passes or pass_.cli_name in self.disabled_passes:
            return program
        for inst in self.instruments:
            inst.before_pass(pass_, program)
        out = pass_.run(program)
        if not isinstance(out, Program):
            raise TypeError(f"pass {pass_.name} returned {type(out).__name__}, not a Program")
        self.history.append(pass_.name)
        for inst in self.instruments:
            inst.after_pass(pass_, program, out)
        return out


def run_pass(pass_: Pass, program: Program) -> Program:
    """Run one pass through the current context (same as ``pass_(program)``)."""
    return PassContext.current().run_pass(pass_, program)


# ------------------------------------------------------------------------------------------------
# instruments
# ------------------------------------------------------------------------------------------------


class VerificationInstrument(PassInstrument):
    """Verify required properties before and produced properties after every pass.

    ``properties`` restricts checking to a subset (default: every property that has a verifier).
    """

    def __init__(self, *, before: bool = True, after: bool = True,
                 properties: Iterable[IRProperty] | None = None) -> None:
        self.before = before
        self.after = after
        self.properties = None if properties is None else frozenset(properties)
        self.checked: list[tuple[str, str, tuple[IRProperty, ...]]] = []  # (pass, "before"/"after", props)

    def _select(self, props: Iterable[IRProperty]) -> tuple[IRProperty, ...]:
        from tilefold.passes.verifier import has_verifier

        return tuple(p for p in IRProperty
                     if p in set(props) and has_verifier(p) and (self.properties is None or p in self.properties))

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if not self.before:
            return
        props = self._select(pass_.required)
        if props:
            self._verify(program, props, f"before pass {pass_.name} (which requires "
                                         f"{', '.join(p.value for p in props)})")
            self.checked.append((pass_.name, "before", props))

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        if not self.after:
            return
        props = self._select(pass_.produced)
        if props:
            self._verify(after, props, f"after pass {pass_.name} (which must produce "
                                       f"{', '.join(p.value for p in props)})")
            self.checked.append((pass_.name, "after", props))

    @staticmethod
    def _verify(program: Program, props: tuple[IRProperty, ...], context: str) -> None:
        from tilefold.passes.verifier import check_properties, violation_error

        violations = check_properties(program, props)
        if violations:
            raise violation_error(violations, context)


def _excerpt(text: str, line: int, radius: int = 3) -> str:
    lines = text.split("\n")
    lo, hi = max(line - 1 - radius, 0), min(line + radius, len(lines))
    return "\n".join(f"{'>' if i + 1 == line else ' '}{i + 1:5d} | {lines[i]}" for i in range(lo, hi))


def round_trip_check(program: Program, context: str = "round trip") -> Program:
    """Print ``program``, parse it back and require structural equality; returns the re-parsed program.

    Raises ``RoundTripError`` when the text does not parse or parses to a different program.
    """
    import tilefold.language as language
    import tilefold.language.printer as printer
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


def print_ir(program: Program) -> str:
    """The ``pl`` text of ``program``."""
    import tilefold.language.printer as printer

    return printer.python_print(program)


class DumpInstrument(PassInstrument):
    """Record the IR after each pass (``dumps`` holds (pass name, text) pairs) and, when ``stream`` is
    given, print it there under a ``# IR after <Pass>`` header. ``only`` restricts dumping to some
    passes (pass names or CLI names)."""

    def __init__(self, stream: TextIO | None = None, *, only: Iterable[str] | None = None,
                 print_input: bool = False) -> None:
        self.stream = stream
        self.only = None if only is None else frozenset(only)
        self.print_input = print_input
        self.dumps: list[tuple[str, str]] = []
        self._printed_input = False

    def _emit(self, title: str, text: str) -> None:
        if self.stream is not None:
            self.stream.write(f"# ----- {title} -----\n{text.rstrip()}\n\n")
            self.stream.flush()

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if self.print_input and not self._printed_input:
            self._printed_input = True
            text = print_ir(program)
            self.dumps.append(("<input>", text))
            self._emit("IR before all passes", text)

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        if self.only is not None and pass_.name not in self.only and pass_.cli_name not in self.only:
            return
        text = print_ir(after)
        self.dumps.append((pass_.name, text))
        changed = "" if after is not before else " (unchanged)"
        self._emit(f"IR after {pass_.name} ({pass_.cli_name}){changed}", text)


# ------------------------------------------------------------------------------------------------
# pipelines
# ------------------------------------------------------------------------------------------------


class PassManager:
    """A named sequence of passes, run in order through the current ``PassContext``."""

    def __init__(self, passes: Sequence[Pass], name: str = "pipeline") -> None:
        self.passes: list[Pass] = list(passes)
        self.name = name

    def run(self, program: Program) -> Program:
        ctx = PassContext.current()
        for p in self.passes:
            program = ctx.run_pass(p, program)
        return program

    __call__ = run

    @property
    def required(self) -> frozenset[IRProperty]:
        """Properties the pipeline needs on its input (required by a pass before any pass produced them)."""
        have: set[IRProperty] = set()
        need: set[IRProperty] = set()
        for p in self.passes:
            need |= set(p.required) - have
            have |= set(p.produced)
            have -= set(p.invalidated)
        return frozenset(need)

    @classmethod
    def from_names(cls, names: Iterable[str], *, name: str = "pipeline", **options: Any) -> PassManager:
        """Instantiate passes by CLI name (``tilefold.passes.pipeline.get_pass``), handing each the
        options its factory accepts. Unknown names raise ``KeyError`` listing the known passes."""
        from tilefold.passes.pipeline import get_pass

        return cls([get_pass(n, **options) for n in names], name=name)

    @classmethod
    def default(cls, target: Any = None, *, skip_passes: Sequence[str] = (), **options: Any) -> PassManager:
        """The default tile pipeline (``tilefold.passes.pipeline.default_tile_pipeline``)."""
        from tilefold.passes.pipeline import default_tile_pipeline

        return cls(default_tile_pipeline(target, skip_passes=tuple(skip_passes), **options), name="default")

    def __repr__(self) -> str:
        return f"<PassManager {self.name}: {' -> '.join(p.name for p in self.passes)}>"
