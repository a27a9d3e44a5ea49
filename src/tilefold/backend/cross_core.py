"""PTO for a ``pl.split_aiv`` region: the lanes' body and the cross-core pipe (TPUSH / TPOP / TFREE).

A region (``ForStmt`` with ``split_aiv``, ``ops/cross_core_ops.py``) lowers to

- one ``TPush c2v`` per ``pl.aiv_shard`` on the cube side, just before the region (the shard's source is
  defined outside it; the shard must be a top-level statement of the region, ``passes/split_aiv_regions.py``);
- ``LaneRegion``: the body both AIV lanes run (``sim/lanes.py``), in which a shard is a ``TPop c2v`` into the
  lane's Vec tile, a ``pl.aic_gather`` a ``TPush v2c`` of the lane's tile, and the lane releases its popped slots
  (``TFree``) at the end; its set_flag / wait_flag pairs are the lane's own (``insert_syncs`` on the body);
- one ``TPop v2c`` per gather after the region, into the buffer of the region result the gather becomes, and its
  ``TFree``.

Each push / pop pair has a pipe id (unique in the kernel). A pipe's ring depth is its set-up's ``slot_num`` when the
kernel sets it up (``ops/pipe_setup.py``; each set-up call is a ``RingSetup`` instruction), else the kernel's
``pl.cross_core_slot`` (default 2, ``ops/pipe_setup.auto_slots``); either way its ring takes on-chip memory of the
consumer (AllocateMemoryAddr, ``ops/pipe_setup.ring_bytes``). A transfer moves along the chip's data path between the
two memories, or through GM when there is none (Ascend910B: Acc -> GM -> Vec, Vec -> GM -> Mat), as PyPTO's
cross-core pipe does: the push pays the first leg, the pop the second (``transfer_legs``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call, Var
from tilefold.ir.stmt import AssignStmt, ForStmt, SeqStmts, YieldStmt, final_yield
from tilefold.ir.types import MemorySpace, TensorType, TileType
from tilefold.ops import op_of
from tilefold.ops.pipe_setup import DEFAULT_SLOTS, DIRECTION_OF_MASK, auto_slots, ring_plan
from tilefold.targets import Pipe, Target

from .pto import Instr

Mem = MemorySpace
C2V, V2C = "c2v", "v2c"


def transfer_legs(target: Target, src: MemorySpace, dst: MemorySpace) -> tuple[tuple[MemorySpace, MemorySpace],
                                                                               tuple[MemorySpace, MemorySpace] | None]:
    """(the push's leg, the pop's leg or None) of a tile moving ``src`` -> ``dst`` between the cores."""
    if target.supports_path(src, dst):
        return (src, dst), None
    return (src, Mem.DDR), (Mem.DDR, dst)


def check_transfer(target: Target, src: MemorySpace, dst: MemorySpace, call: Call) -> None:
    """A crossing needs ``src -> dst`` or both legs through GM on ``target``."""
    push, pop = transfer_legs(target, src, dst)
    if target.supports_path(*push) and (pop is None or target.supports_path(*pop)):
        return
    raise NotSupportedError(f"{call.op_name}: {target.name} has no {src.name} -> {dst.name} data path, direct or "
                            "through GM", span=call.span if call.span.line else None,
                            hint="the cube hands a lane its results from Acc (a matmul result); a lane hands the "
                                 "cube Vec tiles")


@dataclass(frozen=True)
class TPush(Instr):
    """Push tile ``src`` into cross-core pipe ``pipe_id`` (``direction`` c2v: to both AIV lanes, each receiving its
    part by ``split``; v2c: this lane's tile to the cube). ``peer_space``: the memory the pop lands in."""

    src: str
    direction: str
    split: int
    pipe_id: str
    peer_space: MemorySpace
    slots: int = DEFAULT_SLOTS  # the ring depth: a push waits for the free of the slot it reuses

    def text(self) -> str:
        op = "tpush_to_aiv" if self.direction == C2V else "tpush_to_aic"
        return f"{op} %{self.src}, pipe {self.pipe_id}, split {self.split}"

    def accesses(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return (self.src,), (), (), ()

    def pipe_on(self, space_of: Callable[[str], MemorySpace], target: Target) -> Pipe:
        leg, _ = transfer_legs(target, space_of(self.src), self.peer_space)
        return target.path_pipe(*leg)


@dataclass(frozen=True)
class TPop(Instr):
    """Pop pipe ``pipe_id`` into tile ``dst`` (c2v: this lane's part; v2c: the lanes' parts joined by ``split``).
    ``peer_space``: the memory the push came from."""

    dst: str
    direction: str
    split: int
    pipe_id: str
    peer_space: MemorySpace
    local_slots: int = 0  # the consumer's local slots (a set-up pipe): a pop needs one not held by an unfreed pop

    def text(self) -> str:
        op = "tpop_from_aic" if self.direction == C2V else "tpop_from_aiv"
        return f"{op} %{self.dst}, pipe {self.pipe_id}, split {self.split}"

    def accesses(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return (), (self.dst,), (), ()

    def pipe_on(self, space_of: Callable[[str], MemorySpace], target: Target) -> Pipe:
        _, leg = transfer_legs(target, self.peer_space, space_of(self.dst))
        return target.path_pipe(*leg) if leg is not None else Pipe.S


@dataclass(frozen=True)
class TFree(Instr):
    """Release the oldest popped slot of pipe ``pipe_id`` back to its producer. ``tile``: the popped tile; the free
    counts as a write of it (the producer may overwrite the slot now), so the tile's readers are synced before."""

    direction: str
    pipe_id: str
    tile: str = ""

    def text(self) -> str:
        op = "tfree_to_aic" if self.direction == C2V else "tfree_to_aiv"
        return f"{op} %{self.tile}, pipe {self.pipe_id}" if self.tile else f"{op} pipe {self.pipe_id}"

    def accesses(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return (), ((self.tile,) if self.tile else ()), (), ()


@dataclass(frozen=True)
class RingSetup(Instr):
    """A pipe set-up instruction (``ops/pipe_setup.py``): ``op`` (reserve_buffer, import_peer_buffer,
    aic_initialize_pipe, aiv_initialize_pipe) and what it sets (``detail``). One scalar-pipe instruction; the ring
    it describes is already in the pipes' TPush / TPop fields and the memory plan."""

    op: str
    detail: str

    def text(self) -> str:
        return f"{self.op} {self.detail}"


@dataclass(frozen=True)
class LaneRegion(Instr):
    """``body`` run by both AIV lanes of the cluster, ``lane`` (a register) their index; ``slots``: the ring depth
    of the region's pipes."""

    split: int
    lane: str
    slots: int
    body: tuple[Instr, ...]

    def text(self) -> str:
        return f"split_aiv lanes 2, split {self.split}, ${self.lane}, slots {self.slots}:"


def _top_level(s: ForStmt) -> list[Any]:
    body = s.body.stmts if isinstance(s.body, SeqStmts) else (s.body,)
    return [x for x in body if not isinstance(x, YieldStmt)]


def lower_region(gen: Any, s: ForStmt, split: int, out: list[Instr]) -> None:
    """Lower the region ``s`` (see the module docstring) with the function codegen ``gen`` into ``out``."""
    from .sync import insert_syncs

    gen._carry_in(s.iter_args, out)
    y = final_yield(s.body)
    result_of = {v: ia for v, ia in zip(y.values, s.iter_args, strict=False) if isinstance(v, Var)} if y else {}
    ids = gen.__dict__.setdefault("_cross_core_pipes", [0])
    slots = auto_slots(gen.fn)
    lane: list[Instr] = []
    frees: list[Instr] = []
    after: list[Instr] = []
    for st in _top_level(s):
        op = op_of(st.value) if isinstance(st, AssignStmt) else None
        if op is None or op.name not in ("tile.aiv_shard", "tile.aic_gather"):
            gen.__dict__["lane_region"] = True  # the statement runs on an AIV lane (system_sync._pipe_of)
            try:
                gen.stmt(st, lane)
            finally:
                gen.__dict__["lane_region"] = False
            continue
        call: Call = st.value
        pid = f"auto{ids[0]}"
        ids[0] += 1
        src = gen.handle(call.args[0])
        src_space = gen.handles[src].space
        check_transfer(gen.target, src_space, Mem.Vec if op.name == "tile.aiv_shard" else Mem.Mat, call)
        if op.name == "tile.aiv_shard":
            dst = gen.declare(st.var)
            gen.tile_handle[st.var] = dst
            out.append(TPush(src, C2V, split, pid, Mem.Vec, slots, span=call.span if call.span.line else None))
            lane.append(TPop(dst, C2V, split, pid, src_space, span=call.span if call.span.line else None))
            frees.append(TFree(C2V, pid, dst))
            continue
        ia = result_of.get(st.var)
        dst = gen.tile_handle[ia] if ia is not None else gen.declare(st.var)
        gen.tile_handle[st.var] = dst
        lane.append(TPush(src, V2C, split, pid, gen.handles[dst].space, slots,
                          span=call.span if call.span.line else None))
        after.append(TPop(dst, V2C, split, pid, src_space, span=call.span if call.span.line else None))
        after.append(TFree(V2C, pid, dst))
    lane.extend(frees)
    body = insert_syncs(tuple(lane), gen.buffers, gen.target)
    out.append(LaneRegion(split, gen.reg(s.loop_var), slots, body,
                          span=s.span if s.span.line else None))
    out.extend(after)
    for rv, ia in zip(s.return_vars, s.iter_args, strict=False):
        if isinstance(rv.type, TileType):
            gen.tile_handle[rv] = gen.tile_handle[ia]
        elif isinstance(rv.type, TensorType):
            gen.tensor_name[rv] = gen.tensor_name[ia]
        else:
            raise NotSupportedError(f"scalar {rv.name!r} leaves a pl.split_aiv region", span=s.span,
                                    hint="only written-through tensors and pl.aic_gather results leave a region")


def lower_pipe_op(gen: Any, call: Call, op: Any, var: Var | None, out: list[Instr]) -> tuple[str, ...]:
    """An explicit pipe op (``pl.tpush_to_aiv`` ... ``pl.tfree_to_aiv``, ``ops/cross_core_ops.PIPE_OPS``): pipe
    ``id<N>``; a pop records nothing of its own, its peer memory is the latest push's to the pipe."""
    if not op.extra.get("pipe_op") and not op.extra.get("pipe_setup"):
        raise NotSupportedError(f"{op.name} outside the top level of a pl.split_aiv region",
                                span=call.span if call.span.line else None,
                                hint="bind it to a name as a statement of the region's body")
    span = call.span if call.span.line else None
    if op.extra.get("pipe_setup"):
        out.append(RingSetup(op.name[5:], _setup_detail(gen, call), span=span))
        return ()
    direction = op.extra["direction"]
    pid = f"id{int(call.kwarg('id') or 0)}"
    split = int(call.kwarg("split") or 0)
    slots = auto_slots(gen.fn)
    setup = _plan(gen).pipe(direction, int(call.kwarg("id") or 0))
    if setup is not None:  # the pipe's own set-up gives its depth
        slots = setup.slot_num
    local = setup.local_slots(gen.target) if setup is not None else 0
    peers = gen.__dict__.setdefault("_cross_core_peers", {})
    if op.name.startswith("tile.tpush"):
        src = gen.handle(call.args[0])
        peers[(direction, pid)] = gen.handles[src].space
        check_transfer(gen.target, gen.handles[src].space, Mem.Vec if direction == C2V else Mem.Mat, call)
        out.append(TPush(src, direction, split, pid, Mem.Vec if direction == C2V else Mem.Mat, slots, span=span))
    elif op.name.startswith("tile.tpop"):
        if var is None:
            raise NotSupportedError(f"{op.name} as a statement drops the popped tile", span=span,
                                    hint="bind it: `t = pl.tpop_from_aic(...)`, and free it with pl.tfree_*")
        dst = gen.declare(var)
        gen.tile_handle[var] = dst
        peer = peers.get((direction, pid), Mem.Acc if direction == C2V else Mem.Vec)
        out.append(TPop(dst, direction, split, pid, peer, local, span=span))
    else:
        out.append(TFree(direction, pid, gen.handle(call.args[0]), span=span))
    return ()


def _plan(gen: Any) -> Any:
    plan = gen.__dict__.get("_ring_plan")
    if plan is None:
        plan = gen.__dict__["_ring_plan"] = ring_plan(gen.fn)
    return plan


def _setup_detail(gen: Any, call: Call) -> str:
    """What a set-up instruction sets, for the PTO text: a reservation's range, an import's name, a pipe's ring."""
    name = call.op_name
    if name == "tile.reserve_buffer":
        ranges = gen.__dict__.get("_reserved")
        if ranges is None:  # (imported here: the simulator loads this module, and no pass)
            from tilefold.passes.memory_planning.allocate_memory_addr import reserved_ranges

            ranges = gen.__dict__["_reserved"] = reserved_ranges(gen.fn, gen.target)
        for space, held in ranges.items():
            for lo, hi, n in held:
                if n == call.kwarg("name"):
                    return f"{n!r}, {space.name}[{lo}, {hi})"
        return f"{call.kwarg('name')!r} (unbound)"
    if name == "tile.import_peer_buffer":
        return f"{call.kwarg('name')!r} of @{call.kwarg('peer_func')}"
    direction = DIRECTION_OF_MASK[call.kwarg("dir_mask")]
    setup = _plan(gen).pipe(direction, int(call.kwarg("id") or 0))
    return (f"pipe id{setup.pipe_id} {direction}, {setup.slot_num} slots of {setup.slot_size} B "
            f"({setup.local_slots(gen.target)} local) in {setup.buffer.name!r}")


def kernel_lanes(body: tuple[Instr, ...]) -> bool:
    """Does a kernel body hold a ``LaneRegion`` (at any depth)?"""
    for ins in body:
        if type(ins) is LaneRegion:
            return True
        for sub in (getattr(ins, "body", None), getattr(ins, "then_body", None), getattr(ins, "else_body", None)):
            if sub and kernel_lanes(sub):
                return True
    return False


__all__ = ["C2V", "DEFAULT_SLOTS", "V2C", "LaneRegion", "RingSetup", "TFree", "TPop", "TPush", "kernel_lanes",
           "lower_pipe_op", "lower_region", "transfer_legs"]
