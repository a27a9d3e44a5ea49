"""AllocateMemoryAddr: per-space aligned addresses for every MemRef (PyPTO's ``passes.allocate_memory_addr()``).

The storages of every memory space are laid out sequentially, each aligned per the target (Vec / Mat 32 B,
Acc 512 B), and every MemRef is stamped with an absolute address: base address + byte offset when the offset
folds to a constant; a dynamic offset falls back to the bare base address (upstream behaviour: a runtime
offset cannot be encoded as a constant address; this is what makes issue #1640 observable). A space that
overflows raises ``TilefoldError`` naming the function, the space, the bytes needed and the bytes available.
Bytes a cross-core pipe's ``pl.reserve_buffer`` holds (``reserved_ranges``) are kept free: tiles are placed around
them, and an overflow names them.
See docs/passes/allocate_memory_addr.md.
"""

from tilefold.analysis.tile_layout import ConstFolder, ceil_to
from tilefold.errors import TilefoldError
from tilefold.ir.expr import (
    Var,
)
from tilefold.ir.stmt import (
    Function,
    Program,
    Stmt,
)
from tilefold.ir.types import MemorySpace, MemRef
from tilefold.ops.pipe_setup import auto_rings, ring_plan
from tilefold.passes.base import IRProperty, Pass, function_pass
from tilefold.passes.memory_planning.memref_common import fast_replace, memref_of, retype, target_of, tile_vars
from tilefold.passes.option_records import AllocateMemoryAddrOptions
from tilefold.passes.options import parse_options
from tilefold.targets import Target


def allocate_memory_addr_function(fn: Function, target: Target) -> Function:
    folder = ConstFolder(fn)
    roots: dict[str, tuple[MemorySpace, int, int]] = {}  # base -> (space, size, first position)
    defined_by: dict[str, tuple[Var, Stmt | None]] = {}  # base -> the first tile (and statement) using it
    tiles = tile_vars(fn)
    entries = [(v, memref_of(v)) for v, _ in tiles]
    for order, (_v, mr) in enumerate(entries):
        if mr is None:
            continue
        defined_by.setdefault(mr.base, tiles[order])
        off = folder.value(mr.byte_offset) if mr.byte_offset is not None else 0
        need = mr.size + (off if off is not None and off > 0 else 0)
        space, size, first = roots.get(mr.base, (mr.memory_space, 0, order))
        roots[mr.base] = (space, max(size, need), first)

    reserved = reserved_ranges(fn, target)
    addresses: dict[str, int] = {}
    cursor: dict[MemorySpace, int] = {}
    overflow: dict[MemorySpace, str] = {}  # space -> the first storage that ends past its capacity
    for base, (space, size, _) in sorted(roots.items(), key=lambda kv: kv[1][2]):
        addr = _free_address(cursor.get(space, 0), size, target.align(space), reserved.get(space, ()))
        addresses[base] = addr
        cursor[space] = addr + size
        if addr + size > target.capacity(space):
            overflow.setdefault(space, base)
    for space, used in cursor.items():
        capacity = target.capacity(space)
        if used > capacity:
            base = overflow[space]
            var, stmt = defined_by[base]
            size = roots[base][1]
            span = stmt.span if stmt is not None and stmt.span.line else var.span if var.span.line else fn.span
            rings = reserved.get(space, ())
            held = (f"; {sum(r[1] - r[0] for r in rings)} bytes of it are reserved for cross-core pipe rings ("
                    + ", ".join(f"{n!r}: {e - b} bytes at {b}" for b, e, n in rings)
                    + "), so tiles are allocated around them") if rings else ""
            raise TilefoldError(
                f"function '{fn.name}' does not fit in {space.name}: it needs {used} bytes but {target.name} "
                f"has {capacity} bytes available; the first allocation past the end is tile '{var.name}' "
                f"({size} bytes at {space.name} address {addresses[base]}){held}",
                span=span if span.line else None,
                hint=("lower the ring's depth (slot_num= of the pipe's initialize calls, or "
                      "optimizations=[pl.cross_core_slot(slot_num=N)] for a pipe without a set-up) or its slot size "
                      "(the tile that crosses), and the reserved size with it, or shrink the tiles" if rings else
                      "process the data in smaller tiles (e.g. loop over row blocks) or shorten tile lifetimes"),
            )

    memrefs: dict[Var, MemRef] = {}
    for v, mr in entries:
        if mr is None:
            continue
        off = folder.value(mr.byte_offset) if mr.byte_offset is not None else 0
        base_addr = addresses[mr.base]
        addr = base_addr + off if off is not None else base_addr  # dynamic offset: bare base address
        memrefs[v] = fast_replace(mr, address=addr)
    return retype(fn, memrefs)


def _free_address(start: int, size: int, align: int, reserved: tuple[tuple[int, int, str], ...]) -> int:
    """The first ``align``-aligned address at or after ``start`` where ``size`` bytes miss every reserved range."""
    addr = ceil_to(start, align)
    moved = True
    while moved:
        moved = False
        for lo, hi, _name in reserved:
            if addr < hi and lo < addr + max(size, 1):
                addr = ceil_to(hi, align)
                moved = True
    return addr


def reserved_ranges(fn: Function, target: Target) -> dict[MemorySpace, tuple[tuple[int, int, str], ...]]:
    """The byte ranges ``[lo, hi)`` (and names) ``pl.reserve_buffer`` holds in each memory of ``fn``
    (``ops/pipe_setup.py``): a ``base=`` reservation where it says, an AUTO one at the lowest free address, before
    any tile; each checked to fit the space, to hold its pipe's ring on ``target``, and not to overlap another."""
    plan = ring_plan(fn)
    out: dict[MemorySpace, list[tuple[int, int, str]]] = {}
    for p in plan.pipes.values():
        r = p.buffer
        if p.ring_bytes(target) > r.size:
            raise TilefoldError(f"pipe {p.direction} id={p.pipe_id}: its ring on {target.name} is "
                                f"{p.local_slots(target)} slots of {p.slot_size} bytes = {p.ring_bytes(target)} "
                                f"bytes, but buffer {r.name!r} has {r.size}", span=p.span,
                                hint="reserve slot_size * slot_num bytes, or lower slot_num / slot_size")
    for fixed in (True, False):
        for r in plan.reservations.values():
            if (r.base is not None) != fixed:
                continue
            taken = tuple(out.get(r.space, ()))
            align = target.align(r.space)
            lo = r.base if fixed else _free_address(0, r.size, align, taken)
            if fixed and lo % align:
                raise TilefoldError(f"buffer {r.name!r}: base={lo} is not {align}-byte aligned in {r.space.name}",
                                    span=r.span, hint=f"use a multiple of {align}, or base=pl.AUTO")
            clash = next((n for a, b, n in taken if lo < b and a < lo + r.size), None)
            if clash is not None:
                raise TilefoldError(f"buffer {r.name!r} ({r.size} bytes at {lo}) overlaps buffer {clash!r}",
                                    span=r.span, hint="move one base=, or let the planner place it (base=pl.AUTO)")
            if lo + r.size > target.capacity(r.space):
                raise TilefoldError(f"buffer {r.name!r} ({r.size} bytes at {r.space.name} address {lo}) does not fit "
                                    f"in {target.name}'s {target.capacity(r.space)} bytes of {r.space.name}",
                                    span=r.span, hint="lower the ring's slot_num / slot_size and the reserved size")
            out.setdefault(r.space, []).append((lo, lo + r.size, r.name))
    _place_auto_rings(fn, plan, target, out)
    return {k: tuple(v) for k, v in out.items()}


def _place_auto_rings(fn: Function, plan, target: Target, out: dict[MemorySpace, list[tuple[int, int, str]]]) -> None:
    """The rings of pipes without a set-up (``ops/pipe_setup.auto_rings``: automatic pl.aiv_shard / pl.aic_gather
    pipes, pushes and pops on a pipe id nothing sets up), each at the lowest free address of its consumer's memory,
    after the ``pl.reserve_buffer`` ones."""
    for ring in auto_rings(fn, plan):
        size = ring.ring_bytes(target)
        taken = tuple(out.get(ring.space, ()))
        lo = _free_address(0, size, target.align(ring.space), taken)
        if lo + size > target.capacity(ring.space):
            raise TilefoldError(f"the {ring.name} does not fit in {ring.space.name}: {ring.slot_num} slots of "
                                f"{ring.slot_size} bytes = {size} bytes at address {lo}, but {target.name} has "
                                f"{target.capacity(ring.space)} bytes of {ring.space.name}", span=ring.span,
                                hint="lower its depth with optimizations=[pl.cross_core_slot(slot_num=N)] on the "
                                     "enclosing pl.at(...) (default 2), or shrink the tile that crosses")
        out.setdefault(ring.space, []).append((lo, lo + size, ring.name))


def allocate_memory_addr(target: str | Target | None = None) -> Pass:
    """AllocateMemoryAddr: sequential, per-space aligned addresses for every MemRef. ``target`` is the field of
    ``AllocateMemoryAddrOptions`` (checked)."""
    tgt = target_of(parse_options(AllocateMemoryAddrOptions, target=target).target)
    return function_pass("AllocateMemoryAddr", lambda fn, program: allocate_memory_addr_function(fn, tgt),
                         produced=(IRProperty.MemRefAllocated,))


def plan_memory(program: Program, target: str | Target | None = None) -> Program:
    """Run the three planning passes directly (without a PassContext)."""
    from tilefold.passes.memory_planning.init_mem_ref import init_mem_ref
    from tilefold.passes.memory_planning.memory_reuse import memory_reuse

    for p in (init_mem_ref(target), memory_reuse(), allocate_memory_addr(target)):
        program = p.run(program)
    return program


__all__ = ["allocate_memory_addr", "allocate_memory_addr_function", "plan_memory", "reserved_ranges"]
