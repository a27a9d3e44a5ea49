"""Sort ops: ``tile.sort32`` (each 32-element block of a row sorted) and ``tile.mrgsort`` (groups of four sorted
runs of a row merged).

Rule: every row is sorted on its own, from its own row of the operands only, so the row half of the result is the
op applied to the row halves of its operands (``sort32``: the values and the indices; ``mrgsort``: the
structures). The column axis is refused: a 32-element block (``sort32``) or a group of merged runs
(``mrgsort``) may cross the column halves, and the result's columns are structures, not elements of the source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.types import TileType
from tilefold.passes.tile_and_bind_sub_block.common import Refusal

if TYPE_CHECKING:
    from tilefold.passes.tile_and_bind_sub_block.splitter import Splitter


def demand(sp: Splitter, var: Var, call: Call, axis: int) -> list[tuple[Expr, int]]:
    if axis != 0:
        raise Refusal("supported_producer", f"{call.op_name} sorts along the columns: only its rows are independent",
                      operand=var.name, op=call.op_name)
    return [(a, 0) for a in call.args if isinstance(a.type, TileType)]
