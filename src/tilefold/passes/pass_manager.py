"""Pass manager, pass context and instruments.

Every pass call goes through the active ``PassContext`` (``Pass.__call__`` uses
``PassContext.current().run_pass``), which runs its instruments before and after the pass::

    with PassContext([VerificationInstrument()]):
        program = passes.canonicalize_tile_slice()(program)

Instruments:

- ``VerificationInstrument`` verifies the pass's required properties before it runs and its produced
  properties after; a violation raises ``VerificationError`` naming the pass, the property, the function
  and the offending statement.
- ``RoundTripInstrument`` (in ``tilefold.testing.round_trip``: it needs the parser, which sits above the
  passes) prints the IR after each pass, parses it back and asserts the two are structurally equal.
- ``DumpInstrument`` records (and optionally prints) the IR after each pass (``--print-after-all``).

``PassManager(passes, name=)`` runs a pipeline of passes through the current context;
``PassManager.from_names(["canonicalize-tile-slice", ...], **options)`` builds one from CLI names.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from tilefold.ir.stmt import Program
from tilefold.passes.base import IRProperty, Pass, PassContext, PassInstrument, run_pass

__all__ = ["DumpInstrument", "PassContext", "PassDumpLevel", "PassInstrument", "PassManager", "VerificationInstrument",
           "added_instruments", "dump_level", "run_pass", "write_pass_dumps"]


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


def print_ir(program: Program) -> str:
    """The ``pl`` text of ``program`` (the compact structural form when no front end registered the printer)."""
    from tilefold.ir.printing import printer_available, python_print

    if not printer_available():
        from tilefold.ir.structural import dump_ir

        return dump_ir(program)
    return python_print(program)


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


class PassDumpLevel(enum.Enum):
    """How much a per-pass IR dump holds (PyPTO's ``dump_passes`` levels). tilefold's printer writes every tile
    view a tile carries (the IR keeps no implicit views), so ``CONCISE`` and ``EXPLICIT`` print the same text."""

    NONE = 0
    CONCISE = 1
    EXPLICIT = 2


def dump_level(value: Any, where: str = "dump_passes") -> PassDumpLevel:
    """``value`` (a ``PassDumpLevel`` or a bool: True is ``CONCISE``, False ``NONE``) as a level."""
    if isinstance(value, PassDumpLevel):
        return value
    if isinstance(value, bool):
        return PassDumpLevel.CONCISE if value else PassDumpLevel.NONE
    from tilefold.errors import TilefoldError

    raise TilefoldError(f"{where}={value!r} is not a dump level",
                        hint="give True / False or PassDumpLevel.NONE / CONCISE / EXPLICIT (tilefold.ir.PassDumpLevel)")


def write_pass_dumps(dumps: Sequence[tuple[str, str]], directory: str | Path, prefix: str = "") -> Path:
    """Write the (pass name, IR text) pairs of a ``DumpInstrument`` as ``<directory>/<prefix>NN_after_<Pass>.py``,
    numbered from 00 in execution order; returns the directory."""
    from tilefold.errors import TilefoldError

    if not isinstance(directory, (str, Path)) or "\0" in str(directory):
        raise TilefoldError(f"pass dumps: {directory!r} is not a directory path",
                            hint="give output_dir= (or RunConfig(work_dir=)) as a path")
    if not isinstance(prefix, str) or any(c in prefix for c in ("/", "\\", "\0")) or prefix in (".", ".."):
        raise TilefoldError(f"pass dumps: prefix={prefix!r} is not a file-name prefix",
                            hint="the prefix starts each dump's file name inside output_dir (e.g. 'k0_'); it holds "
                                 "no path separator")
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for i, (name, text) in enumerate(dumps):
            (out / f"{prefix}{i:02d}_after_{name}.py").write_text(text)
    except OSError as exc:
        raise TilefoldError(f"cannot write the pass dumps to {str(out)!r}: {exc.strerror or exc}",
                            hint="give a directory you can create and write") from None
    return out


@contextlib.contextmanager
def added_instruments(instruments: Sequence[PassInstrument]) -> Iterator[PassContext]:
    """Run the block with ``instruments`` appended to the current context's (its options, disabled passes and
    other instruments stay in force); they are removed again afterwards."""
    ctx = PassContext.current()
    ctx.instruments.extend(instruments)
    try:
        yield ctx
    finally:
        for inst in instruments:
            for i in range(len(ctx.instruments) - 1, -1, -1):
                if ctx.instruments[i] is inst:
                    del ctx.instruments[i]
                    break


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
        """Instantiate passes by CLI name (``tilefold.passes.pipeline.get_pass``): ``options`` are pipeline options
        (checked against ``PipelineOptions``); each pass receives the fields of its own option record. Unknown
        names raise ``KeyError`` listing the known passes."""
        from tilefold.passes.pipeline import get_pass

        return cls([get_pass(n, **options) for n in names], name=name)

    @classmethod
    def default(cls, target: Any = None, *, skip_passes: Sequence[str] = (), **options: Any) -> PassManager:
        """The default tile pipeline (``tilefold.passes.pipeline.default_tile_pipeline``)."""
        from tilefold.passes.pipeline import default_tile_pipeline

        return cls(default_tile_pipeline(target, skip_passes=tuple(skip_passes), **options), name="default")

    def __repr__(self) -> str:
        return f"<PassManager {self.name}: {' -> '.join(p.name for p in self.passes)}>"
