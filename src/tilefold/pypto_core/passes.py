"""PyPTO's ``pypto_core.passes`` (a face module): it is ``tilefold.compat.passes``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.passes")
