"""Scans and full sorts along one axis (``tile.cumsum``, ``tile.cumprod``, ``tile.sort``; ``ops/scan_ops.py``).

Rule: each line along the op's axis (``axis=``) is computed from that line of the source only, so the half of the
result on the *other* axis is the op applied to the source's half on that axis. A split along the scanned / sorted
axis is refused: every element of a line depends on the elements before it (a scan) or on all of them (a sort),
which lie in the other sub-block's half.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.passes.tile_and_bind_sub_block.common import Refusal

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    along = int(call.kwarg("axis", 1)) % 2
    if axis == along:
        raise Refusal("supported_producer", f"{call.op_name} runs along axis {along}: each element depends on others "
                                            "of its line, which the other half holds", operand=var.name,
                      op=call.op_name)
    return [(call.args[0], axis)]
