"""PyPTO's multi-block system ops (``pl.system.*``): device geometry, the in-kernel barrier, GM fence and cache
maintenance (PyPTO's language/04 "Cross-lane ordering is yours too", performance/02 "Synchronize inside the kernel").

- ``system.available_aiv_count()`` / ``system.available_cluster_count()``: the target's AIV / cluster count, an
  INDEX scalar (``targets/system.py``); written inline as the ``pl.spmd`` count they size the launch.
- ``system.syncall(mode="hard", core_type=..., gm_workspace=..., used_cores=...)``: a barrier across every
  participating block of the launch. ``hard`` (FFTS) needs full occupancy; ``soft`` polls a GM counter in
  ``gm_workspace`` (an exclusive, zero-initialised INT32 tensor of at least 16 elements) and counts
  ``used_cores`` arrivals. Both only align arrival.
- ``system.fence()``: waits until every GM store issued before it is visible in GM.
- ``system.cacheinvalid()`` (whole GM) / ``system.cacheinvalid(tensor[, offsets])``: cache maintenance; the tensor
  form covers only the cache line holding the view's base element (``offsets``, default the tensor's origin).

Each gives a token (an INDEX scalar nothing uses: the call is a statement). Golden: the barrier orders the blocks'
phases (``golden/phases.py``); fence and cache maintenance change no value. The simulator orders the phases, prices
them and reports a cross-block handoff that skips the publish / fence / invalidate sequence (``sim/barrier.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt, Expr
from tilefold.ir.types import DataType, ScalarType, TensorType, Type
from tilefold.ops.registry import MemoryRule, MemoryRuleKind, OpDef, OpKind, Param, ParamKind, Unit, register_op
from tilefold.targets.system import CORE_TYPES, MODES, QUERIES

_INDEX = ScalarType(DataType.INDEX)
_TOKEN = _INDEX  # what a barrier / fence / invalidation gives: nothing to use (a statement)
_A = ParamKind.ATTR
#: the smallest soft-barrier workspace (PyPTO: "an exclusive zero-initialized 16-element INT32 GM tensor")
WORKSPACE_ELEMENTS = 16

for _query in QUERIES:
    register_op(OpDef(
        f"system.{_query}", (), lambda a, k: _INDEX, OpKind.INDEX, Unit.SCALAR, golden=None, pto=_query,
        cost="scalar", extra={"device_query": _query},
    ))


def _infer_syncall(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    op = "system.syncall"
    mode = attrs.get("mode", "hard")
    if mode not in MODES:
        raise TypeInferenceError(f'{op}: mode={mode!r} is not a barrier mode', hint='mode="hard" or mode="soft"')
    core_type = attrs.get("core_type")
    if core_type is not None and core_type not in CORE_TYPES:
        raise TypeInferenceError(f"{op}: core_type={core_type!r} is not a core type",
                                 hint="core_type= is one of " + ", ".join(f'"{c}"' for c in CORE_TYPES))
    used = attrs.get("used_cores")
    ws = args[0].type if args else None
    if mode == "hard":
        if ws is not None or used is not None:
            raise TypeInferenceError(f"{op}: a hard (FFTS) barrier takes no gm_workspace= / used_cores=",
                                     hint='pass mode="soft" to count used_cores arrivals in a GM workspace')
        return _TOKEN
    if ws is None or used is None:
        raise TypeInferenceError(f"{op}: a soft barrier needs gm_workspace= and used_cores=",
                                 hint='pl.system.syncall(mode="soft", core_type="mix", gm_workspace=ws, used_cores=n)')
    if isinstance(used, bool) or not isinstance(used, int) or used < 1:
        raise TypeInferenceError(f"{op}: used_cores={used!r} is not a positive number of cores",
                                 hint="used_cores= is the count of participating cores, a compile-time integer")
    shape = ws.static_shape if isinstance(ws, TensorType) else None
    if not isinstance(ws, TensorType) or ws.dtype is not DataType.INT32 or shape is None \
            or _elements(shape) < WORKSPACE_ELEMENTS:
        raise TypeInferenceError(f"{op}: gm_workspace must be a GM tensor of at least {WORKSPACE_ELEMENTS} INT32 "
                                 f"elements, got {_describe(ws)}",
                                 hint="pass an exclusive, zero-initialised "
                                      f"pl.Tensor[[{WORKSPACE_ELEMENTS}], pl.INT32]")
    return _TOKEN


def _elements(shape: tuple[int, ...]) -> int:
    n = 1
    for e in shape:
        n *= e
    return n


def _describe(t: Any) -> str:
    from tilefold.ops.operand_checks import describe

    return describe(t)


def _infer_cacheinvalid(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    if len(args) > 1:
        t = args[0].type
        offs = getattr(args[1], "elements", None)
        if offs is None:
            raise TypeInferenceError("system.cacheinvalid: the offsets must be a list, one per tensor axis",
                                     hint="give one offset per tensor axis, e.g. [r, 0], or none (the tensor's "
                                          "first element)")
        if isinstance(t, TensorType) and len(offs) != t.rank:
            raise TypeInferenceError(f"system.cacheinvalid: {len(offs)} offsets for a rank-{t.rank} tensor",
                                     hint="give one offset per tensor axis, or none (the tensor's first element)")
        shape = t.static_shape if isinstance(t, TensorType) else None
        for axis, (o, n) in enumerate(zip(offs or (), shape or (), strict=False)):
            if isinstance(o, ConstInt) and not 0 <= o.value < n:  # the line of an element outside the tensor
                raise TypeInferenceError(f"system.cacheinvalid: offset {o.value} on axis {axis} is outside the "
                                         f"tensor's extent {n}",
                                         hint="name an element of the tensor: its cache line is the one invalidated")
    return _TOKEN


register_op(OpDef(
    "system.syncall",
    (Param("gm_workspace", ParamKind.TENSOR, required=False, rank=None),
     Param("mode", _A, default="hard", required=False), Param("core_type", _A, required=False),
     Param("used_cores", _A, required=False)),
    _infer_syncall, OpKind.SYSTEM, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE), golden=None, pto="syncall",
    cost="barrier", min_args=0, extra={"system": "barrier"},
))
register_op(OpDef(
    "system.fence", (), lambda a, k: _TOKEN, OpKind.SYSTEM, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE),
    golden=None, pto="fence", cost="barrier", extra={"system": "fence"},
))
register_op(OpDef(
    "system.cacheinvalid",
    (Param("tensor", ParamKind.TENSOR, required=False), Param("offsets", ParamKind.TUPLE, required=False)),
    _infer_cacheinvalid, OpKind.SYSTEM, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE), golden=None,
    pto="cacheinvalid", cost="barrier", min_args=0, extra={"system": "cacheinvalid"},
))


def is_barrier(op: Any) -> bool:
    """Is ``op`` (an OpDef) ``system.syncall``?"""
    return op is not None and op.extra.get("system") == "barrier"


__all__ = ["WORKSPACE_ELEMENTS", "is_barrier"]
