"""PyPTO's ``pypto_core.passes`` (``from pypto.pypto_core import passes``): tilefold's passes under PyPTO's names,
plus the PyPTO spellings of the pass context (``PassContext(instruments, verification_level)``,
``VerificationInstrument(VerificationMode.AFTER)``) and ``MemoryPlanner``.

``MemoryPlanner`` selects who assigns on-chip addresses: PyPTO's own ``AllocateMemoryAddr`` (``PYPTO``, the
default) or ptoas (``PTOAS``). On the simulator tilefold's ``AllocateMemoryAddr`` plans memory under either choice
(there is no ptoas); the computed values do not depend on the planner, so both are accepted.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Iterable
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.passes.pass_manager import PassContext as _PassContext
from tilefold.passes.pass_manager import PassInstrument
from tilefold.passes.pass_manager import VerificationInstrument as _VerificationInstrument


class MemoryPlanner(enum.Enum):
    PYPTO = "PYPTO"
    PTOAS = "PTOAS"


class VerificationMode(enum.Enum):
    NONE = "NONE"
    BEFORE = "BEFORE"
    AFTER = "AFTER"
    BEFORE_AND_AFTER = "BEFORE_AND_AFTER"


class VerificationLevel(enum.Enum):
    NONE = "NONE"
    BASIC = "BASIC"
    Basic = "BASIC"  # noqa: PIE796  (PyPTO's C++ spelling, an alias)


def VerificationInstrument(mode: VerificationMode = VerificationMode.BEFORE_AND_AFTER,  # noqa: N802
                           *, before: bool | None = None, after: bool | None = None, **kw: Any) -> PassInstrument:
    """PyPTO's ``VerificationInstrument(VerificationMode.X)``, or tilefold's keyword form."""
    if not isinstance(mode, VerificationMode):
        raise TilefoldError(f"VerificationInstrument({mode!r}): not a VerificationMode",
                            hint="passes.VerificationInstrument(passes.VerificationMode.AFTER)")
    b = mode in (VerificationMode.BEFORE, VerificationMode.BEFORE_AND_AFTER) if before is None else before
    a = mode in (VerificationMode.AFTER, VerificationMode.BEFORE_AND_AFTER) if after is None else after
    return _VerificationInstrument(before=b, after=a, **kw)


class PassContext(_PassContext):
    """``PassContext(instruments, verification_level=VerificationLevel.BASIC)``: with ``NONE`` no verification
    instrument of the context runs."""

    def __init__(self, instruments: Iterable[PassInstrument] = (), verification_level: Any = None,
                 **kw: Any) -> None:
        items = list(instruments)
        if verification_level is not None and not isinstance(verification_level, VerificationLevel):
            raise TilefoldError(f"PassContext: {verification_level!r} is not a VerificationLevel",
                                hint="passes.VerificationLevel.NONE or passes.VerificationLevel.BASIC")
        if verification_level is VerificationLevel.NONE:
            items = [i for i in items if not isinstance(i, _VerificationInstrument)]
        super().__init__(items, **kw)
        self.verification_level = verification_level or VerificationLevel.BASIC


_OWN = {"MemoryPlanner", "VerificationMode", "VerificationLevel", "VerificationInstrument", "PassContext"}


def __getattr__(name: str) -> Any:
    # every other name is tilefold's pass of that name (passes.convert_to_ssa is not one: tilefold parses into
    # SSA form directly)
    try:
        return getattr(importlib.import_module("tilefold.passes"), name)
    except AttributeError:
        raise AttributeError(f"module 'tilefold.pypto_core.passes' has no attribute {name!r}") from None


__all__ = sorted(_OWN | {"PassInstrument"})
