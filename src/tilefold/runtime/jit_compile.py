"""The jit compile path: tensor-level passes, then the default tile pipeline and PTO codegen."""

from __future__ import annotations

from typing import Any

from tilefold.compiler import compile as compile_tile_program
from tilefold.compiler import run_pipeline
from tilefold.ir.stmt import Program
from tilefold.runtime.compiled import CompiledKernel
from tilefold.util.gc import no_gc


def tensor_passes(target: Any) -> list:
    from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import tensor_level_passes

    return tensor_level_passes(target)


@no_gc()  # as run_pipeline: the collector would only rescan the acyclic IR
def to_tile_program(program: Program, config: Any = None) -> Program:
    """The tile-level program of a tensor-level (jit) program: OutlineIncoreScopes, ConvertTensorToTileOps."""
    target = getattr(config, "target", None) or "Ascend910B"
    for p in tensor_passes(target):
        program = p(program)
    return program


def outlined(program: Program) -> Program:
    """The program after OutlineHierarchyScopes and OutlineIncoreScopes only: tensor ops inside InCore functions
    (what golden runs)."""
    from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes
    from tilefold.passes.tensor_lowering.outline_incore_scopes import outline_incore_scopes

    return outline_incore_scopes()(outline_hierarchy_scopes()(program))


def lower_program(program: Program, config: Any = None) -> Program:
    target = getattr(config, "target", None) or "Ascend910B"
    tile = to_tile_program(program, config)
    out, _ = run_pipeline(tile, target, tuple(getattr(config, "skip_passes", ()) or ()),
                          getattr(config, "pass_options", None) or {})
    return out


def compile_program(program: Program, config: Any = None) -> CompiledKernel:
    from tilefold.passes.pass_manager import DumpInstrument, PassDumpLevel, added_instruments, write_pass_dumps

    target = getattr(config, "target", None) or "Ascend910B"
    level = (getattr(config, "runtime", None) or {}).get("dump_passes") or PassDumpLevel.NONE
    dump = DumpInstrument()
    with added_instruments([dump] if level is not PassDumpLevel.NONE else []):
        tile = to_tile_program(program, config)
        compiled = CompiledKernel.of(compile_tile_program(tile, target,
                                                          tuple(getattr(config, "skip_passes", ()) or ()),
                                                          getattr(config, "pass_options", None) or {}))
    if level is not PassDumpLevel.NONE:  # RunConfig(dump_passes=...): <work_dir>/passes_dump/NN_after_<Pass>.py
        from tilefold.runtime.dfx import work_dir

        compiled.passes_dump = write_pass_dumps(dump.dumps, work_dir(config, compiled) / "passes_dump")
    compiled.source = program  # the tensor-level program the kernel was specialised into
    compiled.tile_program = tile
    compiled.program = compiled.ir  # PyPTO's name for the post-pass program
    compiled.as_python = compiled.ir.as_python  # compiled.as_python() prints it too
    compiled.config = config
    return compiled
