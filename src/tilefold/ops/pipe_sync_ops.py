"""PyPTO's in-kernel pipe synchronisation ops (``pl.system.*``, PyPTO's dev/00-python_syntax.md "System
operations"): PTO's ``set_flag`` / ``wait_flag`` events and ``pipe_barrier``.

- ``system.sync_src(set_pipe=, wait_pipe=, event_id=)``: PTO's ``set_flag(set_pipe, wait_pipe, EVENT_IDn)``, queued
  on ``set_pipe``: event ``n`` of the pipe pair fires once everything issued to ``set_pipe`` before it has finished.
- ``system.sync_dst(set_pipe=, wait_pipe=, event_id=)``: PTO's ``wait_flag``, queued on ``wait_pipe``: the pipe's
  later instructions start only once the oldest pending set of the same (set pipe, wait pipe, id) has fired.
- ``system.bar_v()`` / ``bar_m()`` / ``bar_all()``: ``pipe_barrier(PIPE_V / PIPE_M / PIPE_ALL)``: the later
  instructions of the vector pipe / the cube pipe / every pipe start once the earlier ones have finished.

The pipes are ``pl.PipeType`` members (``ir.types.PipeType``), the event id a compile-time integer in
``[0, EVENT_IDS)`` (``targets/system.py``: HIVM's EVENT_ID0 .. EVENT_ID7). An event needs two different pipes (one
pipe runs in order: ordering within it is a barrier's job) and neither may be ``ALL``. These checks are located
compile-time errors; a wait whose event is never set is a ``Deadlock`` of the simulator, a set never waited for a
``DanglingEvent``. The ops change no value (golden ignores them) and add ordering on top of the events codegen
inserts (docs/dsl.md, "Pipe synchronisation inside a kernel").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import Expr
from tilefold.ir.types import DataType, PipeType, ScalarType, Type
from tilefold.ops.registry import MemoryRule, MemoryRuleKind, OpDef, OpKind, Param, ParamKind, Unit, register_op
from tilefold.targets.system import EVENT_IDS

_TOKEN = ScalarType(DataType.INDEX)  # what a sync gives: nothing to use (a statement)
_A = ParamKind.ATTR
_PIPES = ", ".join(f"pl.PipeType.{p.name}" for p in PipeType if p is not PipeType.ALL)


def _pipe(op: str, attrs: dict[str, Any], key: str) -> PipeType:
    v = attrs.get(key)
    if not isinstance(v, PipeType):
        raise TypeInferenceError(f"pl.{op}: {key}={v!r} is not a pipe", hint=f"{key}= is one of {_PIPES}")
    if v is PipeType.ALL:
        raise TypeInferenceError(f"pl.{op}: {key}=pl.PipeType.ALL names no single pipe: an event goes from one "
                                 "pipe to another", hint="to order every pipe, use pl.system.bar_all()")
    return v


def _infer_event(args: Sequence[Expr], attrs: dict[str, Any], op: str) -> Type:
    src, dst = _pipe(op, attrs, "set_pipe"), _pipe(op, attrs, "wait_pipe")
    if src is dst:
        raise TypeInferenceError(f"pl.{op}: set_pipe and wait_pipe are both pl.PipeType.{src.name}: an event "
                                 "orders two different pipes (one pipe already runs its instructions in order)",
                                 hint="to wait for a pipe's own earlier work use pl.system.bar_v() / bar_m() / "
                                      "bar_all()")
    event = attrs.get("event_id")
    if isinstance(event, bool) or not isinstance(event, int):
        raise TypeInferenceError(f"pl.{op}: event_id={event!r} is not a compile-time integer",
                                 hint=f"event_id= is a literal or module constant in 0..{EVENT_IDS - 1}")
    if not 0 <= event < EVENT_IDS:
        raise TypeInferenceError(f"pl.{op}: event_id={event} is out of range: a pipe pair has {EVENT_IDS} events "
                                 f"(EVENT_ID0 .. EVENT_ID{EVENT_IDS - 1})",
                                 hint=f"use an event_id in 0..{EVENT_IDS - 1}")
    return _TOKEN


_EVENT_PARAMS = (Param("set_pipe", _A), Param("wait_pipe", _A), Param("event_id", _A))

for _name, _pto in (("sync_src", "set_flag"), ("sync_dst", "wait_flag")):
    register_op(OpDef(
        f"system.{_name}", _EVENT_PARAMS, lambda a, k, _op=f"system.{_name}": _infer_event(a, k, _op),
        OpKind.SYSTEM, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE), golden=None, pto=_pto, cost="pipe_sync",
        min_args=0, extra={"system": "pipe_event"},
    ))

#: the pipe each barrier op orders (``pipe_barrier(PIPE_x)``)
BARRIER_PIPES = {"bar_v": PipeType.V, "bar_m": PipeType.M, "bar_all": PipeType.ALL}

for _name, _which in BARRIER_PIPES.items():
    register_op(OpDef(
        f"system.{_name}", (), lambda a, k: _TOKEN, OpKind.SYSTEM, Unit.SCALAR, MemoryRule(MemoryRuleKind.NONE),
        golden=None, pto="pipe_barrier", cost="pipe_sync", extra={"system": "pipe_barrier", "pipe": _which.name},
    ))


__all__ = ["BARRIER_PIPES"]
