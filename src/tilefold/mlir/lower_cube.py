"""The lowering of an AIC function (``hivm.func_core_type = #hivm.func_core_type<AIC>``, e.g. the cube side of a
mix kernel): :class:`CubeLowering` is ``lower.Lowering`` with cube buffers (``memref.alloc`` in ``cbuf`` / ``ca`` /
``cb`` / ``cc``) as Mat / Left / Right / Acc tiles and the function a ``pl.function(type=AIC)``; the cube ops
themselves (``nd2nz``, ``mmadL1``, ``fixpipe``) are in ``lower_ops.py``."""

from __future__ import annotations

from xdsl.ir import Operation

from tilefold.mlir.lower import Lowering
from tilefold.mlir.lower_ops import cube_alloc


class CubeLowering(Lowering):
    """The lowering of an AIC function (``hivm.func_core_type = #hivm.func_core_type<AIC>``): cube buffers are
    Mat / Left / Right / Acc tiles, the function a ``pl.function(type=AIC)``."""

    function_type = "AIC"

    def _op(self, op: Operation, d: int) -> None:
        if cube_alloc(self, op, d):
            return
        super()._op(op, d)
