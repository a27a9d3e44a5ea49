"""PTO instructions of the multi-block system ops (``ops/system_ops.py``) and their lowering.

- ``SyncAll``: the in-kernel barrier (``pl.system.syncall``): ``mode`` "hard" / "soft", the ``core_type`` taking
  part (the kernel's own cores when the source names none), ``used_cores`` and the ``workspace`` tensor of a soft one.
- ``GmFence``: ``pl.system.fence()``.
- ``CacheInvalid``: ``pl.system.cacheinvalid()`` (``tensor`` None: the whole GM) or of the cache line holding the
  element at ``offsets`` of ``tensor``.

All three run on the scalar pipe and access no tile; the simulator gives them their meaning (``sim/barrier.py``).

- ``PipeBarrier``: ``pl.system.bar_v`` / ``bar_m`` / ``bar_all`` (PTO's ``pipe_barrier``), on its own pipe (PIPE_ALL:
  the scalar pipe). ``pl.system.sync_src`` / ``sync_dst`` lower to ``SetFlag`` / ``WaitFlag`` marked ``user``: the
  kernel's own EVENT_IDn, kept apart from the events ``sync.insert_syncs`` numbers (see ``ops/pipe_sync_ops.py``).
``check_barrier_occupancy`` is PyPTO's ``HardSyncallOccupancyValid`` verifier: a kernel whose launch size is known at
compile time and that holds a hard barrier must occupy every core of the barrier's type, and no barrier may be
launched on more blocks than there are cores for them (the blocks past the cores would wait for a core that never
frees: the device deadlocks, error 507018).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call, Var
from tilefold.targets import Pipe
from tilefold.targets.system import MISSING_PIPES, PIPE_TYPE_PIPES, default_core_type, launch_problem

from .cross_core import LaneRegion
from .pto import Instr, SConst, SetFlag, SExpr, WaitFlag


class BarrierOccupancyError(TilefoldError):
    """A barrier launched on a block count the device cannot complete it at (it would deadlock)."""


class PipeSyncError(TilefoldError):
    """A pipe synchronisation naming a pipe the kernel's core does not have."""


@dataclass(frozen=True)
class SyncAll(Instr):
    mode: str
    core_type: str
    used_cores: int | None = None
    workspace: str | None = None

    def text(self) -> str:
        extra = f", used_cores {self.used_cores}, workspace @{self.workspace}" if self.mode == "soft" else ""
        return f"syncall {self.mode}, {self.core_type}{extra}"


@dataclass(frozen=True)
class GmFence(Instr):
    def text(self) -> str:
        return "fence gm"


@dataclass(frozen=True)
class CacheInvalid(Instr):
    tensor: str | None = None
    offsets: tuple[SExpr, ...] = ()

    def text(self) -> str:
        if self.tensor is None:
            return "cacheinvalid gm"
        return f"cacheinvalid @{self.tensor}[{', '.join(str(o) for o in self.offsets)}]"


@dataclass(frozen=True)
class PipeBarrier(Instr):
    """``pipe_barrier(PIPE_x)`` (``pl.system.bar_v`` / ``bar_m`` / ``bar_all``): ``pipe`` a ``Pipe`` value, or
    "ALL": the later instructions of the pipe (of every pipe) start once its (their) earlier ones have finished."""

    pipe: str

    def text(self) -> str:
        return f"pipe_barrier {self.pipe}"

    def pipe_on(self, space_of: Any, target: Any) -> Pipe:
        """The pipe it is queued on (``sync.instruction_pipe``): its own, the scalar pipe for PIPE_ALL."""
        return Pipe.S if self.pipe == "ALL" else Pipe(self.pipe)


def _pipe_of(gen: Any, call: Call, pipe_type: str) -> Pipe:
    """The simulated pipe of ``pl.PipeType.<pipe_type>`` in ``gen``'s kernel; a pipe its core does not have is a
    located error."""
    lane = gen.__dict__.get("lane_region", False)
    kind = "AIV" if lane else gen.fn.func_type.value
    if pipe_type in MISSING_PIPES.get(kind, ()):
        core = "a vector core (AIV) has no cube, MTE1 or fixpipe" if kind == "AIV" else \
            "a cube core (AIC) has no vector unit"
        where = f"a pl.split_aiv region of kernel @{gen.fn.name}" if lane else f"{kind} kernel @{gen.fn.name}"
        raise PipeSyncError(f"pl.{call.op_name} in {where}: pipe {pipe_type} does not exist "
                            f"there ({core})", span=call.span if call.span.line else None,
                            hint="synchronise the pipes the kernel's core runs (AIV: S, V, MTE2, MTE3; AIC: S, "
                                 "M, MTE1, MTE2, MTE3, FIX)")
    return PIPE_TYPE_PIPES[pipe_type]


def lower_pipe_sync(gen: Any, call: Call, op: Any, out: list[Instr]) -> None:
    """``system.sync_src`` / ``sync_dst`` -> a kernel-written ``SetFlag`` / ``WaitFlag``; ``bar_v`` / ``bar_m`` /
    ``bar_all`` -> ``PipeBarrier``."""
    span = call.span if call.span.line else None
    if op.extra["system"] == "pipe_barrier":
        which = op.extra["pipe"]
        out.append(PipeBarrier("ALL" if which == "ALL" else _pipe_of(gen, call, which).value, span=span))
        return
    src = _pipe_of(gen, call, call.kwarg("set_pipe").name).value
    dst = _pipe_of(gen, call, call.kwarg("wait_pipe").name).value
    cls = SetFlag if op.name == "system.sync_src" else WaitFlag
    out.append(cls(src, dst, int(call.kwarg("event_id")), user=True, span=span))


def lower_system_op(gen: Any, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
    """``system.syncall`` / ``fence`` / ``cacheinvalid`` and the pipe syncs -> their instruction (``gen``: a
    FunctionCodegen)."""
    span = call.span if call.span.line else None
    what = op.extra["system"]
    if what in ("pipe_event", "pipe_barrier"):
        lower_pipe_sync(gen, call, op, out)
    elif what == "fence":
        out.append(GmFence(span=span))
    elif what == "cacheinvalid":
        if call.args:
            tensor = gen.tensor(call.args[0])
            rank = getattr(call.args[0].type, "rank", 0)
            offsets = (tuple(gen.sexpr(e) for e in call.args[1].elements) if len(call.args) > 1
                       else tuple(SConst(0) for _ in range(rank)))
            out.append(CacheInvalid(tensor, offsets, span=span))
        else:
            out.append(CacheInvalid(span=span))
    else:
        core_type = call.kwarg("core_type") or default_core_type(gen.fn.func_type.value)
        ws = gen.tensor(call.args[0]) if call.args else None
        used = call.kwarg("used_cores")
        out.append(SyncAll(str(call.kwarg("mode") or "hard"), str(core_type),
                           int(used) if used is not None else None, ws, span=span))
    return ()


def barriers(body: tuple[Instr, ...]) -> Iterator[SyncAll]:
    """Every ``SyncAll`` of a kernel body, at any depth."""
    for ins in body:
        if type(ins) is SyncAll:
            yield ins
        for sub in (getattr(ins, "body", None), getattr(ins, "then_body", None), getattr(ins, "else_body", None)):
            if sub:
                yield from barriers(sub)


def occupancy_problem(ins: SyncAll, block_dim: int, target: Any) -> str | None:
    """Why a launch of ``block_dim`` blocks cannot complete barrier ``ins`` on ``target`` (None: it can)."""
    return launch_problem(ins.mode, ins.core_type, ins.used_cores, block_dim, target, f"`{ins.text()}`")


_HINT = ("size the launch from the device, inline: pl.spmd(pl.system.available_aiv_count()) for an aiv_only "
         "barrier, pl.spmd(pl.system.available_cluster_count()) for mix / aic_only; at partial occupancy use "
         'pl.system.syncall(mode="soft", gm_workspace=ws, used_cores=n) with n the participating cores')


def _region_barrier(body: tuple[Instr, ...]) -> SyncAll | None:
    """The first barrier inside a ``pl.split_aiv`` region of ``body``, at any depth (None: there is none)."""
    for ins in body:
        if type(ins) is LaneRegion:
            found = next(barriers(ins.body), None)
            if found is not None:
                return found
        for sub in (getattr(ins, "body", None), getattr(ins, "then_body", None), getattr(ins, "else_body", None)):
            if sub and type(ins) is not LaneRegion and (found := _region_barrier(sub)) is not None:
                return found
    return None


def check_barriers_outside_regions(kernel: Any) -> None:
    """A barrier belongs to the kernel level, outside every ``pl.split_aiv`` region (PyPTO's language/04: "Cube ops
    and barriers stay outside"): one inside a region is refused at compile time, before any launch-size check
    could misread the region's lanes as a partial launch."""
    ins = _region_barrier(kernel.body)
    if ins is not None:
        raise BarrierOccupancyError(f"kernel @{kernel.name}: `{ins.text()}` inside a pl.split_aiv region: a barrier "
                                    "runs at the kernel level", span=ins.span,
                                    hint="put the barrier outside every region, between two regions")


def check_barrier_occupancy(kernel: Any, block_dim: int, target: Any) -> None:
    """Raise ``BarrierOccupancyError`` when a launch of ``kernel`` (a PTOKernel) on ``block_dim`` blocks cannot
    complete one of its barriers (compile time: the launch size is the kernel's own ``pl.spmd`` count)."""
    for ins in barriers(kernel.body):
        why = occupancy_problem(ins, block_dim, target)
        if why is not None:
            raise BarrierOccupancyError(f"kernel @{kernel.name}: {why}: the device deadlocks (error 507018)",
                                        span=ins.span, hint=_HINT)


__all__ = ["BarrierOccupancyError", "CacheInvalid", "GmFence", "PipeBarrier", "PipeSyncError", "SyncAll", "barriers",
           "check_barrier_occupancy", "check_barriers_outside_regions", "lower_pipe_sync", "lower_system_op",
           "occupancy_problem"]
