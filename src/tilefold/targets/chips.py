"""Target descriptions: the chips tilefold compiles for, as data.

A ``Target`` carries everything memory planning, codegen and the simulator need to know about a chip:
core counts, the capacity and allocation alignment of every on-chip memory space, the Acc (L0C) fractal
layout, the data paths the DMA / copy engines support, and the cost parameters the simulator prices
instructions with. Variants differ only in data (``Ascend910C`` lacks the Mat->Mat path, ``Ascend950``
has a larger L0C and UB, another clock, GM bandwidth and cube rates); no code path tests a target name.

Time model facts (docs/backend.md has the table with each number's source): every core has the pipes of
``Pipe``; each data path runs on one pipe (``PATH_PIPES``); the clock converts cycles to time; the GM
bandwidth (``gm_bytes_per_cycle``) is shared by every core transferring at the same moment, each core's
own DMA engine capped at its path's ``bytes_per_cycle``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from tilefold.errors import NotSupportedError
from tilefold.ir.types import MemorySpace
from tilefold.targets.costs import Price, price_instruction
from tilefold.targets.costs import table as cost_table

KIB = 1024

Mem = MemorySpace


class Pipe(enum.Enum):
    """The instruction pipes of one core (one queue each; instructions on one pipe run in order)."""

    S = "S"  # scalar unit: address arithmetic, loop control, instruction issue
    MTE2 = "MTE2"  # GM -> L1 / UB
    MTE1 = "MTE1"  # L1 -> L0A / L0B / bias table
    CUBE = "CUBE"  # matrix unit (M)
    VECTOR = "VECTOR"  # vector unit (V)
    FIXPIPE = "FIXPIPE"  # L0C -> GM / UB
    MTE3 = "MTE3"  # UB -> GM


#: lane order of traces and reports (PyPTO's L0 trace order, then the scalar pipe)
PIPE_ORDER: tuple[Pipe, ...] = (Pipe.MTE2, Pipe.MTE1, Pipe.CUBE, Pipe.VECTOR, Pipe.FIXPIPE, Pipe.MTE3, Pipe.S)

#: which pipe moves the data of each path (the hardware engines of the Ascend AI core)
PATH_PIPES: dict[tuple[MemorySpace, MemorySpace], Pipe] = {
    (Mem.DDR, Mem.Mat): Pipe.MTE2, (Mem.DDR, Mem.Vec): Pipe.MTE2,
    (Mem.Mat, Mem.Left): Pipe.MTE1, (Mem.Mat, Mem.Right): Pipe.MTE1, (Mem.Mat, Mem.Bias): Pipe.MTE1,
    (Mem.Mat, Mem.Mat): Pipe.MTE1,
    (Mem.Vec, Mem.Vec): Pipe.VECTOR,  # UB -> UB copies are vector-pipe instructions
    (Mem.Acc, Mem.DDR): Pipe.FIXPIPE, (Mem.Acc, Mem.Vec): Pipe.FIXPIPE,
    (Mem.Vec, Mem.DDR): Pipe.MTE3,
}


@dataclass(frozen=True)
class PathCost:
    """Cost of moving bytes along one data path: ``latency + bytes / bytes_per_cycle`` cycles."""

    bytes_per_cycle: float
    latency: int


@dataclass(frozen=True)
class CostModel:
    """How a target prices instructions: its measured cost table (``targets/costs_a2a3.py`` or ``costs_a5.py``,
    applied by ``targets/costs.py``) and the scalar unit's price. Vector, cube and data-path prices all come
    from the table; the cube fields below are the table's cube formula, read by the matmul tiling pass."""

    table_name: str = "a2a3"  # "a2a3" (Ascend910B / 910C) or "a5" (Ascend950)
    scalar_op: int = 1  # one scalar ALU operation (assumed)
    cube_fractals_per_cycle: float = 1.0  # at 16-bit (and 8-bit) inputs: one fractal per cycle

    @property
    def table(self):
        return cost_table(self.table_name)

    @property
    def cube_fractal(self) -> tuple[int, int, int]:
        c = self.table.module.CUBE
        return (c["fractal_m"], c["k_row_bytes"] // 2, c["fractal_n"])  # k depth at 16-bit inputs

    @property
    def cube_startup(self) -> int:
        return self.table.module.CUBE["startup"]

    @property
    def cube_rate_by_dtype(self) -> dict[str, float]:
        return {"FP32": 1.0 / self.table.module.CUBE["fp32_factor"]}


@dataclass(frozen=True)
class Target:
    name: str
    num_aic: int
    aiv_per_aic: int
    memory_sizes: dict[MemorySpace, int]
    alignment: dict[MemorySpace, int]
    data_paths: frozenset[tuple[MemorySpace, MemorySpace]]
    costs: CostModel
    acc_fractal: tuple[int, int] = (16, 16)  # rows, cols of one NZ fractal in Acc
    vector_base_alignment: int = 32  # every vector operand base must be aligned to this (bytes)
    clock_ghz: float = 1.8  # AI core clock: cycles per nanosecond
    gm_bytes_per_cycle: float = 889.0  # chip GM (HBM) bandwidth shared by all cores, bytes per core cycle
    launch_overhead_cycles: int = 0  # fixed cost of one kernel launch before the first block starts
    cube_mx: bool = False  # the cube runs MX block-scale matmuls (FP8E4M3FN data, E8M0 scales): Ascend950 only
    # the cross-core pipe's ring of slot_num slots is in GM and the consumer's buffer holds local_slot_num of them
    # (PyPTO dev/00-python_syntax: "a3 -> slot_size * local_slot_num, a5 -> slot_size * slot_num")
    cross_core_gm_ring: bool = True

    def cycles_to_us(self, cycles: float) -> float:
        return cycles / (self.clock_ghz * 1000.0)

    def path_pipe(self, src: MemorySpace, dst: MemorySpace) -> Pipe:
        return PATH_PIPES.get((src, dst), Pipe.MTE2 if src is Mem.DDR else Pipe.MTE3)

    @property
    def num_aiv(self) -> int:
        return self.num_aic * self.aiv_per_aic

    def core_of_block(self, block_idx: int) -> int:
        """The cluster (AIC core and its AIVs) block ``block_idx`` of a launch runs on: blocks are dealt round
        the clusters, so blocks ``b`` and ``b + num_aic`` share one and run one after another on it."""
        return block_idx % self.num_aic

    def capacity(self, space: MemorySpace) -> int:
        try:
            return self.memory_sizes[space]
        except KeyError:
            raise NotSupportedError(f"target {self.name} has no on-chip memory space {space.name}") from None

    def align(self, space: MemorySpace) -> int:
        return self.alignment.get(space, 32)

    def supports_path(self, src: MemorySpace, dst: MemorySpace) -> bool:
        return (src, dst) in self.data_paths

    def path_cost(self, src: MemorySpace, dst: MemorySpace) -> PathCost:
        """Bytes per cycle and latency (per contiguous block) of the ``src -> dst`` path, from the cost table."""
        bpc, lat, _, _ = self.costs.table.path(src.name, dst.name)
        return PathCost(bpc, int(lat))

    def acc_fractal_bytes(self, itemsize: int) -> int:
        return self.acc_fractal[0] * self.acc_fractal[1] * itemsize

    def with_changes(self, **changes) -> Target:
        return replace(self, **changes)


_BASE_PATHS = frozenset({
    (Mem.DDR, Mem.Mat), (Mem.DDR, Mem.Vec),
    (Mem.Mat, Mem.Left), (Mem.Mat, Mem.Right), (Mem.Mat, Mem.Bias), (Mem.Mat, Mem.Mat),
    (Mem.Vec, Mem.Vec),
    (Mem.Acc, Mem.DDR), (Mem.Vec, Mem.DDR),
})

#: one kernel launch before the first block starts, per target: the one constant fitted to the seed's softmax
#: tables (section 4.4, 910B2 / 950PR) by ``benchmarks/sub_block.py --calibrate`` together with the softmax
#: custom ops' declared costs (docs/backend.md has the fit)
LAUNCH_OVERHEAD = {"Ascend910B": 13_145, "Ascend950": 3_363}

_ALIGN = {Mem.Vec: 32, Mem.Mat: 32, Mem.Left: 32, Mem.Right: 32, Mem.Acc: 512, Mem.Bias: 64}

ASCEND_910B = Target(
    name="Ascend910B",
    num_aic=24,
    aiv_per_aic=2,
    memory_sizes={Mem.Mat: 512 * KIB, Mem.Left: 64 * KIB, Mem.Right: 64 * KIB, Mem.Acc: 128 * KIB,
                  Mem.Vec: 192 * KIB, Mem.Bias: 1 * KIB},
    alignment=dict(_ALIGN),
    data_paths=_BASE_PATHS,
    costs=CostModel(table_name="a2a3"),
    clock_ghz=1.8,
    gm_bytes_per_cycle=1.6e12 / 1.8e9,  # 1.6 TB/s HBM at 1.8 GHz
    launch_overhead_cycles=LAUNCH_OVERHEAD["Ascend910B"],
)

# 910C: one die of the dual-die package, priced like a 910B die, but no L1 -> L1 copy path (the #2010-class
# Mat hazard traps here); its HBM is 3.2 TB/s for two dies, 1.6 TB/s per die.
ASCEND_910C = replace(ASCEND_910B, name="Ascend910C", data_paths=_BASE_PATHS - {(Mem.Mat, Mem.Mat)})

# 950: 256 KiB L0C, 248 KiB usable UB, a real L0C -> UB path, FP8 on the cube at twice the FP16 rate
# (the itemsize rule gives the 2x), 1.6 TB/s HBM (950PR), a faster launch (fitted on the seed's 950PR table).
ASCEND_950 = replace(
    ASCEND_910B,
    name="Ascend950",
    memory_sizes={**ASCEND_910B.memory_sizes, Mem.Acc: 256 * KIB, Mem.Vec: 248 * KIB},
    data_paths=_BASE_PATHS | {(Mem.Acc, Mem.Vec)},
    costs=CostModel(table_name="a5"),
    clock_ghz=1.8,
    gm_bytes_per_cycle=1.6e12 / 1.8e9,
    launch_overhead_cycles=LAUNCH_OVERHEAD["Ascend950"],
    cube_mx=True,  # PyPTO's language/00-types: the MX matmul path is Ascend950's
    cross_core_gm_ring=False,  # the ring's slot_num slots are in the consumer's buffer
)

# Which on-chip memories a kernel of each function type can reach (GM is always reachable). An AIV kernel
# runs on one vector sub-block and sees that sub-block's Vec only; an AIC kernel runs on the cube and sees
# the cube memories; an InCore kernel owns the whole core (cube memories plus sub-block 0's Vec).
CUBE_SPACES = frozenset({Mem.Mat, Mem.Left, Mem.Right, Mem.Acc, Mem.Bias})
KERNEL_MEMORY_SPACES: dict[str, frozenset[MemorySpace]] = {
    "AIV": frozenset({Mem.Vec}),
    "AIC": CUBE_SPACES,
    "InCore": CUBE_SPACES | {Mem.Vec},
}


def kernel_memory_spaces(func_type: str) -> frozenset[MemorySpace]:
    """The on-chip memory spaces a kernel of ``func_type`` ("InCore", "AIC", "AIV") may use."""
    return KERNEL_MEMORY_SPACES.get(func_type, KERNEL_MEMORY_SPACES["InCore"])


def unit_isolation_hint(func_type: str) -> str:
    if func_type == "AIV":
        return ("an AIV kernel runs on one vector sub-block and sees only its own Vec (and GM): put the cube "
                "work (Mat / Left / Right / Acc tiles, matmul) in an AIC kernel, or write an InCore kernel")
    if func_type == "AIC":
        return ("an AIC kernel runs on the cube and sees only Mat, Left, Right, Acc, Bias (and GM): put the "
                "vector work (Vec tiles) in an AIV kernel, or write an InCore kernel")
    return "an InCore kernel sees the core's cube memories and sub-block 0's Vec"


def path_hint(target: Target, src: MemorySpace, dst: MemorySpace) -> str:
    """How to get data from ``src`` to ``dst`` on ``target`` when there is no direct path."""
    if src is dst is Mem.Mat:
        return ("a Mat -> Mat (L1 -> L1) copy comes from materializing a Mat subview; run CanonicalizeTileSlice "
                "so the consumer reads the source tile directly (tile.extract to Left / Right)")
    if src is Mem.Vec and dst in (Mem.Mat, Mem.Left, Mem.Right):
        then = "" if dst is Mem.Mat else f", then pl.tile.extract it to {dst.name}"
        return (f"{target.name} has no UB -> L1 path: store the tile to a GM tensor (pl.store) and load it into "
                f"Mat (pl.tile.load(..., target_memory=pl.Mem.Mat)){then}")
    if src is Mem.Acc and dst is Mem.Vec:
        return (f"{target.name} has no L0C -> UB path: store the Acc tile to a GM tensor (pl.store) and load "
                "it into Vec")
    via = [m for m in (Mem.Mat, Mem.Vec, Mem.DDR) if target.supports_path(src, m) and target.supports_path(m, dst)]
    if via:
        return f"move the data through {via[0].name} ({src.name} -> {via[0].name} -> {dst.name})"
    return "move the data through GM: store the tile (pl.store) and load it into the destination space"


TARGETS: dict[str, Target] = {t.name: t for t in (ASCEND_910B, ASCEND_910C, ASCEND_950)}
DEFAULT_TARGET = "Ascend910B"


def get_target(name: str | Target | None = None) -> Target:
    """The target called ``name`` (case-insensitive); a ``Target`` passes through; None = default."""
    if isinstance(name, Target):
        return name
    if name is None:
        name = DEFAULT_TARGET
    for key, target in TARGETS.items():
        if key.lower() == str(name).lower():
            return target
    raise NotSupportedError(f"unknown target {name!r}", hint=f"known targets: {', '.join(sorted(TARGETS))}")


def instruction_cycles(op: str, dtypes, shape, valid_shape=None, target: str | Target | None = "Ascend910B", *,
                       blocks: int = 1, variant: str | None = None) -> Price:
    """The price of one PTO instruction on ``target``, as the simulator charges it.

    ``op``: a PTO mnemonic (``"TADDS"``) or its lower-case form (``tilefold.sim.instruction_cycles`` also takes a
    tilefold op name). ``dtypes``: one dtype, or ``(src, dst)`` (``TCVT``; matmul: the operand dtype).
    ``shape``: the tile's ``(rows, cols)``; for ``TMATMUL`` ``(m, k, n)``. ``valid_shape``: the valid
    ``(rows, cols)`` (default: the whole tile; valid cols below cols make the tile strided). ``TLOAD`` /
    ``TSTORE`` / ``TMOV`` are the GM -> UB, UB -> GM and UB -> UB transfers of the valid region, ``blocks`` its
    contiguous blocks (1 for a 2-D window). ``variant``: an implementation variant (``"high_precision"`` of
    TRECIP). Returns a ``Price`` (cycles, pipe, origin, the rule used)."""
    return price_instruction(get_target(target).costs.table, op, dtypes, shape, valid_shape, blocks=blocks,
                             variant=variant)


def list_targets() -> list[str]:
    return sorted(TARGETS)


__all__ = ["PATH_PIPES", "PIPE_ORDER", "Pipe",
           "ASCEND_910B", "ASCEND_910C", "ASCEND_950", "CUBE_SPACES", "DEFAULT_TARGET", "KERNEL_MEMORY_SPACES",
           "KIB", "LAUNCH_OVERHEAD", "CostModel", "Mem", "PathCost", "Price", "TARGETS", "Target", "get_target",
           "instruction_cycles",
           "kernel_memory_spaces", "list_targets", "path_hint", "unit_isolation_hint"]
