"""PyPTO's ``pypto.runtime.runner`` (a face module): it is ``tilefold.compat.runner``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import runner as _implementation

sys.modules[__name__] = _implementation
