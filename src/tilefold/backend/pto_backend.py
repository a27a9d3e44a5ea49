"""PyPTO's ``pypto.backend.pto_backend`` (a face module): it is ``tilefold.compat.pto_backend``.
Nothing inside tilefold imports it."""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("tilefold.compat.pto_backend")
