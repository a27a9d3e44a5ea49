"""Memory planning: from value-semantics tiles to buffers at addresses.

InitMemRef (``init_mem_ref``: one MemRef per tile, destinations isolated) -> MemoryReuse (``memory_reuse``:
tiles whose live ranges do not overlap share a buffer) -> AllocateMemoryAddr (``allocate_memory_addr``: byte
addresses per memory, aligned as the target demands). ``memref_common`` holds what the three share;
``plan_memory`` runs all three. See docs/passes/init_mem_ref.md, memory_reuse.md, allocate_memory_addr.md.
"""

from tilefold.passes.memory_planning.allocate_memory_addr import allocate_memory_addr, plan_memory
from tilefold.passes.memory_planning.init_mem_ref import init_mem_ref
from tilefold.passes.memory_planning.memory_reuse import memory_reuse

__all__ = ["allocate_memory_addr", "init_mem_ref", "memory_reuse", "plan_memory"]
