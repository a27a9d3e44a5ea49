"""Pass objects: a pass is a callable ``Program -> Program`` with declared IR properties.

``FunctionPass`` applies a per-function transform to the functions it selects and keeps every other
function (and the program object itself, when nothing changed) identical. The active ``PassContext``
(see ``tilefold.passes.pass_manager``) runs its instruments around every pass call.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any

from tilefold.ir.stmt import Function, Program


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
        from tilefold.passes.pass_manager import PassContext

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
