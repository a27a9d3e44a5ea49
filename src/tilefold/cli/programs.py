"""The program a command works on: read a ``@pl.program`` / ``@pl.jit`` file, pick the entry function.

Contract: ``parse_program_file`` parses (never executes) a ``.py`` file and refuses a missing path or a
directory with a ``TilefoldError``; ``parse_program_or_jit`` also accepts a file of ``@pl.jit`` kernels
(``--kernel``, ``--shape``); ``entry_function`` returns the function ``--entry`` names, else the Orchestration
function, else the only kernel, and otherwise refuses with the list of functions.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tilefold.errors import TilefoldError


def parse_program_file(path: str):
    from tilefold.language import parse_file

    hint = "give the path of a .py file with a @pl.program class"
    if not Path(path).exists():
        raise TilefoldError(f"cannot read {path!r}: no such file", hint=hint)
    if not Path(path).is_file():
        raise TilefoldError(f"cannot read {path!r}: not a regular file", hint=hint)
    try:
        return parse_file(path)
    except (UnicodeDecodeError, OSError) as exc:
        raise TilefoldError(f"cannot read {path!r}: {exc}", hint=hint) from None


def parse_program_or_jit(args: argparse.Namespace, tile_level: bool = False):
    """The program of ``args.file``: a ``@pl.program`` file, or one ``@pl.jit`` entry of a jit file (``--kernel``,
    ``--shape`` as for ``tilefold run``) as parsed (the pipeline outlines its scopes); ``tile_level``: lowered to
    tile ops too (what the tile passes of ``tilefold opt`` take)."""
    from tilefold.cli_jit import is_jit_file, parse_jit_file

    if not is_jit_file(args.file):
        return parse_program_file(args.file)
    program = parse_jit_file(args.file, getattr(args, "kernel", None), getattr(args, "shape", None) or [])
    if tile_level:
        from tilefold.runtime.jit_compile import to_tile_program

        program = to_tile_program(program, type("Config", (), {"target": getattr(args, "target", None)})())
    return program


def entry_function(program, name: str | None = None):
    from tilefold.ir.stmt import FunctionType

    names = [f.name for f in program.functions]
    if not names:
        raise TilefoldError(f"program {program.name!r} has no functions", span=program.span,
                            hint="add a method decorated with @pl.function(type=pl.FunctionType.InCore) (a kernel) "
                                 "or an Orchestration function")
    if name is not None:
        for f in program.functions:
            if f.name == name:
                return f
        import difflib

        close = difflib.get_close_matches(name, names, n=1)
        raise TilefoldError(f"--entry {name}: program {program.name!r} has no function {name!r}", span=program.span,
                            hint=(f"did you mean {close[0]!r}? " if close else "")
                            + f"its functions: {', '.join(names)}")
    orch = [f for f in program.functions if f.func_type is FunctionType.Orchestration]
    if orch:
        return orch[0]
    kernels = [f for f in program.functions if f.func_type.is_incore]
    if len(kernels) == 1:
        return kernels[0]
    if len(program.functions) == 1:
        return program.functions[0]
    raise TilefoldError(f"program {program.name!r} has no Orchestration function and "
                        f"{len(kernels)} kernels; cannot tell which one to run", span=program.span,
                        hint=f"choose one with --entry NAME ({', '.join(names)}), or add an Orchestration "
                             "function that calls the kernels")
