"""PyPTO's ``pypto.debug`` (a face module): it is ``tilefold.compat.debug``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.debug")
