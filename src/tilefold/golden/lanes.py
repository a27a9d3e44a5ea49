"""The golden meaning of a ``pl.split_aiv`` region (``ops/cross_core_ops.py``, ``frontend/split_aiv.py``): both
AIV lanes run the body, in parallel.

Each lane starts from the values the region was entered with (its iter args' initial values) with ``aiv_id`` and
``get_subblock_idx`` equal to its index; GM tensors are shared, so both lanes' stores land in the same arrays, as
on the device. ``pl.aiv_shard`` gives the lane its part of the cube tile; ``pl.aic_gather`` records the lane's
part, and after both lanes the region's results are joined: a written-through tensor is the shared array, a
gathered tile is both parts joined (``join_lanes``). With no split both lanes must push the same tile: golden
refuses a disagreement (the device would give the cube an unspecified one of the two).

The pipes' set-up ops (``ops/pipe_setup.py``) give a token and change no value: a ring only bounds how far the
producer runs ahead, which golden (one unit at a time) does not model. Golden checks their rules once per run.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

import numpy as np

from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import ForStmt, final_yield
from tilefold.ops import op_of
from tilefold.ops.cross_core_ops import LANES, MODE_OF_SPLIT, PIPE_OPS, join_lanes, lanes_disagree, shard_value
from tilefold.ops.pipe_setup import has_setup, ring_plan


class _LaneGather:
    """The lane parts pushed by one ``pl.aic_gather`` of a region (by lane)."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.parts: dict[int, np.ndarray] = {}


def cross_core_value(interp: Any, call: Call, env: dict[Var, Any], inst: Any) -> Any:
    """The value of a cross-core op (``ops/cross_core_ops.py``) on the unit ``inst`` runs as."""
    op = op_of(call)
    _check_ring_setups(interp)
    if op.extra.get("pipe_setup"):
        return 0  # a set-up computes nothing: the ring holds the pushed values unchanged (a token)
    if op.extra.get("pipe_op"):
        return _pipe_value(interp, call, [interp.eval(a, env, inst) for a in call.args], inst)
    return boundary_value(interp, call, interp.eval(call.args[0], env, inst), inst)


def _check_ring_setups(interp: Any) -> None:
    """Once per run: the pipe set-up rules (``ops/pipe_setup.ring_plan``) of every kernel that sets pipes up, so
    golden refuses what the compiler refuses (the buffer sizes that depend on the target aside)."""
    if interp.__dict__.get("_rings_checked"):
        return
    interp._rings_checked = True
    for fn in interp._functions.values():
        if fn.func_type.is_incore and has_setup(fn):
            ring_plan(fn)


def _pipe_value(interp: Any, call: Call, args: list[Any], inst: Any) -> Any:
    """The explicit pipe ops: a FIFO per (direction, id, lane) of the values pushed, in order."""
    pipes = interp.__dict__.setdefault("_pipes", {})
    name = call.op_name
    direction, side = PIPE_OPS[name]
    lane = inst.subblock_idx
    if (side == "lane") != (lane is not None):
        raise TilefoldError(f"{name} runs on the {'vector lane' if side == 'lane' else 'cube'}", span=call.span,
                            hint="pipe ops of a lane go inside a pl.split_aiv region, the cube's outside")
    split, pid = int(call.kwarg("split") or 0), int(call.kwarg("id") or 0)
    if name == "tile.tpush_to_aiv":
        for k in range(LANES):
            pipes.setdefault((direction, pid, k), deque()).append(shard_value(np.asarray(args[0]), split, k))
        return 0
    if name == "tile.tpush_to_aic":
        pipes.setdefault((direction, pid, lane), deque()).append(np.array(args[0], copy=True))
        return 0
    if name.startswith("tile.tfree"):
        return 0  # a slot is a place, not a value: golden has nothing to release
    lanes = [lane] if name == "tile.tpop_from_aic" else list(range(LANES))
    parts = []
    for k in lanes:
        q = pipes.get((direction, pid, k))
        if not q:
            raise TilefoldError(f"{name}(id={pid}) on {'lane ' + str(k) if lane is not None else 'the cube'}: "
                                "nothing was pushed to the pipe", span=call.span,
                                hint="every pop needs a matching push from the peer core, earlier in the kernel")
        parts.append(q.popleft())
    if len(parts) == 1:
        return parts[0]
    if MODE_OF_SPLIT[split] == "NONE" and lanes_disagree(parts) is not None:
        raise TilefoldError(f"the two AIV lanes pushed different tiles to the no-split pipe {pid}: the cube would "
                            "receive an unspecified one of them", span=call.span,
                            hint="push only a lane-uniform value without a split")
    return join_lanes(parts, split)


def boundary_value(interp: Any, call: Call, value: np.ndarray, inst: Any) -> np.ndarray:
    """The value of ``pl.aiv_shard`` / ``pl.aic_gather`` of ``value`` on the lane ``inst`` runs as."""
    split = int(call.kwarg("split") or 0)
    lane = inst.subblock_idx
    gathers = getattr(interp, "_lane_gathers", None)
    if lane is None or gathers is None:
        raise TilefoldError(f"{call.op_name} outside a pl.split_aiv region", span=call.span,
                            hint="call it inside `for aiv_id in pl.split_aiv(2, mode=...)`")
    if op_of(call).extra.get("direction") == "c2v":  # pl.aiv_shard (tile or tensor form)
        return shard_value(np.asarray(value), split, lane)
    g = gathers.setdefault(id(call), _LaneGather(call))
    g.parts[lane] = np.array(value, copy=True)
    whole = join_lanes([g.parts.get(k, np.zeros_like(value)) for k in range(LANES)], split)
    interp._gathered[id(whole)] = g  # joined again after both lanes (the other lane's part is not known yet)
    return whole


def run_region(interp: Any, stmt: ForStmt, env: dict[Var, Any], inst: Any, split: int) -> None:
    """Run the region ``stmt`` (see the module docstring) and bind its results in ``env``."""
    inits = tuple(interp.eval(ia.init, env, inst) for ia in stmt.iter_args)
    saved = getattr(interp, "_lane_gathers", None), getattr(interp, "_gathered", None)
    interp._lane_gathers, interp._gathered = {}, {}
    yields: list[tuple[Any, ...]] = []
    try:
        for lane in range(LANES):
            lane_env = dict(env)
            lane_env[stmt.loop_var] = lane
            for ia, v in zip(stmt.iter_args, inits, strict=True):
                lane_env[ia] = v
            y = interp._exec_body(stmt.body, lane_env, replace(inst, subblock_idx=lane))
            yields.append(tuple(y) if y is not None else ())
        results = tuple(_join(interp, stmt, split, [y[i] for y in yields], i) for i in range(len(stmt.iter_args)))
    finally:
        interp._lane_gathers, interp._gathered = saved
    for rv, value in zip(stmt.return_vars, results, strict=True):
        env[rv] = value


def _join(interp: Any, stmt: ForStmt, split: int, values: list[Any], i: int) -> Any:
    """Result ``i`` of the region from the lanes' yielded ``values``."""
    if all(v is values[0] for v in values):
        return values[0]  # a written-through tensor: the one shared array
    g = interp._gathered.get(id(values[-1]))
    if g is None or any(interp._gathered.get(id(v)) is not g for v in values):
        y = final_yield(stmt.body)
        what = y.values[i].name if y is not None and isinstance(y.values[i], Var) else f"result #{i}"
        raise TilefoldError(f"{what!r} leaves the pl.split_aiv region with a different value on each lane",
                            span=stmt.span, hint="hand a lane's tile to the cube with pl.aic_gather")
    parts = [g.parts[k] for k in range(LANES)]
    if MODE_OF_SPLIT[split] == "NONE":
        where = lanes_disagree(parts)
        if where is not None:
            raise TilefoldError(
                f"the two AIV lanes push different values to the no-split pl.aic_gather (first at element "
                f"{list(where)}: {parts[0][where]} on lane 0, {parts[1][where]} on lane 1): the cube would "
                "receive an unspecified one of them", span=g.call.span,
                hint="gather only a lane-uniform value out of a mode=NONE region, or use UP_DOWN / LEFT_RIGHT, "
                     "where each lane owns a half")
    return join_lanes(parts, split)


__all__ = ["boundary_value", "cross_core_value", "run_region"]
