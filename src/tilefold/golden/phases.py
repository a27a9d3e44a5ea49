"""Golden semantics of PyPTO's multi-block system ops (``ops/system_ops.py``).

A kernel that holds a ``pl.system.syncall`` (itself or in a function it calls) runs its blocks phase by phase
(``util/phases.PhasedRun``): every block runs up to its next barrier before any goes past it, so what a block
reads after the barrier includes every block's GM writes before it. Blocks (and, for a function bound to the
sub-block index, the two sub-blocks of each) are the participants. A launch size the device cannot complete the
barrier at is refused with the simulator's reason (``backend/system_sync.occupancy_problem``): golden computes no
value for a program that deadlocks. ``fence`` / ``cacheinvalid`` change no value; the device queries answer the
interpreter's target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tilefold.budget import BARRIER_ARRIVAL_STEPS
from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call, GlobalVar
from tilefold.ops.registry import op_of
from tilefold.ops.system_ops import is_barrier
from tilefold.targets.system import available_count, default_core_type, launch_problem
from tilefold.util.phases import PhasedRun, barrier_slot


def _barrier_calls(fn: Any, functions: Mapping[str, Any], seen: set[str]) -> list[Call]:
    from tilefold.ir.visitor import IRVisitor

    found: list[Call] = []
    callees: list[str] = []

    class _Find(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if isinstance(expr.op, GlobalVar):
                callees.append(expr.op.name)
            elif is_barrier(op_of(expr)):
                found.append(expr)
            super().visit_Call(expr)

    _Find().visit_function(fn)
    seen.add(fn.name)
    for c in callees:
        if c in functions and c not in seen:
            found += _barrier_calls(functions[c], functions, seen)
    return found


def has_barrier(interp: Any, fn: Any) -> bool:
    """Does kernel ``fn`` reach a ``system.syncall``? (cached per interpreter)"""
    cache = interp.__dict__.setdefault("_barriers", {})
    if fn.name not in cache:
        cache[fn.name] = _barrier_calls(fn, interp._functions, set())
    return bool(cache[fn.name])


def _check_occupancy(interp: Any, fn: Any, block_dim: int) -> None:
    for call in interp.__dict__["_barriers"][fn.name]:
        core_type = call.kwarg("core_type") or default_core_type(fn.func_type.value)
        used = call.kwarg("used_cores")
        why = launch_problem(str(call.kwarg("mode") or "hard"), str(core_type), None if used is None else int(used),
                             block_dim, interp.target, "pl.system.syncall")
        if why is not None:
            raise TilefoldError(f"kernel {fn.name!r}: {why}: the device deadlocks (error 507018)",
                                span=call.span if call.span.line else None,
                                hint="size the launch with pl.spmd(pl.system.available_aiv_count()) (or "
                                     "available_cluster_count()), or use a soft barrier")


def run_blocks_phased(interp: Any, fn: Any, args: list[Any], block_dim: int, instance: Any) -> tuple[Any, ...]:
    """Run the ``block_dim`` blocks of kernel ``fn`` phase by phase (``instance(block, blocks, sub-block)`` makes
    the golden ``Instance`` of a participant); the last participant's result."""
    _check_occupancy(interp, fn, block_dim)
    subs = (0, 1) if interp.sub_block_bound(fn) else (None,)
    results: list[tuple[Any, ...]] = []

    def body(inst: Any) -> None:
        results.append(interp.run_function(fn, args, inst))

    insts = [instance(b, block_dim, sb) for b in range(block_dim) for sb in subs]
    bodies = [(lambda inst=inst: body(inst)) for inst in insts]

    def deadlock(waiting: list[int], finished: list[int]) -> BaseException:
        return TilefoldError(f"kernel {fn.name!r}: {len(waiting)} participant(s) wait at a pl.system.syncall that "
                             f"{len(finished)} finished without reaching: the barrier never releases",
                             hint="every block must pass the same number of barriers: do not put a syncall under "
                                  "a condition on the block index")

    PhasedRun(bodies, lambda _w: None, deadlock).run()
    return results[-1] if results else ()


def system_value(interp: Any, op: Any, inst: Any, span: Any = None) -> int:
    """The value of a system op call: a device query's count, else the token after its effect (a barrier waits)."""
    query = op.extra.get("device_query")
    if query:
        return available_count(interp.target, query)
    if op.extra.get("system") == "barrier":
        slot = barrier_slot()
        if slot is None:
            raise TilefoldError("pl.system.syncall outside a kernel launch",
                                hint="call it inside the kernel (an InCore function or a pl.spmd / pl.at scope)")
        runner, index = slot
        interp.budget.spend(BARRIER_ARRIVAL_STEPS, span, "a pl.system.syncall")
        runner.arrive(index)
    return 0


__all__ = ["has_barrier", "run_blocks_phased", "system_value"]
