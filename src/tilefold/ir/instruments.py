"""PyPTO's ``pypto.ir.instruments`` (a face module): it is ``tilefold.compat.instruments``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import instruments as _implementation

sys.modules[__name__] = _implementation
