"""PyPTO's ``pypto.ir.compiled_program`` (a face module): it is ``tilefold.compat.compiled_program``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.compiled_program")
