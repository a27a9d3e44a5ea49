"""The PTO program model: kernels of instructions over explicit buffers.

A ``Buffer`` is a tile in a memory space at a byte address, with a shape, a row pitch, a dtype and a
layout (``ND`` row-major with ``pitch`` elements per row; ``NZ`` 16x16 fractals whose column blocks are
``pitch`` rows apart; ``DN`` column-major, used by transposed views). Every tile variable of a planned
function becomes a statically declared buffer at its planned address. At run time instructions refer to
*handles* by name: a static buffer, or a view created by ``tsubview`` (zero copy: it keeps the source's
pitch and layout, and its address is computed from the runtime offsets).

Scalar operands are small expression trees (``SConst``, ``SReg``, ``SBin``, ``SUn``, ``SSpecial`` for
block / sub-block indices) evaluated by the simulator.

``PTOProgram.text()`` prints the whole program in a readable assembly-like form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tilefold.errors import Span
from tilefold.ir.types import DataType, MemorySpace

# ------------------------------------------------------------------------------------------------
# scalar expressions
# ------------------------------------------------------------------------------------------------


class SExpr:
    __slots__ = ()


@dataclass(frozen=True)
class SConst(SExpr):
    value: Any

    def __str__(self) -> str:
        return repr(self.value) if isinstance(self.value, float) else str(self.value)


@dataclass(frozen=True)
class SReg(SExpr):
    name: str

    def __str__(self) -> str:
        return f"${self.name}"


@dataclass(frozen=True)
class SBin(SExpr):
    op: str  # Python operator symbol, or "min" / "max"
    lhs: SExpr
    rhs: SExpr

    def __str__(self) -> str:
        if self.op in ("min", "max"):
            return f"{self.op}({self.lhs}, {self.rhs})"
        return f"({self.lhs} {self.op} {self.rhs})"


@dataclass(frozen=True)
class SUn(SExpr):
    op: str  # "-" or "not"
    operand: SExpr

    def __str__(self) -> str:
        return f"{self.op}{' ' if self.op == 'not' else ''}{self.operand}"


@dataclass(frozen=True)
class SSpecial(SExpr):
    kind: str  # "block_idx" | "subblock_idx" | "block_num" | "subblock_num"

    def __str__(self) -> str:
        return f"{self.kind}()"


def sexpr_nodes(e: Any) -> int:
    """Number of ALU operations an expression costs."""
    if isinstance(e, SBin):
        return 1 + sexpr_nodes(e.lhs) + sexpr_nodes(e.rhs)
    if isinstance(e, SUn):
        return 1 + sexpr_nodes(e.operand)
    return 0


# ------------------------------------------------------------------------------------------------
# buffers
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    name: str
    space: MemorySpace
    address: int
    shape: tuple[int, int]
    pitch: int
    dtype: DataType
    layout: str = "ND"

    @property
    def nbytes(self) -> int:
        return self.dtype.nbytes(self.shape[0] * self.shape[1])

    def describe(self) -> str:
        r, c = self.shape
        return (f"{self.space.name}[0x{self.address:x}] {r}x{c} {self.dtype.name.lower()} "
                f"pitch={self.pitch} {self.layout}")


@dataclass(frozen=True)
class TensorParam:
    name: str
    shape: tuple[int, ...]
    dtype: DataType
    direction: str  # "In" | "Out" | "InOut"


# ------------------------------------------------------------------------------------------------
# instructions
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Instr:
    """Base of PTO instructions. ``text()`` gives the one-line form. ``span`` is the source location of the
    IR statement the instruction was lowered from (set by codegen; not part of equality or the text)."""

    span: Span | None = field(default=None, kw_only=True, compare=False, repr=False)

    def text(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__


def _s(x: Any) -> str:
    return str(x)


def _offs(offsets: tuple[SExpr, ...]) -> str:
    return "[" + ", ".join(map(str, offsets)) + "]"


@dataclass(frozen=True)
class TLoad(Instr):
    dst: str
    tensor: str
    offsets: tuple[SExpr, ...]
    window: tuple[int, ...] = ()  # N-D extents of the GM window (folds into the tile's [rows, cols])
    valid: tuple[SExpr, ...] = ()  # the loaded tile's valid [rows, cols] when not the whole tile: moved alone
    #: the [r, c] window read through a DN view of the tensor (shape and strides swapped): the [c, r] tile
    transpose: bool = False

    def text(self) -> str:
        valid = f" valid{_offs(self.valid)}" if self.valid else ""
        trans = " dn" if self.transpose else ""
        return f"tload %{self.dst}, @{self.tensor}{_offs(self.offsets)}{valid}{trans}"


@dataclass(frozen=True)
class TStore(Instr):
    tensor: str
    offsets: tuple[SExpr, ...]
    src: str
    window: tuple[int, ...] = ()
    valid: tuple[SExpr, ...] = ()  # the stored tile's valid [rows, cols] when not the whole tile: written alone
    atomic: str = ""  # "add": the store adds into GM (an atomic read-add-write)

    def text(self) -> str:
        valid = f" valid{_offs(self.valid)}" if self.valid else ""
        atomic = f" atomic={self.atomic}" if self.atomic else ""
        return f"tstore @{self.tensor}{_offs(self.offsets)}, %{self.src}{valid}{atomic}"


@dataclass(frozen=True)
class TSubview(Instr):
    """Zero-copy view ``dst`` of ``src`` starting at element (row, col) with ``shape``; keeps the source
    pitch and layout. ``dtype`` / ``layout`` / ``pitch`` overrides serve reshape / reinterpret / transpose
    views."""

    dst: str
    src: str
    row: SExpr
    col: SExpr
    shape: tuple[int, int]
    dtype: DataType | None = None
    layout: str | None = None
    pitch: int | None = None
    opcode: str = "tsubview"

    def text(self) -> str:
        extra = ""
        if self.dtype is not None:
            extra += f" as {self.dtype.name.lower()}"
        if self.layout is not None:
            extra += f" {self.layout}"
        if self.pitch is not None:
            extra += f" pitch={self.pitch}"
        return (f"{self.opcode} %{self.dst}, %{self.src}[{self.row}, {self.col}] "
                f"{self.shape[0]}x{self.shape[1]}{extra}")


@dataclass(frozen=True)
class TExtract(Instr):
    """Copy the window of ``dst``'s shape at element (row, col) of ``src`` into ``dst``.
    ``materialize`` marks a lazy materialization of a subview operand (into the slice's own buffer)."""

    dst: str
    src: str
    row: SExpr
    col: SExpr
    materialize: bool = False
    opcode: str = "textract"
    transpose: bool = False  # the window of dst's transposed shape lands transposed (a Mat -> Left / Right tmov)

    def text(self) -> str:
        tag = "  ; materialize subview" if self.materialize else ""
        trans = ", transpose" if self.transpose else ""
        return f"{self.opcode} %{self.dst}, %{self.src}[{self.row}, {self.col}]{trans}{tag}"


@dataclass(frozen=True)
class TMatmul(Instr):
    """Cube instruction. ``op`` is the registry op (its golden computes the values); operands are
    (acc?, lhs, rhs, bias?) in the registry's operand order."""

    opcode: str
    op: str
    dst: str
    srcs: tuple[str, ...]
    init: Any = None  # SExpr of the init flag (matmul_acc(init_cond=)): true -> the accumulator starts afresh

    def text(self) -> str:
        text = f"{self.opcode} %{self.dst}, " + ", ".join(f"%{s}" for s in self.srcs)
        return text if self.init is None else f"{text}, init={self.init}"


@dataclass(frozen=True)
class TVector(Instr):
    """Vector instruction computed with the registry golden of ``op`` on the operands read from memory.
    ``args`` follow the registry operand order: buffer names (tiles), ``SExpr`` (scalars) or tuples of
    ``SExpr`` (list operands)."""

    opcode: str
    op: str
    dst: str
    args: tuple[Any, ...]
    attrs: tuple[tuple[str, Any], ...] = ()

    def text(self) -> str:
        parts = []
        for a in self.args:
            if isinstance(a, str):
                parts.append(f"%{a}")
            elif isinstance(a, tuple):
                parts.append(_offs(a))
            else:
                parts.append(str(a))
        attrs = "".join(f", {k}={_attr(v)}" for k, v in self.attrs)
        return f"{self.opcode} %{self.dst}" + "".join(f", {p}" for p in parts) + attrs


@dataclass(frozen=True)
class TIndirect(Instr):
    """Rows moved between a GM tensor and a Vec tile by an index tile (one DMA block per row): ``tmgather`` reads
    row ``index[k]`` of ``tensor`` into row k of ``tile``; ``tmscatter`` writes row k of ``tile`` into row
    ``index[k]`` of ``tensor``. ``op`` is the registry op; ``attrs`` its attributes (``gather_oob``, ``coalesce``)."""

    opcode: str
    op: str
    tensor: str
    tile: str
    index: str
    attrs: tuple[tuple[str, Any], ...] = ()

    @property
    def gathers(self) -> bool:
        return self.opcode == "tmgather"

    def text(self) -> str:
        attrs = "".join(f", {k}={_attr(v)}" for k, v in self.attrs)
        if self.gathers:
            return f"{self.opcode} %{self.tile}, @{self.tensor}[%{self.index}]{attrs}"
        return f"{self.opcode} @{self.tensor}[%{self.index}], %{self.tile}{attrs}"


@dataclass(frozen=True)
class TGatherRow(Instr):
    """One caller-addressed GM window DMA'd into a region of an on-chip tile (``tile.gather_row``): the window of
    ``extent`` (the valid extents, run-time values allowed) at ``src_offsets`` of ``tensor`` is written at
    ``dst_offsets`` of ``dst`` (transposed when ``transpose``); the rest of ``dst`` keeps its bytes. ``box`` is the
    static sub-region codegen declares (``shapes``, box-aligned on L1): it may overhang ``dst``, the written region
    may not."""

    dst: str
    tensor: str
    dst_offsets: tuple[SExpr, ...]
    src_offsets: tuple[SExpr, ...]
    extent: tuple[SExpr, ...]
    box: tuple[int, int]
    window: tuple[int, int]  # the declared sub-region (``shapes``, in the tile's orientation): bounds the transfer
    transpose: bool = False
    opcode: str = "tgatherrow"

    def text(self) -> str:
        trans = ", transpose" if self.transpose else ""
        return (f"{self.opcode} %{self.dst}{_offs(self.dst_offsets)} box={self.box[0]}x{self.box[1]}, "
                f"@{self.tensor}{_offs(self.src_offsets)} extent{_offs(self.extent)}{trans}")


def _attr(v: Any) -> str:
    if isinstance(v, DataType):
        return v.name.lower()
    if isinstance(v, MemorySpace):
        return v.name
    return repr(v)


@dataclass(frozen=True)
class TCustom(Instr):
    symbol: str
    outs: tuple[str, ...]
    ins: tuple[Any, ...]
    tmps: tuple[str, ...] = ()
    opcode: str = "custom"
    # the structured description the work-based price needs (ops/custom/cost.py): iterator types, the loop
    # ranges read off this call's tile shapes, and the pipe its declaration names ("" = where its results live)
    iterators: tuple[str, ...] = ()
    ranges: tuple[Any, ...] = ()
    pipe: str = ""

    def text(self) -> str:
        def fmt(a):
            return f"%{a}" if isinstance(a, str) else str(a)
        tmps = f" tmps({', '.join(fmt(t) for t in self.tmps)})" if self.tmps else ""
        return (f"{self.opcode} @{self.symbol} outs({', '.join(fmt(o) for o in self.outs)}) "
                f"ins({', '.join(fmt(i) for i in self.ins)}){tmps}")


@dataclass(frozen=True)
class SAssign(Instr):
    reg: str
    value: SExpr

    def text(self) -> str:
        return f"${self.reg} = {self.value}"


@dataclass(frozen=True)
class SRead(Instr):
    """A scalar read of one GM tensor element into a register (the scalar unit reads GM directly)."""

    reg: str
    tensor: str
    indices: tuple[SExpr, ...]

    def text(self) -> str:
        return f"${self.reg} = sread @{self.tensor}{_offs(self.indices)}"


@dataclass(frozen=True)
class SWrite(Instr):
    """A scalar write of a register (or constant) into one GM tensor element (the scalar unit's store)."""

    tensor: str
    indices: tuple[SExpr, ...]
    value: SExpr

    def text(self) -> str:
        return f"swrite @{self.tensor}{_offs(self.indices)}, {self.value}"


@dataclass(frozen=True)
class SSetVal(Instr):
    """A scalar write of a register (or constant) into one element of an on-chip tile (the scalar unit's store
    into UB)."""

    dst: str
    indices: tuple[SExpr, ...]
    value: SExpr

    def text(self) -> str:
        return f"ssetval %{self.dst}{_offs(self.indices)}, {self.value}"


@dataclass(frozen=True)
class SGetVal(Instr):
    """A scalar read of one element of an on-chip tile into a register (the scalar unit's load from UB)."""

    reg: str
    src: str
    indices: tuple[SExpr, ...]

    def text(self) -> str:
        return f"${self.reg} = sgetval %{self.src}{_offs(self.indices)}"


@dataclass(frozen=True)
class SAssignMany(Instr):
    """Parallel assignment (loop back edges): every value is read before any register is written."""

    regs: tuple[str, ...]
    values: tuple[SExpr, ...]

    def text(self) -> str:
        return ", ".join(f"${r}" for r in self.regs) + " = " + ", ".join(map(str, self.values))


@dataclass(frozen=True)
class For(Instr):
    var: str
    start: SExpr
    stop: SExpr
    step: SExpr
    body: tuple[Instr, ...]

    def text(self) -> str:
        return f"for ${self.var} in range({self.start}, {self.stop}, {self.step}):"


@dataclass(frozen=True)
class While(Instr):
    cond: SExpr
    body: tuple[Instr, ...]

    def text(self) -> str:
        return f"while {self.cond}:"


@dataclass(frozen=True)
class If(Instr):
    cond: SExpr
    then_body: tuple[Instr, ...]
    else_body: tuple[Instr, ...] = ()

    def text(self) -> str:
        return f"if {self.cond}:"


@dataclass(frozen=True)
class SetFlag(Instr):
    """``set_flag``: queued on pipe ``src``; event ``event`` of the pipe pair fires once every instruction
    issued to ``src`` before it has finished (the hardware's set_flag(PIPE_src, PIPE_dst, EVENT_ID))."""

    src: str  # Pipe value ("MTE2", "VECTOR", ...)
    dst: str
    event: int
    user: bool = False  # written in the kernel (pl.system.sync_src): PTO's EVENT_IDn, apart from codegen's events

    def text(self) -> str:
        return f"set_flag {self.src} -> {self.dst}, {event_text(self.event, self.user)}"


@dataclass(frozen=True)
class WaitFlag(Instr):
    """``wait_flag``: queued on pipe ``dst``; later ``dst`` instructions start only once the oldest pending
    ``set_flag`` of the same (src, dst, event) has fired. A wait with no pending set deadlocks the chip."""

    src: str
    dst: str
    event: int
    user: bool = False  # written in the kernel (pl.system.sync_dst)

    def text(self) -> str:
        return f"wait_flag {self.src} -> {self.dst}, {event_text(self.event, self.user)}"


def event_text(event: int, user: bool) -> str:
    """An event's name in the program text: ``EVENT_IDn`` for one the kernel wrote (pl.system.sync_src /
    sync_dst), ``eN`` for one codegen inserted (its own numbering: the two never match each other)."""
    return f"EVENT_ID{event}" if user else f"e{event}"


@dataclass(frozen=True)
class Alias(Instr):
    """Bind handle ``dst`` to whatever handle ``src`` currently is (no data moves, no cycles)."""

    dst: str
    src: str

    def text(self) -> str:
        return f"alias %{self.dst} = %{self.src}"


def tile_accesses(ins: Instr) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(tile handles read, tile handles written, GM tensors read, GM tensors written) of a leaf
    instruction, by instruction kind. Views, scalars and control flow access no buffer."""
    t = type(ins)
    if t is TLoad:
        return (), (ins.dst,), (ins.tensor,), ()
    if t is TStore:
        return (ins.src,), (), (), (ins.tensor,)
    if t is TExtract:
        return (ins.src,), (ins.dst,), (), ()
    if t is TVector:
        return tuple(a for a in ins.args if type(a) is str), (ins.dst,), (), ()
    if t is TMatmul:
        return ins.srcs, (ins.dst,), (), ()
    if t is TCustom:
        return tuple(a for a in ins.ins if type(a) is str) + ins.tmps, ins.outs + ins.tmps, (), ()
    if t is TIndirect:
        if ins.gathers:
            return (ins.index,), (ins.tile,), (ins.tensor,), ()
        return (ins.tile, ins.index), (), (), (ins.tensor,)
    if t is TGatherRow:  # writes a region of its tile: the other bytes pass through (read and written)
        return (ins.dst,), (ins.dst,), (ins.tensor,), ()
    if t is SRead:
        return (), (), (ins.tensor,), ()
    if t is SWrite:
        return (), (), (), (ins.tensor,)
    if t is SSetVal:
        return (), (ins.dst,), (), ()
    if t is SGetVal:
        return (ins.src,), (), (), ()
    own = getattr(ins, "accesses", None)  # instructions declared beside their lowering (backend/cross_core.py)
    return own() if own is not None else ((), (), (), ())


# ------------------------------------------------------------------------------------------------
# kernels and programs
# ------------------------------------------------------------------------------------------------


@dataclass
class PTOKernel:
    name: str
    func_type: str  # "InCore" | "AIC" | "AIV"
    tensors: tuple[TensorParam, ...]
    scalars: tuple[str, ...]  # scalar parameter registers, in parameter order
    params: tuple[str, ...]  # every parameter name in order
    buffers: dict[str, Buffer]
    body: tuple[Instr, ...]
    returns: tuple[str, ...] = ()  # tensor names returned (in return order)
    block_dim: int | None = None  # a kernel-level launch size that overrides the caller's
    # kernel-private GM scratch: each block gets its own zero-filled copy, invisible to the caller
    workspaces: tuple[TensorParam, ...] = ()

    def __getstate__(self) -> dict:
        # the simulator's per-target caches (``_sim_*``, sim/machine.py) hold op definitions with closures: not
        # part of the kernel, rebuilt on the next run (a saved artefact, compiled.save, pickles the kernel)
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_sim_")}

    def text(self) -> str:
        lines = [f"kernel @{self.name} ({self.func_type}) {{"]
        for t in self.tensors:
            lines.append(f"  param @{t.name}: {t.direction} tensor{list(t.shape)} {t.dtype.name.lower()}")
        for t in self.workspaces:
            lines.append(f"  workspace @{t.name}: tensor{list(t.shape)} {t.dtype.name.lower()} (per block)")
        for s in self.scalars:
            lines.append(f"  param ${s}: scalar")
        for b in self.buffers.values():
            lines.append(f"  buffer %{b.name}: {b.describe()}")
        _emit_body(self.body, lines, 1)
        lines.append("}")
        return "\n".join(lines)


def _emit_body(body: tuple[Instr, ...], lines: list[str], depth: int) -> None:
    pad = "  " * depth
    for ins in body:
        lines.append(pad + ins.text())
        if isinstance(ins, (For, While)) or isinstance(getattr(ins, "body", None), tuple):
            _emit_body(ins.body, lines, depth + 1)
        elif isinstance(ins, If):
            _emit_body(ins.then_body, lines, depth + 1)
            if ins.else_body:
                lines.append(pad + "else:")
                _emit_body(ins.else_body, lines, depth + 1)


@dataclass(frozen=True)
class Launch:
    """One kernel launch of an orchestration: kernel name and, per kernel parameter, the program-level
    tensor (or scalar expression) bound to it."""

    kernel: str
    bindings: tuple[tuple[str, Any], ...]  # kernel param -> program tensor name (str) or SExpr
    # the orchestration's scalar code before this launch, in order: ``(register, SExpr)`` assignments and
    # ``HostRead`` element reads of GM tensors (``pl.tensor.read`` on the orchestration side)
    host: tuple[Any, ...] = ()
    #: GM tensors bound by this launch that ``pl.dump_tag`` / ``dumps=`` marked: dumped before and after it when
    #: the run asks for dumps (``RunConfig(enable_dump_args=1)``, runtime/dfx.py)
    dumps: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostRead:
    """An orchestration-side read of one GM tensor element into a host register (e.g. a block-table entry)."""

    reg: str
    tensor: str
    indices: tuple[SExpr, ...]

    def text(self) -> str:
        return f"${self.reg} = hread @{self.tensor}{_offs(self.indices)}"


@dataclass
class PTOProgram:
    name: str
    target: str
    kernels: dict[str, PTOKernel]
    entry: str
    # When the entry is an orchestration function: its tensor parameters and the launch sequence.
    orchestration: tuple[Launch, ...] | None = None
    entry_tensors: tuple[TensorParam, ...] = ()
    entry_scalars: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    # GM tensors the orchestration creates (``tensor.create``; zero-filled, direction "Local") and the
    # returned tensors that are not Out parameters: (output name, GM tensor name).
    entry_locals: tuple[TensorParam, ...] = ()
    entry_returns: tuple[tuple[str, str], ...] = ()

    @property
    def entry_kernel(self) -> PTOKernel | None:
        return self.kernels.get(self.entry)

    def text(self) -> str:
        lines = [f"// PTO program {self.name} for {self.target}, entry @{self.entry}"]
        if self.orchestration is not None:
            lines.append(f"orchestration @{self.entry} {{")
            for t in self.entry_locals:
                lines.append(f"  alloc @{t.name}: tensor{list(t.shape)} {t.dtype.name.lower()}")
            for launch in self.orchestration:
                for step in launch.host:
                    lines.append(f"  {step.text()}" if isinstance(step, HostRead) else f"  ${step[0]} = {step[1]}")
                binds = ", ".join(f"{k}=@{v}" if isinstance(v, str) else f"{k}={v}" for k, v in launch.bindings)
                dumps = f" dump[{', '.join('@' + d for d in launch.dumps)}]" if launch.dumps else ""
                lines.append(f"  launch @{launch.kernel}({binds}){dumps}")
            for out_name, tensor in self.entry_returns:
                lines.append(f"  return @{tensor} as {out_name}")
            lines.append("}")
        for k in self.kernels.values():
            lines.append(k.text())
        return "\n".join(lines) + "\n"
