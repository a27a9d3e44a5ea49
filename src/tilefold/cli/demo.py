"""``tilefold demo``: the main job (``tilefold.demo``), compile, simulate and verify the example kernels.

Contract: ``cmd_demo(args)`` returns ``tilefold.demo.main()``'s exit code (``EXIT_OK`` when it returns none).
"""

from __future__ import annotations

import argparse

from tilefold.cli.exits import EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from tilefold.demo import main

    result = main()
    return int(result) if isinstance(result, int) else EXIT_OK
