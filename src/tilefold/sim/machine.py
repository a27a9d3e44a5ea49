"""Execution of PTO programs on a model of the chip.

Launch model (DESIGN.md section 1): an InCore kernel runs once per block and its vector work uses
sub-block 0's Vec; an AIV kernel runs on both sub-blocks of each core (``get_subblock_idx`` 0 / 1); an
AIC kernel runs on the cube. Blocks are placed on cores round-robin (block ``b`` on core
``b % num_aic``); blocks that share a core run one after another on the same memories. Memories are
allocated once per core and simulation (never per instruction) and start zero-filled.

Time (``timeline.py``): every instruction runs on its pipe (``targets.Pipe``) for a cost from the target;
pipes of a unit overlap, ordered only by the program's ``set_flag`` / ``wait_flag`` events, and an
unordered conflicting pair of accesses is a ``MissingSync`` fault (``hazards.py``). Blocks of a launch
run on the target's cores in parallel (more blocks than cores queue), AIV sub-blocks in parallel, GM
bandwidth shared by the transfers in flight. A kernel's time is the launch overhead plus the end of its
last unit; an orchestration's launches run one after another.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilefold.backend.cross_core import kernel_lanes
from tilefold.backend.pto import (
    Alias,
    For,
    If,
    Instr,
    Launch,
    PTOKernel,
    PTOProgram,
    SAssign,
    SAssignMany,
    SBin,
    SConst,
    SetFlag,
    SGetVal,
    SRead,
    SReg,
    SSetVal,
    SSpecial,
    SUn,
    SWrite,
    TCustom,
    TExtract,
    TGatherRow,
    TIndirect,
    TLoad,
    TMatmul,
    TStore,
    TSubview,
    TVector,
    WaitFlag,
    While,
    sexpr_nodes,
    tile_accesses,
)
from tilefold.backend.sync import instruction_pipe
from tilefold.budget import DEFAULT_MAX_STEPS, MAX_TENSOR_BYTES, StepBudget, StepBudgetExceeded
from tilefold.errors import CustomOpError, Span, TilefoldError
from tilefold.ir.types import DataType, MemorySpace, dtype_from_numpy
from tilefold.ops import get_op
from tilefold.ops.conversions import element_value
from tilefold.ops.custom.cost import CostDeclaration
from tilefold.ops.custom.kernels import call_cost, call_kernel, describe_kernel, get_custom_op
from tilefold.ops.index_ops import IndexOutOfRange, gather_rows, scatter_rows
from tilefold.ops.tile_ops import atomic_add
from tilefold.targets import Target, get_target, kernel_memory_spaces, path_hint, unit_isolation_hint
from tilefold.targets.costs import dtype_key

from .barrier import DISPATCH as BARRIER_DISPATCH
from .barrier import LaunchPhases, check_handoffs, check_launch, has_barriers
from .faults import DanglingEvent, DeviceFault, DeviceHang, IllegalUnit, OutOfBounds, UnsupportedDataPath
from .hazards import HazardTracker
from .lanes import DISPATCH as LANE_DISPATCH
from .lanes import finish_launch
from .memory import FR, Handle, assign, copy_rows, nd_view, read, write
from .timeline import ORIGIN_CODE, ORIGIN_NAMES, PIPE_INDEX, PIPES, S, UnitTrace, schedule

Mem = MemorySpace

_BIN = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "/": lambda a, b: a / b,
    "min": min, "max": max, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "and": lambda a, b: bool(a) and bool(b), "or": lambda a, b: bool(a) or bool(b),
}


@dataclass
class UnitStats:
    cycles: float = 0.0
    instructions: int = 0
    bytes_moved: int = 0


@dataclass
class SimResult:
    outputs: dict[str, np.ndarray]
    cycles: float  # the kernel's (or orchestration's) simulated time
    unit_cycles: dict[str, float]  # per unit: the time its last instruction ends
    instructions: int
    bytes_moved: int
    launches: list[dict[str, Any]] = field(default_factory=list)
    target: Target | None = None
    traces: list[UnitTrace] = field(default_factory=list)  # every unit's records with start / end times
    busy: dict[str, dict[Any, float]] = field(default_factory=dict)  # unit -> pipe -> busy cycles
    # every launch's overhead span (kernel, start cycle, end cycle): before its first block starts
    launch_spans: list[tuple[str, float, float]] = field(default_factory=list)
    #: the tensor dumps a run with ``dump_level`` records (``simulate``): one record per dumped tensor per task
    dumps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def microseconds(self) -> float:
        return self.target.cycles_to_us(self.cycles) if self.target is not None else math.nan

    @property
    def launch_cycles(self) -> float:
        """Cycles spent in launch overhead (summed over the launches)."""
        return sum(e - s for _, s, e in self.launch_spans)

    @property
    def body_cycles(self) -> float:
        """The kernel body's time: the simulated time without the launch overhead."""
        return self.cycles - self.launch_cycles

    def pipe_utilisation(self) -> dict[str, float]:
        """Busy cycles / kernel-body cycles per pipe (the launch overhead is not in the denominator), over the
        busiest unit of each pipe."""
        body = self.body_cycles
        out: dict[str, float] = {}
        for per in self.busy.values():
            for pipe, cyc in per.items():
                out[pipe.value] = max(out.get(pipe.value, 0.0), cyc / body if body > 0 else 0.0)
        return {p.value: out.get(p.value, 0.0) for p in PIPES}

    def instruction_records(self, pipe: str | None = None) -> list[dict[str, Any]]:
        """Every costed instruction of every unit: text, pipe, start / end cycle, cycles, cost origin
        (measured / extrapolated / declared / assumed). A one-op kernel's op is the one record on its pipe."""
        out = []
        for unit in self.traces:
            for r, p in enumerate(unit.pipe):
                if pipe is not None and PIPES[p].value != pipe:
                    continue
                origin = ORIGIN_NAMES[unit.origin[r]]
                if not origin:
                    continue
                instr = unit.instr[r]
                text = instr.text() if hasattr(instr, "text") else str(instr)
                out.append({"unit": unit.name, "instruction": text, "pipe": PIPES[p].value,
                            "start": unit.start[r], "end": unit.end[r], "cycles": unit.end[r] - unit.start[r],
                            "origin": origin})
        return out

    def critical_pipe(self) -> str:
        util = self.pipe_utilisation()
        return max(util, key=lambda p: util[p]) if util else "-"


class _MemoryPool:
    """On-chip memory arrays recycled between simulations. A memory must start zero-filled: a recycled
    array is cleared with one memset, which costs less than a fresh allocation's page faults, and the
    views that handles cache over it (``memory.nd_view``) stay valid. Arrays come back only from a
    simulation that finished (``Machine.release``); nothing it returns refers to them."""

    _KEEP = 16  # arrays kept per size

    def __init__(self) -> None:
        self.free: dict[int, list[np.ndarray]] = {}

    def take(self, size: int) -> np.ndarray:
        stack = self.free.get(size)
        if stack:
            try:
                arr = stack.pop()
            except IndexError:  # another thread took the last one
                return np.zeros(size, dtype=np.uint8)
            arr.fill(0)
            return arr
        return np.zeros(size, dtype=np.uint8)

    def give(self, arrays) -> None:
        for arr in arrays:
            stack = self.free.setdefault(arr.shape[0], [])
            if len(stack) < self._KEEP:
                stack.append(arr)


_POOL = _MemoryPool()


class Core:
    """The memories of one AI core: Mat, Left, Right, Acc, Bias and one Vec per AIV sub-block.

    Each memory is one zero-filled uint8 array, allocated the first time the core touches that space and
    kept for the rest of the simulation (blocks that run on the same core see each other's leftovers)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.arrays: dict[tuple[MemorySpace, int], np.ndarray] = {}

    def memory(self, space: MemorySpace, subblock: int = 0) -> np.ndarray | None:
        key = (space, subblock if space is Mem.Vec else 0)
        arr = self.arrays.get(key)
        if arr is None:
            size = self.target.memory_sizes.get(space)
            if size is None or space is Mem.DDR:
                return None
            arr = self.arrays[key] = _POOL.take(size)
        return arr


class _Memories(dict):
    """Space -> byte array of one unit, filled from its core on first use. A kernel reaches only the spaces
    of its unit (``targets.kernel_memory_spaces``): touching another one raises ``IllegalUnit``."""

    def __init__(self, core: Core, subblock: int, func_type: str = "InCore") -> None:
        super().__init__()
        self.core = core
        self.subblock = subblock
        self.func_type = func_type
        self.allowed = kernel_memory_spaces(func_type)

    def __missing__(self, space: MemorySpace) -> np.ndarray:
        if space not in self.allowed:
            unit = f"vector sub-block {self.subblock}" if self.func_type == "AIV" else "cube"
            raise IllegalUnit(f"{self.func_type} kernel (running on the {unit}) cannot reach {space.name}",
                              space=space.name, hint=unit_isolation_hint(self.func_type))
        arr = self.core.memory(space, self.subblock)
        if arr is None:
            raise KeyError(space)
        self[space] = arr
        return arr

    def get(self, space, default=None):  # type: ignore[override]
        try:
            return self[space]
        except KeyError:
            return default


def _nearest_span(body: Sequence[Any], ins: Any) -> Span | None:
    """``ins``'s source span, else the nearest one an instruction of ``body`` before (then after) it carries:
    codegen's own moves (a loop's carried values) have none, and a budget error should still name a line."""
    if ins.span is not None and ins.span.line:
        return ins.span
    i = next((k for k, x in enumerate(body) if x is ins), 0)
    for x in (*reversed(body[:i]), *body[i + 1:]):
        span = getattr(x, "span", None)
        if span is not None and span.line:
            return span
    return None


class KernelRun:
    """One execution of a kernel body on one unit (a core, or one AIV sub-block of it)."""

    def __init__(self, machine: Machine, kernel: PTOKernel, core: Core, subblock: int, block_idx: int,
                 block_num: int, gm: dict[str, np.ndarray], scalars: dict[str, Any], stats: UnitStats,
                 trace: UnitTrace | None = None) -> None:
        self.m = machine
        self.target = machine.target
        self.kernel = kernel
        self.mem = _Memories(core, subblock, kernel.func_type)
        self.subblock = subblock
        self.block_idx = block_idx
        self.block_num = block_num
        self.gm = gm
        self.regs: dict[str, Any] = dict(scalars)
        self.stats = stats
        self.handles: dict[str, Handle] = machine.static_handles(kernel)
        self.costs = machine.target.costs
        self.trace = trace if trace is not None else UnitTrace("unit")
        self.hazards = HazardTracker()
        self.budget = machine.budget
        self.pipes = machine.pipes
        self.races = machine.races  # fixed for the launch this run belongs to
        self._mems: dict[str, np.ndarray] = {}  # space name -> byte array (str keys: no enum hashing)

    # ------------------------------------------------------------------------------------------
    # scalars
    # ------------------------------------------------------------------------------------------

    def ev(self, e) -> Any:
        t = type(e)
        if t is SConst:
            return e.value
        if t is SReg:
            try:
                return self.regs[e.name]
            except KeyError:
                raise TilefoldError(f"simulator: register ${e.name} read before it was written") from None
        if t is SBin:
            a, b = self.ev(e.lhs), self.ev(e.rhs)
            if e.op == "/" and isinstance(a, int) and isinstance(b, int):
                return a // b
            return _BIN[e.op](a, b)
        if t is SUn:
            v = self.ev(e.operand)
            return (not v) if e.op == "not" else -v
        if t is SSpecial:
            if e.kind == "block_idx":
                return self.block_idx
            if e.kind == "subblock_idx":
                return self.subblock
            if e.kind == "block_num":
                return self.block_num
            return self.target.aiv_per_aic
        raise TilefoldError(f"simulator: cannot evaluate {e!r}")

    def ev_int(self, e) -> int:
        return int(self.ev(e))

    # ------------------------------------------------------------------------------------------
    # execution
    # ------------------------------------------------------------------------------------------

    def run(self, body: tuple[Instr, ...]) -> None:
        dispatch = self.m.dispatch
        budget = self.budget
        limit = budget.max_steps
        races = self.races
        # data flow of GM reads, for race detection (sim/races.py): only when some read may race
        flow = races.step if races is not None and races.read_keys else None
        for ins in body:
            fn = dispatch[type(ins)]
            try:
                budget.steps += 1
                if limit is not None and budget.steps > limit:
                    budget.spend(0, _nearest_span(body, ins), f"`{ins.text()}`")
                fn(self, ins)
                if flow is not None:
                    flow(self, ins)
            except DeviceFault as f:
                if not f.instruction:
                    f.instruction = ins.text()
                if f.span is None and ins.span is not None:
                    f.span = ins.span  # innermost instruction first: a loop's body names its own line
                f.args = (f.render(),)
                raise

    def _facts(self, ins: Instr) -> tuple:
        """(pipe index, tile handles read, written, GM tensors read, written) of ``ins``, cached per
        instruction object (the pipe depends only on its handles' spaces, which do not change)."""
        f = self.pipes.get(id(ins))
        if f is None or f[-1] is not ins:
            p = PIPE_INDEX[instruction_pipe(ins, lambda n: self.h(n).space, self.target)]
            reads, writes, gm_reads, gm_writes = tile_accesses(ins)
            tiles = tuple((n, False) for n in reads) + tuple((n, True) for n in writes)
            gms = (tuple((("GM", "@" + t), False) for t in gm_reads)
                   + tuple((("GM", "@" + t), True) for t in gm_writes))  # hazard keys of the GM tensors
            f = self.pipes[id(ins)] = (p, tiles, gms, ins)
        return f

    def pipe(self, ins: Instr) -> int:
        """Pipe index of ``ins``."""
        return self._facts(ins)[0]

    def charge(self, ins: Instr, latency: float = 0.0, work: float = 0.0, nbytes: int = 0,
               gm_cap: float = 0.0, origin: int = 0) -> None:
        """Record ``ins`` on its pipe (after checking its accesses against the other pipes): ``latency`` +
        ``work`` cycles, or, with ``gm_cap`` > 0, ``latency`` then ``nbytes`` over the shared GM at most
        ``gm_cap`` bytes per cycle."""
        s = self.stats
        s.instructions += 1
        s.bytes_moved += nbytes
        facts = self.pipes.get(id(ins))
        if facts is None or facts[-1] is not ins:
            facts = self._facts(ins)
        pipe = facts[0]
        if facts[1] or facts[2]:  # every pipe's accesses are checked (a scalar-loop custom op runs on S)
            hz = self.hazards
            hz.seq[pipe] += 1  # HazardTracker.tick
            handles = self.handles
            access = hz.access
            for n, w in facts[1]:
                h = handles.get(n) or self.h(n)
                access(pipe, h.space_name, h.lo, h.hi, w, ins, "")
            for key, w in facts[2]:
                access(pipe, key, 0, 1 << 62, w, ins, "tensor ")
        if gm_cap > 0:
            self.trace.add(pipe, ins, latency, 0.0, float(nbytes), gm_cap, origin=origin)
        else:
            self.trace.add(pipe, ins, latency, work, origin=origin)

    def scalar(self, ins: Instr, cycles: float) -> None:
        self.stats.instructions += 1
        self.trace.add(S, ins, cycles)

    def _flag_pipes(self, ins: SetFlag | WaitFlag) -> tuple[int, int]:
        """(source, destination) pipe indices of an event instruction, cached per instruction object."""
        f = self.pipes.get(id(ins))
        if f is None or f[-1] is not ins:
            f = self.pipes[id(ins)] = (PIPE_INDEX[PIPES_BY_VALUE[ins.src]], PIPE_INDEX[PIPES_BY_VALUE[ins.dst]],
                                       ins)
        return f[0], f[1]

    def x_SetFlag(self, ins: SetFlag) -> None:
        src, dst = self._flag_pipes(ins)
        self.hazards.tick(src)
        rec = self.trace.add_marker(src, ins)  # its own price is 0 (targets/system.py PipeSyncCosts.set_flag)
        self.hazards.set_flag(src, dst, ins.event, rec, ins.user, ins)

    def x_WaitFlag(self, ins: WaitFlag) -> None:
        src, dst = self._flag_pipes(ins)
        self.hazards.tick(dst)
        rec = self.hazards.wait_flag(src, dst, ins.event, ins, ins.user)
        me = self.trace.add(dst, ins, extra_dep=rec)  # its own price is 0 (PipeSyncCosts.wait_flag): the wait
        self.trace.flows.append((rec, me))

    def finish(self) -> None:
        """The end of a kernel body on this unit: a kernel-written event still raised is a ``DanglingEvent``."""
        ins = self.hazards.dangling()
        if ins is not None:
            raise DanglingEvent(f"`{ins.text()}` is never waited for: the kernel ends with its event raised, so "
                                "the next kernel on the core that waits for it would go on before its own set",
                                instruction=ins.text(), span=ins.span,
                                hint="pair every pl.system.sync_src with a pl.system.sync_dst of the same pipes "
                                     "and event_id on every path")

    def h(self, name: str) -> Handle:
        try:
            return self.handles[name]
        except KeyError:
            raise TilefoldError(f"simulator: handle %{name} used before it was defined") from None

    def x_SAssign(self, ins: SAssign) -> None:
        self.regs[ins.reg] = self.ev(ins.value)
        self.scalar(ins, self.costs.scalar_op * max(1, sexpr_nodes(ins.value)))

    def element_index(self, ins: SRead | SWrite, arr: np.ndarray, what: str) -> list[int]:
        """The evaluated indices of an element read / write; outside the tensor they are an OutOfBounds fault."""
        idx = [self.ev_int(i) for i in ins.indices]
        for axis, (i, dim) in enumerate(zip(idx, arr.shape, strict=True)):
            if not 0 <= i < dim:
                raise OutOfBounds(
                    f"element {what} at {idx} leaves tensor @{ins.tensor} of shape {list(arr.shape)} on axis {axis}",
                    instruction=ins.text(), address=gm_byte_offset(idx, arr.shape, arr.dtype), space="GM",
                    hint=f"check the pl.{what} indices against the tensor shape (a runtime index may need a bound "
                         "check)")
        return idx

    def x_SRead(self, ins: SRead) -> None:
        arr = self.gm.get(ins.tensor)
        if arr is None:
            raise TilefoldError(f"simulator: no GM tensor @{ins.tensor}")
        idx = self.element_index(ins, arr, "read")
        view = arr[tuple(slice(i, i + 1) for i in idx)]
        if self.races is not None:  # GM race detection (sim/races.py)
            self.races.record(self, False, ins.tensor, arr, view, ins)
        self.regs[ins.reg] = view.reshape(()).item()
        # priced as one scalar op plus the GM access latency of a load (no bandwidth: one element)
        self.scalar_gm_access(ins, self.target.path_cost(Mem.DDR, Mem.Vec).latency)

    def x_SWrite(self, ins: SWrite) -> None:
        arr = self.gm.get(ins.tensor)
        if arr is None:
            raise TilefoldError(f"simulator: no GM tensor @{ins.tensor}")
        idx = self.element_index(ins, arr, "write")
        view = arr[tuple(slice(i, i + 1) for i in idx)]
        if self.races is not None:  # GM race detection (sim/races.py)
            self.races.record(self, True, ins.tensor, arr, view, ins)
        view[...] = element_value(self.ev(ins.value), arr.dtype)  # the register, converted to the element dtype
        # priced like an element read: one scalar op plus the GM access latency of a store
        self.scalar_gm_access(ins, self.target.path_cost(Mem.Vec, Mem.DDR).latency)

    def scalar_gm_access(self, ins: SRead | SWrite, latency: float) -> None:
        """A GM access on the scalar pipe: checked against the DMA pipes like any other access, then timed."""
        self.hazards.tick(S)
        facts = self._facts(ins)
        for key, w in facts[2]:
            self.hazards.access(S, key, 0, 1 << 62, w, ins, "tensor ")
        self.stats.instructions += 1
        self.trace.add(S, ins, self.costs.scalar_op + latency)

    def x_SSetVal(self, ins: SSetVal) -> None:
        h = self.h(ins.dst)
        mem = self._mem(h, ins)
        idx = [self.ev_int(i) for i in ins.indices]
        rc = [0, *idx][-2:] if len(idx) < 2 else idx[-2:]  # a 1-D tile is one row
        if not (0 <= rc[0] < h.rows and 0 <= rc[1] < h.cols):
            raise OutOfBounds(f"element write at {idx} leaves the {h.rows}x{h.cols} tile %{ins.dst}",
                              instruction=ins.text(), address=h.address, space=h.space.name,
                              hint="check the pl.write indices against the tile shape")
        tile = np.array(read(mem, h, ""), copy=True)
        tile[rc[0], rc[1]] = element_value(self.ev(ins.value), tile.dtype)
        write(mem, h, tile, "")
        # an on-chip access of the scalar pipe: checked against the other pipes like any other access
        self.hazards.tick(S)
        addr = h.address + element_offset(h, rc[0], rc[1] - rc[1] % 2 if h.packed else rc[1])  # 4-bit: its byte
        self.hazards.access(S, h.space_name, addr, addr + h.isz, True, ins, "")
        self.stats.instructions += 1
        self.trace.add(S, ins, self.costs.scalar_op)

    def x_SGetVal(self, ins: SGetVal) -> None:
        h = self.h(ins.src)
        mem = self._mem(h, ins)
        idx = [self.ev_int(i) for i in ins.indices]
        rc = [0, *idx][-2:] if len(idx) < 2 else idx[-2:]  # a 1-D tile is one row
        if not (0 <= rc[0] < h.rows and 0 <= rc[1] < h.cols):
            raise OutOfBounds(f"element read at {idx} leaves the {h.rows}x{h.cols} tile %{ins.src}",
                              instruction=ins.text(), address=h.address, space=h.space.name,
                              hint="check the pl.tile.read indices against the tile shape")
        self.regs[ins.reg] = np.asarray(read(mem, h, ""))[rc[0], rc[1]].item()
        # an on-chip access of the scalar pipe: checked against the other pipes like any other access
        self.hazards.tick(S)
        addr = h.address + element_offset(h, rc[0], rc[1] - rc[1] % 2 if h.packed else rc[1])  # 4-bit: its byte
        self.hazards.access(S, h.space_name, addr, addr + h.isz, False, ins, "")
        self.stats.instructions += 1
        self.trace.add(S, ins, self.costs.scalar_op)

    def x_SAssignMany(self, ins: SAssignMany) -> None:
        vals = [self.ev(v) for v in ins.values]
        for r, v in zip(ins.regs, vals, strict=False):
            self.regs[r] = v
        self.scalar(ins, self.costs.scalar_op * max(1, sum(sexpr_nodes(v) for v in ins.values)))

    def x_Alias(self, ins: Alias) -> None:
        self.handles[ins.dst] = self.h(ins.src)

    def x_For(self, ins: For) -> None:
        start, stop, step = self.ev_int(ins.start), self.ev_int(ins.stop), self.ev_int(ins.step)
        if step == 0:
            raise TilefoldError("simulator: loop with step 0")
        cost = self.costs.scalar_op
        add = self.trace.add
        budget = self.budget
        for i in range(start, stop, step):
            self.regs[ins.var] = i
            budget.steps += 1  # an iteration is a step too, so an empty body cannot spin forever
            if budget.max_steps is not None and budget.steps > budget.max_steps:
                budget.spend(0, ins.span, f"`{ins.text()}`")
            add(S, ins, cost)
            try:
                self.run(ins.body)
            except StepBudgetExceeded as exc:
                if exc.span is None or not exc.span.line:  # codegen's own moves carry no line: name the loop's
                    raise StepBudgetExceeded(exc.message, span=ins.span, hint=exc.hint) from None
                raise

    def x_While(self, ins: While) -> None:
        cost = self.costs.scalar_op
        while self.ev(ins.cond):
            self.trace.add(S, ins, cost)
            self.budget.spend(1, ins.span, f"`{ins.text()}`")
            self.run(ins.body)

    def x_If(self, ins: If) -> None:
        self.trace.add(S, ins, self.costs.scalar_op)
        self.run(ins.then_body if self.ev(ins.cond) else ins.else_body)

    # data movement -------------------------------------------------------------------------------

    def _path(self, src: MemorySpace, dst: MemorySpace, ins: Instr, addr: int | None) -> None:
        if not self.m.path_info(src, dst)[0]:
            raise UnsupportedDataPath(
                f"{self.target.name} has no {src.name} -> {dst.name} data path",
                instruction=ins.text(), address=addr, space=dst.name, hint=path_hint(self.target, src, dst))

    def _dma(self, ins: Instr, src: MemorySpace, dst: MemorySpace, nbytes: int, blocks: int = 1) -> None:
        """A transfer of ``nbytes`` in ``blocks`` contiguous blocks: the path's latency per block, then the
        bytes at its rate (on GM: shared with the chip's other transfers in flight)."""
        _, pc, origin = self.m.path_info(src, dst)
        if src is Mem.DDR or dst is Mem.DDR:
            self.charge(ins, pc.latency * blocks, 0.0, nbytes, pc.bytes_per_cycle, origin)
        else:
            self.charge(ins, pc.latency * blocks, math.ceil(nbytes / pc.bytes_per_cycle), nbytes, origin=origin)

    def _gm_window(self, tensor: str, offsets, window: tuple[int, ...], rows: int, cols: int,
                   ins: Instr) -> np.ndarray:
        """The N-D window of GM tensor ``tensor`` an instruction moves (a writable view, not reshaped)."""
        arr = self.gm.get(tensor)
        if arr is None:
            raise TilefoldError(f"simulator: no GM tensor @{tensor}")
        offs = [self.ev_int(o) for o in offsets]
        shape = arr.shape
        win = window if window else (rows, cols)[-len(shape):]
        if len(offs) != len(shape) or len(win) != len(shape):
            raise OutOfBounds(f"window of rank {len(win)} on tensor @{tensor} of rank {len(shape)}",
                              instruction=ins.text(), address=0, space="GM",
                              hint="give the load / store one offset and one extent per tensor dimension")
        for axis in range(len(shape)):
            o = offs[axis]
            if o < 0 or o + win[axis] > shape[axis]:
                first = first_faulting_element(offs, win, shape)
                addr = gm_byte_offset(first, shape, arr.dtype)
                raise OutOfBounds(
                    f"window offsets {offs} extent {list(win)} leaves tensor @{tensor} of shape {list(shape)} on "
                    f"axis {axis}; first faulting element {first}",
                    instruction=ins.text(), address=addr, space="GM",
                    hint="check the load / store offsets against the tensor shape (a runtime offset may need a "
                         "bound check or a smaller window)")
        if arr.dtype in _PACKED_NP:  # 4-bit types are packed two per byte in GM too: a DMA moves whole bytes
            _check_packed_window(tensor, offs, win, arr, ins)
        view = arr[tuple(slice(o, o + w) for o, w in zip(offs, win, strict=True))]
        if view.size != rows * cols:
            raise OutOfBounds(f"window {list(win)} of @{tensor} holds {view.size} elements, the tile {rows}x{cols}",
                              instruction=ins.text(), address=gm_byte_offset(offs, shape, arr.dtype),
                              space="GM",
                              hint="the GM window extents must multiply out to the tile's rows x cols")
        return view

    def x_TLoad(self, ins: TLoad) -> None:
        dst = self.h(ins.dst)
        mem = self._mem(dst, ins)
        self._path(Mem.DDR, dst.space, ins, dst.address)
        if ins.valid:  # only the valid region moves (its bounds are checked); the rest of the tile keeps its bytes
            vr, vc = self._valid_extents(ins, dst)
            src = self._gm_window(ins.tensor, ins.offsets, _valid_window(ins, vr, vc), vr, vc, ins)
            if self.races is not None:  # GM race detection (sim/races.py)
                self.races.record(self, False, ins.tensor, self.gm[ins.tensor], src, ins)
            tile = np.array(read(mem, dst, ""), copy=True)
            tile[:vr, :vc] = src.reshape(vr, vc)
            write(mem, dst, tile, "")
            self._dma(ins, Mem.DDR, dst.space, dst.dtype.nbytes(vr * vc), _blocks(ins.window))
            return
        if ins.transpose:  # a DN view of the [r, c] window: the [c, r] tile (the same bursts, priced as a load)
            src = self._gm_window(ins.tensor, ins.offsets, ins.window, dst.cols, dst.rows, ins)
            value = src.reshape(dst.cols, dst.rows).T
        else:
            src = self._gm_window(ins.tensor, ins.offsets, ins.window, dst.rows, dst.cols, ins)
            value = src.reshape(dst.rows, dst.cols)
        if self.races is not None:  # GM race detection (sim/races.py)
            self.races.record(self, False, ins.tensor, self.gm[ins.tensor], src, ins)
        write(mem, dst, value, "")
        self._dma(ins, Mem.DDR, dst.space, dst.nbytes, _blocks(ins.window))

    def x_TStore(self, ins: TStore) -> None:
        src = self.h(ins.src)
        mem = self._mem(src, ins)
        self._path(src.space, Mem.DDR, ins, src.address)
        nbytes = src.nbytes
        if ins.valid:  # the instruction writes the tile's valid region only (whose bounds are what is checked)
            vr, vc = self._valid_extents(ins, src)
            win = self._gm_window(ins.tensor, ins.offsets, _valid_window(ins, vr, vc), vr, vc, ins)
            value = read(mem, src, "")[:vr, :vc]
            nbytes = src.dtype.nbytes(vr * vc)
        else:
            win = self._gm_window(ins.tensor, ins.offsets, ins.window, src.rows, src.cols, ins)
            value = read(mem, src, "")
        if self.races is not None:  # GM race detection (sim/races.py)
            self.races.record(self, True, ins.tensor, self.gm[ins.tensor], win, ins, atomic=bool(ins.atomic))
        value = value.reshape(win.shape) if value.shape != win.shape else value
        if ins.atomic:  # read-add-write of the GM window, FP32 adds for floats, wrapping integer adds
            value = atomic_add(win, value)
        assign(win, value)  # in place: win is a view
        self._dma(ins, src.space, Mem.DDR, nbytes, _blocks(ins.window))

    def _valid_extents(self, ins: TLoad | TStore, h: Handle) -> tuple[int, int]:
        """The valid [rows, cols] of a load / store, evaluated and clipped to the tile (1-D: one row)."""
        valid = [1, *(self.ev_int(v) for v in ins.valid)][-2:]
        for v, n, axis in ((valid[0], h.rows, "rows"), (valid[1], h.cols, "columns")):
            if not 0 <= v <= n:  # a device would move past the tile (or nothing sensible): never clamp silently
                raise OutOfBounds(f"valid shape {valid} of a [{h.rows}, {h.cols}] tile: {v} {axis} is outside "
                                  f"[0, {n}]", instruction=ins.text(), space=h.space.name,
                                  hint="bound the run-time valid extent, e.g. pl.min(M - r0, R)")
        return valid[0], valid[1]

    def _mem(self, h: Handle, ins: Instr) -> np.ndarray:
        """The byte array of ``h``'s memory space on this unit (``IllegalUnit`` if the kernel's unit cannot
        reach it)."""
        arr = self._mems.get(h.space_name)
        if arr is not None:
            return arr
        try:
            arr = self._mems[h.space_name] = self.mem[h.space]
            return arr
        except IllegalUnit as f:
            f.instruction = ins.text()
            f.address = h.address
            f.args = (f.render(),)
            raise
        except KeyError:
            raise UnsupportedDataPath(f"{self.target.name} has no {h.space.name} memory on the core",
                                      instruction=ins.text(), address=h.address, space=h.space.name,
                                      hint="GM tensors are not tiles: load them into an on-chip space") from None

    def x_TSubview(self, ins: TSubview) -> None:
        src = self.h(ins.src)
        row, col = self.ev_int(ins.row), self.ev_int(ins.col)
        plain_window = ins.opcode == "tsubview" and ins.dtype is None and ins.layout is None and ins.pitch is None
        if plain_window and (row < 0 or col < 0 or row + ins.shape[0] > src.rows or col + ins.shape[1] > src.cols):
            # a window at a run-time offset (a pl.read value, a scalar parameter) past its tile would read the
            # neighbouring on-chip bytes: the device would compute garbage, so the model reports it
            raise OutOfBounds(f"subview window at ({row}, {col}) of {ins.shape[0]}x{ins.shape[1]} leaves the "
                              f"{src.rows}x{src.cols} tile %{ins.src}", instruction=ins.text(),
                              address=src.address, space=src.space.name,
                              hint="check the window offsets against the shape of the tile they slice")
        dtype = ins.dtype or src.dtype
        self.handles[ins.dst] = Handle(src.space, src.address + element_offset(src, row, col), ins.shape[0],
                                       ins.shape[1], ins.pitch if ins.pitch is not None else src.pitch, dtype,
                                       ins.layout or src.layout)
        self.scalar(ins, self.costs.scalar_op)

    def x_TExtract(self, ins: TExtract) -> None:
        src = self.h(ins.src)
        dst = self.h(ins.dst)
        mem_src, mem_dst = self._mem(src, ins), self._mem(dst, ins)
        self._path(src.space, dst.space, ins, dst.address)
        row, col = self.ev_int(ins.row), self.ev_int(ins.col)
        wr, wc = (dst.cols, dst.rows) if ins.transpose else (dst.rows, dst.cols)
        window = Handle(src.space, src.address + element_offset(src, row, col), wr, wc, src.pitch,
                        src.dtype, src.layout)
        if row < 0 or col < 0 or row + wr > src.rows or col + wc > src.cols:
            raise OutOfBounds(f"extract window at ({row}, {col}) of {wr}x{wc} leaves the "
                              f"{src.rows}x{src.cols} source", instruction=ins.text(), address=window.address,
                              space=src.space.name, hint="check the extract indices against the source shape")
        if ins.transpose:  # across memories (Mat -> Left / Right): the source's values land transposed
            write(mem_dst, dst, np.array(read(mem_src, window, "")).T, "")
        else:
            copy_rows(mem_src, window, mem_dst, dst, "")
        self._dma(ins, src.space, dst.space, dst.nbytes)

    # compute ---------------------------------------------------------------------------------------

    def _vec_operand(self, h: Handle, ins: Instr) -> None:
        if h.space is not Mem.Vec:
            raise UnsupportedDataPath(f"vector unit operand in {h.space.name}; the vector unit reads only Vec",
                                      instruction=ins.text(), address=h.address, space=h.space.name,
                                      hint="move the tile to Vec first (on Ascend950 Acc -> Vec; otherwise "
                                           "store it to GM and load it into Vec)")
        if h.address % self.target.vector_base_alignment:
            raise DeviceHang(
                f"vector operand base 0x{h.address:x} is not {self.target.vector_base_alignment}-byte aligned",
                instruction=ins.text(), address=h.address, space="Vec",
                hint="a zero-copy column slice starts inside its source row; run CanonicalizeTileSlice to "
                     "copy unaligned windows into an aligned buffer (#1789)")

    def x_TVector(self, ins: TVector) -> None:
        info = self.m.vector_info.get(id(ins))
        if info is None or info[0] is not ins:
            # per argument: 0 a tile name, 1 a tuple of scalars, 2 a constant (its value), 3 a scalar expression
            plan = tuple((0, a) if type(a) is str else (1, a) if isinstance(a, tuple)
                         else (2, a.value) if type(a) is SConst else (3, a) for a in ins.args)
            info = self.m.vector_info[id(ins)] = (ins, self.m.op(ins.op), dict(ins.attrs), plan)
        _, op, attrs, plan = info
        handles = self.handles
        dst = handles.get(ins.dst) or self.h(ins.dst)
        align = self.target.vector_base_alignment
        if dst.space is not Mem.Vec or dst.address % align:
            self._vec_operand(dst, ins)
        vec = self._mem(dst, ins)
        args = []
        shape_of = dst  # the instruction is priced on its largest tile operand
        src_dtype = None
        for kind, a in plan:
            if kind == 0:
                h = handles.get(a) or self.h(a)
                if h.space is not Mem.Vec or h.address % align:
                    self._vec_operand(h, ins)
                args.append(read(vec, h, ""))
                if src_dtype is None:
                    src_dtype = h.dtype
                if h.rows * h.cols > shape_of.rows * shape_of.cols:
                    shape_of = h
            elif kind == 2:
                args.append(a)
            elif kind == 1:
                args.append(tuple(self.ev(x) for x in a))
            else:
                args.append(self.ev(a))
        if op.golden is None:
            raise TilefoldError(f"simulator: {op.name} has no golden semantics")
        try:
            value = op.golden(args, attrs)
        except IndexError as e:  # an index operand (gather / scatter) names an element outside its tile
            raise OutOfBounds(self._index_fault(e, attrs), instruction=ins.text(), address=dst.address,
                              space="Vec", hint="every index must lie inside the axis it indexes: bound or clamp the "
                                                "indices before the instruction") from None
        write(vec, dst, value, "")
        src_dtype = src_dtype or dst.dtype
        pick = op.extra.get("cost_variant")  # an implementation variant chosen by an attribute (TRECIP precision)
        variant = pick(attrs) if pick is not None else None
        key = (ins.opcode, id(src_dtype), id(dst.dtype), shape_of.rows, shape_of.cols, shape_of.pitch, variant)
        price = self.m.vector_prices.get(key)
        if price is None:
            extra = (variant,) if variant is not None else ()
            p = self.costs.table.vector(ins.opcode.upper(), dtype_key(src_dtype), dtype_key(dst.dtype),
                                        shape_of.rows, max(shape_of.pitch, shape_of.cols), shape_of.rows,
                                        shape_of.cols, *extra)
            price = self.m.vector_prices[key] = (float(p.cycles), ORIGIN_CODE[p.origin])
        self.charge(ins, 0.0, price[0], origin=price[1])

    def _index_fault(self, e: IndexError, attrs: dict) -> str:
        """The fault text of an out-of-range index. On a sub-block's part of a split tile (``sub_block_half`` =
        (axis, extent): the part starts at sub-block * extent) the element is named in the whole tile, as the
        program writes it."""
        if self.kernel.func_type != "AIV":
            return str(e)
        part = attrs.get("sub_block_half")
        if isinstance(e, IndexOutOfRange) and part is not None:
            axis, extent = part
            where = list(e.element)
            where[axis] += self.subblock * extent
            return (f"{e.at(where)} (on vector sub-block {self.subblock}, which holds elements "
                    f"[{self.subblock * extent}, {self.subblock * extent + extent}) of axis {axis})")
        # each AIV sub-block holds its own part of a tile split by hand: the element is counted within that part
        return f"{e} (on vector sub-block {self.subblock}: elements count within the tiles it holds)"

    def _entry(self, k: int, attrs: dict) -> tuple[int, str]:
        """Entry ``k`` of an mgather / mscatter index tile (``[n, 1]`` or ``[1, n]``) as the program numbers it, and
        a note on where it ran: on a sub-block's half of a split one (``sub_block_half`` = (axis, extent)) the entry
        counts in the whole index tile."""
        part = attrs.get("sub_block_half")
        if self.kernel.func_type != "AIV" or part is None:
            return k, ""
        lo, hi = self.subblock * int(part[1]), (self.subblock + 1) * int(part[1])
        return lo + k, f" (on vector sub-block {self.subblock}, which holds entries [{lo}, {hi}))"

    def x_TIndirect(self, ins: TIndirect) -> None:
        """mgather / mscatter: one DMA block per row between GM tensor rows and a Vec tile (index tile in Vec)."""
        arr = self.gm.get(ins.tensor)
        if arr is None:
            raise TilefoldError(f"simulator: no GM tensor @{ins.tensor}")
        h, ih = self.h(ins.tile), self.h(ins.index)
        mem = self._mem(h, ins)
        for one in (h, ih):
            self._vec_operand(one, ins)
        rows = read(self._mem(ih, ins), ih, "").astype(np.int64).ravel()
        attrs = dict(ins.attrs)
        m, row_bytes = arr.shape[0], h.dtype.nbytes(arr.shape[1])  # the tile's dtype is the tensor's (4-bit: packed)
        policy = (attrs.get("gather_oob") or "error") if ins.gathers else "error"
        live = np.ones(rows.size, bool) if ins.gathers else rows >= 0  # mscatter: a negative index masks its row
        bad = np.flatnonzero(live & ((rows < 0) | (rows >= m))) if policy == "error" else np.zeros(0, int)
        if bad.size:
            k = int(bad[0])
            entry, where = self._entry(k, attrs)
            raise OutOfBounds(f"row index {int(rows[k])} (entry {entry} of the index tile %{ins.index}) leaves "
                              f"tensor @{ins.tensor} of {m} rows{where}", instruction=ins.text(), space="GM",
                              address=max(int(rows[k]), 0) * row_bytes,
                              hint="bound the indices to [0, rows)" + (", or choose gather_oob='zero' / 'clamp'"
                                                                       if ins.gathers else " (a negative one masks)"))
        touched = np.unique(np.clip(rows[live], 0, m - 1))
        if ins.gathers:
            self._path(Mem.DDR, h.space, ins, h.address)
            value = gather_rows(arr, rows, policy)
            write(mem, h, value.reshape(h.rows, h.cols), "")
            direction = (Mem.DDR, h.space)
        else:
            self._path(h.space, Mem.DDR, ins, h.address)
            arr[...] = scatter_rows(arr, read(mem, h, ""), rows)
            direction = (h.space, Mem.DDR)
        if self.races is not None:  # GM race detection: every row the instruction reads or writes
            for r in touched:
                self.races.record(self, not ins.gathers, ins.tensor, arr, arr[r:r + 1], ins)
        n = int(live.sum())
        blocks = n
        if attrs.get("coalesce") and n:  # consecutive ascending row indices form one contiguous block
            used = rows[live]
            blocks = 1 + int(np.count_nonzero(np.diff(used) != 1))
        self._dma(ins, direction[0], direction[1], n * row_bytes, max(blocks, 1))

    def x_TGatherRow(self, ins: TGatherRow) -> None:
        """gather_row: the GM window (its run-time extents) DMA'd into a region of the tile, the rest unchanged;
        a transfer longer than the declared window, a region leaving the tile or a window leaving the tensor
        faults (nothing is clipped)."""
        dst = self.h(ins.dst)
        mem = self._mem(dst, ins)
        self._path(Mem.DDR, dst.space, ins, dst.address)
        arr = self.gm.get(ins.tensor)
        if arr is None:
            raise TilefoldError(f"simulator: no GM tensor @{ins.tensor}")
        r, c = (self.ev_int(e) for e in ins.extent)
        d0, d1 = (self.ev_int(e) for e in ins.dst_offsets)
        s0, s1 = (self.ev_int(e) for e in ins.src_offsets)
        rr, cc = (c, r) if ins.transpose else (r, c)
        if not (0 <= rr <= ins.window[0] and 0 <= cc <= ins.window[1]):
            raise OutOfBounds(f"transfer extent {[r, c]} is outside the declared window {list(ins.window)}",
                              instruction=ins.text(), address=dst.address, space=dst.space.name,
                              hint="bound the run-time valid_shape by the static shapes, e.g. pl.min(n, R)")
        if d0 < 0 or d1 < 0 or d0 + rr > dst.rows or d1 + cc > dst.cols:
            raise OutOfBounds(f"written region at ({d0}, {d1}) of {rr}x{cc} leaves the {dst.rows}x{dst.cols} tile "
                              f"%{ins.dst}", instruction=ins.text(), address=dst.address, space=dst.space.name,
                              hint="dst_offsets + valid_shape must fit the accumulator")
        if s0 < 0 or s1 < 0 or s0 + r > arr.shape[0] or s1 + c > arr.shape[1]:
            first = first_faulting_element([s0, s1], (max(r, 1), max(c, 1)), arr.shape)
            raise OutOfBounds(f"source window at ({s0}, {s1}) of {r}x{c} leaves tensor @{ins.tensor} of shape "
                              f"{list(arr.shape)}", instruction=ins.text(), space="GM",
                              address=gm_byte_offset(first, arr.shape, arr.dtype),
                              hint="check the gathered row address (e.g. the block table entry) against the pool")
        win = arr[s0:s0 + r, s1:s1 + c]
        if self.races is not None:  # GM race detection (sim/races.py)
            self.races.record(self, False, ins.tensor, arr, win, ins)
        tile = np.array(read(mem, dst, ""), copy=True)
        tile[d0:d0 + rr, d1:d1 + cc] = win.T if ins.transpose else win
        write(mem, dst, tile, "")
        self._dma(ins, Mem.DDR, dst.space, dst.dtype.nbytes(r * c), 1)

    def _cube_roles(self, op: Any, ins: TMatmul, ops: list[Handle]) -> tuple[Handle, Handle, Handle | None,
                                                                             list[Handle]]:
        """(lhs, rhs, bias, scales) of a cube instruction's operands (the accumulator taken out): ``lhs, rhs
        [, bias]``, or an MX matmul's ``lhs, lhs_scale, rhs, rhs_scale [, bias]`` (ops/mx_ops.py)."""
        if not op.extra.get("mx"):
            return ops[0], ops[1], (ops[2] if len(ops) > 2 else None), []
        if not self.target.cube_mx:
            raise UnsupportedDataPath(f"{op.name}: {self.target.name} has no MX block-scale cube",
                                      instruction=ins.text(), hint="MX matmuls run on Ascend950 only")
        return ops[0], ops[2], (ops[4] if len(ops) > 4 else None), [ops[1], ops[3]]

    def x_TMatmul(self, ins: TMatmul) -> None:
        op = self.m.op(ins.op)
        hs = [self.h(s) for s in ins.srcs]
        reuse = op.output_reuses_input
        ops = list(hs)
        acc = ops.pop(reuse) if reuse is not None else None
        lhs, rhs, bias, scales = self._cube_roles(op, ins, ops)
        dst = self.h(ins.dst)
        for h in (dst, lhs, rhs, *scales):
            self._mem(h, ins)  # unit isolation first: an AIV kernel cannot reach the cube memories
        roles = [(lhs, Mem.Left), (rhs, Mem.Right)]
        if scales:  # an MX matmul's scales live beside their data tiles
            roles += [(scales[0], Mem.Left), (scales[1], Mem.Right)]
        for h, want in roles:
            if h.space is not want:
                raise UnsupportedDataPath(
                    f"cube operand in {h.space.name}; the cube reads its {'lhs' if want is Mem.Left else 'rhs'} "
                    f"from {want.name}", instruction=ins.text(), address=h.address, space=h.space.name,
                    hint=f"extract the operand to {want.name} with pl.tile.extract(..., target_memory="
                         f"pl.Mem.{want.name})")
        if dst.space is not Mem.Acc:
            raise UnsupportedDataPath(f"cube destination in {dst.space.name}; the cube writes Acc",
                                      instruction=ins.text(), address=dst.address, space=dst.space.name,
                                      hint="a matmul result lives in Acc (L0C); store it to GM from there")
        m, k, n = lhs.rows, lhs.cols, rhs.cols
        # The MAD writes (and, accumulating, reads) its destination densely from the bare base pointer:
        # m from the lhs, n from the rhs, no destination stride.
        mad = self.m.mad_handle(dst, m, n)
        acc_mem = self._mem(dst, ins)
        a = read(self._mem(lhs, ins), lhs, "")
        b = read(self._mem(rhs, ins), rhs, "")
        args = [a, b]
        if scales:
            args = [a, read(self._mem(scales[0], ins), scales[0], ""), b,
                    read(self._mem(scales[1], ins), scales[1], "")]
        fresh = ins.init is not None and bool(self.ev(ins.init))  # the MMAD init flag: acc not read
        if acc is not None:
            args.insert(reuse, np.zeros((m, n), np.float32) if fresh else read(acc_mem, mad, ""))
        if bias is not None:
            args.append(read(self._mem(bias, ins), bias, ""))
        write(acc_mem, mad, op.golden(args, {}), "")
        price = self.costs.table.cube(m, k, n, dtype_key(lhs.dtype))
        self.charge(ins, 0.0, float(price.cycles), origin=ORIGIN_CODE[price.origin])

    def x_TCustom(self, ins: TCustom) -> None:
        entry = get_custom_op(ins.symbol)
        ins_vals = []
        shapes = []
        touched = []
        for a in ins.ins:
            if isinstance(a, str):
                h = self.h(a)
                mem = self._mem(h, ins)
                if h.space is Mem.Vec:
                    self._vec_operand(h, ins)
                arr = np.array(read(mem, h, ""), copy=True)
                ins_vals.append(arr)
                shapes.append(arr.shape)
                touched.append(h)
            else:
                ins_vals.append(self.ev(a))
        outs = [self.h(o) for o in ins.outs]
        for h in outs:
            self._mem(h, ins)
            if h.space is Mem.Vec:
                self._vec_operand(h, ins)
        result = call_kernel(entry, ins_vals, ins.span)
        kernel = f"\n  {describe_kernel(entry)}"
        if not isinstance(result, (tuple, list)):
            result = (result,)
        if len(result) != len(outs):
            raise CustomOpError(f"kernel of custom op {ins.symbol!r} returned {len(result)} values for {len(outs)} "
                                f"outputs{kernel}", span=ins.span, hint="return one array per output, in outs order")
        for i, (h, v) in enumerate(zip(outs, result, strict=False)):
            arr = np.asarray(v)
            if arr.ndim != 2 and arr.size == h.rows * h.cols:
                arr = arr.reshape(h.rows, h.cols)  # a 1-D or N-D tile the device holds as a 2-D buffer
            if arr.shape != (h.rows, h.cols):
                raise CustomOpError(
                    f"kernel of custom op {ins.symbol!r} returned shape {list(arr.shape)} for output #{i}, expected "
                    f"{[h.rows, h.cols]}{kernel}", span=ins.span,
                    hint="the kernel sees tile-local arrays and must return each output at its tile shape")
            if arr.dtype != h.np_dtype:
                raise CustomOpError(
                    f"kernel of custom op {ins.symbol!r} returned dtype {arr.dtype} for output #{i}, expected "
                    f"{h.dtype.name} ({h.np_dtype}){kernel}", span=ins.span,
                    hint=f"convert the result with .astype(...) to {h.np_dtype}")
            write(self._mem(h, ins), h, arr, "")
            touched.append(h)
        origin = ORIGIN_CODE["declared"]
        cycles = None
        if isinstance(entry.cost, CostDeclaration) and ins.iterators:  # its declared work over the iteration space
            first = next((self.h(a) for a in ins.ins if isinstance(a, str)), None)
            try:
                priced = entry.cost.price(self.target.name, first.dtype.name if first is not None else "",
                                          ins.iterators, ins.ranges)
            except CustomOpError as e:
                e.span = e.span or ins.span
                raise
            cycles = None if priced is None else priced[0]
        else:
            cycles = call_cost(entry, shapes, ins.span, self.target)
        if cycles is None:  # no declared cost: one measured one-pass vector op (TADDS) per tile read or written
            table = self.costs.table
            cycles = 0
            for h in touched:
                cycles += table.vector("TADDS", dtype_key(h.dtype), dtype_key(h.dtype), h.rows,
                                       max(h.pitch, h.cols), h.rows, h.cols).cycles
            origin = ORIGIN_CODE["extrapolated"]
        self.charge(ins, 0.0, cycles, origin=origin)


def element_offset(h: Handle, row: int, col: int) -> int:
    """Byte offset of element (row, col) from the base of tile ``h`` (ND, DN or NZ; 4-bit types: ND, half a byte
    each)."""
    if h.packed:
        index = row * h.pitch + col
        if h.layout != "ND" or index % 2:
            raise UnsupportedDataPath(f"element ({row}, {col}) of the {h.dtype.name} tile {h.describe()} starts "
                                      "mid-byte (two elements per byte)", address=h.address, space=h.space.name,
                                      hint="slice 4-bit tiles at even column offsets")
        return index // 2
    isz = h.isz
    if h.layout == "NZ":
        frac = FR * FR * isz
        return ((col // FR) * (h.pitch // FR) + row // FR) * frac + ((row % FR) * FR + col % FR) * isz
    if h.layout == "DN":
        return (col * h.pitch + row) * isz
    return (row * h.pitch + col) * isz


def _blocks(window: tuple[int, ...]) -> int:
    """Contiguous blocks of a GM window: one per index of its leading axes (a 2-D window moves as one strided
    block; an N-D window is one DMA block per leading index)."""
    return math.prod(window[:-2]) if len(window) > 2 else 1


def _valid_window(ins: TLoad | TStore, vr: int, vc: int) -> tuple[int, ...]:
    """The GM window of the valid [vr, vc] region of a load / store: leading unit axes of a higher-rank tensor
    kept; a flattened N-D window (leading extents above 1) is not supported with a valid shape."""
    rank = len(ins.offsets)
    if rank == 1:
        return (vc,)
    if any(w != 1 for w in ins.window[:-2]):
        from tilefold.errors import NotSupportedError

        raise NotSupportedError(f"simulator: `{ins.text()}`: a valid shape on a tile moved through a flattened N-D "
                                "window is not supported", hint="use a 2-D window")
    return (1,) * (rank - 2) + (vr, vc)


def first_faulting_element(offs: list[int], win, shape) -> list[int]:
    """The first element (in row-major order over the window) of the window at ``offs`` with extents
    ``win`` that lies outside a tensor of ``shape``; coordinates may be negative or past the end."""
    first = []
    for axis in range(len(shape)):
        o, w, e = offs[axis], win[axis], shape[axis]
        if o < 0 or o >= e:  # the whole hyper-row at this index faults: its first element is the answer
            return first + [o] + list(offs[axis + 1:])
        rest = offs[axis + 1:]
        inner_faults = any(ro < 0 or ro + rw > re for ro, rw, re in
                           zip(rest, win[axis + 1:], shape[axis + 1:], strict=True))
        if inner_faults or o + w <= e:
            first.append(o)  # the first faulting element has this index on this axis
            continue
        return first + [e] + list(rest)  # the first index past the end, the window origin elsewhere
    return first


#: numpy dtypes of the packed (sub-byte) element types (``DataType.packed``): FP4, INT4, UINT4
_PACKED_NP = frozenset(np.dtype(d.np_dtype) for d in DataType if d.packed and d.encoded)


def _check_packed_window(tensor: str, offs: list[int], win: tuple[int, ...], arr: np.ndarray, ins: Instr) -> None:
    """An ``UnsupportedDataPath`` when a GM window of a packed tensor has a row starting or ending mid-byte: its
    first element at an odd position, an odd innermost extent, or (several rows) an odd tensor row."""
    shape = arr.shape
    first = 0
    for o, n in zip(offs, shape, strict=True):
        first = first * n + o
    rows = math.prod(win[:-1]) if len(win) > 1 else 1
    if first % 2 == 0 and win[-1] % 2 == 0 and (rows == 1 or shape[-1] % 2 == 0):
        return
    raise UnsupportedDataPath(
        f"window offsets {offs} extent {list(win)} of the packed (two elements per byte) tensor @{tensor} of shape "
        f"{list(shape)}: a row of it starts or ends mid-byte, and a DMA moves whole bytes", instruction=ins.text(),
        address=gm_byte_offset(offs, shape, arr.dtype), space="GM",
        hint="give 4-bit (FP4 / INT4 / UINT4) windows even column offsets and extents, in a tensor whose rows hold an "
             "even count")


def gm_byte_offset(index, shape, dtype: np.dtype) -> int:
    """Byte offset from a C-contiguous tensor's base of ``index`` (may lie outside the tensor), in the device's
    bytes (``DataType.storage_bits``: 4-bit types are packed two per byte in GM too)."""
    off, stride = 0, 1
    for i, e in zip(reversed(list(index)), reversed(list(shape)), strict=True):
        off += i * stride
        stride *= e
    dt = dtype_from_numpy(dtype)
    if dt is None:
        return off * np.dtype(dtype).itemsize
    return off * dt.storage_bits // 8  # the byte holding the element (4-bit: element 2j + 1 is in byte j, too)


_OPS: dict[str, Any] = {}
PIPES_BY_VALUE = {p.value: p for p in PIPES}


class Machine:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.dispatch = {
            SAssign: KernelRun.x_SAssign, SAssignMany: KernelRun.x_SAssignMany, Alias: KernelRun.x_Alias,
            SRead: KernelRun.x_SRead, SWrite: KernelRun.x_SWrite, SSetVal: KernelRun.x_SSetVal,
            SGetVal: KernelRun.x_SGetVal,
            For: KernelRun.x_For, While: KernelRun.x_While, If: KernelRun.x_If,
            TLoad: KernelRun.x_TLoad, TStore: KernelRun.x_TStore, TSubview: KernelRun.x_TSubview,
            TExtract: KernelRun.x_TExtract, TVector: KernelRun.x_TVector, TMatmul: KernelRun.x_TMatmul,
            TCustom: KernelRun.x_TCustom, TIndirect: KernelRun.x_TIndirect, TGatherRow: KernelRun.x_TGatherRow,
            SetFlag: KernelRun.x_SetFlag,
            WaitFlag: KernelRun.x_WaitFlag,
            **LANE_DISPATCH,  # pl.split_aiv regions and the cross-core pipe (sim/lanes.py)
            **BARRIER_DISPATCH,  # pl.system.syncall / fence / cacheinvalid (sim/barrier.py)
        }
        self.budget = StepBudget(None, "simulator")
        self.traces: list[UnitTrace] = []
        self.launch_spans: list[tuple[str, float, float]] = []
        self.busy: dict[str, dict[Any, float]] = {}
        self.vector_prices: dict[tuple, tuple[float, int]] = {}  # (opcode, dtypes, shape) -> (cycles, origin)
        self.pipes: dict[int, tuple] = {}  # id(instruction) -> (pipe, tile accesses, GM accesses, instruction)
        self.cores: dict[int, Core] = {}
        self.vector_info: dict[int, tuple] = {}  # id(TVector) -> (instruction, OpDef, attrs)
        self._mads: dict[tuple, Handle] = {}
        self._paths: dict[tuple[int, int], tuple[bool, Any, int]] = {}
        self.races: Any = None  # sim/races.py LaunchAccesses of the running launch, when it has >1 unit
        self.phases: Any = None  # sim/barrier.py LaunchPhases of the running launch, when its kernel has barriers

    def path_info(self, src: MemorySpace, dst: MemorySpace) -> tuple[bool, Any, int]:
        """(path supported, its PathCost, its cost origin code), cached by the members' ids (enum hashing is
        slow)."""
        key = (id(src), id(dst))
        info = self._paths.get(key)
        if info is None:
            supported = self.target.supports_path(src, dst)
            try:
                origin = ORIGIN_CODE[self.target.costs.table.path(src.name, dst.name)[2]]
                pc = self.target.path_cost(src, dst)
            except TilefoldError:
                if supported:
                    raise
                origin, pc = 0, None  # no such path: the instruction traps before it is priced
            info = self._paths[key] = (supported, pc, origin)
        return info

    def mad_handle(self, dst: Handle, m: int, n: int) -> Handle:
        """The dense NZ handle a MAD of m x n writes from ``dst``'s base (built once per shape)."""
        key = (dst.address, m, n, id(dst.dtype))
        h = self._mads.get(key)
        if h is None:
            h = self._mads[key] = Handle(Mem.Acc, dst.address, m, n, -(-m // FR) * FR, dst.dtype, "NZ")
        return h

    def op(self, name: str):
        o = _OPS.get(name)
        if o is None:
            o = _OPS[name] = get_op(name)
        return o

    def release(self) -> None:
        """Hand the cores' memories back to the pool (the simulation is over and nothing refers to them)."""
        for core in self.cores.values():
            _POOL.give(core.arrays.values())
            core.arrays = {}
        self.cores = {}

    def core(self, idx: Any) -> Core:
        c = self.cores.get(idx)
        if c is None:
            c = self.cores[idx] = Core(self.target)
        return c

    def use_kernel_caches(self, kernel: PTOKernel) -> None:
        """Point ``pipes`` / ``vector_info`` / the MAD handles at ``kernel``'s caches for this target: those
        facts are static per (kernel, its buffers, target), so they are kept on the kernel across simulations."""
        cached = kernel.__dict__.get("_sim_facts")
        if cached is None or cached[0] is not self.target or cached[1] is not kernel.buffers:
            cached = kernel.__dict__["_sim_facts"] = (self.target, kernel.buffers, {}, {}, {})
        self.pipes, self.vector_info, self._mads = cached[2], cached[3], cached[4]

    def static_handles(self, kernel: PTOKernel) -> dict[str, Handle]:
        """Handles of the kernel's declared buffers (built once per kernel object and cached on it)."""
        cached = kernel.__dict__.get("_sim_handles")
        if cached is None or cached[0] is not kernel.buffers:
            hs = {name: Handle(b.space, b.address, b.shape[0], b.shape[1], b.pitch, b.dtype, b.layout)
                  for name, b in kernel.buffers.items()}
            cached = (kernel.buffers, hs)
            kernel.__dict__["_sim_handles"] = cached
        return dict(cached[1])

    def launch(self, kernel: PTOKernel, gm: dict[str, np.ndarray], scalars: dict[str, Any],
               block_dim: int, t0: float = 0.0) -> tuple[float, dict[str, float], int, int]:
        """Run every block of a launch of ``kernel`` and schedule their timelines from ``t0``. Block ``b``
        runs on core ``b % num_aic``; blocks sharing a core (and sub-block) run one after another."""
        if kernel.block_dim is not None:
            block_dim = kernel.block_dim
        if block_dim < 1:
            raise TilefoldError(f"kernel {kernel.name!r} launched with block_dim={block_dim}",
                                hint="block_dim must be a positive number of cores")
        units: dict[str, UnitStats] = {}
        traces: dict[str, UnitTrace] = {}
        ft = kernel.func_type
        self.use_kernel_caches(kernel)
        from .races import LaunchAccesses  # GM race detection (sim/races.py)
        lanes = kernel_lanes(kernel.body)
        self.races = LaunchAccesses(kernel, gm) if block_dim > 1 or ft == "AIV" or lanes else None
        self.launch_traces, self.launch_units = traces, units  # lanes add their units (sim/lanes.py)
        phased = has_barriers(kernel)
        if phased:  # pl.system.syncall: every participant runs up to each barrier before any passes it
            check_launch(kernel, block_dim, self.target)
            if self.races is None:
                self.races = LaunchAccesses(kernel, gm)
            self.races.handoff_check = check_handoffs
            self.phases = LaunchPhases(self, kernel)
        pending: list[tuple[KernelRun, str]] = []
        for b in range(block_dim):
            core_idx = self.target.core_of_block(b)
            # a phased launch gives each block memories of its own: blocks sharing a core interleave at barriers
            core = self.core(("block", b) if phased else core_idx)
            if ft == "AIV":
                sbs = [(sb, f"core{core_idx}.aiv{sb}") for sb in range(self.target.aiv_per_aic)]
            elif ft == "AIC":
                sbs = [(0, f"core{core_idx}.aic")]
            else:
                sbs = [(0, f"core{core_idx}")]
            block_gm = gm
            if kernel.workspaces:  # each block's private GM scratch, fresh per launch
                block_gm = dict(gm)
                for w in kernel.workspaces:
                    block_gm[w.name] = np.zeros(w.shape, dtype=w.dtype.np_dtype)
            for sb, unit in sbs:
                stats = units.setdefault(unit, UnitStats())
                trace = traces.get(unit)
                if trace is None:
                    trace = traces[unit] = UnitTrace(unit)
                if not phased:  # a phased block begins when it first runs (sim/barrier.py)
                    trace.begin_block(f"block {b} of @{kernel.name}")
                run = KernelRun(self, kernel, core, sb, b, block_dim, block_gm, scalars, stats, trace)
                if phased:
                    pending.append((run, f"{unit} (block {b}, kernel @{kernel.name})"))
                    continue
                try:
                    run.run(kernel.body)
                    run.finish()
                except DeviceFault as f:
                    raise f.with_unit(f"{f.unit or unit} (block {b}, kernel @{kernel.name})") from None
        if phased:
            try:
                self.phases.run(pending)
            finally:
                self.phases = None
        finish_launch(self, kernel)
        if self.races is not None:
            self.races, races = None, self.races
            races.check()  # units of one launch are unordered: conflicting GM accesses are a race
        start = t0 + self.target.launch_overhead_cycles
        self.launch_spans.append((kernel.name, t0, start))
        sched = schedule(list(traces.values()), self.target.gm_bytes_per_cycle, start)
        self.traces.extend(traces.values())
        for name, per in sched.busy.items():
            acc = self.busy.setdefault(name, dict.fromkeys(PIPES, 0.0))
            for pipe, cyc in per.items():
                acc[pipe] += cyc
        unit_cycles = {u: sched.unit_end[u] - t0 for u in units}
        time = (max(sched.makespan, start) - t0) if units else 0.0
        return (time, unit_cycles, sum(s.instructions for s in units.values()),
                sum(s.bytes_moved for s in units.values()))


def _zero_gm(t: Any, where: str) -> np.ndarray:
    """A zero-filled GM tensor for ``t``, its size checked before it is allocated."""
    nbytes = math.prod(t.shape) * t.dtype.storage_bits // 8
    if nbytes > MAX_TENSOR_BYTES:
        raise TilefoldError(f"tensor {t.name!r} of {where} is {list(t.shape)} {t.dtype.name}: {nbytes:,} bytes, above "
                            f"the {MAX_TENSOR_BYTES // 2**20} MiB limit of one tensor in simulated GM",
                            hint="use smaller tensors: tilefold models GM byte by byte in host memory")
    return np.zeros(t.shape, dtype=t.dtype.np_dtype)


def _prepare_gm(params, inputs: Mapping[str, Any], where: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    gm: dict[str, np.ndarray] = {}
    for t in params:
        if t.name in inputs:
            arr = np.array(inputs[t.name], dtype=t.dtype.np_dtype, copy=True, order="C")
            if any(s >= 0 and s != a for s, a in zip(t.shape, arr.shape, strict=False)) or arr.ndim != len(t.shape):
                raise TilefoldError(f"input {t.name!r} has shape {list(arr.shape)}, {where} expects "
                                    f"{list(t.shape)}")
            gm[t.name] = arr
        elif t.direction == "Out" and all(s >= 0 for s in t.shape):
            gm[t.name] = _zero_gm(t, where)
        else:
            raise TilefoldError(f"missing input {t.name!r} for {where}",
                                hint=f"pass an array of shape {list(t.shape)} and dtype {t.dtype.name}")
    return gm, {}


def simulate(pto: PTOProgram, inputs: Mapping[str, Any], target: str | Target | None = None,
             block_dim: int = 1, *, max_steps: int | None = None, budget: StepBudget | None = None,
             dump_level: int = 0) -> SimResult:
    """Run ``pto`` on ``inputs`` (arrays / scalars by entry parameter name). Raises ``DeviceFault`` on a
    trap, ``StepBudgetExceeded`` after ``max_steps`` executed instructions and loop iterations (default
    ``tilefold.budget.DEFAULT_MAX_STEPS``; or pass a shared ``budget``). Returns the Out / InOut tensors,
    the kernel time, each unit's end time, the per-unit timelines and instruction / byte counts.

    ``dump_level`` (PyPTO's ``enable_dump_args``): 1 records, around every launch, the values before and after it
    of the GM tensors ``pl.dump_tag`` / ``dumps=`` marked for it (``Launch.dumps``); 2 those of every tensor the
    launch binds. The records are ``SimResult.dumps`` (``tilefold.runtime.dfx`` writes them); time is unchanged."""
    tgt = get_target(target if target is not None else pto.target)
    if budget is None:
        budget = StepBudget(max_steps if max_steps is not None else DEFAULT_MAX_STEPS, "simulator")
    with np.errstate(all="ignore"):
        return _simulate(pto, inputs, tgt, block_dim, budget, dump_level)


def _dump_before(launch: Launch | None, kernel: PTOKernel, bound: dict[str, np.ndarray], level: int,
                 task: int) -> list[dict[str, Any]]:
    """The dump records of one launch, with the values before it (``_dump_after`` adds the values after)."""
    if level not in (1, 2):
        return []
    wanted = set(launch.dumps) if launch is not None and level == 1 else None
    gm_of = {p: v for p, v in launch.bindings if isinstance(v, str)} if launch is not None else {}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for t in kernel.tensors:
        gm = gm_of.get(t.name, t.name)
        if t.name not in bound or (wanted is not None and gm not in wanted) or gm in seen:
            continue
        seen.add(gm)
        out.append({"task": task, "kernel": kernel.name, "tensor": gm, "param": t.name, "direction": t.direction,
                    "before": np.array(bound[t.name], copy=True), "array": bound[t.name]})
    return out


def _dump_after(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for r in records:
        r["after"] = np.array(r.pop("array"), copy=True)
    return records


def _simulate(pto: PTOProgram, inputs: Mapping[str, Any], tgt: Target, block_dim: int,
              budget: StepBudget, dump_level: int = 0) -> SimResult:
    machine = Machine(tgt)
    machine.budget = budget
    if pto.orchestration is None:
        kernel = pto.kernels[pto.entry]
        gm, _ = _prepare_gm(kernel.tensors, inputs, f"kernel {kernel.name!r}")
        scalars = {s: inputs[s] for s in kernel.scalars if s in inputs}
        missing = [s for s in kernel.scalars if s not in inputs]
        if missing:
            raise TilefoldError(f"missing scalar input(s) {missing} for kernel {kernel.name!r}")
        dumps = _dump_before(None, kernel, gm, 2 if dump_level == 2 else 0, 0)  # no orchestration: nothing tagged
        time, unit_cycles, n_instr, n_bytes = machine.launch(kernel, gm, scalars, block_dim)
        outputs = {t.name: gm[t.name] for t in kernel.tensors if t.direction in ("Out", "InOut")}
        machine.release()
        return SimResult(outputs, time, unit_cycles, n_instr, n_bytes, [], tgt, machine.traces, machine.busy,
                         machine.launch_spans, _dump_after(dumps))

    gm, _ = _prepare_gm(pto.entry_tensors, inputs, f"orchestration {pto.entry!r}")
    for t in pto.entry_locals:  # tensors the orchestration creates (pl.create_tensor): fresh zero-filled GM
        gm[t.name] = _zero_gm(t, f"orchestration {pto.entry!r}")
    host_scalars = {s: inputs[s] for s in pto.entry_scalars if s in inputs}
    total, n_instr, n_bytes = 0.0, 0, 0
    unit_cycles: dict[str, float] = {}
    launches = []
    dumps: list[dict[str, Any]] = []
    for task, launch in enumerate(pto.orchestration):
        total += _host_steps(launch.host, host_scalars, gm, tgt)
        kernel = pto.kernels[launch.kernel]
        bound: dict[str, np.ndarray] = {}
        scalars: dict[str, Any] = {}
        for pname, value in launch.bindings:
            if isinstance(value, str):
                bound[pname] = gm[value]
            else:
                run = KernelRun.__new__(KernelRun)
                run.regs = host_scalars
                scalars[pname] = KernelRun.ev(run, value)
        records = _dump_before(launch, kernel, bound, dump_level, task)
        time, ucyc, ni, nb = machine.launch(kernel, bound, scalars, block_dim, total)
        dumps += _dump_after(records)
        total += time
        n_instr += ni
        n_bytes += nb
        for u, cyc in ucyc.items():
            unit_cycles[u] = unit_cycles.get(u, 0.0) + cyc
        launches.append({"kernel": kernel.name, "cycles": time, "unit_cycles": ucyc})
    outputs = {t.name: gm[t.name] for t in pto.entry_tensors if t.direction in ("Out", "InOut")}
    for out_name, tensor in pto.entry_returns:  # returned tensors that are not Out parameters
        outputs[out_name] = gm[tensor]
    machine.release()
    return SimResult(outputs, total, unit_cycles, n_instr, n_bytes, launches, tgt, machine.traces, machine.busy,
                     machine.launch_spans, dumps)


def _host_steps(steps: tuple[Any, ...], regs: dict[str, Any], gm: dict[str, np.ndarray], tgt: Target) -> float:
    """Run the orchestration's scalar code before a launch (arithmetic, ``HostRead`` of GM elements written by
    earlier launches); returns its time: a scalar op per step, plus a GM load latency per element read."""
    from tilefold.backend.pto import HostRead

    run = KernelRun.__new__(KernelRun)
    run.regs = regs
    time = 0.0
    for step in steps:
        time += tgt.costs.scalar_op
        if isinstance(step, HostRead):
            arr = gm[step.tensor]
            idx = tuple(int(KernelRun.ev(run, i)) for i in step.indices)
            if len(idx) != arr.ndim or any(not 0 <= i < d for i, d in zip(idx, arr.shape, strict=True)):
                raise TilefoldError(f"orchestration: element read {list(idx)} leaves tensor @{step.tensor} of shape "
                                    f"{list(arr.shape)}", hint="check the pl.tensor.read indices")
            regs[step.reg] = arr[idx].item()
            time += tgt.path_cost(Mem.DDR, Mem.Vec).latency
        else:
            regs[step[0]] = KernelRun.ev(run, step[1])
    return time


__all__ = ["Core", "Machine", "SimResult", "simulate", "nd_view", "DataType"]
