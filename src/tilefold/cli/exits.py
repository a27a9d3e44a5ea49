"""The ``tilefold`` command's exit codes, and the error a command raises for a bad command line.

Contract: ``EXIT_OK`` .. ``EXIT_INTERNAL`` are the only codes a command returns (``EXIT_CODES`` is their help
text, shown under every ``--help``). A command raises ``UsageError`` for a bad command line found after argument
parsing (exit 1); a ``TilefoldError`` is the user's mistake in a program or its inputs (exit 2). ``main`` in
``tilefold.cli`` maps exceptions to codes.
"""

from __future__ import annotations

EXIT_OK, EXIT_USAGE, EXIT_USER, EXIT_MISMATCH, EXIT_INTERNAL = 0, 1, 2, 3, 4

EXIT_CODES = """exit codes:
  0  success (run: the device result matches the golden reference)
  1  usage error: bad command line, unknown pass / op / benchmark name
  2  user error: the program or its inputs are wrong (located message with a hint, no traceback)
  3  tilefold run: mismatch or device fault (the evidence examples with --skip-pass exit 3 on purpose)
  4  internal error: a tilefold bug (rerun with --traceback)"""


class UsageError(Exception):
    """A bad command line detected after argument parsing (e.g. an unknown pass name)."""
