"""The compile driver: the default tile pipeline, then PTO codegen.

``compile(program, target="Ascend910B", skip_passes=(), options={}, codegen="strict") -> CompiledProgram``
runs the default tile pipeline (``tilefold.passes.default_tile_pipeline``) and lowers the result to a PTO
program (``CompiledProgram.pto``, printable with ``.text()``). The result is a plain record: nothing here runs
it (``tilefold.runtime`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tilefold.backend.codegen import InternalCheckError, generate
from tilefold.backend.pto import PTOProgram
from tilefold.ir.stmt import Program
from tilefold.passes.pipeline import pipeline_for, pipeline_options
from tilefold.targets import Target, get_target, list_targets
from tilefold.util.gc import no_gc


@dataclass
class CompiledProgram:
    """What compiling gave: the post-pass IR (``ir``), the PTO program (``pto``), its target and the passes that
    ran. A plain record: running it is the runtime's (``tilefold.runtime.CompiledKernel`` wraps one with PyPTO's
    handle members and ``__call__``)."""

    ir: Program | None  # the program after the pass pipeline (memory planned); None after from_dir
    pto: PTOProgram
    target: Target
    passes: tuple[str, ...] = ()  # names of the passes that ran
    program: Program | None = None

    def __post_init__(self) -> None:
        if self.program is None:
            self.program = self.ir

    def text(self) -> str:
        return self.pto.text()


@no_gc()
def _target_of(target: str | Target | None, options: Any) -> Target:
    """The chip to compile for: ``target``, else the ``target`` pipeline option, else Ascend910B (a
    contradiction between the two is refused by ``pipeline_options``)."""
    if target is None:
        target = pipeline_options(None, options).target
    return get_target(target if target is not None else "Ascend910B")


def run_pipeline(program: Program, target: str | Target | None = None, skip_passes: tuple[str, ...] = (),
                 options: Mapping[str, Any] | None = None) -> tuple[Program, tuple[str, ...]]:
    # The IR is immutable and acyclic: reference counting frees it, while the cyclic collector would rescan
    # every live IR node on each full collection (more than half the compile time of a 64k-statement kernel).
    tgt = _target_of(target, options)
    passes = pipeline_for(program, tgt, options, skip_passes=tuple(skip_passes))
    for p in passes:
        program = p(program)
    return program, tuple(p.name for p in passes)


def compile(program: Program, target: str | Target | None = None, skip_passes: tuple[str, ...] = (),  # noqa: A001
            options: Mapping[str, Any] | None = None, codegen: str = "strict",
            entry: str | None = None) -> CompiledProgram:
    """Run the default tile pipeline on ``program`` and lower it to PTO for ``target``.

    The input is first checked for reads of uninitialised tiles (``tile.create`` results read before
    anything wrote them; ``tilefold.analysis.uninitialized_reads``): a ``VerificationError`` names the read.
    """
    from tilefold.analysis.uninitialized_reads import check_uninitialized_reads

    with no_gc():  # as in run_pipeline: the collector would only rescan the acyclic IR
        check_uninitialized_reads(program)
        tgt = _target_of(target, options)
        ir, names = run_pipeline(program, tgt, skip_passes, options)
        pto = generate(ir, tgt, codegen, entry=entry)
    return CompiledProgram(ir, pto, tgt, names)


__all__ = ["CompiledProgram", "InternalCheckError", "Target", "compile", "generate", "get_target",
           "list_targets", "run_pipeline"]
