"""``tilefold opt FILE``: parse a program, run the named passes, print the IR (and remarks).

Contract: ``cmd_opt(args)`` runs exactly the passes of ``--passes`` (``default`` = the default tile pipeline,
``test-*`` = the verifier's fault injectors) under a ``PassContext`` with the requested instruments
(``--verify`` / ``--verify-properties``, ``--round-trip``, ``--print-after-all``), writes the final IR to stdout or
``-o FILE`` and returns ``EXIT_OK``. An unknown pass or property is a ``UsageError``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tilefold.cli.arguments import (
    PASSES_HINT,
    check_target,
    ir_properties,
    pipeline_options,
    properties_hint,
    split_list,
)
from tilefold.cli.exits import EXIT_OK, UsageError
from tilefold.cli.output import ir_text, print_remarks, print_stage
from tilefold.cli.programs import parse_program_or_jit


def _pass_manager(names: Sequence[str], options: dict[str, Any]):
    """Passes by CLI name; ``test-*`` names are the verifier's fault-injection passes (testing aids that
    break one IR property on purpose, see ``tilefold.passes.verifier.fault_injection_pass``)."""
    from tilefold.passes.pass_manager import PassManager
    from tilefold.passes.pipeline import get_pass
    from tilefold.passes.verifier import fault_injection_pass, fault_injection_pass_names

    passes = []
    for name in names:
        if name in fault_injection_pass_names():
            passes.append(fault_injection_pass(name))
        else:
            passes.append(get_pass(name, **options))
    return PassManager(passes, name="opt")


def _expand_default(names: list[str]) -> list[str]:
    """``default`` in a pass list stands for the default tile pipeline (``pipeline.DEFAULT_ORDER``)."""
    if "default" not in names:
        return names
    from tilefold.passes.pipeline import DEFAULT_ORDER

    out: list[str] = []
    for name in names:
        out.extend(DEFAULT_ORDER if name == "default" else (name,))
    return out


def cmd_opt(args: argparse.Namespace) -> int:
    from tilefold.passes.pass_manager import DumpInstrument, PassContext, VerificationInstrument
    from tilefold.passes.remarks import collect_remarks
    from tilefold.passes.verifier import ALL_VERIFIABLE, verify_properties
    from tilefold.testing.round_trip import RoundTripInstrument

    names = _expand_default(split_list(args.passes, "--passes", PASSES_HINT))
    options = pipeline_options(args)
    target = check_target(args.target)
    if target is not None:
        options["target"] = target
    try:
        manager = _pass_manager(names, options)
    except KeyError as exc:
        raise UsageError(exc.args[0] if exc.args else str(exc)) from None

    explicit = (ir_properties(split_list(args.verify_properties, "--verify-properties", properties_hint()))
                if args.verify_properties is not None else None)
    program = parse_program_or_jit(args, tile_level=True)
    verify = args.verify or explicit is not None
    instruments = []
    if verify:
        instruments.append(VerificationInstrument(properties=explicit))
        if not names:
            props = explicit if explicit is not None else list(ALL_VERIFIABLE)
            verify_properties(program, props, context="input program")
    if args.round_trip:
        instruments.append(RoundTripInstrument(check_input=True))
    if args.print_after_all:
        instruments.append(DumpInstrument(sys.stdout))
        if not names:  # no pass runs: the only stage is the input
            print_stage("input", program)

    with collect_remarks() as remarks, PassContext(instruments, options=options):
        result = manager.run(program)
    if explicit is not None and names:
        verify_properties(result, explicit, context=f"after the last pass ({manager.passes[-1].name})")
    if args.round_trip and not names:
        from tilefold.testing.round_trip import round_trip_check

        round_trip_check(result, "round trip of the input program")
    for p in manager.passes:  # passes may also expose remarks on the pass object
        for r in getattr(p, "remarks", None) or ():
            if r not in remarks:
                remarks.append(r)

    text = ir_text(result)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n")
    elif not args.print_after_all:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    # with --print-after-all (and no -o) the last dump above already is the final IR: not printed twice
    if args.remarks:
        print_remarks(remarks)
    return EXIT_OK
