"""PyPTO's ``ir.pass_manager``: ``PassManager.get_strategy(OptimizationStrategy.Default).run_passes(program)`` runs
tilefold's pipeline (the tensor-level passes, then the default tile pipeline) through the active ``PassContext``,
at the requested verification level. ``tilefold.ir.pass_manager`` (PyPTO's path) and ``tilefold.ir.PassManager``
forward here; so do ``tilefold.ir.PassDumpLevel`` and ``tilefold.ir.VerificationLevel``."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

from tilefold.compat.passes import CompatPass, VerificationLevel, as_compat_pass, run_verified
from tilefold.ir.stmt import Program
from tilefold.passes.pass_manager import PassDumpLevel


class OptimizationStrategy(enum.Enum):
    Default = "Default"


def _target(target: Any) -> str:
    from tilefold.backend.backend_type import get_backend_type

    if target is None:
        return get_backend_type().value
    return target if isinstance(target, str) else getattr(target, "value", getattr(target, "name", target))


class PassManager:
    def __init__(self, strategy: OptimizationStrategy = OptimizationStrategy.Default) -> None:
        self.strategy = strategy

    @staticmethod
    def get_strategy(strategy: OptimizationStrategy = OptimizationStrategy.Default) -> PassManager:
        if not isinstance(strategy, OptimizationStrategy):
            from tilefold.errors import TilefoldError

            raise TilefoldError(f"unknown optimization strategy {strategy!r}",
                                hint="OptimizationStrategy.Default is the only strategy")
        return PassManager(strategy)

    @staticmethod
    def passes_for(target: Any = None) -> list[CompatPass]:
        """The strategy's passes for ``target``: OutlineIncoreScopes, ConvertTensorToTileOps (no-ops on a tile
        program), then tilefold's default tile pipeline."""
        from tilefold.passes.pipeline import default_tile_pipeline
        from tilefold.passes.tensor_lowering import tensor_level_passes

        tgt = _target(target)
        return [as_compat_pass(p) for p in (*tensor_level_passes(tgt), *default_tile_pipeline(tgt))]

    @property
    def passes(self) -> list[CompatPass]:
        return self.passes_for()

    @property
    def pass_names(self) -> list[str]:
        return [p.name for p in self.passes]

    def get_pass_names(self) -> list[str]:
        return self.pass_names

    def run_passes(self, program: Program, dump_ir: Any = False, output_dir: str | Path | None = None,
                   prefix: str = "", *, target: Any = None) -> Program:
        """The program after the strategy's passes. ``dump_ir`` (a bool or ``PassDumpLevel``) with ``output_dir``
        writes each pass's IR to ``<output_dir>/<prefix>NN_after_<Pass>.py``."""
        from tilefold.errors import TilefoldError
        from tilefold.passes.pass_manager import DumpInstrument, added_instruments, dump_level, write_pass_dumps

        level = dump_level(dump_ir, "run_passes(dump_ir)")
        if level is not PassDumpLevel.NONE and output_dir is None:
            raise TilefoldError("run_passes(dump_ir=...) needs output_dir= to write the dumps to",
                                hint="run_passes(program, dump_ir=True, output_dir='build/passes_dump')")
        dump = DumpInstrument()
        with added_instruments([dump] if level is not PassDumpLevel.NONE else []):
            out = run_verified(self.passes_for(target), program)
        if level is not PassDumpLevel.NONE:
            write_pass_dumps(dump.dumps, output_dir, prefix)
        return out


__all__ = ["OptimizationStrategy", "PassDumpLevel", "PassManager", "VerificationLevel"]
