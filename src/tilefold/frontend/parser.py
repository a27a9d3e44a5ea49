"""The ``pl`` parser: Python source -> ``ir.Program``, using Python's ``ast`` only.

User code is never executed. Module-level constants (``N = 16``, ``SHAPE = [16, 64]``) are folded
statically in text mode; in decorator mode they are read (not evaluated) from the defining frame.

Scoping and SSA
- Every assignment creates a new ``Var``; rebinding a name in the same body is SSA rebinding.
- Loop / if bodies open a scope. Names defined inside vanish at its end; only the targets of the final
  ``x = pl.yield_(...)`` become visible after the construct (they are its ``return_vars``).
- Assigning, inside a loop or if body, to a name bound outside it is an error: loop-carried values
  go through ``init_values`` and ``pl.yield_``. Loop headers (loop var, iter args) may shadow.

Every error is a ``ParseError`` / ``TypeInferenceError`` carrying a ``Span`` and a hint.
"""


from __future__ import annotations

from tilefold.frontend.annotations import NO_VIEW, AnnotationsMixin
from tilefold.frontend.constants import ConstantsMixin
from tilefold.frontend.expressions import EXTRA_KWARGS, ExpressionsMixin
from tilefold.frontend.inline import InlineMixin
from tilefold.frontend.parse_base import _MISSING, ParserBase
from tilefold.frontend.program_form import ProgramFormMixin
from tilefold.frontend.statements import StatementsMixin
from tilefold.util.gc import no_gc


class Parser(ProgramFormMixin, StatementsMixin, ExpressionsMixin, InlineMixin, ConstantsMixin, AnnotationsMixin,
             ParserBase):
    """Parses one source text. ``consts`` maps names to Python constants (module-level / closure)."""


__all__ = ["EXTRA_KWARGS", "NO_VIEW", "_MISSING", "Parser", "no_gc"]
