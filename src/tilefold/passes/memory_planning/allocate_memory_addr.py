"""AllocateMemoryAddr: per-space aligned addresses for every MemRef (PyPTO's ``passes.allocate_memory_addr()``).

The storages of every memory space are laid out sequentially, each aligned per the target (Vec / Mat 32 B,
Acc 512 B), and every MemRef is stamped with an absolute address: base address + byte offset when the offset
folds to a constant; a dynamic offset falls back to the bare base address (upstream behaviour: a runtime
offset cannot be encoded as a constant address; this is what makes issue #1640 observable). A space that
overflows raises ``TilefoldError`` naming the function, the space, the bytes needed and the bytes available.
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

    addresses: dict[str, int] = {}
    cursor: dict[MemorySpace, int] = {}
    overflow: dict[MemorySpace, str] = {}  # space -> the first storage that ends past its capacity
    for base, (space, size, _) in sorted(roots.items(), key=lambda kv: kv[1][2]):
        align = target.align(space)
        addr = ceil_to(cursor.get(space, 0), align)
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
            raise TilefoldError(
                f"function '{fn.name}' does not fit in {space.name}: it needs {used} bytes but {target.name} "
                f"has {capacity} bytes available; the first allocation past the end is tile '{var.name}' "
                f"({size} bytes at {space.name} address {addresses[base]})",
                span=span if span.line else None,
                hint="process the data in smaller tiles (e.g. loop over row blocks) or shorten tile lifetimes",
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


__all__ = ["allocate_memory_addr", "allocate_memory_addr_function", "plan_memory"]
