"""``python -m tilefold.cli``: the same as the ``tilefold`` command (e.g. ``python -m tilefold.cli ops --markdown``)."""

import sys

from tilefold.cli import main

sys.exit(main())
