"""PyPTO's ``ir.compiled_program``: the handle ``ir.compile`` returns (tilefold's ``CompiledProgram``)."""

from __future__ import annotations

from typing import Any

from tilefold.compiler import CompiledProgram
from tilefold.errors import NotSupportedError


def __getattr__(name: str) -> Any:
    if name == "DistributedCompiledProgram":
        raise NotSupportedError("DistributedCompiledProgram is not on the simulator: tilefold simulates one chip",
                                hint="compile a single-chip program with ir.compile")
    raise AttributeError(f"module 'tilefold.ir.compiled_program' has no attribute {name!r}")


__all__ = ["CompiledProgram"]
