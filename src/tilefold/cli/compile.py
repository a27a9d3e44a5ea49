"""``tilefold compile FILE``: the default pipeline and codegen; print the final IR or the PTO program.

Contract: ``cmd_compile(args)`` compiles with ``tilefold.compiler.compile`` (``--target``, ``--skip-pass``,
``--codegen``, ``--entry``, pipeline options), prints ``--emit ir|pto`` (with ``--print-after-all``: the input and
the IR after every pass first) and returns ``EXIT_OK``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tilefold.cli.arguments import pipeline_options, skip_passes
from tilefold.cli.exits import EXIT_OK
from tilefold.cli.output import ir_text, print_remarks, print_stage
from tilefold.cli.programs import entry_function, parse_program_or_jit


def cmd_compile(args: argparse.Namespace) -> int:
    from tilefold.compiler import compile as compile_fn
    from tilefold.passes.remarks import collect_remarks

    program = parse_program_or_jit(args)
    kwargs: dict[str, Any] = {"skip_passes": skip_passes(args), "options": pipeline_options(args)}
    if args.target:
        kwargs["target"] = args.target
    if args.codegen:
        kwargs["codegen"] = args.codegen
    if args.entry:
        from tilefold.testing.harness import reference_program

        # a jit program's kernels are named by the outlining the pipeline does: the entry is one of those
        kwargs["entry"] = entry_function(reference_program(program), args.entry).name
    if args.print_after_all:
        from tilefold.passes.pass_manager import DumpInstrument, PassContext

        print_stage("input", program)
        # the pipeline's passes run through the current PassContext: the dump instrument sees every one
        with collect_remarks() as remarks, PassContext([DumpInstrument(sys.stdout)],
                                                        options=dict(kwargs["options"])):
            compiled = compile_fn(program, **kwargs)
        sys.stdout.write(f"# ----- output ({args.emit}) -----\n")
    else:
        with collect_remarks() as remarks:
            compiled = compile_fn(program, **kwargs)
    text = ir_text(compiled.ir) if args.emit == "ir" else compiled.pto.text()
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.remarks:
        print_remarks(remarks)
    return EXIT_OK
