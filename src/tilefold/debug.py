"""PyPTO's ``pypto.debug`` (a face module): it is ``tilefold.compat.debug``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import debug as _implementation

sys.modules[__name__] = _implementation
