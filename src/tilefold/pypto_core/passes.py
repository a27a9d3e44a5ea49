"""PyPTO's ``pypto_core.passes`` (a face module): it is ``tilefold.compat.passes``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import passes as _implementation

sys.modules[__name__] = _implementation
