"""``python -m tilefold`` runs the ``tilefold`` command."""

import sys

from tilefold.cli import main

sys.exit(main())
