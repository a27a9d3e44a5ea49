"""``tilefold mlir-opt ARGS``: HIVM MLIR in, ``-hivm-bind-sub-block`` and friends, MLIR out (docs/mlir.md).

Contract: ``cmd_mlir_opt(argv)`` hands its arguments, unparsed, to ``tilefold.mlir.main`` (mlir-opt's own
single-dash options); without xDSL installed it says how to install it and returns ``EXIT_USER``.
"""

from __future__ import annotations

from tilefold.cli.exits import EXIT_USER
from tilefold.cli.output import print_error


def cmd_mlir_opt(argv: list[str]) -> int:
    try:
        from tilefold.mlir import main as mlir_main
    except ImportError as exc:  # xDSL missing
        print_error(f"error: tilefold mlir-opt needs xDSL ({exc.name} is not installed)\n"
                    "hint: pip install 'tilefold[mlir]'")
        return EXIT_USER
    return mlir_main(argv)
