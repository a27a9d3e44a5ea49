"""Cross-core pipe set-up: where the ring of a pipe lives and how deep it is (PyPTO's dev/00-python_syntax,
"Cross-core pipe initialization and buffer management"; tutorials/03-mixed-kernel, "the ring spends your vector
budget").

    buf = pl.reserve_buffer(name="c2v_ring", size=4096, base=pl.AUTO)     # the consumer's on-chip bytes
    peer = pl.import_peer_buffer(name="c2v_ring", peer_func="k")           # the producer names that buffer
    pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=1, slot_size=2048, slot_num=2, id=0)
    pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=1, slot_size=2048, slot_num=2, id=0)

tilefold's mixed kernel is one function holding the cube side and the lanes' regions (docs/cross_core.md), so
both ends of a pipe are set up in it, at the top level of its body (not in a loop, an if or a region), before
the pipe's first push / pop. The rules (``ring_plan``; every violation is a located ``TilefoldError`` naming the
buffer or the pipe, with a fix hint):

- ``dir_mask``: 1 = cube -> vector (c2v, the AIV lanes consume: the ring is in each lane's Vec / UB), 2 = vector ->
  cube (v2c, the AIC consumes: the ring is in Mat / L1). 3 (both directions on one id) is refused: set each
  direction up with its own pair of calls;
- the consumer's end binds the ``pl.reserve_buffer`` result, the producer's end a ``pl.import_peer_buffer`` of the
  same ``name=`` whose ``peer_func=`` is this kernel (the cube and the lanes are one function here); both ends
  give the same ``slot_size``, ``slot_num`` and ``local_slot_num``;
- ``slot_num`` (the ring depth) defaults to 8, PyPTO's default for one direction; ``local_slot_num`` (the slots
  kept in the consumer's buffer on a chip whose ring is in GM, ``Target.cross_core_gm_ring``) defaults to
  ``slot_num`` and may not exceed it; the buffer must hold the local ring (``PipeSetup.ring_bytes``): ``slot_size
  * local_slot_num`` on Ascend910B, ``slot_size * slot_num`` on Ascend950 (checked by AllocateMemoryAddr, which
  knows the target);
- a tile crossing the pipe (what the consumer's pop receives) fits ``slot_size``; once a kernel sets up any pipe,
  every ``pl.tpush_*`` / ``pl.tpop_*`` / ``pl.tfree_*`` uses a pipe it set up;
- a buffer handle is only ever the buffer operand of an initialize call.

The set-up ops compute nothing (their golden value is a token); AllocateMemoryAddr keeps the reserved bytes out
of the tiles' way, the pipe ops take the depth (``backend/cross_core.py``), and the simulator's slot FIFO blocks a
push on a full ring (``sim/lanes.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tilefold.errors import NotSupportedError, Span, TilefoldError, TypeInferenceError
from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import AssignStmt, Function, Stmt, flatten_stmts
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TileType, Type
from tilefold.ir.visitor import IRVisitor, collect_uses
from tilefold.ops.cross_core_ops import PIPE_OPS, popped_shape
from tilefold.ops.registry import MemoryRule, MemoryRuleKind, OpDef, OpKind, Param, ParamKind, Unit, register_op

RESERVE, IMPORT = "tile.reserve_buffer", "tile.import_peer_buffer"
AIC_INIT, AIV_INIT = "tile.aic_initialize_pipe", "tile.aiv_initialize_pipe"
SETUP_OPS = (RESERVE, IMPORT, AIC_INIT, AIV_INIT)
#: ``dir_mask`` -> direction (PyPTO's bits: 1 = cube -> vector, 2 = vector -> cube)
DIRECTION_OF_MASK = {1: "c2v", 2: "v2c"}
DEFAULT_SLOT_NUM = 8  # PyPTO dev/00-python_syntax: "default 8 unidirectional / 4 bidirectional"
#: the depth of a pipe without a set-up when the kernel gives no ``pl.cross_core_slot`` (PyPTO language/04-scopes:
#: "the default ring depth of 2 slots per active direction")
DEFAULT_SLOTS = 2


def ring_bytes(slot_size: int, slot_num: int, local_slot_num: int, target: Any) -> int:
    """Bytes a pipe's ring takes in its consumer's on-chip memory, the one rule (PyPTO: "a3 -> slot_size *
    local_slot_num, a5 -> slot_size * slot_num"): where the ring's slots are in GM (``Target.cross_core_gm_ring``,
    Ascend910B) the consumer keeps ``local_slot_num`` of them, else all ``slot_num``."""
    return slot_size * (local_slot_num if target.cross_core_gm_ring else slot_num)


def auto_slots(fn: Function) -> int:
    """The depth of ``fn``'s pipes that have no set-up: its ``pl.cross_core_slot(slot_num=N)``, else 2."""
    slot_attr = fn.attr("cross_core_slot")
    return int(slot_attr) if slot_attr else DEFAULT_SLOTS
#: per direction: (the initialize op of the consumer's end, the producer's, the consumer's ring memory, the path
#: of the crossing)
ENDS = {"c2v": (AIV_INIT, AIC_INIT, MemorySpace.Vec, (MemorySpace.Acc, MemorySpace.Vec)),
        "v2c": (AIC_INIT, AIV_INIT, MemorySpace.Mat, (MemorySpace.Vec, MemorySpace.Mat))}
_HANDLE = ScalarType(DataType.INT32)  # a buffer handle (only an operand of the initialize calls)
_TOKEN = ScalarType(DataType.INDEX)


@dataclass(frozen=True)
class Reservation:
    """``size`` bytes of the consumer's ``space`` at ``base`` (None: placed by AllocateMemoryAddr)."""

    name: str
    size: int
    base: int | None
    space: MemorySpace
    span: Span | None = None


@dataclass(frozen=True)
class PipeSetup:
    direction: str
    pipe_id: int
    slot_size: int
    slot_num: int
    local_slot_num: int
    buffer: Reservation
    span: Span | None = None

    def local_slots(self, target: Any) -> int:
        """Slots kept in the consumer's buffer: ``local_slot_num`` where the ring's ``slot_num`` slots are in GM
        (Ascend910B), all ``slot_num`` where the ring is on chip (Ascend950)."""
        return self.local_slot_num if target.cross_core_gm_ring else self.slot_num

    def ring_bytes(self, target: Any) -> int:
        return ring_bytes(self.slot_size, self.slot_num, self.local_slot_num, target)


@dataclass(frozen=True)
class RingPlan:
    """The set-up of one kernel: its reservations (by name) and pipes (by (direction, id))."""

    reservations: dict[str, Reservation] = field(default_factory=dict)
    pipes: dict[tuple[str, int], PipeSetup] = field(default_factory=dict)

    def pipe(self, direction: str, pipe_id: int) -> PipeSetup | None:
        return self.pipes.get((direction, pipe_id))


# ------------------------------------------------------------------------------------------------
# the registry entries
# ------------------------------------------------------------------------------------------------


def _int_attr(op: str, attrs: dict[str, Any], name: str, *, minimum: int, default: Any = None,
              required: bool = False) -> int | None:
    v = attrs.get(name, default)
    if v is None and not required:  # left out (or None): the documented default
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise TypeInferenceError(f"{op}: {name}={v!r} is not an integer >= {minimum}",
                                 hint=f"{name}= is an integer constant (bytes for sizes, a count for slots)")
    return v


def _infer_reserve(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    name = attrs.get("name")
    if not isinstance(name, str) or not name:
        raise TypeInferenceError(f"{RESERVE}: name= must be a non-empty string",
                                 hint='pl.reserve_buffer(name="c2v_ring", size=4096, base=pl.AUTO)')
    _int_attr(RESERVE, attrs, "size", minimum=1, required=True)
    _int_attr(RESERVE, attrs, "base", minimum=0)
    return _HANDLE


def _infer_import(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
    for key in ("name", "peer_func"):
        if not isinstance(attrs.get(key), str) or not attrs[key]:
            raise TypeInferenceError(f"{IMPORT}: {key}= must be a non-empty string",
                                     hint='pl.import_peer_buffer(name="c2v_ring", peer_func="<this kernel>")')
    return _HANDLE


def _infer_init(op: str):
    def infer(args: Sequence[Expr], attrs: dict[str, Any]) -> Type:
        mask = attrs.get("dir_mask")
        if mask == 3:
            raise NotSupportedError(f"{op}: dir_mask=3 (both directions on one pipe) is not supported",
                                    hint="set each direction up on its own: dir_mask=1 (cube -> vector) and "
                                         "dir_mask=2 (vector -> cube), each with its own buffer")
        if isinstance(mask, bool) or not isinstance(mask, int) or mask not in DIRECTION_OF_MASK:
            raise TypeInferenceError(f"{op}: dir_mask={mask!r} is not a direction",
                                     hint="dir_mask=1 (cube -> vector) or dir_mask=2 (vector -> cube)")
        _int_attr(op, attrs, "slot_size", minimum=1, required=True)
        _int_attr(op, attrs, "slot_num", minimum=1)
        _int_attr(op, attrs, "local_slot_num", minimum=1)
        _int_attr(op, attrs, "id", minimum=0, default=0)
        for i, a in enumerate(args):
            if not isinstance(a.type, ScalarType):
                raise TypeInferenceError(f"{op}: operand #{i} must be a scalar, got {a.type}",
                                         hint="(gm_slot_buffer, buffer): pl.const(0, pl.INT32) and the "
                                              "pl.reserve_buffer / pl.import_peer_buffer result")
        return _TOKEN

    return infer


_A, _S = ParamKind.ATTR, ParamKind.SCALAR
_NONE = MemoryRule(MemoryRuleKind.NONE)
_NOTE = ("a set-up instruction on the scalar pipe (docs/cross_core.md, 'Ring set-up'): no value, checked by "
         "VerifySplitAivRegions; AllocateMemoryAddr keeps reserved bytes free of tiles")
register_op(OpDef(RESERVE, (Param("name", _A), Param("size", _A), Param("base", _A, required=False)), _infer_reserve,
                  OpKind.CROSS_CORE, Unit.SCALAR, _NONE, golden=None, pto="reserve_buffer", cost="scalar",
                  extra={"pipe_setup": True, "note": _NOTE + "; base=pl.AUTO (or no base) lets the planner place it"}))
register_op(OpDef(IMPORT, (Param("name", _A), Param("peer_func", _A)), _infer_import, OpKind.CROSS_CORE, Unit.SCALAR,
                  _NONE, golden=None, pto="import_peer_buffer", cost="scalar",
                  extra={"pipe_setup": True, "note": _NOTE + "; peer_func= names the kernel itself (its cube and "
                                                             "lanes are one function)"}))
for _init in (AIC_INIT, AIV_INIT):
    register_op(OpDef(_init, (Param("gm_slot_buffer", _S), Param("buffer", _S), Param("dir_mask", _A),
                              Param("slot_size", _A), Param("slot_num", _A, required=False),
                              Param("local_slot_num", _A, required=False), Param("id", _A, default=0, required=False)),
                      _infer_init(_init), OpKind.CROSS_CORE, Unit.SCALAR, _NONE, golden=None, pto=_init[5:],
                      cost="scalar", extra={"pipe_setup": True, "note": _NOTE + f"; slot_num defaults to "
                                                                                f"{DEFAULT_SLOT_NUM}"}))


# ------------------------------------------------------------------------------------------------
# the plan of one kernel
# ------------------------------------------------------------------------------------------------


def _span(node: Any) -> Span | None:
    span = getattr(node, "span", None)
    return span if span is not None and span.line else None


class _Calls(IRVisitor):
    """Every set-up and pipe call of a function: (top-level statement index, nested?, call, bound var)."""

    def __init__(self) -> None:
        self.found: list[tuple[int, bool, Call, Var | None]] = []
        self.index = 0
        self.depth = 0
        self.var: Var | None = None

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        self.var = stmt.var
        super().visit_AssignStmt(stmt)
        self.var = None

    def _nested(self, stmt: Stmt, parent: Any) -> None:
        self.depth += 1
        parent(self, stmt)
        self.depth -= 1

    def visit_ForStmt(self, stmt: Any) -> None:
        self._nested(stmt, IRVisitor.visit_ForStmt)

    def visit_WhileStmt(self, stmt: Any) -> None:
        self._nested(stmt, IRVisitor.visit_WhileStmt)

    def visit_IfStmt(self, stmt: Any) -> None:
        self._nested(stmt, IRVisitor.visit_IfStmt)

    def visit_Call(self, expr: Call) -> None:
        if expr.op_name in SETUP_OPS or expr.op_name in PIPE_OPS:
            self.found.append((self.index, self.depth > 0, expr, self.var))
        super().visit_Call(expr)


def _calls(fn: Function) -> list[tuple[int, bool, Call, Var | None]]:
    v = _Calls()
    for i, s in enumerate(flatten_stmts(fn.body)):
        v.index = i
        v.visit_stmt(s)
    return v.found


def has_setup(fn: Function) -> bool:
    return any(c.op_name in SETUP_OPS for _, _, c, _ in _calls(fn))


def ring_plan(fn: Function) -> RingPlan:
    """The checked set-up of ``fn`` (see the module docstring); an empty plan when it sets nothing up."""
    calls = _calls(fn)
    setups = [(i, c, v) for i, nested, c, v in calls if c.op_name in SETUP_OPS and not _refuse_nested(c, nested)]
    if not setups:
        return RingPlan()
    reserved: dict[str, tuple[Call, Var | None]] = {}
    handles: dict[Var, tuple[str, Call]] = {}  # buffer handle -> (its op, the call)
    for _i, c, v in setups:
        if c.op_name == RESERVE:
            name = c.kwarg("name")
            if name in reserved:
                raise TilefoldError(f"buffer {name!r} is reserved twice (first at line "
                                    f"{reserved[name][0].span.line})", span=_span(c),
                                    hint="give each pipe's ring its own name=")
            reserved[name] = (c, v)
        if c.op_name in (RESERVE, IMPORT):
            if v is None:
                raise TilefoldError(f"pl.{c.op_name[5:]} as a statement drops the buffer handle", span=_span(c),
                                    hint="bind it: `buf = pl.reserve_buffer(...)`, and pass it to an initialize call")
            handles[v] = (c.op_name, c)
    for _i, c, _v in setups:
        if c.op_name == IMPORT:
            _check_import(fn, c, reserved)
    _check_handle_uses(fn, handles)
    ends: dict[tuple[str, int], dict[str, tuple[int, Call]]] = {}
    for i, c, _v in setups:
        if c.op_name in (AIC_INIT, AIV_INIT):
            key = (DIRECTION_OF_MASK[c.kwarg("dir_mask")], int(c.kwarg("id") or 0))
            side = ends.setdefault(key, {})
            if c.op_name in side:
                raise TilefoldError(f"pipe {key[0]} id={key[1]} is set up twice by pl.{c.op_name[5:]}", span=_span(c),
                                    hint="one pl.aic_initialize_pipe and one pl.aiv_initialize_pipe per pipe")
            side[c.op_name] = (i, c)
    pipes = {key: _pipe(key, side, handles, reserved) for key, side in ends.items()}
    bound: dict[str, PipeSetup] = {}
    for p in pipes.values():
        other = bound.setdefault(p.buffer.name, p)
        if other is not p:
            raise TilefoldError(f"buffer {p.buffer.name!r} is the ring of two pipes ({other.direction} id="
                                f"{other.pipe_id} and {p.direction} id={p.pipe_id})", span=p.span,
                                hint="reserve one buffer per pipe: two rings in the same bytes would overwrite "
                                     "each other's slots")
    reservations = {p.buffer.name: p.buffer for p in pipes.values()}
    for name, (c, _v) in reserved.items():
        if name not in reservations:
            raise TilefoldError(f"buffer {name!r} is reserved, but no pipe's consumer end binds it, so its memory "
                                "(the consumer's) is unknown", span=_span(c),
                                hint="pass it to the consumer's initialize call (pl.aiv_initialize_pipe for "
                                     "dir_mask=1, pl.aic_initialize_pipe for dir_mask=2), or remove it")
    plan = RingPlan(reservations, pipes)
    _check_uses(calls, ends, plan)
    return plan


def _refuse_nested(c: Call, nested: bool) -> bool:
    if nested:
        raise TilefoldError(f"pl.{c.op_name[5:]} belongs at the top level of the kernel", span=_span(c),
                            hint="set pipes up once, before the loops and pl.split_aiv regions that use them")
    return False


def _check_import(fn: Function, c: Call, reserved: dict[str, tuple[Call, Var | None]]) -> None:
    name, peer = c.kwarg("name"), c.kwarg("peer_func")
    if peer != fn.name:
        raise TilefoldError(f"pl.import_peer_buffer(peer_func={peer!r}): no peer function of that name", span=_span(c),
                            hint=f"the cube and the vector lanes of a mixed kernel are one function here, so the "
                                 f"peer of kernel {fn.name!r} is itself: peer_func={fn.name!r}")
    if name not in reserved:
        known = ", ".join(repr(n) for n in reserved) or "none"
        raise TilefoldError(f"pl.import_peer_buffer(name={name!r}): {peer!r} reserves no buffer of that name",
                            span=_span(c), hint=f"name the peer's pl.reserve_buffer(name=...) (reserved: {known})")


def _check_handle_uses(fn: Function, handles: dict[Var, tuple[str, Call]]) -> None:
    uses = collect_uses(fn.body)
    legit: dict[Var, int] = {}
    for s in _all_calls(fn):
        if s.op_name in (AIC_INIT, AIV_INIT) and len(s.args) > 1 and isinstance(s.args[1], Var):
            legit[s.args[1]] = legit.get(s.args[1], 0) + 1
    for v, (_op, c) in handles.items():
        if uses.get(v, 0) != legit.get(v, 0):
            raise TilefoldError(f"buffer handle {v.name!r} is used other than as the buffer operand of an initialize "
                                "call", span=_span(c),
                                hint="a handle names the ring for pl.aic_initialize_pipe / pl.aiv_initialize_pipe "
                                     "only; it has no value to compute with")


def _all_calls(fn: Function) -> list[Call]:
    class _All(IRVisitor):
        def __init__(self) -> None:
            self.calls: list[Call] = []

        def visit_Call(self, expr: Call) -> None:
            self.calls.append(expr)
            super().visit_Call(expr)

    v = _All()
    v.visit_stmt(fn.body)
    return v.calls


def _pipe(key: tuple[str, int], side: dict[str, tuple[int, Call]], handles: dict[Var, tuple[str, Call]],
          reserved: dict[str, tuple[Call, Var | None]]) -> PipeSetup:
    direction, pid = key
    consumer_op, producer_op, space, _path = ENDS[direction]
    for op in (consumer_op, producer_op):
        if op not in side:
            given = next(iter(side.values()))[1]
            role = "consumer" if op == consumer_op else "producer"
            raise TilefoldError(f"pipe {direction} id={pid} is set up by pl.{given.op_name[5:]} only: its {role}'s "
                                f"end, pl.{op[5:]}, is missing", span=_span(given),
                                hint="set both ends up with the same dir_mask, slot_size, slot_num and id=")
    (_ci, cons), (_pi, prod) = side[consumer_op], side[producer_op]
    params = {}
    for k in ("slot_size", "slot_num", "local_slot_num"):
        a, b = cons.kwarg(k), prod.kwarg(k)
        if a != b:
            raise TilefoldError(f"pipe {direction} id={pid}: the two ends disagree on {k} ({a} at pl."
                                f"{cons.op_name[5:]}, {b} at pl.{prod.op_name[5:]})", span=_span(prod),
                                hint=f"give both initialize calls the same {k}=")
        params[k] = a
    buf = _bound(cons, handles, RESERVE, direction, pid, "consumer")
    peer = _bound(prod, handles, IMPORT, direction, pid, "producer")
    if peer.kwarg("name") != buf.kwarg("name"):
        raise TilefoldError(f"pipe {direction} id={pid}: the producer's end imports buffer {peer.kwarg('name')!r} "
                            f"but the consumer's end binds {buf.kwarg('name')!r}", span=_span(prod),
                            hint="import the buffer the consumer reserved for this pipe")
    slot_num = params["slot_num"] if params["slot_num"] is not None else DEFAULT_SLOT_NUM
    local = params["local_slot_num"] if params["local_slot_num"] is not None else slot_num
    if local > slot_num:
        raise TilefoldError(f"pipe {direction} id={pid}: local_slot_num={local} exceeds slot_num={slot_num}",
                            span=_span(cons), hint="the local slots are a subset of the ring: local_slot_num <= "
                                                   "slot_num")
    res = Reservation(buf.kwarg("name"), int(buf.kwarg("size")), buf.kwarg("base"), space, _span(buf))
    if params["slot_size"] * local > res.size:
        raise TilefoldError(f"pipe {direction} id={pid}: {local} slots of {params['slot_size']} bytes need "
                            f"{params['slot_size'] * local} bytes, but buffer {res.name!r} has {res.size}",
                            span=_span(cons), hint="reserve slot_size * slot_num bytes (slot_size * local_slot_num "
                                                   "on Ascend910B), or lower slot_num / slot_size")
    return PipeSetup(direction, pid, int(params["slot_size"]), slot_num, local, res, _span(cons))


def _bound(init: Call, handles: dict[Var, tuple[str, Call]], want: str, direction: str, pid: int, role: str) -> Call:
    h = init.args[1] if len(init.args) > 1 else None
    got = handles.get(h) if isinstance(h, Var) else None
    if got is None or got[0] != want:
        what = "the pl.reserve_buffer result (the ring lives in the consumer's memory)" if want == RESERVE else \
            "a pl.import_peer_buffer of the consumer's buffer"
        raise TilefoldError(f"pipe {direction} id={pid}: the {role}'s end, pl.{init.op_name[5:]}, must bind {what}",
                            span=_span(init), hint="c2v (dir_mask=1): the lanes reserve, the cube imports; v2c "
                                                   "(dir_mask=2): the cube reserves, the lanes import")
    return got[1]


def crossing_bytes(call: Call) -> int | None:
    """Bytes of the tile a pipe op's consumer receives (a pop's tile, a push's tile halved / joined by its split)."""
    if call.op_name.startswith("tile.tpop"):
        t = call.type
        shape = t.static_shape if isinstance(t, TileType) else None
    elif call.op_name.startswith("tile.tpush"):
        t = call.args[0].type
        shape = getattr(t, "static_shape", None)
        if shape is not None and len(shape) == 2:
            shape = popped_shape(tuple(shape), PIPE_OPS[call.op_name][0], int(call.kwarg("split") or 0))
    else:
        return None
    if shape is None or len(shape) != 2:
        return None
    return t.dtype.nbytes(int(shape[0]) * int(shape[1]))  # (4-bit types: packed)


@dataclass(frozen=True)
class AutoRing:
    """The ring of a pipe without a set-up: a ``pl.aiv_shard`` / ``pl.aic_gather`` crossing (pipe ``auto<N>``, as
    ``backend/cross_core.lower_region`` numbers them) or a push / pop on a pipe id no initialize call sets up. It
    takes ``ring_bytes`` of the consumer's memory, ``space``, as a set-up ring does: ``slot_num`` slots (the kernel's
    ``pl.cross_core_slot``, default 2) of ``slot_size`` bytes (the tile the consumer receives)."""

    pipe: str
    direction: str
    space: MemorySpace
    slot_size: int
    slot_num: int
    what: str
    span: Span | None = None

    def ring_bytes(self, target: Any) -> int:
        return ring_bytes(self.slot_size, self.slot_num, self.slot_num, target)

    @property
    def name(self) -> str:
        return f"ring of pipe {self.pipe} ({self.direction}, {self.what})"


class _Crossings(IRVisitor):
    """The ``pl.aiv_shard`` / ``pl.aic_gather`` calls of a function, in program order."""

    def __init__(self) -> None:
        self.found: list[Call] = []

    def visit_Call(self, expr: Call) -> None:
        if expr.op_name in ("tile.aiv_shard", "tile.aic_gather"):
            self.found.append(expr)
        super().visit_Call(expr)


def _static_bytes(t: Any) -> int | None:
    shape = t.static_shape if isinstance(t, TileType) else None
    if shape is None:
        return None
    count = 1
    for e in shape:
        count *= int(e)
    return t.dtype.nbytes(count)


def auto_rings(fn: Function, plan: RingPlan) -> list[AutoRing]:
    """The rings of ``fn``'s pipes that ``plan`` (its set-up) does not cover; a ring whose tile has no static shape
    cannot be sized and is left out."""
    slots = auto_slots(fn)
    v = _Crossings()
    for s in flatten_stmts(fn.body):
        v.visit_stmt(s)
    rings: list[AutoRing] = []
    for n, c in enumerate(v.found):
        c2v = c.op_name == "tile.aiv_shard"
        size = _static_bytes(c.args[0].type if c2v else c.type)  # the whole tile: the cube's, or the joined one
        if size is not None:
            rings.append(AutoRing(f"auto{n}", "c2v" if c2v else "v2c", MemorySpace.Vec if c2v else MemorySpace.Mat,
                                  size, slots, f"pl.{c.op_name[5:]}", _span(c)))
    explicit: dict[tuple[str, int], tuple[int, Call]] = {}
    for _i, _nested, c, _v in _calls(fn):
        if c.op_name not in PIPE_OPS or c.op_name.startswith("tile.tfree"):
            continue
        key = (PIPE_OPS[c.op_name][0], int(c.kwarg("id") or 0))
        cube_side = PIPE_OPS[c.op_name][1] == "cube"  # the cube's push (whole) or pop (joined)
        size = _static_bytes(c.args[0].type if c.op_name.startswith("tile.tpush") else c.type) if cube_side else None
        if key in plan.pipes or size is None:
            continue
        first = explicit.get(key)
        explicit[key] = (max(size, first[0]) if first else size, first[1] if first else c)
    for (direction, pid), (size, c) in explicit.items():
        rings.append(AutoRing(f"id{pid}", direction, MemorySpace.Vec if direction == "c2v" else MemorySpace.Mat,
                              size, slots, "pl.tpush / pl.tpop", _span(c)))
    return rings


def _check_uses(calls: list[tuple[int, bool, Call, Var | None]], ends: dict[tuple[str, int], dict[str, tuple[int,
                Call]]], plan: RingPlan) -> None:
    for i, _nested, c, _v in calls:
        if c.op_name not in PIPE_OPS:
            continue
        key = (PIPE_OPS[c.op_name][0], int(c.kwarg("id") or 0))
        p = plan.pipes.get(key)
        if p is None:
            have = ", ".join(f"{d} id={n}" for d, n in plan.pipes) or "none"
            raise TilefoldError(f"pl.{c.op_name[5:]}(id={key[1]}) uses pipe {key[0]} id={key[1]}, which this kernel "
                                "does not set up", span=_span(c),
                                hint=f"once a kernel sets pipes up, each pipe it uses needs pl.aic_initialize_pipe "
                                     f"and pl.aiv_initialize_pipe (set up here: {have})")
        first = min(ix for ix, _ in ends[key].values())
        if i <= first:
            raise TilefoldError(f"pl.{c.op_name[5:]}(id={key[1]}) runs before pipe {key[0]} id={key[1]} is set up",
                                span=_span(c), hint="initialize the pipe before its first push / pop")
        nbytes = crossing_bytes(c)
        if nbytes is not None and nbytes > p.slot_size:
            raise TilefoldError(f"pl.{c.op_name[5:]}(id={key[1]}): the tile crossing the pipe is {nbytes} bytes, "
                                f"larger than the pipe's slot_size={p.slot_size}", span=_span(c),
                                hint="raise slot_size= (and the buffer), or send a smaller tile")


__all__ = ["DEFAULT_SLOTS", "DEFAULT_SLOT_NUM", "DIRECTION_OF_MASK", "AutoRing", "auto_rings", "auto_slots",
           "ring_bytes", "ENDS", "SETUP_OPS", "PipeSetup", "Reservation", "RingPlan",
           "crossing_bytes", "has_setup", "ring_plan"]
