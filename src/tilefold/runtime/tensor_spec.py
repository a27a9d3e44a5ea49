"""PyPTO's ``pypto.runtime.tensor_spec`` (a face module): it is ``tilefold.compat.tensor_spec``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.tensor_spec")
