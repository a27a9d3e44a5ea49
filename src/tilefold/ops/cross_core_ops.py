"""The explicit cube <-> vector boundary of a mixed kernel: ``pl.aiv_shard`` / ``pl.aic_gather`` inside a
``for aiv_id in pl.split_aiv(2, mode=...)`` region (PyPTO's language/04-scopes, "Name every tile that crosses a
region edge"; dev/10, "AIV-split boundary lowering").

- ``tile.aiv_shard(x, split=s)``: a cube tile (Acc or Mat) read on a vector lane. ``split`` is PyPTO's encoding:
  0 = ``NONE`` (each lane receives the whole tile), 1 = ``UP_DOWN`` (lane ``k`` receives rows
  ``[k*R/2, (k+1)*R/2)``), 2 = ``LEFT_RIGHT`` (columns). The result lives in the lane's Vec.
- ``tile.aic_gather(v, split=s)``: a lane's Vec tile handed to the cube (Mat). With a split, each lane holds one
  half and the cube receives both halves joined (the result has twice the split extent); with ``NONE`` both
  lanes push the whole tile into one slot, which is well defined only when the two lanes agree (the simulator
  and the golden interpreter report a disagreement instead of picking one).

Both ops depend on the lane that runs them, so their values are computed by the region's executor (golden's
``golden/lanes.py``, the simulator's ``sim/lanes.py``) from the helpers below; the registry declares their
types, memories and that they are cross-core transfers (``OpKind.CROSS_CORE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import Expr
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType, Type
from tilefold.ops.registry import MemoryRule, MemoryRuleKind, OpDef, OpKind, Param, ParamKind, Unit, register_op

SPLIT_NONE, SPLIT_UP_DOWN, SPLIT_LEFT_RIGHT = 0, 1, 2
#: ``pl.SplitMode`` member name -> PyPTO's integer split encoding
SPLIT_OF_MODE = {"NONE": SPLIT_NONE, "UP_DOWN": SPLIT_UP_DOWN, "LEFT_RIGHT": SPLIT_LEFT_RIGHT}
MODE_OF_SPLIT = {v: k for k, v in SPLIT_OF_MODE.items()}
LANES = 2  # AIV sub-blocks of one cluster (DESIGN: 1 AIC + 2 AIV)

BOUNDARY_OPS = ("tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather")
#: the ``ForStmt`` attribute that makes a loop over ``range(0, 2)`` a pl.split_aiv region (value: its split)
SPLIT_AIV_ATTR = "split_aiv"


def region_split(s: Any) -> int | None:
    """The split of a statement that is a pl.split_aiv region (a ``ForStmt`` with ``SPLIT_AIV_ATTR``), else None."""
    attrs = getattr(s, "attrs", None)
    if attrs and hasattr(s, "loop_var"):
        for k, v in attrs:
            if k == SPLIT_AIV_ATTR:
                return int(v)
    return None


def _split(op: str, attrs: dict[str, Any]) -> int:
    s = attrs.get("split", SPLIT_NONE)
    if isinstance(s, bool) or s not in MODE_OF_SPLIT:
        raise TypeInferenceError(f"{op}: split={s!r} is not a split mode",
                                 hint="split=0 (NONE), 1 (UP_DOWN, rows) or 2 (LEFT_RIGHT, columns); inside a "
                                      "pl.split_aiv region the parser fills it in from the region's mode")
    return int(s)


def _static_2d(op: str, t: TileType) -> tuple[int, int]:
    shape = t.static_shape
    if shape is None or len(shape) != 2:
        raise TypeInferenceError(f"{op}: the operand must be a 2-D tile of static shape, got {t}",
                                 hint="reshape it to 2-D (pl.tile.reshape) before it crosses the boundary")
    if t.tile_view is not None and t.tile_view.valid_shape is not None \
            and tuple(t.tile_view.valid_shape) != tuple(t.shape):
        raise TypeInferenceError(f"{op}: a partial tile (valid shape smaller than its shape) cannot cross the "
                                 "cube/vector boundary", hint="fill its padding first (pl.tile.fillpad)")
    return int(shape[0]), int(shape[1])


def _infer_shard(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    op = "tile.aiv_shard"
    split = _split(op, attrs)
    src: TileType = args[0].type
    rows, cols = _static_2d(op, src)
    axis_len = (rows, cols)[split - 1] if split else 2
    if axis_len % 2:
        raise TypeInferenceError(f"{op}: {MODE_OF_SPLIT[split]} halves the {'rows' if split == 1 else 'columns'} "
                                 f"of the [{rows}, {cols}] tile between the two AIV lanes, but {axis_len} is odd",
                                 hint="use a tile with an even extent on the split axis, or mode=pl.SplitMode.NONE")
    shape = (rows // 2, cols) if split == SPLIT_UP_DOWN else (rows, cols // 2) if split == SPLIT_LEFT_RIGHT \
        else (rows, cols)
    return TileType(make_shape(shape), src.dtype, MemorySpace.Vec)


def _infer_gather(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    op = "tile.aic_gather"
    split = _split(op, attrs)
    src: TileType = args[0].type
    rows, cols = _static_2d(op, src)
    shape = (rows * 2, cols) if split == SPLIT_UP_DOWN else (rows, cols * 2) if split == SPLIT_LEFT_RIGHT \
        else (rows, cols)
    return TileType(make_shape(shape), src.dtype, MemorySpace.Mat)


def lane_window(shape: tuple[int, int], split: int, lane: int) -> tuple[int, int, int, int]:
    """(row, col, rows, cols) of lane ``lane``'s part of a whole tile of ``shape`` (the whole tile for NONE)."""
    rows, cols = shape
    if split == SPLIT_UP_DOWN:
        return lane * rows // 2, 0, rows // 2, cols
    if split == SPLIT_LEFT_RIGHT:
        return 0, lane * cols // 2, rows, cols // 2
    return 0, 0, rows, cols


def shard_value(whole: np.ndarray, split: int, lane: int) -> np.ndarray:
    """What lane ``lane`` receives of the cube tile ``whole``."""
    r, c, nr, nc = lane_window(whole.shape, split, lane)
    return np.array(whole[r:r + nr, c:c + nc], copy=True)


def join_lanes(parts: Sequence[np.ndarray], split: int) -> np.ndarray:
    """The cube's tile made of the lanes' pushed ``parts`` (lane order). With NONE both lanes push the whole tile
    into one slot: the caller checks they agree (``lanes_disagree``)."""
    if split == SPLIT_UP_DOWN:
        return np.concatenate(parts, axis=0)
    if split == SPLIT_LEFT_RIGHT:
        return np.concatenate(parts, axis=1)
    return np.array(parts[0], copy=True)


def lanes_disagree(parts: Sequence[np.ndarray]) -> tuple[int, int] | None:
    """The first element where the lanes' no-split pushes differ (NaN equals NaN), else None."""
    a, b = np.asarray(parts[0]), np.asarray(parts[1])
    same = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else (a == b)
    if bool(np.all(same)):
        return None
    idx = np.argwhere(~same)[0]
    return int(idx[0]), int(idx[1])


_T = ParamKind.TILE
_A = ParamKind.ATTR
_CUBE_SIDE = (MemorySpace.Acc,)  # the cube hands a lane its results from L0C (no chip has Mat -> Vec or Mat -> GM)

register_op(OpDef(
    "tile.aiv_shard",
    (Param("tile", _T, memory=_CUBE_SIDE, rank=2, hint="a cube result (Acc) produced outside the pl.split_aiv region"),
     Param("split", _A, default=SPLIT_NONE, required=False)),
    _infer_shard, OpKind.CROSS_CORE, Unit.DMA, MemoryRule(MemoryRuleKind.FIXED, MemorySpace.Vec),
    not_inplace_safe=True, golden=None, pto="tpop_from_aic", cost="cross_core",
    extra={"direction": "c2v", "lane_dependent": True},
))
register_op(OpDef(
    "tile.aic_gather",
    (Param("tile", _T, memory=(MemorySpace.Vec,), rank=2, hint="a Vec tile computed inside the pl.split_aiv region"),
     Param("split", _A, default=SPLIT_NONE, required=False)),
    _infer_gather, OpKind.CROSS_CORE, Unit.DMA, MemoryRule(MemoryRuleKind.FIXED, MemorySpace.Mat),
    not_inplace_safe=True, golden=None, pto="tpush_to_aic", cost="cross_core",
    extra={"direction": "v2c", "lane_dependent": True},
))



# ------------------------------------------------------------------------------------------------
# the explicit pipe operators (PyPTO's TPUSH / TPOP protocol, dev/00-python_syntax "Cross-core operations"):
# the cube side of a mixed kernel pushes before a region and pops after it, a lane pops / pushes inside one; a
# pop's tile type is the matching push's (by direction and id), filled in by the parser as shape= / dtype=
# ------------------------------------------------------------------------------------------------

#: op name -> (direction of its pipe, the side that runs it: "cube" outside every region, "lane" inside one)
PIPE_OPS = {
    "tile.tpush_to_aiv": ("c2v", "cube"), "tile.tpop_from_aic": ("c2v", "lane"), "tile.tfree_to_aic": ("c2v", "lane"),
    "tile.tpush_to_aic": ("v2c", "lane"), "tile.tpop_from_aiv": ("v2c", "cube"), "tile.tfree_to_aiv": ("v2c", "cube"),
}
_TOKEN = ScalarType(DataType.INDEX)  # what a push / free gives: nothing to use (a statement)


def _pipe_id(op: str, attrs: dict[str, Any]) -> int:
    pid = attrs.get("id", 0)
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 0:
        raise TypeInferenceError(f"{op}: id={pid!r} is not a pipe id", hint="id= is a non-negative integer constant")
    return pid


def _infer_push(op: str):
    def infer(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
        _split(op, attrs)
        _pipe_id(op, attrs)
        _static_2d(op, args[0].type)
        return _TOKEN

    return infer


def _infer_pop(op: str, space: MemorySpace):
    def infer(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
        _split(op, attrs)
        _pipe_id(op, attrs)
        shape, dtype = attrs.get("shape"), attrs.get("dtype")
        if shape is None or dtype is None:
            raise TypeInferenceError(f"{op}: the popped tile's shape and dtype are unknown",
                                     hint="push to the same pipe id earlier in the kernel (the pop takes the push's "
                                          "type), or give shape=[rows, cols] and dtype=pl.<DTYPE>")
        return TileType(make_shape(tuple(shape)), dtype, space)

    return infer


def _infer_free(op: str):
    def infer(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
        _pipe_id(op, attrs)
        return _TOKEN

    return infer


def popped_shape(pushed: tuple[int, int], direction: str, split: int) -> tuple[int, int]:
    """The shape a pop of ``direction`` / ``split`` receives of a pushed tile of shape ``pushed``."""
    rows, cols = pushed
    if direction == "c2v":
        return (rows // 2, cols) if split == SPLIT_UP_DOWN else (rows, cols // 2) if split == SPLIT_LEFT_RIGHT \
            else (rows, cols)
    return (rows * 2, cols) if split == SPLIT_UP_DOWN else (rows, cols * 2) if split == SPLIT_LEFT_RIGHT \
        else (rows, cols)


_SPLIT_P = Param("split", _A, default=SPLIT_NONE, required=False)
_ID_P = Param("id", _A, default=0, required=False)
for _push, _mem in (("tile.tpush_to_aiv", _CUBE_SIDE), ("tile.tpush_to_aic", (MemorySpace.Vec,))):
    register_op(OpDef(_push, (Param("tile", _T, memory=_mem, rank=2), _SPLIT_P, _ID_P), _infer_push(_push),
                      OpKind.CROSS_CORE, Unit.DMA, MemoryRule(MemoryRuleKind.NONE), golden=None, pto=_push[5:],
                      cost="cross_core", extra={"direction": PIPE_OPS[_push][0], "pipe_op": True}))
for _pop, _space in (("tile.tpop_from_aic", MemorySpace.Vec), ("tile.tpop_from_aiv", MemorySpace.Mat)):
    register_op(OpDef(_pop, (_SPLIT_P, _ID_P, Param("shape", _A, required=False), Param("dtype", _A, required=False)),
                      _infer_pop(_pop, _space), OpKind.CROSS_CORE, Unit.DMA,
                      MemoryRule(MemoryRuleKind.FIXED, _space), golden=None, pto=_pop[5:], cost="cross_core",
                      extra={"direction": PIPE_OPS[_pop][0], "pipe_op": True}))
for _free in ("tile.tfree_to_aic", "tile.tfree_to_aiv"):
    register_op(OpDef(_free, (Param("tile", _T, rank=2), _ID_P), _infer_free(_free), OpKind.CROSS_CORE, Unit.SCALAR,
                      MemoryRule(MemoryRuleKind.NONE), golden=None, pto=_free[5:], cost="scalar",
                      extra={"direction": PIPE_OPS[_free][0], "pipe_op": True}))


def _tensor_form(tile_infer):
    """The tensor-level form's type: the tile op's shape on a tensor (``@pl.jit`` kernels, lowered 1:1 by
    ConvertTensorToTileOps, PyPTO's dev/10 "AIV-split boundary lowering")."""

    def infer(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
        src = args[0].type
        if isinstance(src, TileType):
            return tile_infer(args, attrs)
        probe = TileType(src.shape, src.dtype, MemorySpace.Acc)
        shape = tile_infer([_Typed(probe)], attrs).shape
        return TensorType(shape, src.dtype)

    return infer


class _Typed:
    def __init__(self, t: Type) -> None:
        self.type = t


for _name, _infer, _dir in (("aiv_shard", _infer_shard, "c2v"), ("aic_gather", _infer_gather, "v2c")):
    register_op(OpDef(
        f"tensor.{_name}", (Param("tensor", ParamKind.TILE_OR_TENSOR, rank=2), Param("split", _A, default=SPLIT_NONE,
                                                                                       required=False)),
        _tensor_form(_infer), OpKind.CROSS_CORE, Unit.NONE, MemoryRule(MemoryRuleKind.NONE), golden=None,
        cost="none", extra={"tile_op": f"tile.{_name}", "direction": _dir, "lane_dependent": True},
    ))


__all__ = ["BOUNDARY_OPS", "LANES", "MODE_OF_SPLIT", "PIPE_OPS", "SPLIT_AIV_ATTR", "SPLIT_LEFT_RIGHT", "SPLIT_NONE",
           "SPLIT_OF_MODE", "SPLIT_UP_DOWN", "join_lanes", "lane_window", "lanes_disagree", "popped_shape",
           "region_split", "shard_value"]
