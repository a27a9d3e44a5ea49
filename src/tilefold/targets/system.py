"""Chip facts of PyPTO's multi-block system ops (``pl.system.*``): device geometry and the barrier's price.

- ``available_count(target, query)``: what ``pl.system.available_aiv_count()`` (every AIV core of the chip) and
  ``pl.system.available_cluster_count()`` (every cluster: one AIC and its ``aiv_per_aic`` AIVs) return. They are
  the only spellings of a launch size that stay at full occupancy across chips (PyPTO's performance/02).
- ``full_occupancy(target, core_type)``: the block count a hard (FFTS) ``syncall`` of ``core_type`` needs; a
  partial or over launch deadlocks the device (error 507018, PyPTO's ``HardSyncallOccupancyValid``).
- ``participants(block_dim, core_type, target)``: the number of cores a soft ``syncall`` counts (its
  ``used_cores``): one per block for ``aiv_only`` / ``aic_only``, the whole cluster (1 AIC + its AIVs) per block
  for ``mix`` (PyPTO's language/04: "the total number of participating AIC and AIV cores").
- ``PIPE_TYPE_PIPES``, ``EVENT_IDS``, ``MISSING_PIPES``, ``pipe_sync_costs(target)``: the facts of the pipe
  synchronisation ops (``pl.system.sync_src`` / ``sync_dst`` / ``bar_*``, below; their prices assumed too).
- ``barrier_costs(target)``: the cycles of the barrier, the fence and the cache maintenance. PyPTO's documents give
  no figure for any of them (performance/02 only says a syncall replaces an AICPU round trip between two tasks),
  so every number here is **assumed** and says so; the soft barrier is priced from the measured GM latency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .chips import Pipe

#: the device-geometry queries, by op base name -> which cores they count
QUERIES = {"available_aiv_count": "aiv", "available_cluster_count": "cluster"}

#: ``core_type=`` of ``pl.system.syncall``: which cores take part
CORE_TYPES = ("aiv_only", "aic_only", "mix")

#: the barrier modes: "hard" (FFTS, full occupancy) and "soft" (a GM-polled counter, any occupancy)
MODES = ("hard", "soft")


def available_count(target: Any, query: str) -> int:
    """The value of ``pl.system.<query>()`` on ``target`` (``query``: a key of ``QUERIES``)."""
    which = QUERIES[query]
    return int(target.num_aiv if which == "aiv" else target.num_aic)


def resolve_block_dim(value: Any, target: Any) -> int:
    """A launch size as recorded in a function's ``block_dim`` attribute: an int, or the name of a device
    query (``"available_aiv_count"``) written as the ``pl.spmd`` count, resolved on ``target``."""
    if isinstance(value, str):
        return available_count(target, value)
    return int(value)


def full_occupancy(target: Any, core_type: str) -> int:
    """The number of blocks that occupies every core of ``core_type``: all AIVs for ``aiv_only``, all clusters
    (one AIC each) for ``aic_only`` and ``mix``."""
    return int(target.num_aiv if core_type == "aiv_only" else target.num_aic)


def participants(block_dim: int, core_type: str, target: Any) -> int:
    """The cores a barrier of ``core_type`` counts in a launch of ``block_dim`` blocks."""
    return block_dim * (1 + target.aiv_per_aic) if core_type == "mix" else block_dim


def launch_problem(mode: str, core_type: str, used_cores: int | None, block_dim: int, target: Any,
                   what: str) -> str | None:
    """Why a launch of ``block_dim`` blocks cannot complete the barrier ``what`` (its ``mode``, ``core_type``,
    ``used_cores``) on ``target``: the device would deadlock (error 507018), or the barrier would order nothing.
    None when it can (PyPTO's ``HardSyncallOccupancyValid``, and the soft barrier's count)."""
    full = full_occupancy(target, core_type)
    cores = "AIV cores" if core_type == "aiv_only" else "clusters"
    if block_dim > full:
        return (f"{what} in a launch of {block_dim} blocks: {target.name} has {full} {cores}, so the blocks past "
                "them wait for a core that the blocks at the barrier never free (an over launch)")
    if mode == "hard" and block_dim != full:
        return (f"the hard (FFTS) barrier {what} in a launch of {block_dim} blocks: it waits for all {full} {cores} of "
                f"{target.name}, and only {block_dim} run the kernel (a partial launch)")
    if mode == "soft" and used_cores is not None:
        want = participants(block_dim, core_type, target)
        if used_cores > want:
            return (f"the soft barrier {what} counts {used_cores} arrivals, and a launch of {block_dim} blocks has "
                    f"{want} {core_type} participants: the count is never reached")
        if used_cores < want:
            return (f"the soft barrier {what} counts {used_cores} arrivals, and a launch of {block_dim} blocks has "
                    f"{want} {core_type} participants: it releases before every block arrived, which orders nothing")
    return None


def default_core_type(func_type: str) -> str:
    """``core_type`` of a syncall that does not name one: the cores its kernel runs on."""
    return {"AIV": "aiv_only", "AIC": "aic_only"}.get(func_type, "mix")


@dataclass(frozen=True)
class BarrierCosts:
    """Cycles of the multi-block system ops on one target (all assumed: see the module docstring)."""

    hard: float  # an FFTS barrier: from the last arrival to every core's release
    soft_polls: float  # GM round trips of a soft barrier (atomic increment, then the poll that sees the count)
    soft_per_core: float  # the atomic increments of one counter serialise: cycles per participant
    fence: float  # a GM fence once every store issued before it has landed
    invalidate_all: float  # a whole-GM cache invalidation (cacheinvalid())
    invalidate_line: float  # a one-cache-line invalidation (cacheinvalid(tensor))
    cache_line_bytes: int  # what cacheinvalid(tensor) covers: the line holding the view's base address
    source: str


_ASSUMED = ("assumed: PyPTO's documents (performance/02, language/04) give no cycle figure for syncall, fence or "
            "cacheinvalid; the FFTS barrier is taken as a hardware signal round trip (~0.3 us at 1.8 GHz), the soft "
            "barrier as two GM round trips plus one serialised atomic per participant, the cache line as 64 bytes")

_COSTS = BarrierCosts(hard=600.0, soft_polls=2.0, soft_per_core=16.0, fence=64.0, invalidate_all=256.0,
                      invalidate_line=32.0, cache_line_bytes=64, source=_ASSUMED)


def barrier_costs(target: Any) -> BarrierCosts:
    """The barrier prices of ``target`` (one assumed table for every chip today)."""
    return _COSTS


def soft_barrier_cycles(target: Any, used_cores: int) -> float:
    """A soft barrier: ``soft_polls`` GM round trips (the measured GM latency) and one serialised atomic per
    participant."""
    c = barrier_costs(target)
    gm_latency = target.path_cost(_ddr(), _vec()).latency
    return c.soft_polls * 2 * gm_latency + c.soft_per_core * used_cores


def _ddr() -> Any:
    from tilefold.ir.types import MemorySpace

    return MemorySpace.DDR


def _vec() -> Any:
    from tilefold.ir.types import MemorySpace

    return MemorySpace.Vec


# ------------------------------------------------------------------------------------------------ pipe syncs
# Chip facts of the in-kernel pipe synchronisation ops (pl.system.sync_src / sync_dst / bar_v / bar_m / bar_all,
# ops/pipe_sync_ops.py), keyed by pl.PipeType member name. Sources: HIVM's PIPE enum (PIPE_S, PIPE_V, PIPE_M,
# PIPE_MTE1..3, PIPE_FIX, PIPE_ALL) and EVENT enum (EVENT_ID0 .. EVENT_ID7), reference/ascendnpu-ir/HIVMDialect.md;
# which core runs which pipe: the core-type traits of HIVM's ops on each pipe (VectorCoreTypeTrait ops on PIPE_V,
# CubeCoreTypeTrait ops on PIPE_M / PIPE_MTE1 / PIPE_FIX) in the same page.

#: PTO's pipe name -> the simulated pipe (``Pipe``); ``ALL`` names every pipe and is a barrier's only
PIPE_TYPE_PIPES: dict[str, Pipe] = {"S": Pipe.S, "V": Pipe.VECTOR, "M": Pipe.CUBE, "MTE1": Pipe.MTE1,
                                    "MTE2": Pipe.MTE2, "MTE3": Pipe.MTE3, "FIX": Pipe.FIXPIPE}

#: event ids a set_flag / wait_flag pair can name, per (set pipe, wait pipe): EVENT_ID0 .. EVENT_ID7
EVENT_IDS = 8

#: pipes a kernel of one core type has no instruction on (an AIV core has no cube, an AIC core no vector unit);
#: an InCore kernel runs on a whole core (tilefold's model: every pipe)
MISSING_PIPES: dict[str, frozenset[str]] = {"AIV": frozenset({"M", "MTE1", "FIX"}), "AIC": frozenset({"V"})}


@dataclass(frozen=True)
class PipeSyncCosts:
    """Cycles of the pipe synchronisation instructions (all assumed: see ``_PIPE_SYNC_ASSUMED``)."""

    set_flag: float  # own cycles of a set_flag on its pipe (it fires once the pipe's earlier work has finished)
    wait_flag: float  # own cycles of a wait_flag once its event has fired (the waiting itself is the schedule's)
    pipe_barrier: float  # pipe_barrier(PIPE_V / PIPE_M) once the pipe's earlier work has finished
    barrier_all: float  # pipe_barrier(PIPE_ALL) once every pipe's earlier work has finished
    source: str


_PIPE_SYNC_ASSUMED = ("assumed: no reference gives a cycle figure for set_flag, wait_flag or pipe_barrier "
                      "(HIVMDialect.md and PyPTO's dev/00-python_syntax.md give their syntax only); the events "
                      "cost no pipe time of their own (what they cost is the wait, which the schedule gives, the "
                      "same as for the events codegen inserts), a one-pipe barrier is taken as one issue slot of "
                      "16 cycles and PIPE_ALL as twice that")

_PIPE_SYNC_COSTS = PipeSyncCosts(set_flag=0.0, wait_flag=0.0, pipe_barrier=16.0, barrier_all=32.0,
                                 source=_PIPE_SYNC_ASSUMED)


def pipe_sync_costs(target: Any) -> PipeSyncCosts:
    """The pipe synchronisation prices of ``target`` (one assumed table for every chip today)."""
    return _PIPE_SYNC_COSTS


__all__ = ["CORE_TYPES", "EVENT_IDS", "MISSING_PIPES", "MODES", "PIPE_TYPE_PIPES", "QUERIES", "BarrierCosts",
           "PipeSyncCosts", "available_count", "barrier_costs", "default_core_type", "full_occupancy",
           "launch_problem", "participants", "pipe_sync_costs", "resolve_block_dim", "soft_barrier_cycles"]
