"""Arguments shared by several commands: list options, targets, pipeline options, properties, seeds.

Contract: every function here checks one kind of command-line value and either returns it in the form the
compiler takes or raises ``UsageError`` (a bad command line, exit 1) / ``TilefoldError`` (exit 2) naming the
option and what it accepts. ``add_pipeline_flags`` / ``add_jit_flags`` declare the options that ``opt``,
``compile`` and ``run`` share, so each is declared once.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from tilefold.cli.exits import UsageError
from tilefold.errors import TilefoldError


def split_list(text: str | None, option: str, hint: str) -> list[str]:
    """The items of a comma-separated list option (none when the option is not given). An empty item (``,,``, a
    leading / trailing comma, an empty value) is a usage error, not a shorter list: ``--passes ,,,`` would run no
    pass without a word."""
    if text is None:
        return []
    items = [item.strip() for item in text.split(",")]
    if "" in items:
        what = ("names nothing" if not any(items) else
                f"has an empty item (item {items.index('') + 1} of {len(items)})")
        raise UsageError(f"{option} {text!r} {what}\nhint: {hint}")
    return items


PASSES_HINT = ("name the passes separated by single commas, e.g. --passes tile-and-bind-sub-block,init-mem-ref; "
               "`tilefold passes` lists their CLI names (`default` = the default tile pipeline); leave --passes out "
               "to run no pass")


def properties_hint() -> str:
    from tilefold.passes.base import IRProperty

    return ("name the properties separated by single commas, e.g. --verify-properties SSAForm,TileOps2D; known: "
            + ", ".join(p.value for p in IRProperty))


def check_target(name: str | None):
    """Validate a target name; return what passes should receive."""
    if name is None:
        return None
    from tilefold.targets import get_target

    return get_target(name)


def pipeline_options(args: argparse.Namespace) -> dict[str, Any]:
    """The pipeline options of the command line: ``--pass-option NAME=VALUE`` items (checked against
    ``PipelineOptions``), then the dedicated flags, which win."""
    from tilefold.passes.option_records import PipelineOptions
    from tilefold.passes.options import parse_assignments

    options: dict[str, Any] = parse_assignments(PipelineOptions, getattr(args, "pass_option", None) or [],
                                                origin="--pass-option")
    # a target given as a pass option is the command's target: compile, codegen and the simulator must all
    # use the chip the passes planned for, so it moves to --target (and two different targets are an error)
    option_target = options.pop("target", None)
    if option_target is not None:
        name = getattr(option_target, "name", option_target)
        given = getattr(args, "target", None)
        if given and str(given) != str(name):
            raise UsageError(f"--pass-option target={name} contradicts --target {given}; give the target once "
                             "(--target NAME)")
        args.target = name
    flag = getattr(args, "enable_auto_bind_sub_block", None)
    if flag is not None:
        options["enable_auto_bind_sub_block"] = flag
    if getattr(args, "custom_op_policy", None) is not None:
        options["custom_op_policy"] = args.custom_op_policy
    if hasattr(args, "target"):
        args.target = target_name(args.target)
    return options


def target_name(text: str | None) -> str | None:
    """``--target``: None (the default chip) or the canonical name of a known target (names are
    case-insensitive). An empty name or an unknown one is refused with the list of known targets, never
    taken for the default."""
    if text is None:
        return None
    from tilefold.targets import DEFAULT_TARGET, TARGETS, get_target

    known = ", ".join(sorted(TARGETS))
    hint = f"known targets: {known} (case-insensitive); leave --target out for the default, {DEFAULT_TARGET}"
    if not str(text).strip():
        raise TilefoldError(f"--target {text!r} is empty: it names no target", hint=hint)
    try:
        return get_target(text).name
    except TilefoldError:
        raise TilefoldError(f"--target {text!r}: unknown target", hint=hint) from None


def ir_properties(names: Sequence[str]):
    from tilefold.passes.base import IRProperty

    out = []
    for name in names:
        match = [p for p in IRProperty if p.value.lower() == name.lower() or p.name.lower() == name.lower()]
        if not match:
            raise UsageError(f"unknown IR property {name!r}; known: {', '.join(p.value for p in IRProperty)}")
        out.append(match[0])
    return out


def skip_passes(args: argparse.Namespace) -> tuple[str, ...]:
    """The --skip-pass names, checked here: an unknown name is a bad command line (exit 1), not a user error."""
    names = tuple(args.skip_pass or ())
    if names:
        from tilefold.passes.pipeline import default_tile_pipeline

        try:  # the pipeline owns the list of names it accepts and the message
            default_tile_pipeline(skip_passes=names)
        except TilefoldError as exc:
            raise UsageError(f"{exc.message}\nhint: {exc.hint}" if exc.hint else exc.message) from None
    return names


#: the largest ``--block-dim`` ``tilefold run`` launches. The simulator and the golden reference run every block
#: of a launch in turn, so a run's time grows with the count (about 5 ms per block of a one-tile kernel; 100,000
#: blocks ran for minutes). 4096 blocks is 170 rounds of Ascend910B's 24 clusters, past any launch the examples
#: and benchmarks use; a larger grid is a simulation budget question, not a chip limit.
MAX_BLOCK_DIM = 4096


def block_dim_arg(text: str) -> int:
    """``--block-dim``: the number of blocks of the launch, an integer from 1 to ``MAX_BLOCK_DIM``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer: give a number of blocks from 1 "
                                         f"to {MAX_BLOCK_DIM}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of blocks: give 1 to "
                                         f"{MAX_BLOCK_DIM}")
    if value > MAX_BLOCK_DIM:
        raise argparse.ArgumentTypeError(f"{value} is above the simulation budget of {MAX_BLOCK_DIM} "
                                         "blocks (every block is simulated in turn): run the kernel on a smaller "
                                         "grid")
    return value


def nonempty(option: str):
    """An argparse ``type`` for a name or path option: the value as given, or a usage error when it is empty
    (an empty ``-o`` / ``--trace`` / ``--dump-dir`` / ``--entry`` ... would otherwise be taken as "not given", or as
    the current directory)."""

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{text!r} is empty: give a name or a path, or leave {option} out")
        return text

    return check


def seed_arg(text: str) -> int:
    """``--seed``: a non-negative integer (numpy's generators refuse negative seeds deep inside)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed {text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed {value} is negative: give an integer >= 0")
    return value


CODEGEN_HELP = ("strict (default): refuse lowerings known to be unsafe; faithful: lower like upstream PyPTO, "
                "hazards included (to reproduce its bugs on the simulator)")


ENTRY_HELP = ("the function to compile / run (default: the Orchestration function, else the only kernel); "
              "needed when a program has several kernels and no Orchestration function")


def add_pipeline_flags(p: argparse.ArgumentParser, skip: bool = True) -> None:
    p.add_argument("--target", metavar="NAME", help="target chip (Ascend910B, Ascend910C, Ascend950)")
    p.add_argument("--enable-auto-bind-sub-block", action=argparse.BooleanOptionalAction, default=None,
                   help="split AIV work across the two vector sub-blocks (default: on)")
    p.add_argument("--custom-op-policy", choices=("split", "limit-module"), default=None,
                   help="sub-block split of custom ops: 'split' those that pass the checks (default) or "
                        "'limit-module' (upstream master: no AIV function of a module with a custom op is split)")
    p.add_argument("--pass-option", action="append", metavar="NAME=VALUE", type=nonempty("--pass-option"),
                   help="a pipeline option by name (tilefold passes lists them with their types), e.g. "
                        "tile_sizes=96,112,96; repeatable")
    if skip:
        p.add_argument("--skip-pass", action="append", metavar="NAME", type=nonempty("--skip-pass"),
                       help="leave a pass out of the default pipeline (pass name or CLI name); repeatable")


def add_jit_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", metavar="NAME", type=nonempty("--kernel"),
                   help="the @pl.jit entry (files of jit kernels)")
    p.add_argument("--shape", action="append", metavar="NAME=16x128[:fp16]", type=nonempty("--shape"),
                   help="shape (and dtype) of a bare pl.Tensor parameter of a jit kernel, or of a parameter with "
                        "pl.dynamic extents (their values are read from it, as a call reads them from the arrays)")
