"""PyPTO's ``pypto.runtime.tensor_spec`` (a face module): it is ``tilefold.compat.tensor_spec``.
Nothing inside tilefold imports it."""

import sys

from tilefold.compat import tensor_spec as _implementation

sys.modules[__name__] = _implementation
