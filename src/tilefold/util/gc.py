"""``no_gc()``: pause Python's cyclic garbage collector for a block (also usable as a decorator).

Parsing, printing and the passes build large acyclic trees (IR nodes, maps from Vars) that reference counting
frees. The collector's full collections, triggered by those allocations, would rescan every live node and
make big inputs super-linear. Nested pauses are fine: only the outermost re-enables the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["no_gc"]
