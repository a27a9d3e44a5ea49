"""PyPTO's ``ir``-level entry points: ``ir.compile``, ``ir.serialize`` / ``ir.deserialize``.

They live above the whole compiler (``tilefold.ir`` forwards its ``compile`` / ``serialize`` / ``deserialize``
names here through one ``__getattr__``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tilefold.errors import NotSupportedError, PartialCodegenError, TilefoldError
from tilefold.ir.stmt import Program

#: PyPTO ``ir.compile`` options that have no effect on a simulator (accepted, ignored)
_NO_EFFECT = ("strategy", "skip_ptoas", "diagnostic_phase",
              "disabled_diagnostics", "profiling", "analyze_auto_scopes_for_deps", "emit_source_loc",
              "dump_ptoas_passes", "enable_pypto_l0c_double_buffer")
_REFUSED = {"distributed_config": "distributed (multi-card) programs"}


def _is_planned(program: Program) -> bool:
    from tilefold.ir.types import TileType
    from tilefold.ir.visitor import IRVisitor

    class _Find(IRVisitor):
        found = False
        unplanned = False

        def visit_Var(self, expr: Any) -> None:
            if isinstance(expr.type, TileType):
                if expr.type.memref is None or expr.type.memref.address is None:
                    self.unplanned = True
                else:
                    self.found = True

    # planned: every tile carries a MemRef with an address (a program that stopped half-way through the pipeline,
    # e.g. after InitMemRef alone, has MemRefs without addresses: it goes through the pipeline again)
    f = _Find()
    for fn in program.functions:
        f.visit_stmt(fn.body)
    return f.found and not f.unplanned


def compile(program: Any, *, output_dir: str | Path | None = None, backend_type: Any = None,  # noqa: A001
            platform: str | None = None, dump_passes: Any = None, verification_level: Any = None,
            **options: Any) -> Any:
    """Compile ``program`` (an ``ir.Program`` from ``@pl.program`` / ``pl.parse`` / ``kernel.lower(...)``, or a
    fully annotated ``@pl.jit`` kernel) for a target; returns a ``tilefold.runtime.CompiledKernel`` with
    ``.program`` and ``.output_dir`` (the PTO text and the program are written there when it is given).

    ``verification_level`` (``ir.VerificationLevel``; None: the active ``PassContext``'s, else
    ``PYPTO_VERIFY_LEVEL``, else none added) verifies each pass; ``dump_passes`` (a bool or ``ir.PassDumpLevel``)
    with ``output_dir`` writes ``<output_dir>/passes_dump/NN_after_<Pass>.py``."""
    from tilefold.compat.passes import VerificationLevel, automatic_instruments, requested_level
    from tilefold.passes.pass_manager import (
        DumpInstrument,
        PassDumpLevel,
        added_instruments,
        dump_level,
        write_pass_dumps,
    )

    if verification_level is not None and not isinstance(verification_level, VerificationLevel):
        raise TilefoldError(f"ir.compile(verification_level={verification_level!r}) is not a VerificationLevel",
                            hint="ir.VerificationLevel.NONE / BASIC / ROUNDTRIP, or None")
    level = dump_level(dump_passes, "ir.compile(dump_passes)") if dump_passes is not None else PassDumpLevel.NONE
    dumping = level is not PassDumpLevel.NONE and output_dir is not None  # PyPTO's default True: no dir, no dump
    dump = DumpInstrument()
    with added_instruments([*automatic_instruments(verification_level or requested_level()),
                            *([dump] if dumping else [])]):
        compiled = _compile(program, output_dir, backend_type, platform, options)
    if dumping:
        compiled.passes_dump = write_pass_dumps(dump.dumps, Path(output_dir) / "passes_dump")
    return compiled


def _compile(program: Any, output_dir: str | Path | None, backend_type: Any, platform: str | None,
             options: dict[str, Any]) -> Any:
    from tilefold.backend.backend_type import get_backend_type
    from tilefold.backend.codegen import generate
    from tilefold.compiler import compile as compile_program
    from tilefold.runtime.compiled import CompiledKernel
    from tilefold.targets import get_target

    planner = options.pop("memory_planner", None)
    if planner is not None and getattr(planner, "name", None) not in ("PYPTO", "PTOAS"):
        raise TilefoldError(f"ir.compile(memory_planner={planner!r}) is not a MemoryPlanner",
                            hint="passes.MemoryPlanner.PYPTO / .PTOAS (tilefold.pypto_core.passes), or None")
    # either planner: tilefold's AllocateMemoryAddr plans on-chip memory (there is no ptoas on the simulator);
    # the values computed do not depend on who assigned the addresses
    for k in options:
        if k in _REFUSED:
            raise NotSupportedError(f"ir.compile({k}=...): {_REFUSED[k]} are not supported by tilefold",
                                    hint=f"drop {k}=")
        if k not in _NO_EFFECT:
            raise TilefoldError(f"ir.compile got an unexpected keyword argument {k!r}",
                                hint="tilefold's ir.compile takes output_dir=, backend_type=, platform= and PyPTO's "
                                     "no-effect options " + ", ".join(_NO_EFFECT))
    from tilefold.backend.backend_type import BackendType

    if backend_type is not None and not isinstance(backend_type, BackendType):
        raise TilefoldError(f"ir.compile(backend_type={backend_type!r}) is not a BackendType",
                            hint="ir.compile(..., backend_type=BackendType.Ascend950) (tilefold.backend.BackendType: "
                                 + ", ".join(b.name for b in BackendType) + "), or platform='a5sim'")
    if output_dir is not None and (not isinstance(output_dir, (str, Path)) or "\0" in str(output_dir)):
        raise TilefoldError(f"ir.compile(output_dir={output_dir!r}) is not a directory path",
                            hint="give output_dir= as a path, or leave it out")
    if platform is not None:
        from tilefold.runtime import RunConfig

        target = RunConfig(platform=platform).target
    else:
        target = (backend_type or get_backend_type()).value
    if hasattr(program, "compile") and hasattr(program, "lower"):  # a @pl.jit kernel
        from tilefold.runtime import RunConfig

        compiled = program.compile(config=RunConfig(platform=target))
    elif not isinstance(program, Program):
        raise TilefoldError(f"ir.compile takes an ir.Program, got {type(program).__name__}",
                            hint="pass a @pl.program class, pl.parse(...) or kernel.lower(...)")
    elif _is_planned(program):  # already through the pipeline (kernel.lower): generate code only
        tgt = get_target(target)
        try:
            pto = generate(program, tgt)
        except TilefoldError as exc:
            raise PartialCodegenError(f"code generation failed: {exc.message}", span=exc.span,
                                      hint=exc.hint) from None
        compiled = CompiledKernel(program, pto, tgt, ())
    else:
        compiled = CompiledKernel.of(compile_program(program, target))
    compiled.program = compiled.ir
    compiled.output_dir = None
    if output_dir is not None:
        out = Path(output_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "program.pto").write_text(compiled.pto.text())
            (out / "program.py").write_text(compiled.ir.as_python())
        except OSError as exc:
            raise TilefoldError(f"ir.compile: cannot write to output_dir {str(out)!r}: {exc.strerror or exc}",
                                hint="give a directory you can create and write") from None
        compiled.output_dir = out
    return compiled


def serialize(program: Program) -> bytes:
    """The program as bytes (its ``pl`` text, which ``deserialize`` parses back to an equal program)."""
    from tilefold.frontend.printer import python_print

    return python_print(program).encode("utf-8")


def deserialize(data: bytes | str) -> Program:
    import tilefold.language as pl

    if not isinstance(data, (bytes, str)):
        raise TilefoldError(f"ir.deserialize takes the bytes ir.serialize wrote, got {type(data).__name__}",
                            hint="data = ir.serialize(program); program = ir.deserialize(data)")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise TilefoldError(f"ir.deserialize: the data is not UTF-8 text (byte {exc.start})",
                            hint="ir.serialize writes a program's pl text as UTF-8: pass those bytes back") from None
    return pl.parse(text, "<deserialize>")
