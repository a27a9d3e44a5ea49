"""PyPTO's ``pypto.ir.compiled_program`` (a face module): it is ``tilefold.compat.compiled_program``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import compiled_program as _implementation

sys.modules[__name__] = _implementation
