"""PyPTO's ``pypto.ir.instruments`` (a face module): it is ``tilefold.compat.instruments``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.instruments")
