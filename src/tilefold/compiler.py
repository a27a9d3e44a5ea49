"""The compile driver: the default tile pipeline, then PTO codegen.

``compile(program, target="Ascend910B", skip_passes=(), options={}, codegen="strict") -> CompiledProgram``
runs the default tile pipeline (``tilefold.passes.default_tile_pipeline``) and lowers the result to a PTO
program (``CompiledProgram.pto``, printable with ``.text()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tilefold.backend.codegen import InternalCheckError, generate
from tilefold.backend.pto import PTOProgram
from tilefold.ir.stmt import Program
from tilefold.targets import Target, get_target, list_targets


@dataclass
class CompiledProgram:
    ir: Program  # the program after the pass pipeline (memory planned)
    pto: PTOProgram
    target: Target
    passes: tuple[str, ...] = ()  # names of the passes that ran

    def text(self) -> str:
        return self.pto.text()


def _pipeline(target: Target, skip_passes: tuple[str, ...], options: Mapping[str, Any]) -> list:
    from tilefold.passes import pipeline as pl_mod

    return pl_mod.default_tile_pipeline(target.name, skip_passes=tuple(skip_passes), **dict(options))


def run_pipeline(program: Program, target: str | Target = "Ascend910B", skip_passes: tuple[str, ...] = (),
                 options: Mapping[str, Any] | None = None) -> tuple[Program, tuple[str, ...]]:
    tgt = get_target(target)
    passes = _pipeline(tgt, tuple(skip_passes), options or {})
    from tilefold.passes.convert_tensor_to_tile_ops import is_tensor_level, tensor_level_passes

    if is_tensor_level(program):  # a @pl.jit program: scopes and tensor-level ops are lowered first
        passes = [*tensor_level_passes(tgt), *passes]
    for p in passes:
        program = p(program)
    return program, tuple(p.name for p in passes)


def compile(program: Program, target: str | Target = "Ascend910B", skip_passes: tuple[str, ...] = (),  # noqa: A001
            options: Mapping[str, Any] | None = None, codegen: str = "strict",
            entry: str | None = None) -> CompiledProgram:
    """Run the default tile pipeline on ``program`` and lower it to PTO for ``target``.

    The input is first checked for reads of uninitialised tiles (``tile.create`` results read before
    anything wrote them; ``tilefold.analysis.uninitialized_reads``): a ``VerificationError`` names the read.
    """
    import gc

    from tilefold.analysis.uninitialized_reads import check_uninitialized_reads

    # The IR is immutable and acyclic: reference counting frees it, while the cyclic collector would rescan
    # every live IR node on each full collection (more than half the compile time of a 64k-statement kernel).
    enabled = gc.isenabled()
    gc.disable()
    try:
        check_uninitialized_reads(program)
        tgt = get_target(target)
        ir, names = run_pipeline(program, tgt, skip_passes, options)
        pto = generate(ir, tgt, codegen, entry=entry)
    finally:
        if enabled:
            gc.enable()
    return CompiledProgram(ir, pto, tgt, names)


__all__ = ["CompiledProgram", "InternalCheckError", "Target", "compile", "generate", "get_target",
           "list_targets", "run_pipeline"]
