"""``tilefold run FILE``: compile, simulate, run the golden reference, compare; print the result table.

Contract: ``cmd_run(args)`` runs a ``@pl.program`` file, an HIVM ``.mlir`` file or a file of ``@pl.jit`` kernels
on ``--inputs`` (``run_inputs``), writes the requested traces / timelines / tensor dumps, prints one result table
and returns ``EXIT_OK`` on a match, ``EXIT_MISMATCH`` on a mismatch or a device fault.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from tilefold.cli.arguments import pipeline_options, skip_passes
from tilefold.cli.exits import EXIT_MISMATCH, EXIT_OK, UsageError
from tilefold.cli.kernels import check_custom_kernels, register_kernels
from tilefold.cli.output import fmt_cell, fmt_cycles, fmt_mismatch, plain_table, print_remarks, split_evidence
from tilefold.cli.programs import entry_function, parse_program_file
from tilefold.cli.run_inputs import make_inputs, scalar_for
from tilefold.errors import TilefoldError
from tilefold.terminal import key_value_table, status


def _write_timelines(args: argparse.Namespace, sim: Any) -> None:
    """--trace / --timeline: the pipe timelines of the run, for Perfetto or as a picture."""
    if sim is None or not (args.trace or args.timeline):
        return
    from tilefold.sim.trace import plot_timeline, write_trace

    if args.trace:
        print(f"trace written to {write_trace(sim, args.trace)} (open it in https://ui.perfetto.dev)")
    if args.timeline:
        print(f"timeline written to {plot_timeline(sim, args.timeline)}")


def _write_dumps(args: argparse.Namespace, sim: Any) -> None:
    """--dump-args 1|2: the tensor dumps of the run (``tilefold.runtime.dfx.write_arg_dumps``) in --dump-dir."""
    if sim is None or not args.dump_args:
        return
    from tilefold.runtime.dfx import write_arg_dumps

    where = write_arg_dumps(sim, Path(args.dump_dir), args.dump_args)
    print(f"tensor dumps written to {where} ({len(sim.dumps)} record(s), index.json lists them)")


def cmd_run(args: argparse.Namespace) -> int:
    from tilefold.ir.types import ScalarType
    from tilefold.passes.remarks import collect_remarks

    register_kernels(args.kernels or ())
    from tilefold.cli_jit import is_jit_file, run_jit_file

    if is_jit_file(args.file):  # a file of @pl.jit kernels: --kernel picks one, --shape gives bare / dynamic shapes
        if args.inputs != "random":  # never silently run random values instead of the user's file
            raise UsageError(f"--inputs {args.inputs}: a @pl.jit file runs on random inputs of the --shape shapes "
                             "(--inputs FILE.npz is read for @pl.program files only); call the kernel from Python "
                             "with your arrays")
        if args.entry:
            raise UsageError(f"--entry {args.entry}: a @pl.jit file picks its kernel with --kernel NAME")
        options = pipeline_options(args)  # first: a --pass-option target becomes args.target
        with collect_remarks() as remarks:
            program, report = run_jit_file(args.file, args.kernel, args.shape or [], args.seed, args.target,
                                           args.block_dim, skip_passes(args), options,
                                           args.max_steps, args.set or [], scalar_for, codegen=args.codegen,
                                           dump_args=args.dump_args)
        _write_timelines(args, getattr(report, "sim", None))
        _write_dumps(args, getattr(report, "sim", None))
        fault = report.fault
        print(plain_table([("program", f"{program.name} ({args.file}, @pl.jit)"),
                           ("target", str(args.target or "Ascend910B")),
                           ("result", "MATCH" if report.matches else "DEVICE FAULT" if fault else "MISMATCH"),
                           ("fault", "-" if fault is None else f"{type(fault).__name__}: {fault}"),
                           ("max abs error", "-" if fault is not None else fmt_cell(report.max_abs_error)),
                           ("first mismatch", fmt_mismatch(report)), ("cycles", fmt_cycles(report.cycles))]))
        if args.remarks:
            print_remarks(remarks)
        return EXIT_OK if report.matches else EXIT_MISMATCH
    lowering = None  # an MLIR file's lowering: run-time errors are located back in the MLIR
    if str(args.file).endswith(".mlir"):  # an HIVM MLIR kernel (tilefold.mlir lowers its AIV function)
        from tilefold.mlir import load_lowering

        lowering, program = load_lowering(args.file, args.entry)
    else:
        program = parse_program_file(args.file)
    check_custom_kernels(program, args.kernels or ())
    running = contextlib.ExitStack()  # a spinner on a terminal while compiling and running; closed before printing
    running.enter_context(status(f"compiling, simulating and running the golden reference on {args.file}"))
    inputs = make_inputs(program, args.inputs, args.seed, args.set, args.entry)
    entry = entry_function(program, args.entry)
    scalars = {p.name: inputs.get(p.name) for p in entry.params if isinstance(p.type, ScalarType)}
    explicit = {item.split("=", 1)[0].strip() for item in args.set or ()}
    kwargs: dict[str, Any] = {
        "skip_passes": skip_passes(args),
        "codegen": args.codegen,
        "options": pipeline_options(args),
        "block_dim": args.block_dim,
    }
    if args.entry:
        kwargs["entry"] = entry.name
    if args.target:
        kwargs["target"] = args.target
    if args.max_steps is not None:
        kwargs["max_steps"] = args.max_steps
    if args.dump_args:
        kwargs["dump_args"] = args.dump_args
    with collect_remarks() as remarks:
        report = _run_located(program, inputs, kwargs, lowering)
    sim = getattr(report, "sim", None)
    _write_timelines(args, sim)
    _write_dumps(args, sim)
    fault = getattr(report, "fault", None)
    matches = bool(getattr(report, "matches", False))
    rows = [
        ("program", f"{program.name} ({args.file})"),
        ("target", str(args.target or "Ascend910B")),
        ("skipped passes", ", ".join(args.skip_pass or ()) or "-"),
        ("codegen", args.codegen),
        ("block dim", str(args.block_dim)),
        ("result", "MATCH" if matches else ("DEVICE FAULT" if fault is not None else "MISMATCH")),
        ("fault", "-" if fault is None else f"{type(fault).__name__}: {fault}"),
        ("max abs error", "-" if fault is not None else fmt_cell(getattr(report, "max_abs_error", None))),
        ("first mismatch", fmt_mismatch(report)),
        ("cycles", fmt_cycles(getattr(report, "cycles", None))),
        ("unit cycles", fmt_cycles(getattr(report, "unit_cycles", None))),
        ("time", "-" if sim is None else f"{sim.microseconds:.3f} us at {sim.target.clock_ghz:g} GHz"),
        ("launch", "-" if sim is None else f"{sim.launch_cycles:.0f} cycles (overhead), body "
                                            f"{sim.body_cycles:.0f} cycles"),
        ("utilisation", "-" if sim is None else "over the body: " + ", ".join(
            f"{p}={u:.0%}" for p, u in sim.pipe_utilisation().items() if u > 0) or "-"),
        ("critical pipe", "-" if sim is None else sim.critical_pipe()),
        ("scalars", ", ".join(f"{k}={v!r}" + ("" if k in explicit or args.inputs != "random" else " (random)")
                              for k, v in scalars.items()) or "-"),
        ("sub-block split", split_evidence(report)),
    ]
    running.close()
    text = key_value_table(rows)
    if text is not None:
        print(text)
    if args.remarks:
        print_remarks(remarks)
    return EXIT_OK if matches else EXIT_MISMATCH


def _run_located(program, inputs, kwargs: dict[str, Any], lowering):
    """run_and_compare, with errors and faults of an MLIR file's lowered text located at its MLIR ops."""
    from tilefold.testing import run_and_compare

    if lowering is None:
        return run_and_compare(program, inputs, **kwargs)
    from tilefold.mlir import relocate_to_mlir

    try:
        report = run_and_compare(program, inputs, **kwargs)
    except TilefoldError as exc:
        relocate_to_mlir(exc, lowering)
        raise
    if getattr(report, "fault", None) is not None:
        relocate_to_mlir(report.fault, lowering)
    return report
