"""Pass objects: a pass is a callable ``Program -> Program`` with declared IR properties.

``FunctionPass`` applies a per-function transform to the functions it selects and keeps every other
function (and the program object itself, when nothing changed) identical. The active ``PassContext``
(see ``tilefold.passes.pass_manager``) runs its instruments around every pass call.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterable
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.stmt import Function, Program
from tilefold.passes.option_records import PipelineOptions
from tilefold.passes.options import parse_options


class IRProperty(enum.Enum):
    SSAForm = "SSAForm"
    TypeChecked = "TypeChecked"
    UseAfterDef = "UseAfterDef"
    NormalizedStmtStructure = "NormalizedStmtStructure"
    TileOps2D = "TileOps2D"
    IncoreTileOps = "IncoreTileOps"
    SplitIncoreOrch = "SplitIncoreOrch"
    TileMemoryInferred = "TileMemoryInferred"
    MemRefAllocated = "MemRefAllocated"


class PassResultError(TilefoldError, TypeError):
    """A pass's transform returned something other than a ``Program``."""


class Pass:
    """A named program transformation with required / produced / invalidated properties."""

    def __init__(
        self,
        name: str,
        transform: Callable[[Program], Program],
        *,
        required: Iterable[IRProperty] = (),
        produced: Iterable[IRProperty] = (),
        invalidated: Iterable[IRProperty] = (),
        cli_name: str | None = None,
    ) -> None:
        self.name = name
        self._transform = transform
        self.required = frozenset(required)
        self.produced = frozenset(produced)
        self.invalidated = frozenset(invalidated)
        self.cli_name = cli_name or _kebab(name)

    def run(self, program: Program) -> Program:
        """Run the transform only, without instruments."""
        return self._transform(program)

    def __call__(self, program: Program) -> Program:
        return PassContext.current().run_pass(self, program)

    def __repr__(self) -> str:
        return f"<Pass {self.name}>"


def _kebab(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("-")
        out.append(ch.lower())
    return "".join(out)


def function_pass(
    name: str,
    transform: Callable[[Function, Program], Function],
    *,
    applies_to: Callable[[Function], bool] = lambda fn: fn.func_type.is_incore,
    **props: Any,
) -> Pass:
    """A pass that rewrites each selected function independently. ``transform(fn, program)`` returns
    the same object when it changes nothing, and then the program comes back unchanged too."""

    def run(program: Program) -> Program:
        new_fns = []
        changed = False
        for fn in program.functions:
            out = transform(fn, program) if applies_to(fn) else fn
            changed = changed or out is not fn
            new_fns.append(out)
        if not changed:
            return program
        return program.with_fields(functions=tuple(new_fns))

    return Pass(name, run, **props)


def program_pass(name: str, transform: Callable[[Program], Program], **props: Any) -> Pass:
    return Pass(name, transform, **props)


# ------------------------------------------------------------------------------------------------
# the pass context: instruments and options around every pass call
# ------------------------------------------------------------------------------------------------


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


def _pass_names(names: Any) -> frozenset[str]:
    """``disabled_passes`` as a set of names: one name given as text is that name (not its letters)."""
    if isinstance(names, str):
        return frozenset((names,))
    items = tuple(names) if isinstance(names, Iterable) else None
    if items is None or not all(isinstance(n, str) for n in items):
        raise TilefoldError(f"PassContext(disabled_passes={names!r}): give pass names as text",
                            hint="e.g. disabled_passes=['canonicalize-tile-slice'] (a pass name or CLI name)")
    return frozenset(items)


def checked_instruments(items: Any) -> list[PassInstrument]:
    """``PassContext(instruments)`` checked: an iterable of instruments (objects with PassInstrument's hooks)."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise TilefoldError(f"PassContext({items!r}): instruments are a list of PassInstrument objects",
                            hint="e.g. PassContext([VerificationInstrument()]); PassContext() for none")
    out = list(items)
    for inst in out:
        missing = [h for h in ("enter_context", "exit_context", "before_pass", "after_pass")
                   if not callable(getattr(inst, h, None))]
        if missing:
            raise TilefoldError(f"PassContext: {inst!r} is not a pass instrument (it has no {', '.join(missing)})",
                                hint="subclass tilefold.passes.PassInstrument, or use passes.CallbackInstrument("
                                     "before_pass=fn, after_pass=fn) to wrap functions")
    return out


class PassContext:
    """Instruments and options that apply to every pass run inside the ``with`` block.

    ``PassContext.current()`` is the innermost active context (or a default one without instruments).
    ``options`` is the typed ``PipelineOptions`` record passes may consult (``enable_auto_bind_sub_block``,
    ``custom_op_policy``, ...); it is given as a record, a keyword dict or ``name=value`` text, and checked
    (``tilefold.passes.options.parse_options``). ``disabled_passes`` names passes (pass name or CLI name) to skip.
    """

    def __init__(self, instruments: Iterable[PassInstrument] = (), *, options: Any = None,
                 disabled_passes: Iterable[str] = ()) -> None:
        self.instruments: list[PassInstrument] = checked_instruments(instruments)
        self.options: PipelineOptions = parse_options(PipelineOptions, options, origin="PassContext options")
        self.disabled_passes: frozenset[str] = _pass_names(disabled_passes)
        self.history: list[str] = []  # names of the passes run in this context, in order

    # -- context management ---------------------------------------------------------------------
    def __enter__(self) -> PassContext:
        _stack().append(self)
        try:
            for inst in self.instruments:
                inst.enter_context(self)
        except BaseException:
            self.__exit__(None, None, None)  # an instrument that fails to enter leaves no context behind
            raise
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
        """The value of option ``name`` of this context (``default`` when the record has no such field)."""
        return getattr(self.options, name.replace("-", "_"), default)

    # -- running passes -------------------------------------------------------------------------
    def run_pass(self, pass_: Pass, program: Program) -> Program:
        """Run ``pass_`` on ``program`` with this context's instruments around it."""
        if not isinstance(program, Program):
            raise TilefoldError(f"pass {pass_.name} runs on an ir.Program, got {type(program).__name__}",
                                hint="pass a @pl.program class, pl.parse(...) or kernel.lower(...)")
        if pass_.name in self.disabled_passes or pass_.cli_name in self.disabled_passes:
            return program
        for inst in self.instruments:
            inst.before_pass(pass_, program)
        out = pass_.run(program)
        if not isinstance(out, Program):
            raise PassResultError(f"pass {pass_.name} returned {type(out).__name__}, not a Program",
                                hint="a pass's transform returns the (possibly unchanged) ir.Program")
        self.history.append(pass_.name)
        for inst in self.instruments:
            inst.after_pass(pass_, program, out)
        return out


def run_pass(pass_: Pass, program: Program) -> Program:
    """Run one pass through the current context (same as ``pass_(program)``)."""
    return PassContext.current().run_pass(pass_, program)
