"""The command line: one argparse sub-parser per command, each bound to its ``cmd_*`` function.

Contract: ``build_parser()`` declares every command and option (shared ones through ``arguments``); ``Parser``
exits with the documented usage code 1 (argparse's own 2 means a user error here). Every sub-command accepts
``--traceback`` and shows the exit codes under ``--help``.
"""

from __future__ import annotations

import argparse
import sys

from tilefold.cli.arguments import (
    CODEGEN_HELP,
    ENTRY_HELP,
    MAX_BLOCK_DIM,
    add_jit_flags,
    add_pipeline_flags,
    block_dim_arg,
    nonempty,
    seed_arg,
)
from tilefold.cli.bench import cmd_bench
from tilefold.cli.catalog import cmd_ops, cmd_passes
from tilefold.cli.compile import cmd_compile
from tilefold.cli.demo import cmd_demo
from tilefold.cli.exits import EXIT_CODES, EXIT_USAGE
from tilefold.cli.mlir_opt import cmd_mlir_opt
from tilefold.cli.opt import cmd_opt
from tilefold.cli.run import cmd_run


class Parser(argparse.ArgumentParser):
    """argparse with the documented usage exit code (1; argparse's own is 2, which means a user error here)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from tilefold import __version__

    parser = Parser(prog="tilefold", description="tilefold: a tile-level kernel compiler for Ascend-style NPUs",
                    epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"tilefold {__version__}")
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks of errors (debugging)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("opt", help="parse a pl file, run passes, print the IR")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--passes", metavar="a,b,...",
                   help="comma-separated pass CLI names (see `tilefold passes`); `default` = the default tile "
                        "pipeline; an empty item is an error (leave the option out to run no pass)")
    p.add_argument("--print-after-all", action="store_true", help="print the IR after every pass")
    p.add_argument("--verify", action="store_true",
                   help="verify IR properties: the input (when no passes are given) and each pass's required / "
                        "produced properties")
    p.add_argument("--verify-properties", metavar="P,...",
                   help="verify exactly these properties (implies --verify; e.g. SSAForm,TileOps2D): on the input "
                        "when no passes are given, else around every pass and on the final IR")
    p.add_argument("--round-trip", action="store_true", help="print + re-parse + compare the IR after every pass")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the IR")
    p.add_argument("-o", "--output", metavar="FILE", type=nonempty("-o/--output"),
                   help="write the IR to FILE instead of stdout")
    add_jit_flags(p)
    add_pipeline_flags(p, skip=False)
    p.set_defaults(func=cmd_opt)

    p = sub.add_parser("compile", help="compile a pl file with the default pipeline")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--emit", choices=("ir", "pto"), default="pto", help="what to print (default: pto)")
    p.add_argument("--codegen", choices=("strict", "faithful"), default=None, help=CODEGEN_HELP)
    p.add_argument("--entry", metavar="NAME", type=nonempty("--entry"), help=ENTRY_HELP)
    p.add_argument("--print-after-all", action="store_true",
                   help="print the input IR and the IR after every pass of the pipeline, then the output")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the output")
    add_jit_flags(p)
    add_pipeline_flags(p)
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("run", help="compile, simulate and compare against the golden reference")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--inputs", default="random", metavar="random|FILE.npz", type=nonempty("--inputs"),
                   help="random inputs (default) or an .npz file with one array per parameter")
    p.add_argument("--codegen", choices=("strict", "faithful"), default="strict", help=CODEGEN_HELP)
    p.add_argument("--entry", metavar="NAME", type=nonempty("--entry"), help=ENTRY_HELP)
    p.add_argument("--block-dim", type=block_dim_arg, default=1, metavar="N",
                   help=f"number of blocks (cores) to launch: 1 to {MAX_BLOCK_DIM} (the simulation budget)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the random inputs (an integer >= 0)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", type=nonempty("--set"),
                   help="value of a scalar parameter of the entry function (unset scalars are random in [0, 4))")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the result table")
    p.add_argument("--kernels", action="append", metavar="FILE.py|examples", type=nonempty("--kernels"),
                   help="register custom-op kernels first: a Python file calling tilefold.register_custom_op, "
                        "or 'examples' for the example programs' reference kernels")
    p.add_argument("--trace", metavar="OUT.json", type=nonempty("--trace"),
                   help="write the pipe timelines as Chrome trace-event / Perfetto JSON")
    p.add_argument("--timeline", metavar="OUT.png", type=nonempty("--timeline"),
                   help="draw the pipe timelines (needs tilefold[plot])")
    p.add_argument("--dump-args", type=int, choices=(1, 2), default=0, metavar="1|2",
                   help="write tensor dumps: 1 the pl.dump_tag / dumps= tensors, 2 every task's tensors, before and "
                        "after each task (docs/runtime.md)")
    p.add_argument("--dump-dir", default="dfx_outputs/args_dump", metavar="DIR", type=nonempty("--dump-dir"),
                   help="where --dump-args writes (default: dfx_outputs/args_dump)")
    p.add_argument("--max-steps", type=int, default=None, metavar="N",
                   help="stop a run after N steps: golden statements and loop iterations, simulated instructions "
                        "(default 1,000,000 each)")
    add_jit_flags(p)
    add_pipeline_flags(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("mlir-opt", add_help=False,
                       help="read HIVM MLIR, run -hivm-bind-sub-block, print MLIR (docs/mlir.md)")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: cmd_mlir_opt(a.args))

    p = sub.add_parser("bench", help="run the benchmarks in benchmarks/ (all take several minutes; "
                                     "`tilefold bench NAME` runs one) with single-threaded BLAS")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--plot", action="store_true", help="benchmarks that support it also write NAME.png of their table")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("demo", help="run the main job: compile, simulate and verify the example kernels")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("passes", help="list the passes and the default pipeline")
    p.set_defaults(func=cmd_passes)

    p = sub.add_parser("ops", help="list the registered ops with their signature and registry facts")
    p.add_argument("name", nargs="?", metavar="NAME", type=nonempty("NAME"), help="one op (e.g. tile.slice or slice)")
    p.add_argument("--markdown", action="store_true", help="print the docs/ops.md reference page")
    p.set_defaults(func=cmd_ops)
    for command in sub.choices.values():  # --traceback is accepted after the sub-command too
        command.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS,
                             help="show Python tracebacks of errors (debugging)")
        command.epilog, command.formatter_class = EXIT_CODES, argparse.RawDescriptionHelpFormatter
    return parser
