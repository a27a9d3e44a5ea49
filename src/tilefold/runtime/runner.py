"""PyPTO's ``pypto.runtime.runner`` (a face module): it is ``tilefold.compat.runner``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.runner")
