"""The ``tilefold`` command (also ``python -m tilefold``).

Sub-commands::

    tilefold opt FILE.py [--passes a,b,...|default] [--print-after-all] [--verify] [--verify-properties P,...]
                         [--round-trip] [--remarks] [--target NAME] [--[no-]enable-auto-bind-sub-block]
                         [--pass-option NAME=VALUE]...   (also on compile and run; tilefold passes lists them)
    tilefold compile FILE.py --emit ir|pto [--target NAME] [--skip-pass NAME]... [--codegen strict|faithful]
                     [--print-after-all] [--remarks]
    tilefold run FILE.py --inputs random|FILE.npz [--target NAME] [--skip-pass NAME]... [--codegen ...]
                         [--block-dim N] [--[no-]enable-auto-bind-sub-block] [--seed N] [--set NAME=VALUE]...
                         [--kernels FILE.py|examples]... [--remarks]
    tilefold bench [NAMES...]      (single-threaded BLAS, like the benchmark scripts)
    tilefold demo
    tilefold passes
    tilefold ops [NAME] [--markdown]   (the op registry; --markdown writes docs/ops.md)

Exit codes (``EXIT_CODES``): 0 success; 1 a usage error (bad command line, unknown pass name); 2 a user
error (bad input, a failed verification, an unsupported program; reported as one paragraph from
``TilefoldError.render()``, never a traceback); 3 ``tilefold run`` found a mismatch or a device fault; 4 an
internal error (a bug: rerun with ``--traceback`` to see where).

Code: one module per command or command group, each with its contract in its docstring: ``opt``, ``compile``,
``run`` (with ``run_inputs`` and ``kernels``), ``bench``, ``catalog`` (``ops`` and ``passes``), ``demo``,
``mlir_opt``; shared pieces in ``arguments`` (options several commands take), ``programs`` (reading the input
file, choosing the entry function), ``output`` (printing and table cells), ``exits`` (exit codes, ``UsageError``)
and ``parser`` (``build_parser``: every command and option). ``main`` (here) maps errors to exit codes. Files of
``@pl.jit`` kernels on the command line are handled by ``tilefold.cli_jit``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from tilefold.cli.bench import BLAS_THREAD_VARS, benchmarks_dir
from tilefold.cli.catalog import op_facts, op_signature, ops_markdown
from tilefold.cli.exits import (
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_MISMATCH,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_USER,
    UsageError,
)
from tilefold.cli.mlir_opt import cmd_mlir_opt
from tilefold.cli.output import print_error
from tilefold.cli.parser import build_parser
from tilefold.errors import TilefoldError

__all__ = [
    "BLAS_THREAD_VARS",
    "EXIT_CODES",
    "EXIT_INTERNAL",
    "EXIT_MISMATCH",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_USER",
    "UsageError",
    "benchmarks_dir",
    "build_parser",
    "main",
    "op_facts",
    "op_signature",
    "ops_markdown",
]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mlir-opt"]:  # mlir-opt's own single-dash options (-split-input-file, ...): parsed there
        return cmd_mlir_opt(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with 2 on usage errors
    show_tb = args.traceback or bool(os.environ.get("TILEFOLD_TRACEBACK"))
    try:
        return args.func(args)
    except UsageError as exc:
        print_error(f"tilefold {args.command}: error: {exc}")
        return EXIT_USAGE
    except TilefoldError as exc:
        if show_tb:
            raise
        print_error(exc.render())
        from tilefold.sim.faults import DeviceFault

        return EXIT_MISMATCH if isinstance(exc, DeviceFault) else EXIT_USER  # a device fault is a run's result
    except (ValueError, KeyError, OSError) as exc:
        # errors a pass or loader raises on bad input (e.g. an unsupported Acc window is a ValueError)
        if show_tb:
            raise
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if isinstance(exc, OSError) and exc.filename is not None:  # a path of the command line: name it plainly
            text = (f"cannot use {exc.filename}: {exc.strerror}\nhint: check the path (its directory must exist; "
                    "--dump-dir names a directory, --trace / --timeline / -o a file)")
        print_error(f"error: {text}")
        return EXIT_USER
    except BrokenPipeError:  # `tilefold ops | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - last resort: a bug, reported without a traceback
        if show_tb:
            raise
        print_error(f"internal error: {type(exc).__name__}: {exc}\nhint: this is a tilefold bug; rerun with "
                    "--traceback to see where it happened")
        return EXIT_INTERNAL
