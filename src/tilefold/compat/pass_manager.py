"""PyPTO's ``ir.pass_manager``: ``PassManager.get_strategy(OptimizationStrategy.Default).run_passes(program)`` runs
tilefold's default tile pipeline. ``tilefold.ir.pass_manager`` (PyPTO's path) forwards here."""

from __future__ import annotations

import enum
from typing import Any

from tilefold.ir.stmt import Program


class OptimizationStrategy(enum.Enum):
    Default = "Default"


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

    def run_passes(self, program: Program, *, target: Any = None, **_dump: Any) -> Program:
        """The program after the tensor-level passes and the default tile pipeline."""
        from tilefold.backend.backend_type import get_backend_type
        from tilefold.compiler import run_pipeline
        from tilefold.runtime.jit_compile import to_tile_program

        tgt = target or get_backend_type().value
        out, _ = run_pipeline(to_tile_program(program), tgt)
        return out


__all__ = ["OptimizationStrategy", "PassManager"]
