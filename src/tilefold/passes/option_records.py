"""The option records of the passes and of the pipeline: typed fields, each with a default and a one-line doc.

Each pass that takes options has its record here (its module re-exports it; its factory's keywords are the
record's fields and are checked through ``tilefold.passes.options.parse_options``). The records live below
``passes.base`` because the pass context carries the pipeline's record: ``PipelineOptions`` is the union of the
passes' records (one field, one declaration), so an option a pass declares is a pipeline option too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from tilefold.errors import TilefoldError
from tilefold.passes.options import option
from tilefold.targets import Target

CustomOpPolicy = Literal["split", "limit-module"]


@dataclass(frozen=True)
class TargetOptions:
    """A record whose knob is the chip the pass plans for (the base of the records below)."""

    OWNER: ClassVar[str] = "the pass"

    target: Target | None = option(None, "the target chip (a name or Target); None: the default target")


@dataclass(frozen=True)
class AutoTileMatmulL0Options(TargetOptions):
    """AutoTileMatmulL0: the target's cost parameters price the candidates; ``tile_sizes`` forces one."""

    OWNER: ClassVar[str] = "AutoTileMatmulL0"

    tile_sizes: tuple[int, int, int] | None = option(
        None, "force these (m, n, k) L0 tile sizes for every matmul the pass considers; None: choose by cost")

    def __post_init__(self) -> None:
        if self.tile_sizes is not None and min(self.tile_sizes) < 1:
            raise TilefoldError(f"option tile_sizes of {self.OWNER} takes positive sizes, got {list(self.tile_sizes)}",
                                hint="force (m, n, k) sizes of at least 1 each (multiples of the fractal, e.g. "
                                     "tile_sizes=64,64,64), or leave tile_sizes unset to choose by cost")


@dataclass(frozen=True)
class InferTileMemorySpaceOptions(TargetOptions):
    """InferTileMemorySpace: the target's data paths decide where a move can be inserted."""

    OWNER: ClassVar[str] = "InferTileMemorySpace"


@dataclass(frozen=True)
class TileAndBindSubBlockOptions:
    """TileAndBindSubBlock (factory keywords; pipeline and PassContext options of the same name)."""

    OWNER: ClassVar[str] = "TileAndBindSubBlock"

    enable_auto_bind_sub_block: bool = option(
        True, "split AIV work across the two vector sub-blocks; False: split nothing, limit stores to sub-block 0")
    custom_op_policy: CustomOpPolicy | None = option(
        None, "'split' custom ops that pass the checks, or 'limit-module' (no AIV function of a module with a "
              "custom op is split); None: the PassContext's (default 'split')")


@dataclass(frozen=True)
class InitMemRefOptions(TargetOptions):
    """InitMemRef: the target's memories and alignments size every MemRef."""

    OWNER: ClassVar[str] = "InitMemRef"


@dataclass(frozen=True)
class AllocateMemoryAddrOptions(TargetOptions):
    """AllocateMemoryAddr: the target's memory sizes and alignments bound the addresses."""

    OWNER: ClassVar[str] = "AllocateMemoryAddr"


@dataclass(frozen=True)
class ConvertTensorToTileOpsOptions(TargetOptions):
    """ConvertTensorToTileOps: the target's on-chip capacities size the tiles of a tensor-level program."""

    OWNER: ClassVar[str] = "ConvertTensorToTileOps"


@dataclass(frozen=True)
class PipelineOptions(TileAndBindSubBlockOptions, AutoTileMatmulL0Options, InferTileMemorySpaceOptions,
                      InitMemRefOptions, AllocateMemoryAddrOptions, ConvertTensorToTileOpsOptions):
    """The options of the pass pipeline and of a ``PassContext``: every field of every pass record above
    (``target``, ``tile_sizes``, ``enable_auto_bind_sub_block``, ``custom_op_policy``)."""

    OWNER: ClassVar[str] = "the pass pipeline"


__all__ = ["AllocateMemoryAddrOptions", "AutoTileMatmulL0Options", "ConvertTensorToTileOpsOptions", "CustomOpPolicy",
           "InferTileMemorySpaceOptions", "InitMemRefOptions", "PipelineOptions", "TargetOptions",
           "TileAndBindSubBlockOptions"]
