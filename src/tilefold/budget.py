"""The step budget: one bound on how much work an interpreter may do before it gives up.

The golden interpreter and the simulator both execute user programs whose loops are only known at run
time (``pl.range(10**9)``, a ``while`` whose condition never turns false). Both count their steps against a
``StepBudget`` and raise ``StepBudgetExceeded`` — a located user error with a hint — instead of spinning.
One class, used by both, so that ``--max-steps`` means the same thing everywhere.
"""

from __future__ import annotations

from tilefold.errors import Span, TilefoldError

DEFAULT_MAX_STEPS = 1_000_000  # the golden interpreter runs ~10^5 simple statements per second

#: what one arrival at a pl.system.syncall costs in steps: a barrier hands control between every participant's thread
#: (util/phases.py), about as slow as 64 simple steps, so a barrier in a loop of 10**9 trips stops within seconds
BARRIER_ARRIVAL_STEPS = 64

#: the largest tensor a run holds in simulated GM (an argument, an output, a tensor the program creates): GM is
#: modelled byte by byte in host memory, so each path checks a tensor's size against this before allocating it
MAX_TENSOR_BYTES = 256 * 2**20


class StepBudgetExceeded(TilefoldError):
    """A run executed more steps (statements, instructions, loop iterations) than its budget allows."""


class StepBudget:
    """Counts steps of one run; ``spend`` raises ``StepBudgetExceeded`` once the limit is passed.

    ``what`` names the interpreter in the message ("golden interpreter", "simulator"); ``max_steps=None``
    disables the bound (for callers that have their own).
    """

    __slots__ = ("max_steps", "steps", "what")

    def __init__(self, max_steps: int | None = DEFAULT_MAX_STEPS, what: str = "run") -> None:
        if max_steps is not None and max_steps < 1:
            raise TilefoldError(f"step budget must be a positive number of steps, got {max_steps}",
                                hint="pass --max-steps N with N >= 1")
        self.max_steps = max_steps
        self.steps = 0
        self.what = what

    def spend(self, n: int = 1, span: Span | None = None, doing: str = "") -> None:
        self.steps += n
        if self.max_steps is not None and self.steps > self.max_steps:
            where = f" while executing {doing}" if doing else ""
            raise StepBudgetExceeded(
                f"{self.what} stopped after {self.max_steps:,} steps{where}: the program may not terminate",
                span=span,
                hint="check the loop bounds and while conditions; if the program really is this long, raise the "
                     "limit with --max-steps N (Python: max_steps=N; a @pl.jit call: RunConfig(max_steps=N))")


__all__ = ["BARRIER_ARRIVAL_STEPS", "DEFAULT_MAX_STEPS", "StepBudget", "StepBudgetExceeded"]
