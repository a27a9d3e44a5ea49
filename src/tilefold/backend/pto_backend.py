"""PyPTO's ``pypto.backend.pto_backend`` (a face module): it is ``tilefold.compat.pto_backend``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import pto_backend as _implementation

sys.modules[__name__] = _implementation
